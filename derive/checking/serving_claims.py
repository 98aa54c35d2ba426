"""Claims about a model's serving step (a problem with ``phase``, or ``derive check MODEL --phase``).

The step is derived by :mod:`derive.model.phase`; its quantities join the model's own
(:mod:`derive.checking.model_claims`) as one more step of the analysis, named as the
JSON of ``derive model --phase`` names them:

- ``t_lower``, ``t_upper``: the step's bounds per device (``serving.step.t_lower``);
- ``tokens_per_s`` and ``inter_token_latency`` (decode), ``ttft`` and
  ``prefill_tokens_per_s`` (prefill);
- ``crossover``: the batch at which decode's weight-streaming matmuls become
  compute-bound; ``B \\geq 367`` (or ``367``) claims the smallest such batch, ``B > 366``
  the same, and ``B \\leq …`` the memory-bound side (wrong);
- ``step_mfu``, ``step_mbu``: what a ``measured_time`` of the step implies, or a
  ``measured_tokens_per_s`` (the cluster's serving rate: time = replicas × tokens / rate).

A quantity of the other phase (``ttft`` on a decode step) is left out with the reason,
so asking for it is the caller's mistake, not a wrong claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import sympy as sp

from derive.catalogue import ProblemKind, Use, box_of, names_for, rows_for, shown_by
from derive.catalogue import table as q
from derive.catalogue.reading import read_values
from derive.checking.hints import Slip
from derive.checking.verdict import Verdict
from derive.formula.answer import Relation

if TYPE_CHECKING:
    from derive.checking.api import Judged
    from derive.checking.model_claims import ModelClaim
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover, PhaseAnalysis
    from derive.model.records import Quantity
    from derive.problem.model_spec import ModelSpec
    from derive.problem.sets.problem_set import ModelEntry


SERVING_QUANTITIES = names_for(ProblemKind.SERVING, Use.CHECK)
"""The quantities of a serving step a claim may be about."""

SERVING_ASKED: dict[str, tuple[str, ...]] = {
    ask: shown_by(ProblemKind.SERVING, ask) for ask in names_for(ProblemKind.SERVING, Use.ASK)
}
"""A serving problem's ``ask`` → the quantities a student types (one answer box each)."""

SERVING_BOXES: dict[str, tuple[str, str, str]] = {
    row.name: (box.label, box.latex, box.placeholder)
    for row in rows_for(ProblemKind.SERVING, Use.BOX)
    if (box := box_of(ProblemKind.SERVING, row.name)) is not None
}
"""Answer box of each serving quantity: (label, LaTeX symbol, placeholder)."""


def phase_for(
    problem: ModelSpec | ModelEntry, operators: Sequence[str | Path] = ()
) -> PhaseAnalysis | DecodeCrossover | None:
    """The serving step of a problem with ``phase`` (cached), or None.

    Raises:
        DeriveError: the step cannot be derived (a dim free, ``--tp`` not --devices, …).
    """
    from derive.pipeline import derive_serving_step

    if problem.serving is None:  # a typed model, or a set's model without a phase
        return None
    # a decode with B free is its crossover alone (B solved for, no step timed)
    return derive_serving_step(problem.spec, problem.serving, operators).phase


def _crossover_alone(phase: DecodeCrossover) -> tuple[list, list[tuple[str, str]]]:
    """A decode asked without a batch: its crossover, and every step quantity left out."""
    cross = phase.crossover
    why = "the decode step has no {key} without a batch; it needs --set B=… (B = … in a set)"
    kept = [_crossover(cross.exact)] if cross.is_number and cross.exact is not None else []
    left_out = [
        (key, why.format(key=key)) for key in SERVING_QUANTITIES if key not in {k.key for k in kept}
    ]
    return kept, left_out


def _quantities(phase: PhaseAnalysis | DecodeCrossover) -> tuple[list, list[tuple[str, str]]]:
    from derive.model.phase import DecodeCrossover
    from derive.model.records import Quantity

    if not phase.kind.roofline:
        return _crossover_alone(cast(DecodeCrossover, phase))
    phase = cast("PhaseAnalysis", phase)  # a timed step

    found = read_values(ProblemKind.SERVING, ({phase.phase.value: phase}, phase))
    cross = phase.crossover
    kept, left_out = [], []
    for row in rows_for(ProblemKind.SERVING, Use.CHECK):
        key, value, needs = row.name, found.get(row), row.in_kind(ProblemKind.SERVING).needs
        if row is q.CROSSOVER and cross is not None:  # a number, or the reason it has none
            value = value if cross.is_number else None
            needs = cross.note or f"the matmuls' crossover is {cross.status}"
        if value is None:
            left_out.append((key, f"the {phase.phase.value} step has no {key}; it needs {needs}"))
        else:
            kept.append(
                _crossover(value) if row is q.CROSSOVER else Quantity(key, value, value, row)
            )
    return kept, left_out


def _crossover(exact: sp.Basic) -> Quantity:
    """The decode crossover as a model's quantity: a batch, counted in sequences as
    ``max_batch`` is (the catalogue's ``crossover`` row is also an operator's, over any dim)."""
    from derive.model.records import Quantity

    return Quantity(q.CROSSOVER.name, exact, exact, q.MAX_BATCH)


def claims_analysis_for(
    problem: ModelSpec | ModelEntry, operators: Sequence[str | Path] = ()
) -> ModelAnalysis:
    """The model's analysis with the serving step's quantities added when it has a ``phase``."""
    from derive.checking.model_claims import joined, model_analysis_for

    a = model_analysis_for(problem, operators)
    phase = phase_for(problem, operators)
    if phase is None:
        why = "a serving step's quantity: give --phase decode|prefill (phase = … in a set)"
        return joined(a, [], [(key, why) for key in SERVING_QUANTITIES])
    no_serving = tuple((key, why) for key, why in a.left_out if key not in SERVING_QUANTITIES)
    return joined(replace(a, left_out=no_serving), *_quantities(phase))


def judge_crossover(
    a: ModelAnalysis, phase: PhaseAnalysis | DecodeCrossover, claim: ModelClaim, relation: Relation
) -> Judged | None:
    """The verdict on a crossover claim that states the threshold or a side (None: judge the number)."""
    from derive.checking.model_claims import judged_by, shown_expected
    from derive.checking.thresholds import Edge, stated_threshold, threshold_reason
    from derive.formula.decimals import fmt_decimal
    from derive.model.symbols import batch

    cross = phase.crossover
    if cross is None or cross.exact is None or not claim.value.is_number:
        return None
    threshold = cross.min_compute_bound
    expected = shown_expected(_crossover(cross.exact))
    done = judged_by(
        a, claim, str(cross.exact), f"{expected} (smallest compute-bound batch: {threshold})"
    )
    value = claim.value
    if relation in (Relation.LESS, Relation.LESS_EQUAL):
        why = (
            f"B {relation.value} {claim.raw} says where decode is memory-bound; it is "
            "compute-bound above the crossover (write B \\geq …)"
        )
        return done(Verdict.INCORRECT, (why,), (why,))
    stated = stated_threshold(value, relation)
    if stated is not None and threshold is not None and stated != threshold:
        edge = Edge(batch, phase.matmul_flops / phase.matmul_bytes, phase.ridge)
        said, hidden = threshold_reason(stated, threshold, edge, relation, claim.raw)
        return done(Verdict.INCORRECT, (said,), (hidden,))
    states = value + 1 if relation is Relation.GREATER and value.is_Integer else value
    if threshold is not None and states == threshold and value.is_Integer:
        said = (
            f"{threshold} is the smallest batch at which the matmuls are compute-bound; "
            f"the crossover is B* = {fmt_decimal(cross.exact)} sequences"
        )
        hidden = "that is the smallest batch at which the matmuls are compute-bound"
        return done(Verdict.CORRECT, (said,), (hidden,))
    return None


def _ridge_differs(phase: PhaseAnalysis | DecodeCrossover) -> bool:
    """True when the ridge is not also the leading-order crossover (it is for bf16 weights)."""
    lead = phase.crossover_regime.exact if phase.crossover_regime else None
    return lead is None or lead != phase.ridge


def serving_slips(phase: PhaseAnalysis | DecodeCrossover, quantity: str) -> tuple[Slip, ...]:
    """The slip table of a serving quantity: the single roofline, T_upper, per-device rates
    (rows for :func:`derive.checking.hints.earned`, weighed with the model's own)."""
    from derive.model.phase import DecodeCrossover

    if not phase.kind.roofline:  # its crossover alone: its slips
        cross = cast(DecodeCrossover, phase)
        return _crossover_candidates(cross) if quantity == q.CROSSOVER.name else ()
    phase = cast("PhaseAnalysis", phase)  # a timed step
    step, tokens = phase.step, phase.tokens
    single = step.single_roofline_t_lower
    slips: dict[str, tuple[Slip | tuple[sp.Expr | None, str], ...]] = {
        q.T_LOWER.name: (
            (single, "that is the single roofline, max(Σ T_math, Σ T_mem), not the sum per kernel"),
            (step.t_upper, "that is T_upper (nothing overlapped), not the lower bound"),
        ),
        q.TOKENS_PER_S.name: (
            (tokens / single, "that divides by the single roofline, not the sum per kernel"),
            (tokens / step.t_upper, "that divides by T_upper, not T_lower"),
            (1 / step.t_lower, "that is one sequence's rate; a decode step makes B tokens"),
            (phase.tp * phase.tokens_per_s, "that multiplies by the devices: B tokens per step is the group's rate"),
            (
                tokens / step.t_lower if phase.replicas > 1 else None,
                "that is one replica's rate; each of the replicas makes B tokens per step",
            ),
        ),
        q.TTFT.name: ((single, "that is the single roofline, not the sum per kernel"),),
        q.INTER_TOKEN_LATENCY.name: ((single, "that is the single roofline, not the sum per kernel"),),
        q.CROSSOVER.name: _crossover_candidates(phase),
    }  # fmt: skip
    return tuple(row if isinstance(row, Slip) else Slip(*row) for row in slips.get(quantity, ()))


def _crossover_candidates(phase: PhaseAnalysis | DecodeCrossover) -> tuple[Slip, ...]:
    """The values a wrong crossover is often taken for: the leading-order one, the ridge."""
    return (
        Slip(
            phase.crossover_regime.exact if phase.crossover_regime else None,
            "that is the leading-order crossover (B ≪ d: the activations' bytes dropped); "
            "the exact one counts them",
        ),
        Slip(
            phase.ridge if _ridge_differs(phase) else None,
            "that is the ridge point π/β (FLOPs per byte), not a batch: the crossover is the "
            "B at which the matmuls' intensity reaches it",
        ),
    )
