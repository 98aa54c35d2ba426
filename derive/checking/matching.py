"""Comparing a claim with an expected value: equal as functions, tolerance, threshold.

Two expressions are compared at random points first (:mod:`derive.checking.sampling`): a
point where they differ proves them different with no symbolic work; agreement at every
point makes them equal but for a negligible probability (Schwartz–Zippel), and is proved
by ``sp.cancel(a - b) == 0`` when that is cheap (a rational function of at most
:data:`CHEAP_TERMS` terms: dims are positive, so rational functions in them are equal
exactly when their difference cancels). See docs/judging.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.checking.quantities import Target
from derive.checking.sampling import Sameness, compare, ratio_constant
from derive.checking.verdict import Verdict
from derive.errors import LimitError

MAX_EXPANSION = 2_000
"""Refuse to compare a claim whose expansion could exceed this many terms."""
CHEAP_TERMS = 200
"""A difference that expands to at most this many terms (and has no roots) is proved by cancel."""


class How(Enum):
    """How a claim matched: equal exactly, the integer threshold of a crossover, or within the tolerance."""

    EXACT = "exact"
    THRESHOLD = "threshold"
    TOLERANCE = "tolerance"


@dataclass(frozen=True)
class Match:
    """How a claim matched a target, and the relative error for numbers."""

    how: How
    relative_error: sp.Rational | None = None


def _cap(n: int) -> int:
    return min(n, MAX_EXPANSION + 1)


def _estimate(expr: sp.Basic) -> tuple[int, int]:
    """Upper estimates of the terms in the expanded numerator and denominator of ``expr``."""
    if expr.is_Atom:
        return 1, 1
    if isinstance(expr, sp.Add):
        parts = [_estimate(a) for a in expr.args]
        den = _cap(math.prod(d for _, d in parts))
        num = sum(
            _cap(n * math.prod(d for j, (_, d) in enumerate(parts) if j != i))
            for i, (n, _) in enumerate(parts)
        )
        return _cap(num), den
    if isinstance(expr, sp.Mul):
        parts = [_estimate(a) for a in expr.args]
        return _cap(math.prod(n for n, _ in parts)), _cap(math.prod(d for _, d in parts))
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
        n, d = _estimate(expr.base)
        k = abs(int(expr.exp))

        def grow(m):
            return _cap(math.comb(m + k - 1, k)) if m > 1 and k < 400 else (m if k else 1)

        n, d = (
            (grow(n), grow(d))
            if k < 400 or (n == 1 and d == 1)
            else (MAX_EXPANSION + 1, MAX_EXPANSION + 1)
        )
        return (n, d) if expr.exp >= 0 else (d, n)
    return 1, 1  # a rational power or a function: one generator


def expansion_size(expr: sp.Basic) -> int:
    """An upper estimate of the number of terms the larger of numerator and denominator expands to."""
    return max(_estimate(expr))


def check_size(expr: sp.Expr, what: str) -> None:
    """Refuse an expression too large to compare exactly in a few seconds.

    Raises:
        LimitError: its expansion could exceed :data:`MAX_EXPANSION` terms.
    """
    if expansion_size(expr) > MAX_EXPANSION:
        raise LimitError(
            what, f"expands to more than {MAX_EXPANSION} terms; too large to compare exactly"
        )


def has_root(expr: sp.Expr) -> bool:
    """True when ``expr`` raises something to a power that is not an integer (``B^{1/31}``)."""
    return any(
        isinstance(node, sp.Pow) and not node.exp.is_Integer for node in sp.preorder_traversal(expr)
    )


def cheap(expr: sp.Expr) -> bool:
    """True when ``cancel`` proves or refutes ``expr == 0`` in milliseconds: a rational function
    of at most :data:`CHEAP_TERMS` expanded terms (roots make cancel's gcds explode)."""
    return expansion_size(expr) <= CHEAP_TERMS and not has_root(expr)


def equal(a: sp.Expr, b: sp.Expr) -> bool:
    """True when ``a`` and ``b`` are the same function of the dims.

    Decided at random points first (:func:`derive.checking.sampling.compare`): a point where
    they differ settles it; agreement is proved by ``cancel`` when that is cheap, and taken as
    it is otherwise (Schwartz–Zippel); only when the points cannot tell does ``cancel`` run on
    an expensive difference (under the command's time budget).
    """
    diff = a - b
    if diff == 0:
        return True
    if diff.is_Rational:
        return False
    said = compare(a, b)
    if said is Sameness.DIFFERENT:
        return False
    if said is Sameness.SAME and not cheap(diff):
        return True
    return sp.cancel(sp.together(diff)) == 0


def relative_error(claim: sp.Expr, value: sp.Expr) -> sp.Rational | None:
    """|claim − value| / |value| exactly, for two rational numbers (None otherwise)."""
    if not (claim.is_Rational and value.is_Rational) or value == 0:
        return None
    return abs(claim - value) / abs(value)


def constant_ratio(claim: sp.Expr, value: sp.Expr) -> sp.Rational | None:
    """claim / value when it is a nonzero rational constant, else None.

    Decided at random points like :func:`equal`: two different ratios settle that it is
    not constant; a constant ratio is read back exactly, and proved by ``cancel`` when cheap.
    """
    if value == 0 or claim == 0:
        return None
    ratio = claim / value
    if not ratio.free_symbols:
        return ratio if ratio.is_Rational else None
    said = ratio_constant(claim, value)
    if said is None:
        return None
    if isinstance(said, sp.Rational) and not cheap(ratio):
        return said if said != 0 else None
    ratio = sp.cancel(sp.together(ratio))
    return ratio if ratio.is_Rational and ratio != 0 else None


def match(claim: sp.Expr, target: Target | None, rtol: sp.Rational) -> Match | None:
    """How ``claim`` matches ``target``: exactly, as the integer threshold, or within ``rtol``."""
    if target is None:
        return None
    if target.value is not None and (claim == target.value or equal(claim, target.value)):
        return Match(How.EXACT, sp.Integer(0) if target.value.is_number else None)
    if target.threshold is not None and claim.is_Integer and int(claim) == target.threshold:
        rel = relative_error(claim, target.value) if target.value is not None else None
        return Match(How.THRESHOLD, rel)
    if target.value is not None:
        rel = relative_error(claim, target.value)
        if rel is not None and rel <= rtol:
            return Match(How.TOLERANCE, rel)
    return None


def exactly(verdict: Verdict, error: sp.Rational | None, how: How | None = None) -> bool | None:
    """For a correct claim: True when it is the exact value (or states the exact integer
    threshold), False when it is only right to the tolerance; None for any other verdict.

    >>> exactly(Verdict.CORRECT, sp.Rational(1, 100)), exactly(Verdict.CORRECT, sp.Integer(0))
    (False, True)
    """
    if verdict is not Verdict.CORRECT:
        return None
    return how is not How.TOLERANCE if how is not None else not error


def right_to(rtol: sp.Rational, what: str, exact: str, error: sp.Rational | None) -> str:
    """The words of a claim right to the tolerance but not exact: ``right to 1%: the exact
    FLOPs is 2BDF (relative error 0.5%)``."""
    off = f" (relative error {as_percent(error)})" if error is not None else ""
    return f"right to {as_percent(rtol)}: the exact {what} is {exact}{off}".replace("  ", " ")


def as_percent(rel: sp.Rational) -> str:
    """An exact relative error printed as a percentage (``0.71%``)."""
    from derive.formula.decimals import fmt_decimal

    return f"{fmt_decimal(rel * 100, 3)}%"
