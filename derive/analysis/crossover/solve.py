"""Solving the crossover exactly: g = FLOPs·β − bytes·π read as a polynomial in the
solved-for dim x, then one decision tree over its coefficients.

``g``'s coefficients are polynomials in the other dims. Signs of those coefficients
over positive dims decide the status without sampling
(:mod:`derive.analysis.crossover.bounds`); numbers for coefficients are decided from
the roots (:mod:`derive.analysis.crossover.roots`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from derive.analysis.algebra.ratios import cancel_ratio, factor
from derive.analysis.algebra.rings import gens_of, ring_of, to_expr, to_poly
from derive.analysis.crossover.bounds import (
    coefficients_by_power,
    ring_sign,
    sign_on_positive,
    supremum_of,
    supremum_on_ring,
)
from derive.analysis.crossover.records import ALWAYS, CROSSES, NEVER, UNDETERMINED, Crossover
from derive.analysis.crossover.roots import numeric_crossover


def reduced_parts(num: sp.Expr, den: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """num/den in lowest terms when the reduced denominator is provably positive.

    Cancelling common factors (e.g. B·F in a sharded matmul) lets the crossover be
    solved as a number; without a provably positive denominator, the sign of
    num·β − den·π would not be the sign of I − ridge, so the original pair is kept.
    """
    numerator, denominator = sp.fraction(cancel_ratio(num, den))
    denominator_poly = to_poly(denominator, ring_of(gens_of(denominator)))
    sign = (
        sign_on_positive(denominator) if denominator_poly is None else ring_sign(denominator_poly)
    )  # the same rule, on the ring when it can
    return (numerator, denominator) if sign == 1 else (num, den)


@dataclass(frozen=True)
class _InX:
    """g = FLOPs·β − bytes·π as a polynomial in the solved-for dim x.

    Attributes:
        g: the polynomial, as an expression.
        coefficients: its coefficients in x, highest power first (expressions in the other dims).
        signs: each coefficient's sign over positive dims, when its coefficients decide it.
        supremum: lim I(x) as x → ∞, then as every other dim grows too (for ``never``).
    """

    g: sp.Expr
    coefficients: tuple[sp.Expr, ...]
    signs: tuple[int | None, ...]
    supremum: Callable[[], tuple[sp.Expr | None, sp.Expr | None]]


def _in_x_on_ring(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> _InX | None:
    """The fast path: g read on sympy's sparse polynomial ring; None when it does not fit one."""
    ring = ring_of(gens_of(flops, bytes_, x))
    flops_p, bytes_p = to_poly(flops, ring), to_poly(bytes_, ring)
    if flops_p is None or bytes_p is None or not bytes_p:
        return None
    if not (peak.is_Rational and bandwidth.is_Rational):
        return None
    bandwidth_p, peak_p = to_poly(bandwidth, ring), to_poly(peak, ring)
    assert bandwidth_p is not None and peak_p is not None  # rationals are ring constants
    g = flops_p * bandwidth_p - bytes_p * peak_p
    x_index = ring.symbols.index(x)
    by_power = coefficients_by_power(g, x_index) if g else []
    return _InX(
        to_expr(g),
        tuple(to_expr(coefficient) for coefficient in by_power),
        tuple(ring_sign(coefficient) for coefficient in by_power),
        lambda: (
            supremum_on_ring(flops_p, bytes_p, x_index)
            if flops_p
            else supremum_of(flops / bytes_, x)
        ),
    )


def _in_x_by_sympy(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> _InX | Crossover:
    """The reference path: g through sympy's ``expand`` and ``Poly`` (any expressions).

    A g that is not a polynomial in x is answered at once (undetermined).
    """
    g = sp.expand(flops * bandwidth - bytes_ * peak)
    if g == 0:
        return _InX(g, (), (), lambda: (None, None))
    try:
        poly = sp.Poly(g, x)
    except sp.PolynomialError:
        return Crossover(UNDETERMINED, x, g, note=f"FLOPs·β − bytes·π is not a polynomial in {x}")
    coefficients = tuple(poly.all_coeffs())
    return _InX(
        g,
        coefficients,
        tuple(sign_on_positive(coefficient) for coefficient in coefficients),
        lambda: supremum_of(flops / bytes_, x),
    )


def _never(in_x: _InX, x: sp.Symbol, ridge: sp.Expr) -> Crossover:
    """I < ridge everywhere: with the supremum of I and how far below the ridge it stays."""
    supremum, supremum_all = in_x.supremum()
    top = supremum_all if supremum_all is not None else supremum
    shortfall = ridge / top if top is not None and top.is_number and top > 0 else None
    return Crossover(
        NEVER, x, in_x.g, supremum=supremum, supremum_all=supremum_all, shortfall=shortfall
    )


def _decide_in_x(in_x: _InX, x: sp.Symbol, ridge: sp.Expr) -> Crossover:
    """The one decision tree: identically zero, signs, numbers, then degree 0 or 1 in x.

    A factor x^k of g is dropped first: x > 0, so it changes no sign, and its root 0 is no
    crossover (``B·F·(P·β − (4P − 4)·π)`` is "B drops out", not "B* = 0").
    """
    g, coefficients, signs = in_x.g, in_x.coefficients, in_x.signs
    power = 0
    while len(coefficients) > 1 and coefficients[-1] == 0:
        coefficients, signs, power = coefficients[:-1], signs[:-1], power + 1
    if power:
        g = sp.expand(g / x**power)
    if not coefficients:
        note = "compute and memory time are equal for every value"
        return Crossover(ALWAYS, x, g, min_compute_bound=1, note=note)
    if all(sign is not None and sign <= 0 for sign in signs):
        return _never(in_x, x, ridge)
    if all(sign is not None and sign >= 0 for sign in signs):
        return Crossover(ALWAYS, x, g, min_compute_bound=1)
    if all(coefficient.is_number for coefficient in coefficients):
        return numeric_crossover(g, x, coefficients)
    degree = len(coefficients) - 1
    if degree == 0:
        condition = coefficients[0].as_content_primitive()[1]
        note = f"{x} drops out: compute-bound for every {x} exactly when {condition} ≥ 0, which depends on the other dims"
        return Crossover(UNDETERMINED, x, g, condition=condition, note=note)
    if degree == 1:
        (slope, constant), (slope_sign, constant_sign) = coefficients, signs
        exact = factor(cancel_ratio(-constant, slope))
        if constant_sign == -1 and slope_sign in (1, None):
            condition = None if slope_sign == 1 else slope.as_content_primitive()[1]
            return Crossover(CROSSES, x, g, exact=exact, condition=condition)
        note = "whether the root is positive depends on the other dims; give them values to decide"
        return Crossover(UNDETERMINED, x, g, exact=exact, note=note)
    note = f"degree {degree} in {x} with unbound dims; give them values to solve exactly"
    return Crossover(UNDETERMINED, x, g, note=note)


def _solve(
    flops: sp.Expr,
    bytes_: sp.Expr,
    peak: sp.Expr,
    bandwidth: sp.Expr,
    x: sp.Symbol,
    *,
    on_ring: bool = True,
) -> Crossover:
    """:func:`solve_crossover`, with the ring fast path on or off (off: sympy, the reference)."""
    peak, bandwidth = (
        sp.Rational(value) if isinstance(value, int) else value for value in (peak, bandwidth)
    )
    in_x = _in_x_on_ring(flops, bytes_, peak, bandwidth, x) if on_ring else None
    found = in_x if in_x is not None else _in_x_by_sympy(flops, bytes_, peak, bandwidth, x)
    if isinstance(found, Crossover):
        return found
    return _decide_in_x(found, x, peak / bandwidth)


@lru_cache(maxsize=1024)
def solve_crossover(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> Crossover:
    """Solve FLOPs/peak = bytes/bandwidth for x exactly (pure, so cached: keys repeat setups).

    g = FLOPs·β − bytes·π is read as a polynomial in x, on sympy's sparse polynomial
    rings when FLOPs and bytes are polynomials (every built-in operator) and through
    sympy's ``Poly`` otherwise; one decision tree then reads the status off its
    coefficients (tests/analysis/test_algebra.py checks the two readings agree on every field).

    >>> B, D = sp.symbols("B D", positive=True, integer=True)
    >>> solve_crossover(2*B*D, B + D, 3, 1, B).exact
    3*D/(2*D - 3)
    """
    return _solve(flops, bytes_, peak, bandwidth, x)
