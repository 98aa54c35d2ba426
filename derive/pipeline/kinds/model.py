"""The model kind: a whole model (parameters, KV cache, memory fit, training totals)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind, Quantity
from derive.errors import ProblemError
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.pipeline.kinds.questions import (
    _items,
    _with_questions_json,
    answer_one,
    question_spec_of,
)
from derive.pipeline.kinds.surface import Worked
from derive.present.formats import Document
from derive.problem.sets.problem_set import MODEL_ASK_KEYS

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.pipeline.kinds.decode_crossover import DecodeCrossoverDerivation
    from derive.pipeline.kinds.serving import ServingDerivation
    from derive.problem.model_spec import ModelSpec
    from derive.questions.records import Questions


@dataclass(frozen=True, repr=False)
class ModelDerivation(Worked):
    """A derived whole model: the exact analysis, shown in Jupyter as its worked solution."""

    analysis: ModelAnalysis
    spec: ModelSpec | None = None
    """The problem as typed (``derive.check`` takes a model derivation as its problem)."""
    questions: Questions | None = None
    """Its given, defined and solved quantities (``given=``, ``define=``, ``equations=``)."""

    kind = ProblemKind.MODEL
    """A whole-model problem."""

    def document(self, title: str | None = None, text: str = "", level: int = 2) -> Document:
        """The worked solution as a document, for :func:`~derive.present.formats.render`."""
        from derive.present.model_view import model_document

        return model_document(self.analysis, title, text, level=level)

    def _roots(self) -> tuple[object, ...]:
        return ({made.key: made.value for made in self.analysis.quantities},)

    def _unit(self, row: Quantity) -> str:
        """Its unit as the model's report spells it (``parameters``, ``B``)."""
        from derive.model.records import unit_of

        return unit_of(row).value

    def _headline(self) -> str:
        name = self.spec.model if self.spec is not None and self.spec.model else "a model"
        return f"{name}; {super()._headline()}"

    def as_json(self) -> dict:
        """The JSON object of ``derive model --format json``."""
        from derive.present.model_view import model_json

        return _with_questions_json(model_json(self.analysis), self.questions)


def derive_model(spec: ModelSpec, operators: Sequence[str | Path] = ()) -> ModelDerivation:
    """A whole-model problem (the built-in models and those of ``operators``), derived (cached)."""
    from derive.pipeline.cache import model_analysis

    return ModelDerivation(model_analysis(spec, tuple(str(p) for p in operators)), spec)


def solve_model(
    model: str,
    *,
    chip: str | None = None,
    peak: str | None = None,
    bandwidth: str | None = None,
    capacity: str | None = None,
    devices: int | str | None = None,
    dtypes: dict[str, str] | tuple[str, ...] | list[str] = (),
    set: dict[str, int] | tuple[str, ...] = (),
    train_tokens: str | None = None,
    mfu: str | None = None,
    measured_tokens_per_s: str | None = None,
    state_bytes: str | None = None,
    phase: str | None = None,
    tp: int | str | None = None,
    efficiency: str | None = None,
    compute_efficiency: str | None = None,
    memory_efficiency: str | None = None,
    launch_overhead: str | None = None,
    link_latency: str | None = None,
    measured_time: str | None = None,
    mesh: str | None = None,
    operators: tuple[str | Path, ...] = (),
    params: str | None = None,
    params_active: str | None = None,
    kv_bytes_per_token: str | None = None,
    attention_flops_per_token: str | None = None,
    price_per_hour: str | None = None,
    power: str | None = None,
    given: Mapping[str, str] | tuple[str, ...] = (),
    define: Mapping[str, str] | tuple[str, ...] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
) -> ModelDerivation | ServingDerivation | DecodeCrossoverDerivation:
    """Derive a whole model from Python, with the same arguments as ``derive model``.

    ``model`` is a name or a config.json path; ``model=""`` with ``params="70e9"`` (and
    ``params_active``) is a model by its size alone; its serving step takes
    ``kv_bytes_per_token`` (and ``attention_flops_per_token``), as ``derive model --params``.

    ``dtypes`` may be ``{"weights": "int8"}`` or ``("weights=int8",)``; ``set`` may be
    ``{"B": 32, "S": 8192}``; hardware numbers are strings so they stay exact.
    ``given``, ``define``, ``equations`` and ``unknowns`` are as :func:`solve`'s, over the
    model's quantities (``weights_bytes``, ``train_seconds``, ``memory_total``, …).

    With ``phase="decode"`` or ``"prefill"`` (``--phase``), the result is one serving step,
    a :class:`ServingDerivation` (``.analysis`` the model's, ``.phase`` the step's); ``tp``
    and the timing keywords (``efficiency``, ``launch_overhead="5us"``, ``measured_time``,
    …) and ``mesh`` (TP's all-reduces on its axes) are those of ``derive model --phase``, and ``measured_tokens_per_s`` is then the
    step's measured serving rate, as on the command line. A decode without ``B`` in ``set``
    is its crossover alone, a :class:`DecodeCrossoverDerivation` (B solved for, no step
    timed); a prefill takes its prompt length as ``T`` or ``S``.

    Raises:
        DeriveError: a bad value, named by its flag; a step's keyword without ``phase``.
    """
    from derive.model.analysis import analyse_model
    from derive.model.binding import bind_model
    from derive.model.registry import load_models
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec, prompt_as_context
    from derive.problem.timing import TimingSpec

    step = {
        "efficiency": efficiency,
        "compute_efficiency": compute_efficiency,
        "memory_efficiency": memory_efficiency,
        "launch_overhead": launch_overhead,
        "link_latency": link_latency,
        "measured_time": measured_time,
    }
    if mesh is not None:
        step["mesh"] = mesh
    if phase is not None and phase not in ("decode", "prefill"):
        raise ProblemError(f"phase {phase!r}", "decode or prefill")
    if phase is None:
        timed = [name for name, value in step.items() if value is not None]
        if timed or tp is not None:
            raise ProblemError((timed or ["tp"])[0], 'times a serving step: give phase="decode"')

    spec = ModelSpec(
        model=model,
        chip=chip,
        peak=peak,
        bandwidth=bandwidth,
        capacity=capacity,
        devices=None if devices is None else str(devices),
        dtypes=_items(dtypes),
        sets=prompt_as_context(_items(set), phase, "set"),
        train_tokens=train_tokens,
        mfu=mfu,
        measured_tokens_per_s=None if phase is not None else measured_tokens_per_s,
        state_bytes=state_bytes,
        tp=None if tp is None else str(tp),
        params=params,
        params_active=params_active,
        kv_bytes_per_token=kv_bytes_per_token,
        attention_flops_per_token=attention_flops_per_token,
        price_per_hour=price_per_hour,
        power=power,
    )
    if phase is not None:
        mesh = step.pop("mesh", None)
        timing = TimingSpec(**step, measured_tokens_per_s=measured_tokens_per_s)
        serving = ServingSpec(phase, None if tp is None else str(tp), timing, mesh=mesh)
        from derive.pipeline.kinds.serving import derive_serving_step

        return derive_serving_step(spec, serving, operators)
    registry = load_models(tuple(Path(p) for p in operators))
    analysis = analyse_model(bind_model(spec, registry.resolve(spec)))
    questions = question_spec_of(given, define, equations, unknowns)
    if questions is None:
        return ModelDerivation(analysis, spec)
    from derive.questions.quantities import quantities_of

    return ModelDerivation(analysis, spec, questions=answer_one(questions, quantities_of(analysis)))


def model_spec_of(problem: Problem) -> ModelSpec:
    """The model a model or serving problem is about."""
    return cast("ModelSpec", problem.spec)  # KINDS is keyed by kind: a model's problem


@dataclass(frozen=True)
class ModelKind(OneClaimAtATime):
    """A whole model: a :class:`ModelSpec`, or a set's :class:`ModelEntry` without a ``phase``."""

    kind: ProblemKind = ProblemKind.MODEL
    noun: str = "a whole-model problem"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> ModelDerivation:
        """:func:`derive.pipeline.derive_model`."""
        return derive_model(model_spec_of(problem), operators)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every quantity a model answers."""
        return getattr(problem, "ask", ()) or MODEL_ASK_KEYS
