"""Exact polynomial algebra without sympy's general-purpose simplifiers: the rings.

Every FLOP and byte count derive sees is a polynomial (or a ratio of two) in the
dims with rational coefficients. sympy's ``cancel``, ``expand`` and ``Poly`` must
first discover that structure (``signsimp``, ``factor_terms``, ``expand``), which
dominated a cold key build. Here expressions are read straight into sympy's sparse
polynomial rings (``sympy.polys.rings``) and results written back as ``Expr``.

This module reads expressions into rings and writes ring elements back;
:mod:`derive.analysis.algebra.ratios` cancels and factors ratios on them, and
:mod:`derive.analysis.algebra.substitution` substitutes numbers and evaluates.

The results are the same expressions sympy returns: :func:`~derive.analysis.algebra.ratios.cancel_ratio` gives
exactly ``sympy.cancel(num / den)`` (same generators, same ordering, the same
canonical sign), which tests/analysis/test_algebra.py checks on random ratios. Anything
that is not a polynomial in its symbols falls back to sympy itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
from sympy.core.add import _addsort
from sympy.core.mul import _mulsort
from sympy.polys.domains import QQ
from sympy.polys.orderings import lex
from sympy.polys.polyutils import _sort_gens
from sympy.polys.rings import PolyElement, PolyRing


@lru_cache(maxsize=256)
def ring_of(gens: tuple[sp.Symbol, ...]) -> PolyRing:
    """The polynomial ring over QQ in ``gens``, ordered as sympy orders them."""
    return PolyRing(_sort_gens(gens), QQ, lex)


def gens_of(*exprs: sp.Expr) -> tuple[sp.Symbol, ...]:
    """The symbols of ``exprs``, by name (the generators :func:`ring_of` takes)."""
    syms: set = set()
    for e in exprs:
        syms |= e.free_symbols
    return tuple(sorted(syms, key=lambda s: s.name))


@lru_cache(maxsize=4096)
def to_poly(expr: sp.Expr, R: PolyRing) -> PolyElement | None:
    """``expr`` as an element of ``R``, or None when it is not a polynomial in R's gens.

    Remembered (a key reads the same FLOPs and bytes into the same ring for the intensity,
    the crossover and the steps), so the element is shared: like sympy's own ring code,
    callers never change an element in place.
    """
    return _to_poly(expr, R)


def _to_poly(expr: sp.Expr, R: PolyRing) -> PolyElement | None:
    if expr.is_Rational:
        return R(QQ(int(expr.p), int(expr.q)))
    if expr.is_Symbol:
        try:
            return R.gens[R.symbols.index(expr)]
        except ValueError:
            return None
    if expr.is_Add or expr.is_Mul:
        out = None
        for arg in expr.args:
            part = _to_poly(arg, R)
            if part is None:
                return None
            out = part if out is None else (out + part if expr.is_Add else out * part)
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
        base = _to_poly(expr.base, R)
        return None if base is None else base ** int(expr.exp)
    return None


def to_expr(p: PolyElement) -> sp.Expr:
    """``p.as_expr()``, built the way sympy's evaluated ``Add``/``Mul`` would build it.

    ``as_expr`` multiplies and adds through sympy's general ``flatten``; a polynomial's
    terms are already distinct monomials in distinct symbols, so all that is left of
    ``flatten`` is its canonical sort (``_mulsort``/``_addsort``) with the number first.
    The result is the same expression (same args, same order; tests/analysis/test_algebra.py).
    """
    to_sympy, syms = p.ring.domain.to_sympy, p.ring.symbols
    terms = []
    for monom, coefficient in p.items():
        factors = [
            symbol if exponent == 1 else sp.Pow(symbol, exponent)
            for symbol, exponent in zip(syms, monom)
            if exponent
        ]
        _mulsort(factors)
        terms.append((to_sympy(coefficient), factors))
    return polynomial_expr(terms)


def polynomial_expr(terms: Iterable[tuple[sp.Rational, Sequence[sp.Expr]]]) -> sp.Expr:
    """Σ coefficient · factors over distinct monomials, as evaluated ``Add``/``Mul`` leave it.

    ``terms`` are (nonzero Rational, powers of distinct symbols in sympy's order), at most
    one with no powers (the constant). Each term is the number first, then its powers; the
    sum is the constant first, then the terms in sympy's order.
    """
    const: sp.Expr = sp.S.Zero
    out: list[sp.Expr] = []
    for coeff, factors in terms:
        if not factors:
            const = coeff
        else:
            out.append(sp.Mul._from_args(factors if coeff is sp.S.One else (coeff, *factors), True))
    _addsort(out)
    if const is not sp.S.Zero:
        out.insert(0, const)
    return sp.Add._from_args(out, True)


def _monomial(R: PolyRing, exps: tuple[int, ...]) -> PolyElement:
    return R.from_dict({exps: QQ.one})


def _to_laurent(expr: sp.Expr, R: PolyRing) -> tuple[PolyElement, tuple[int, ...]] | None:
    """``expr`` as ``P / m`` with P in ``R`` and m a monomial (its exponents), or None.

    For expressions with symbols in denominators, e.g. ``2*B*D/P + 2*B*F``, which is
    ``(2*B*D + 2*B*F*P) / P``.
    """
    zero = (0,) * R.ngens
    if expr.is_Rational or expr.is_Symbol:
        p = to_poly(expr, R)
        return None if p is None else (p, zero)
    if expr.is_Pow and expr.exp.is_Integer:
        base = _to_laurent(expr.base, R)
        if base is None:
            return None
        (base_poly, monomial), power = base, int(expr.exp)
        if power >= 0:
            return base_poly**power, tuple(exponent * power for exponent in monomial)
        # only a monomial can go below: 1/(B + D) is not a Laurent polynomial
        if len(base_poly) != 1:
            return None
        ((base_monomial, coefficient),) = base_poly.items()
        return R.from_dict(
            {tuple(exponent * -power for exponent in monomial): QQ.one / coefficient**-power}
        ), tuple(exponent * -power for exponent in base_monomial)
    if expr.is_Add or expr.is_Mul:
        found = [_to_laurent(arg, R) for arg in expr.args]
        parts = [q for q in found if q is not None]
        if len(parts) != len(found):
            return None
        if expr.is_Mul:
            out, monomial = R.one, zero
            for p, part_monomial in parts:
                out, monomial = (
                    out * p,
                    tuple(left + right for left, right in zip(monomial, part_monomial)),
                )
            return out, monomial
        monomial = tuple(max(col) for col in zip(*(part_monomial for _, part_monomial in parts)))
        return sum(
            (
                p
                * _monomial(R, tuple(left - right for left, right in zip(monomial, part_monomial)))
                for p, part_monomial in parts
            ),
            R.zero,
        ), monomial
    return None


def poly_pair(
    num: sp.Expr, den: sp.Expr
) -> tuple[PolyRing, PolyElement | None, PolyElement | None]:
    """The ring of num and den's symbols and num/den as a ratio F/G of its elements.

    Symbols in denominators (``2*B*D/P``) are multiplied out of both sides first.
    """
    gens = gens_of(num, den)
    R = ring_of(gens)
    F, G = to_poly(num, R), to_poly(den, R)
    if F is not None and G is not None:
        return R, F, G
    a, b = _to_laurent(num, R), _to_laurent(den, R)
    if a is None or b is None:
        return R, None, None
    (P, mp), (Q, mq) = a, b
    low = tuple(min(x, y) for x, y in zip(mp, mq))
    return (
        R,
        P * _monomial(R, tuple(x - y for x, y in zip(mq, low))),
        Q * _monomial(R, tuple(x - y for x, y in zip(mp, low))),
    )


def same_polynomial(a: sp.Expr, b: sp.Expr) -> bool:
    """``expand(a - b) == 0``, compared on the ring without building ``a - b`` (falls back to it)."""
    R = ring_of(gens_of(a, b))
    p, q = to_poly(a, R), to_poly(b, R)
    if p is None or q is None:
        return expand(a - b) == 0
    return p == q


@lru_cache(maxsize=4096)
def expand(expr: sp.Expr) -> sp.Expr:
    """``sympy.expand`` of a polynomial, through the ring (falls back to sympy)."""
    if expr.is_Number or expr.is_Symbol:
        return expr
    R = ring_of(gens_of(expr))
    p = to_poly(expr, R)
    return sp.expand(expr) if p is None else to_expr(p)


def to_fraction(c: Any) -> Fraction:
    """A ring coefficient (QQ or ZZ, gmpy or python) as a Fraction."""
    return Fraction(int(c.numerator), int(c.denominator))
