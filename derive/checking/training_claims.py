"""Claims about a model problem's training run (a set's ``train = {…}``).

The run is derived by :func:`derive.training.analysis.analyse_training`; its quantities
(:data:`~derive.problem.train_spec.TRAIN_CHECK_KEYS`) join the model's own as one more
step of the analysis, so a claim is read and judged by :mod:`derive.checking.model_claims`
like any model quantity (units, tolerance, slips). Where a key is both the model's and
the run's (``memory_per_device``, ``mfu``, ``t_lower``), a training problem means the run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from derive.catalogue import ProblemKind, Use, box_of, names_for, shown_by
from derive.catalogue import table as q
from derive.problem.train_spec import TRAIN_CHECK_KEYS

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.problem.model_spec import ModelSpec
    from derive.problem.sets.problem_set import ModelEntry
    from derive.training.analysis import TrainingAnalysis

__all__ = [
    "TRAINING_ASKED",
    "TRAINING_BOXES",
    "TRAINING_QUANTITIES",
    "all_claims_analysis_for",
    "training_analysis_for",
    "training_values",
    "with_training",
]

TRAINING_QUANTITIES = TRAIN_CHECK_KEYS
"""The quantities of a training run a claim may be about."""


def training_analysis_for(
    problem: ModelSpec | ModelEntry, operators: Sequence[str | Path] = ()
) -> TrainingAnalysis | None:
    """The training run of a problem with ``train`` (cached by the pipeline), or None."""
    from derive.pipeline.cache import training_analysis

    train = problem.train
    if train is None:  # a typed model, or a set's model without a training run
        return None
    return training_analysis(problem.spec, train, tuple(str(p) for p in operators))


def _values(t: TrainingAnalysis) -> dict[str, sp.Basic | None]:
    from derive.training.values import training_values as values

    return values(t)


def training_values(t: TrainingAnalysis) -> dict[str, sp.Basic | None]:
    """Every checkable quantity of the run by its key (None where not derived)."""
    return _values(t)


def with_training(a: ModelAnalysis, t: TrainingAnalysis | None) -> ModelAnalysis:
    """The model's analysis with the run's quantities last (the run's keys win)."""
    from derive.model.records import Quantity, Unit

    if t is None:
        why = "a training run's quantity: give the problem a train = { … } table"
        left = tuple((k, why) for k in TRAINING_QUANTITIES if a.quantity(k) is None)
        return replace(a, left_out=(*a.left_out, *left))
    units = {
        "fits": Unit.BOOLEAN,
        "bubble_fraction": Unit.FRACTION,
        "mfu": Unit.FRACTION,
        "critical_tokens_per_device": Unit.TOKENS,
        "critical_tokens_per_chip": Unit.TOKENS,
        "critical_batch_tokens": Unit.TOKENS,
        q.COST_PER_STEP.name: Unit.DOLLARS,
        q.COST_PER_MILLION_TOKENS.name: Unit.DOLLARS,
        q.COST_OF_RUN.name: Unit.DOLLARS,
        q.ENERGY_PER_TOKEN.name: Unit.JOULES_PER_TOKEN,
        q.ENERGY_OF_RUN.name: Unit.JOULES,
    }
    kept, left_out = [], []
    for key, value in _values(t).items():
        unit = units.get(key, Unit.SECONDS if key.startswith("t_") else Unit.BYTES)
        if value is None:
            left_out.append(
                (
                    key,
                    f"the training run has no {key} (a capacity, a measured step or a critical batch is missing)",
                )
            )
        else:
            kept.append(Quantity(key, value, value, unit))
    ours = {q.key for q in kept}
    quantities = tuple(q for q in a.quantities if q.key not in ours)
    others = tuple((k, w) for k, w in a.left_out if k not in ours)
    return replace(a, quantities=(*quantities, *kept), left_out=(*others, *left_out))


def all_claims_analysis_for(
    problem: ModelSpec | ModelEntry, operators: Sequence[str | Path] = ()
) -> ModelAnalysis:
    """The model's analysis with its serving step's or training run's quantities added."""
    from derive.checking.serving_claims import claims_analysis_for

    return with_training(
        claims_analysis_for(problem, operators), training_analysis_for(problem, operators)
    )


TRAINING_BOXES: dict[str, tuple[str, str, str]] = {
    name: (box.label, box.latex, box.placeholder)
    for name in TRAINING_QUANTITIES
    if (box := box_of(ProblemKind.TRAINING, name)) is not None
}
"""Answer box of each training quantity: (label, LaTeX symbol, placeholder), from the catalogue."""

TRAINING_ASKED: dict[str, tuple[str, ...]] = {
    ask: shown_by(ProblemKind.TRAINING, ask) for ask in names_for(ProblemKind.TRAINING, Use.ASK)
}
"""A training problem's ``ask`` → the quantities a student types (one answer box each)."""
