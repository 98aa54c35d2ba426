"""Numbers into polynomials: ``substitute`` (symbols → numbers) and ``values_at`` (a
ratio in one dim at many points), exact, without sympy's ``subs`` machinery.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import sympy as sp
from sympy.polys.rings import PolyElement

from derive.analysis.algebra.rings import polynomial_expr, ring_of, to_fraction, to_poly


class _NotRationalError(Exception):
    """Raised inside :func:`_rational_value` when the value is not an exact rational."""


def _rational_value(expr: sp.Basic, values: dict, used: list) -> Fraction:
    """The exact value of a rational function of symbols that all have rational values
    (``used`` gets an entry per symbol replaced)."""
    if expr.is_Rational:
        return Fraction(int(expr.p), int(expr.q))
    if expr.is_Symbol:
        value = values.get(expr)
        if value is None:
            raise _NotRationalError
        used.append(expr)
        return value
    if expr.is_Add:
        return sum((_rational_value(arg, values, used) for arg in expr.args), Fraction(0))
    if expr.is_Mul:
        out = Fraction(1)
        for arg in expr.args:
            out *= _rational_value(arg, values, used)
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        base = _rational_value(expr.base, values, used)
        if not base and expr.exp < 0:
            raise _NotRationalError  # division by zero: sympy's answer (zoo) is not a rational
        return base ** int(expr.exp)
    raise _NotRationalError


def values_at(expr: sp.Expr, x: sp.Symbol, points: Sequence[int]) -> list[Fraction | None] | None:
    """The exact value of ``expr`` at ``x = v`` for each ``v`` of ``points``, as Fractions.

    ``expr`` is read once as a ratio of two polynomials in ``x`` (``sympy.fraction``, then
    the ring), and each point costs a few integer operations instead of a sympy number per
    operation: a plot evaluates one intensity at some forty points per series. None when
    ``expr`` is not such a ratio (a root, a Max, another symbol left free): the caller asks
    sympy; a None in the list where the denominator vanishes (sympy's answer there is not
    a number). Where it answers, it is the Rational ``expr.subs(x, v)`` gives
    (tests/analysis/test_algebra.py).

    >>> B = sp.Symbol("B", positive=True)
    >>> values_at(2 * B / (B + 4), B, [4, 12])
    [Fraction(1, 1), Fraction(3, 2)]
    >>> values_at(sp.sqrt(B), B, [4]) is None
    True
    """
    num, den = sp.fraction(expr)
    R = ring_of((x,))
    top, bottom = to_poly(num, R), to_poly(den, R)
    if top is None or bottom is None:
        return None
    top_terms, top_scale = _integer_terms(top)
    bottom_terms, bottom_scale = _integer_terms(bottom)
    out: list[Fraction | None] = []
    for v in points:
        q = sum(c * v**k for k, c in bottom_terms) * top_scale
        out.append(Fraction(sum(c * v**k for k, c in top_terms) * bottom_scale, q) if q else None)
    return out


def _integer_terms(p: PolyElement) -> tuple[list[tuple[int, int]], int]:
    """A polynomial in one generator as integer terms ``(power, coefficient)`` over one
    common denominator: ``p = sum(c · x**k) / scale``."""
    terms = [(k, to_fraction(c)) for (k,), c in p.terms()]
    scale = math.lcm(*(c.denominator for _, c in terms)) if terms else 1
    return [(k, int(c * scale)) for k, c in terms], scale


def substitute(expr: sp.Expr, values: dict) -> sp.Expr:
    """``expr.subs(values)`` for symbols → numbers, as one structural pass (``xreplace``).

    For symbols replaced by numbers the result is the same expression ``subs`` gives,
    without ``subs``' pattern matching and sequential passes. When every symbol gets a
    rational value and ``expr`` is a rational function, the value is computed with
    exact Fractions instead (the same canonical ``Rational`` sympy's evaluation ends at).
    Pure, so remembered: a key substitutes the same bound dims into the same FLOPs and
    bytes in the analysis, the steps and the figures (~470 calls, ~170 distinct).
    """
    if not values:
        return expr
    items = tuple(values.items())
    try:
        hash(items)
    except TypeError:
        return _substitute(expr, items)
    return _substitute_cached(expr, items)


def _substitute(expr: sp.Expr, items: tuple) -> sp.Expr:
    values = {
        symbol: sp.Integer(value) if isinstance(value, int) else value for symbol, value in items
    }
    if isinstance(expr, sp.Expr) and all(
        isinstance(symbol, sp.Symbol) and isinstance(value, sp.Rational)
        for symbol, value in values.items()
    ):
        fractions = {
            symbol: Fraction(int(value.p), int(value.q)) for symbol, value in values.items()
        }
        used: list = []
        try:
            exact = _rational_value(expr, fractions, used)
        except _NotRationalError:
            partial = _substitute_expanded(expr, fractions)
            if partial is not None:
                return partial
        else:
            if used:  # nothing replaced: xreplace hands back expr as it is (even unevaluated)
                return sp.Rational(exact.numerator, exact.denominator)
    return expr.xreplace(values)


_substitute_cached = lru_cache(maxsize=4096)(_substitute)


def _monomial_factors(term: sp.Expr) -> tuple[sp.Rational, tuple[sp.Expr, ...]] | None:
    """An expanded polynomial's term as (coefficient, its powers of symbols), or None."""
    if term.is_Rational:
        return term, ()
    args = term.args if term.is_Mul else (term,)
    coeff = sp.S.One
    if args[0].is_Rational:
        coeff, args = args[0], args[1:]
    for factor in args:
        if not (
            factor.is_Symbol
            or (
                factor.is_Pow and factor.base.is_Symbol and factor.exp.is_Integer and factor.exp > 0
            )
        ):
            return None
    return coeff, args


def _substitute_expanded(expr: sp.Expr, values: dict) -> sp.Expr | None:
    """``expr.xreplace(values)`` for an expanded polynomial and some symbols → rationals, or None.

    An expanded polynomial (terms ``c·∏ s**k``, as ``Add``/``Mul`` leave them) with rational
    values for some symbols evaluates to the expanded polynomial in the others: each term's
    coefficient takes the values, terms left with the same powers add up. Written back the
    way :func:`~derive.analysis.algebra.rings.to_expr` writes a ring element
    (:func:`~derive.analysis.algebra.rings.polynomial_expr`), that is the expression ``xreplace``
    builds through ``flatten`` (tests/analysis/test_algebra.py), without ``flatten``'s general machinery.
    """
    acc: dict[tuple[sp.Expr, ...], Fraction] = {}
    replaced = False
    for term in expr.args if expr.is_Add else (expr,):
        parts = _monomial_factors(term)
        if parts is None:
            return None
        coeff, factors = parts
        coefficient, keep = Fraction(int(coeff.p), int(coeff.q)), []
        for factor in factors:
            base, power = (factor, 1) if factor.is_Symbol else (factor.base, int(factor.exp))
            value = values.get(base)
            if value is None:
                keep.append(factor)
            else:
                coefficient, replaced = coefficient * value**power, True
        key = tuple(keep)  # a subsequence of a sorted Mul's args: still in sympy's order
        acc[key] = acc.get(key, Fraction(0)) + coefficient
    if not replaced:
        return expr
    return polynomial_expr(
        (sp.Rational(coefficient.numerator, coefficient.denominator), factors)
        for factors, coefficient in acc.items()
        if coefficient
    )
