"""Claims about a model problem's training run (a set's ``train = {…}``).

The run is derived by :func:`derive.training.analysis.analyse_training`; its quantities
(:data:`~derive.problem.train_spec.TRAIN_CHECK_KEYS`) join the model's own as one more
step of the analysis, so a claim is read and judged by :mod:`derive.checking.model_claims`
like any model quantity (units, tolerance, slips). Where a key is both the model's and
the run's (``memory_per_device``, ``mfu``, ``t_lower``), a training problem means the run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from derive.catalogue import ProblemKind, Use, box_of, names_for, quantity, shown_by
from derive.catalogue.reading import read_values
from derive.catalogue.table import (
    COMMS_TP,
    CRITICAL_TOKENS_PER_DEVICE,
    MEMORY_PER_DEVICE,
    MFU,
    T_MATH,
)
from derive.checking.hints import Slip
from derive.problem.train_spec import TRAIN_CHECK_KEYS

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.problem.model_spec import ModelSpec
    from derive.problem.sets.problem_set import ModelEntry
    from derive.training.analysis import TrainingAnalysis


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


def training_values(t: TrainingAnalysis) -> dict[str, sp.Basic | None]:
    """Every checkable quantity of the run by its key, read from the run by the catalogue's
    rows (None where not derived; a truth as sympy's)."""
    found = {row.name: v for row, v in read_values(ProblemKind.TRAINING, (t,)).items()}
    return {key: _sympy(found.get(key)) for key in TRAINING_QUANTITIES}


def _sympy(value: object) -> sp.Basic | None:
    if isinstance(value, bool):
        return sp.true if value else sp.false
    return value if isinstance(value, sp.Basic) else None


def with_training(a: ModelAnalysis, t: TrainingAnalysis | None) -> ModelAnalysis:
    """The model's analysis with the run's quantities last (the run's keys win)."""
    from derive.checking.model_claims import joined
    from derive.model.records import Quantity

    if t is None:
        why = "a training run's quantity: give the problem a train = { … } table"
        return joined(a, [], [(k, why) for k in TRAINING_QUANTITIES if a.quantity(k) is None])
    kept, left_out = [], []
    for key, value in training_values(t).items():
        if value is None:
            left_out.append(
                (
                    key,
                    f"the training run has no {key} (a capacity, a measured step or a critical batch is missing)",
                )
            )
        else:
            kept.append(Quantity(key, value, value, quantity(key)))  # its unit: the row's
    return joined(a, kept, left_out)


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


def _recompute_share(t: TrainingAnalysis) -> sp.Rational:
    """(model FLOPs) / (model + recomputed FLOPs): 6·P·T over 8·P·T with full recomputation
    (and attention's 3 over 4 times the forward's)."""
    return t.flops_model / (t.flops_model + t.flops_recompute)


def _params_share(t: TrainingAnalysis) -> sp.Rational:
    """The hardware FLOPs without attention's (3 or, recomputed, 4 × the forward's) over all."""
    return 1 - t.flops_attention * (3 + (t.flops_recompute != 0)) / 3 / (
        t.flops_model + t.flops_recompute
    )


_RECOMPUTE_COUNTED = {
    True: "that counts the recomputed forward pass (8·P·T, the hardware's FLOPs); MFU counts "
    "the model's 6·P·T and attention's",
    False: "that counts the recomputed attention core; MFU counts the model's FLOPs only",
}
_ATTENTION_LEFT_OUT = (
    "that counts 6·P·T only: attention's scores and values over the sequence (F_attn) are "
    "FLOPs of the step too"
)


def training_slips(t: TrainingAnalysis, quantity: str) -> tuple[Slip, ...]:
    """The slip table of a training quantity: the classic training slips, each the quantity
    recomputed the slip's way (rows for :func:`derive.checking.hints.earned`, weighed with
    the model's own)."""
    m = t.memory
    recomputed = t.flops_recompute != 0
    full = t.problem.recompute.value == "full"
    candidates: dict[str, tuple[tuple[sp.Rational | None, str], ...]] = {
        MEMORY_PER_DEVICE.name: (
            (m.total - m.activations if m.activations else None,
             "that leaves the activations out: the memory holds the activations in flight too"),
        ),
        T_MATH.name: (
            (t.t_math * _params_share(t) if t.flops_attention else None, _ATTENTION_LEFT_OUT),
        ),
        MFU.name: (
            (t.mfu / _recompute_share(t) if recomputed and t.mfu is not None else None,
             _RECOMPUTE_COUNTED[full]),
        ),
        COMMS_TP.name: (
            (t.comms.of("tp") / t.params.layers if t.params.layers > 1 else None,
             "that counts TP's all-reduces once; they run in every layer of the stage"),
        ),
        CRITICAL_TOKENS_PER_DEVICE.name: (
            (t.critical_tokens_per_device * t.problem.dp
             if t.critical_tokens_per_device is not None and t.problem.dp > 1 else None,
             "that is the global batch (every DP rank); the critical batch is per DP rank"),
        ),
    }  # fmt: skip
    return tuple(Slip(*row) for row in candidates.get(quantity, ()))
