"""Judging one claim about one quantity: correct, correct at leading order, or incorrect.

A claim is **correct** when it equals the exact quantity (proved by cancel), is
the integer threshold of a crossover, or (for numbers) is within the relative
tolerance. With a regime it is **correct-leading-order** when it matches the
quantity's leading order under that regime instead. Anything else is
**incorrect**, with a diagnosis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import sympy as sp

from derive.checking.claims import BANDWIDTH, PEAK, Claim, dimension_of, same_quantity
from derive.checking.context import Context
from derive.checking.diagnose import diagnose, exact_is, value_text
from derive.checking.hints import Rank, Slip, bare_number_slips
from derive.checking.matching import (
    How,
    Match,
    check_size,
    match,
    relative_error,
    right_to,
)
from derive.checking.quantities import Kind, Target, describe, expected, kind_of, leading
from derive.checking.thresholds import stated_threshold, threshold_reason
from derive.checking.verdict import Verdict
from derive.formula.answer import Relation
from derive.formula.limits import show
from derive.formula.reader import Parsed, parse_formula
from derive.formula.units import describe_dimension, unit_alternatives

CORRECT, LEADING, INCORRECT = Verdict.CORRECT, Verdict.LEADING, Verdict.INCORRECT


@dataclass(frozen=True)
class Judgement:
    """The verdict on one claim, with what was expected and why.

    Attributes:
        claimed: the claim as read (before bound dims are substituted).
        value: the claim with bound dims substituted, as compared.
        relative_error: for numbers, |claim − exact| / |exact|.
    """

    verdict: Verdict
    quantity: str
    claimed: sp.Expr
    value: sp.Expr
    expected: Target
    leading: Target | None
    match: Match | None
    relative_error: sp.Rational | None
    diagnosis: tuple[str, ...]


def read_claim(
    symbols: Mapping[str, sp.Symbol], text: str, syntax: str, what: str = "claim"
) -> Parsed:
    """Parse a claim over the operator's dims (``symbols``) and check it is small enough to compare.

    Raises:
        ParseError: unreadable; LimitError: too large.
    """
    parsed = parse_formula(text, symbols, syntax, what)
    check_size(parsed.expr, f"{what} {show(text)}")
    return parsed


def _correct_sentence(ctx: Context, quantity: str, m: Match, t: Target, lead: bool) -> str:
    what = describe(quantity)
    regime = ctx.analysis.problem.regime
    prefix = f"this is the leading-order {what} under {regime.text}" if lead and regime else ""
    if m.how is How.THRESHOLD:
        var = ctx.analysis.problem.solve_for
        core = f"{t.threshold} is the smallest integer {var} that is compute-bound; the {'leading-order ' if lead else ''}crossover is {approx_or(t)}"
    elif m.how is How.TOLERANCE:
        core = right_to(ctx.rtol, what, approx_or(t), m.relative_error)
        core = core.replace("the exact", "the leading-order") if lead else core
    else:
        core = "" if lead else f"the claim equals the exact {what}"
    return "; ".join(s for s in (prefix, core) if s)


def approx_or(t: Target) -> str:
    """The value of a target without its threshold."""
    return value_text(Target(t.value, t.symbolic, None, t.note))


def _regime_warning(ctx: Context) -> str | None:
    a = ctx.analysis
    if a.regime_holds is False and a.problem.regime is not None:
        broken = ", ".join(name for name, ok in a.regime_checks if not ok)
        return f"but the regime {a.problem.regime.text} does not hold at the leading-order crossover ({broken} fails)"
    return None


def _related(
    claim: sp.Expr, target: Target | None, relation: Relation, rtol: sp.Rational
) -> Match | None:
    """How a claim ``B rel claim`` matches a crossover: ``B \\geq 121`` and ``B > 120`` state the
    threshold 121, judged exactly (``B \\geq 120`` is wrong however near the crossover)."""
    if target is None:
        return None
    stated = stated_threshold(claim, relation)
    if stated is not None and target.threshold is not None:
        if stated != target.threshold:
            return None
        rel = relative_error(claim, target.value) if target.value is not None else None
        return Match(How.THRESHOLD, rel)
    return match(claim, target, rtol)


def _threshold_miss(claim: sp.Expr, relation: Relation, targets: list[Target | None]) -> str | None:
    """Why an integer stated as the threshold (``B \\geq 120``) is not it, or None."""
    stated = stated_threshold(claim, relation)
    t = next((t for t in targets if t is not None and t.threshold is not None), None)
    if stated is None or t is None or t.threshold is None:
        return None
    return threshold_reason(stated, t.threshold, t.edge, relation, claim)[0]


def _wrong_side(ctx: Context, claim: sp.Expr, relation: Relation, targets: list[Target]) -> str:
    """``B \\leq 121`` states the memory-bound side of the crossover."""
    var = ctx.analysis.problem.solve_for
    near = next((t for t in targets if match(claim, t, ctx.rtol) is not None), None)
    side = f"; it is compute-bound for {var} above the crossover, not below" if near else ""
    said = f"{var} {relation.value} {claim} says where the operator is memory-bound{side}"
    if near is not None:
        said += f" (write {var} \\geq {near.threshold if near.threshold is not None else approx_or(near)})"
    return said


def judge_expr(
    ctx: Context,
    quantity: str,
    raw: sp.Expr,
    relation: Relation = Relation.EQUALS,
    extra: Sequence[Slip] = (),
    written: frozenset[sp.Symbol] = frozenset(),
) -> Judgement:
    """Judge an expression (already read) as a claim about ``quantity``.

    ``relation`` is how the claim relates to the quantity; an inequality is read only for
    a crossover (``B \\geq 121`` claims the threshold, ``B > 120.12`` the crossover).
    ``extra``: slip rows of the claim as written (its unit), weighed with the quantity's own;
    ``written``: the givens it wrote by their symbols (``\\pi``, ``\\beta``).
    """
    a = ctx.analysis
    target = expected(a, quantity)
    lead = leading(a, quantity, a.problem.regime)
    claim = raw.subs(ctx.bound) if ctx.bound else raw
    if relation in (Relation.LESS, Relation.LESS_EQUAL):
        side = _wrong_side(ctx, claim, relation, [t for t in (target, lead) if t is not None])
        return Judgement(INCORRECT, quantity, raw, claim, target, lead, None, None, (side,))
    m = _related(claim, target, relation, ctx.rtol)
    rel = relative_error(claim, target.value) if target.value is not None else None
    if m is not None:
        return Judgement(
            CORRECT,
            quantity,
            raw,
            claim,
            target,
            lead,
            m,
            rel,
            (_correct_sentence(ctx, quantity, m, target, False),),
        )
    lm = (
        _related(claim, lead, relation, ctx.rtol)
        if lead is not None and lead.value is not None
        else None
    )
    if lm is not None and lead is not None:
        said: list[str | None] = [
            _correct_sentence(ctx, quantity, lm, lead, True),
            f"without the regime {exact_is(describe(quantity), target)}",
        ]
        if kind_of(quantity) == Kind.CROSSOVER:
            said.append(_regime_warning(ctx))
        return Judgement(
            LEADING, quantity, raw, claim, target, lead, lm, rel, tuple(s for s in said if s)
        )
    miss = _threshold_miss(
        claim, relation, [lead, target] if ctx.analysis.problem.regime else [target, lead]
    )
    near = any(match(claim, t, ctx.rtol) for t in (target, lead) if t is not None)
    # near the threshold the reason is the whole story; far from it a named slip explains more
    said_wrong = (
        [miss] if miss and near else diagnose(ctx, quantity, raw, claim, target, extra, written)
    )
    if miss and not said_wrong:
        said_wrong = [miss]
    return Judgement(INCORRECT, quantity, raw, claim, target, lead, None, rel, tuple(said_wrong))


def _unit_sentence(quantity: str, claim: Claim) -> str:
    """Why a unit does not fit the quantity: ``ms is a time; the intensity is in FLOPs/byte``."""
    assert claim.unit is not None
    said, _ = describe_dimension(claim.unit.dimension)
    want, base = describe_dimension(dimension_of(quantity))
    unit = f" in {base}" if base else " (a number, no unit)"
    if kind_of(quantity) == Kind.UTILISATION:
        want, unit = "a fraction of its ceiling", " (0.42, or 42%)"
    return f"the unit {claim.unit.text} is {said}; the {describe(quantity)} is {want}{unit}"


def _unit_rows(ctx: Context, quantity: str, claim: Claim, target: Target) -> list[Slip]:
    """The unit slips of a claim as written: another unit under which its number is right
    (GB for GiB, ms for s), or, for a bare number, the unit it needs."""
    if target.value is None:
        return []
    value = claim.expr.subs(ctx.bound) if ctx.bound else claim.expr
    if claim.unit is None:
        return bare_number_slips(value, target.value, dimension_of(quantity))
    _, base = describe_dimension(claim.unit.dimension)
    return [
        Slip(
            target.value * claim.unit.factor / factor,  # right in ``spelled``, read as written
            f"the number is right in {spelled}, but you wrote {claim.unit.text}"
            f" (1 {claim.unit.text} = {_power(claim.unit.factor)} {base}, "
            f"1 {spelled} = {_power(factor)} {base})",
            Rank.UNITS,
        )
        for spelled, factor in unit_alternatives(claim.unit)
    ]


def _power(factor: sp.Rational) -> str:
    """``10^-3``, ``2^30``, or the number itself."""
    for base in (10, 2):
        for k in range(-30, 61):
            if k and sp.Integer(base) ** k == factor:
                return f"{base}^{k}"
    return str(factor)


def judge_claim(ctx: Context, quantity: str, claim: Claim) -> Judgement:
    """Judge a claim read by :func:`~derive.checking.claims.read_claim_for`: its unit, its left side, its value."""
    if claim.unit is not None and claim.unit.dimension is not dimension_of(quantity):
        target = expected(ctx.analysis, quantity)
        value = claim.expr.subs(ctx.bound) if ctx.bound else claim.expr
        return Judgement(
            INCORRECT,
            quantity,
            claim.expr,
            value,
            target,
            leading(ctx.analysis, quantity, ctx.analysis.problem.regime),
            None,
            None,
            (_unit_sentence(quantity, claim),),
        )
    units = _unit_rows(ctx, quantity, claim, expected(ctx.analysis, quantity))
    written = frozenset(claim.raw.free_symbols & {PEAK, BANDWIDTH})
    j = judge_expr(ctx, quantity, claim.expr, claim.relation, units, written)
    said = list(j.diagnosis)
    verdict = j.verdict
    if claim.named is not None and not same_quantity(claim.named, quantity):
        right = verdict is not INCORRECT
        said = [
            f"the left side {claim.answer.name} names the {describe(claim.named)}, "
            f"but the quantity asked is the {describe(quantity)}"
            + (" (the value itself is right)" if right else "")
        ] + ([] if right else said)
        verdict = INCORRECT
    return replace(j, verdict=verdict, diagnosis=tuple(said))
