"""Judging one claim about one quantity: correct, correct at leading order, or incorrect.

A claim is **correct** when it equals the exact quantity (proved by cancel), is
the integer threshold of a crossover, or (for numbers) is within the relative
tolerance. With a regime it is **correct-leading-order** when it matches the
quantity's leading order under that regime instead. Anything else is
**incorrect**, with a diagnosis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from derive.checking.context import Context
from derive.checking.diagnose import diagnose, exact_is, value_text
from derive.checking.matching import Match, as_percent, check_size, match, relative_error
from derive.checking.quantities import Target, describe, expected, kind_of, leading
from derive.formula import Parsed, parse_formula
from derive.formula.limits import show

__all__ = ["CORRECT", "INCORRECT", "LEADING", "Judgement", "judge", "judge_expr", "read_claim"]

CORRECT, LEADING, INCORRECT = "correct", "correct-leading-order", "incorrect"


@dataclass(frozen=True)
class Judgement:
    """The verdict on one claim, with what was expected and why.

    Attributes:
        claimed: the claim as read (before bound dims are substituted).
        value: the claim with bound dims substituted, as compared.
        relative_error: for numbers, |claim − exact| / |exact|.
    """

    verdict: str
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


def _correct_sentence(
    ctx: Context, quantity: str, m: Match, claim: sp.Expr, t: Target, lead: bool
) -> str:
    what = describe(quantity)
    regime = ctx.analysis.problem.regime
    prefix = f"this is the leading-order {what} under {regime.text}" if lead else ""
    if m.how == "threshold":
        var = ctx.analysis.problem.solve_for
        core = f"{claim} is the smallest integer {var} that is compute-bound; the {'leading-order ' if lead else ''}crossover is {approx_or(t)}"
    elif m.how == "tolerance":
        core = f"within {as_percent(ctx.rtol)} of the {'leading-order' if lead else 'exact'} {what} {approx_or(t)} (relative error {as_percent(m.relative_error)})"
    else:
        core = "" if lead else f"the claim equals the exact {what}"
    return "; ".join(s for s in (prefix, core) if s)


def approx_or(t: Target) -> str:
    """The value of a target without its threshold."""
    return value_text(Target(t.value, t.symbolic, None, t.note))


def _regime_warning(ctx: Context) -> str | None:
    a = ctx.analysis
    if a.regime_holds is False:
        broken = ", ".join(name for name, ok in a.regime_checks if not ok)
        return f"but the regime {a.problem.regime.text} does not hold at the leading-order crossover ({broken} fails)"
    return None


def judge_expr(ctx: Context, quantity: str, raw: sp.Expr) -> Judgement:
    """Judge an expression (already read) as a claim about ``quantity``."""
    a = ctx.analysis
    target = expected(a, quantity)
    lead = leading(a, quantity, a.problem.regime)
    claim = raw.subs(ctx.bound) if ctx.bound else raw
    m = match(claim, target, ctx.rtol)
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
            (_correct_sentence(ctx, quantity, m, claim, target, False),),
        )
    lm = match(claim, lead, ctx.rtol) if lead is not None and lead.value is not None else None
    if lm is not None:
        said = [
            _correct_sentence(ctx, quantity, lm, claim, lead, True),
            f"without the regime {exact_is(describe(quantity), target)}",
        ]
        if kind_of(quantity) == "cross":
            said.append(_regime_warning(ctx))
        return Judgement(
            LEADING, quantity, raw, claim, target, lead, lm, rel, tuple(s for s in said if s)
        )
    return Judgement(
        INCORRECT,
        quantity,
        raw,
        claim,
        target,
        lead,
        None,
        rel,
        tuple(diagnose(ctx, quantity, raw, claim, target)),
    )


def judge(ctx: Context, quantity: str, text: str, syntax: str = "auto") -> tuple[Parsed, Judgement]:
    """Read and judge one claim."""
    parsed = read_claim(ctx.symbols, text, syntax)
    return parsed, judge_expr(ctx, quantity, parsed.expr)
