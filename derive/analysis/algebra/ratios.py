"""Ratios of polynomials on the rings: lowest terms (``cancel``) and factoring (``factor``).

Each gives the same expression as its sympy namesake (tests/analysis/test_algebra.py), read into
sympy's sparse rings by :mod:`derive.analysis.algebra.rings` instead of re-discovered by sympy's
general simplifiers; anything that is not a ratio of polynomials falls back to sympy.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import sympy as sp
from sympy.core.mul import _keep_coeff, _mulsort
from sympy.polys.domains import ZZ
from sympy.polys.rings import PolyElement

from derive.analysis.algebra.rings import (
    gens_of,
    poly_pair,
    ring_of,
    to_expr,
    to_fraction,
    to_poly,
)
from derive.analysis.algebra.substitution import substitute


@lru_cache(maxsize=4096)
def cancel_ratio(num: sp.Expr, den: sp.Expr) -> sp.Expr:
    """``num/den`` in lowest terms: the same expression as ``sympy.cancel(num/den)``.

    >>> B, D, F = sp.symbols("B D F", positive=True)
    >>> cancel_ratio(2*B*D*F, 2*B*D + 2*D*F + 2*B*F)
    B*D*F/(B*D + B*F + D*F)
    """
    if num.is_Number and den.is_Number:
        return num / den
    _R, F, G = poly_pair(num, den)
    if F is None or G is None or not G:
        return sp.cancel(num / den)
    if not F:
        return sp.Integer(0)
    P, Q = F.cancel(G)
    return _quotient(P, Q) if Q != 1 else to_expr(P)


def _quotient(P: PolyElement, Q: PolyElement) -> sp.Expr:
    """``to_expr(P) / to_expr(Q)`` for ``P/Q`` in lowest terms, built as ``Mul.flatten`` builds it.

    A constant denominator divides every coefficient (sympy distributes a number over a
    sum); otherwise the quotient is one ``Mul``: the rational coefficient, then, in
    sympy's order, the numerator (its powers, or the sum) and the denominator (its powers
    to negative exponents, or the sum to the power -1). P and Q share no factor, so no
    base meets itself. The same expression as the division (tests/analysis/test_algebra.py).
    """
    if Q.is_ground:
        return to_expr(P.quo_ground(Q.LC))
    coeff, factors = Fraction(1), []
    for poly, sign in ((P, 1), (Q, -1)):
        if len(poly) == 1:
            ((monom, c),) = poly.items()
            coeff = coeff * to_fraction(c) if sign == 1 else coeff / to_fraction(c)
            factors += [
                s if e * sign == 1 else sp.Pow(s, e * sign)
                for s, e in zip(poly.ring.symbols, monom)
                if e
            ]
        else:
            factors.append(to_expr(poly) if sign == 1 else sp.Pow(to_expr(poly), -1))
    _mulsort(factors)
    if coeff != 1:
        factors.insert(0, sp.Rational(coeff.numerator, coeff.denominator))
    return sp.Mul._from_args(factors, True)


def cancel(expr: sp.Expr) -> sp.Expr:
    """``sympy.cancel(expr)`` for a ratio of polynomials, without the general machinery."""
    if expr.is_Number:
        return expr
    num, den = sp.fraction(expr)
    return cancel_ratio(num, den)


def cancel_at(expr: sp.Expr, values: dict) -> sp.Expr:
    """``cancel(substitute(expr, values))``: each side substituted, then cancelled once."""
    num, den = sp.fraction(expr)
    if (
        den is not sp.S.One
    ):  # a ratio: substitute each side, then cancel once (no sympy quotient in between)
        numerator, denominator = substitute(num, values), substitute(den, values)
        R = ring_of(gens_of(numerator, denominator))
        if (
            denominator != 0
            and to_poly(numerator, R) is not None
            and to_poly(denominator, R) is not None
        ):
            return cancel_ratio(
                numerator, denominator
            )  # lowest terms are unique: the same as cancelling the substituted ratio
    return cancel(substitute(expr, values))


def _integer_factors(p: PolyElement) -> tuple[Fraction, list[tuple[PolyElement, int]]]:
    """``p``'s leading coefficient and its irreducible factors over the integers.

    The factors are primitive with a positive leading coefficient (sympy's ``factor_list``
    normalisation); the leading coefficient is kept whole, the constant is found from it.
    """
    _, cleared = p.clear_denoms()
    return to_fraction(p.LC), integer_factors(cleared.set_ring(p.ring.clone(domain=ZZ)))


def integer_factors(p: PolyElement) -> list[tuple[PolyElement, int]]:
    """The irreducible factors of ``p`` (over ZZ, not zero) with their multiplicities, as
    sympy's ``factor_list`` gives them: each primitive with a positive leading coefficient
    (the list may be in another order; tests/analysis/test_algebra.py compares the two).

    The crossover's closed form has many dims and is often of degree 1 in one of them,
    where no general factoring (Wang's algorithm, costly per call: benchmarks/README.md) is
    needed: a primitive ``a·x + b`` is irreducible once ``gcd(a, b) = 1``, else it is
    ``gcd · (a·x + b)/gcd`` and only the gcd, which has fewer dims, is factored further. Powers of a single dim
    are split off first, as sympy does; anything else goes to ``factor_list``.
    """
    R = p.ring
    tail = p.tail_degrees()
    factors = [(R.gens[i], k) for i, k in enumerate(tail) if k]
    if any(tail):
        p = R.from_dict(
            {tuple(e - t for e, t in zip(monom, tail)): c for monom, c in p.iterterms()}
        )
    _, p = p.primitive()
    if p.LC < 0:
        p = -p
    if p.is_ground:
        return factors
    for i in range(R.ngens):
        if p.degree(i) != 1:
            continue
        slope = R.from_dict(
            {monom[:i] + (0,) + monom[i + 1 :]: c for monom, c in p.iterterms() if monom[i] == 1}
        )
        constant = p - slope * R.gens[i]
        common = slope.gcd(constant)
        if common.is_ground:
            return [*factors, (p, 1)]
        rest = p.exquo(common)
        return [*factors, *integer_factors(common), (-rest if rest.LC < 0 else rest, 1)]
    return [*factors, *p.factor_list()[1]]


def factor(expr: sp.Expr) -> sp.Expr:
    """``sympy.factor(expr)`` for a ratio of polynomials, without re-reading it into ``Poly``s.

    Both sides are factored over the integers on the ring; the rational constant is
    whatever makes the product equal ``expr`` (leading coefficients multiply), and the
    result is assembled with sympy's own ``_keep_coeff``, as ``factor`` does. The same
    expression as ``sympy.factor`` (tests/analysis/test_algebra.py); anything else falls back to it.
    """
    if expr.is_Number:
        return expr
    num, den = sp.fraction(expr)
    R, F, G = poly_pair(num, den)
    names = [symbol.name for symbol in R.symbols]
    # sympy orders each factor's generators itself: with two symbols of one name that order
    # can differ from the ring's, so those (and numbers written unevaluated) go to sympy
    if F is None or G is None or not F or not G or not names or len(set(names)) != len(names):
        return sp.factor(expr)
    (numerator_lead, numerator_factors), (denominator_lead, denominator_factors) = (
        _integer_factors(F),
        _integer_factors(G),
    )
    constant = numerator_lead / denominator_lead
    for factor_poly, multiplicity in numerator_factors:
        constant /= to_fraction(factor_poly.LC) ** multiplicity
    for factor_poly, multiplicity in denominator_factors:
        constant *= to_fraction(factor_poly.LC) ** multiplicity
    product = sp.Mul(
        *[to_expr(factor_poly) ** multiplicity for factor_poly, multiplicity in numerator_factors],
        *[
            to_expr(factor_poly) ** -multiplicity
            for factor_poly, multiplicity in denominator_factors
        ],
    )
    return _keep_coeff(sp.Rational(constant.numerator, constant.denominator), product)
