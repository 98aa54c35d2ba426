"""The analyses derive has already done in this process, one cache per problem kind.

Every way in (the commands, the checker, the workbook) asks here, so a problem bound and
analysed once is not analysed again: the checker judging ten claims about one problem, or
``derive model`` and ``derive check MODEL`` in one process, share one analysis.

Thread safety: ``functools.lru_cache`` locks its bookkeeping; a problem analysed by two
threads at once is analysed twice, and both results are equal and immutable.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from derive.analysis.analyse import Analysis
    from derive.analysis.kernel_numbers import KernelNumbers
    from derive.declare.registry import Registry
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover, PhaseAnalysis
    from derive.problem.binding import ProblemSpec
    from derive.problem.kernel_spec import KernelSpec
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec
    from derive.problem.train_spec import TrainSpec
    from derive.training.analysis import StrategyRow, TrainingAnalysis


@lru_cache(maxsize=32)
def registry(operators: tuple[str, ...]) -> Registry:
    """The built-in operators and those of ``operators`` (Python files), loaded once."""
    from derive.declare.registry import load_registry

    return load_registry(tuple(Path(p) for p in operators))


@lru_cache(maxsize=256)
def operator_analysis(spec: ProblemSpec, operators: tuple[str, ...]) -> Analysis:
    """An operator problem, bound and analysed.

    Raises:
        DeriveError: the operator is unknown or the problem cannot be bound.
    """
    from derive.analysis.analyse import analyse
    from derive.problem.binding import bind

    if spec.shards:  # the winning strategy's operator, one device's share
        from derive.pipeline.shard import derive_book_sharded

        return derive_book_sharded(spec, registry(operators), spec.shards)[0].analysis
    from derive.pipeline.fusion_layers import with_layers

    return with_layers(analyse(bind(spec, registry(operators).get(spec.operator))), spec.layers)


@lru_cache(maxsize=64)
def kernel_analysis(spec: KernelSpec) -> KernelNumbers:
    """A kernel given by its numbers, derived.

    Raises:
        DeriveError: a count, a hardware number or a timing flag is not valid.
    """
    from derive.analysis.kernel_numbers import kernel_of

    return kernel_of(spec)


@lru_cache(maxsize=64)
def model_analysis(spec: ModelSpec, operators: tuple[str, ...]) -> ModelAnalysis:
    """A whole-model problem, bound and analysed.

    Raises:
        DeriveError: the model is unknown or the problem cannot be bound.
    """
    from derive.model.analysis import analyse_model
    from derive.model.binding import bind_model
    from derive.model.registry import load_models

    models = load_models(tuple(Path(p) for p in operators))
    return analyse_model(bind_model(spec, models.resolve(spec)))


@lru_cache(maxsize=64)
def serving_analysis(
    spec: ModelSpec, serving: ServingSpec, operators: tuple[str, ...]
) -> PhaseAnalysis:
    """One serving step (decode or prefill) of a whole-model problem.

    Raises:
        DeriveError: the step cannot be derived (a dim free, ``tp`` not dividing the devices, …).
    """
    from derive.model.phase import analyse_phase, parse_phase
    from derive.problem.timing import bind_timing

    problem = model_analysis(spec, operators).problem
    return analyse_phase(
        problem,
        parse_phase(serving.phase),
        serving.tp,
        bind_timing(serving.timing),
        convention=serving.convention,
        mesh=serving.mesh,
    )


@lru_cache(maxsize=64)
def decode_crossover_analysis(
    spec: ModelSpec, serving: ServingSpec, operators: tuple[str, ...]
) -> DecodeCrossover:
    """The decode crossover of a whole-model problem whose batch is free.

    Raises:
        DeriveError: the crossover cannot be derived (a model dim free, ``tp`` not dividing …).
    """
    from derive.model.phase import analyse_decode_crossover

    return analyse_decode_crossover(model_analysis(spec, operators).problem, serving.tp)


@lru_cache(maxsize=64)
def training_analysis(
    spec: ModelSpec, train: TrainSpec, operators: tuple[str, ...]
) -> TrainingAnalysis:
    """A training run of a whole-model problem (``derive train``, a set's ``train = {…}``).

    Raises:
        DeriveError: the run cannot be bound (a degree that does not split the model, …).
    """
    from derive.training.analysis import analyse_training
    from derive.training.binding import bind_training

    return analyse_training(bind_training(train, model_analysis(spec, operators)))


@lru_cache(maxsize=16)
def training_strategies(
    spec: ModelSpec, train: TrainSpec, operators: tuple[str, ...]
) -> tuple[tuple[StrategyRow, ...], StrategyRow | None]:
    """DP, FSDP, TP, FSDP+TP and PP on the run's devices and batch, and the winner."""
    from derive.training.analysis import compare_strategies

    return compare_strategies(training_analysis(spec, train, operators).problem)
