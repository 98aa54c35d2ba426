"""Exact polynomial algebra without sympy's general-purpose simplifiers.

Every FLOP and byte count derive sees is a polynomial (or a ratio of two) in the
dims with rational coefficients. sympy's ``cancel``, ``expand`` and ``Poly`` must
first discover that structure (``signsimp``, ``factor_terms``, ``expand``), which
dominated a cold key build. Here expressions are read straight into sympy's sparse
polynomial rings (``sympy.polys.rings``) and results written back as ``Expr``.

The results are the same expressions sympy returns: :func:`cancel_ratio` gives
exactly ``sympy.cancel(num / den)`` (same generators, same ordering, the same
canonical sign), which tests/test_algebra.py checks on random ratios. Anything
that is not a polynomial in its symbols falls back to sympy itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
from sympy.core.add import _addsort
from sympy.core.mul import _keep_coeff, _mulsort
from sympy.polys.domains import QQ, ZZ
from sympy.polys.orderings import lex
from sympy.polys.polyutils import _sort_gens
from sympy.polys.rings import PolyElement, PolyRing

__all__ = [
    "cancel",
    "cancel_at",
    "cancel_ratio",
    "expand",
    "factor",
    "gens_of",
    "integer_factors",
    "ring_of",
    "same_polynomial",
    "substitute",
    "to_expr",
    "to_fraction",
    "to_poly",
    "values_at",
]


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
    The result is the same expression (same args, same order; tests/test_algebra.py).
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
    return _polynomial(terms)


def _polynomial(terms: Iterable[tuple[sp.Rational, Sequence[sp.Expr]]]) -> sp.Expr:
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


def _poly_pair(
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


@lru_cache(maxsize=4096)
def cancel_ratio(num: sp.Expr, den: sp.Expr) -> sp.Expr:
    """``num/den`` in lowest terms: the same expression as ``sympy.cancel(num/den)``.

    >>> B, D, F = sp.symbols("B D F", positive=True)
    >>> cancel_ratio(2*B*D*F, 2*B*D + 2*D*F + 2*B*F)
    B*D*F/(B*D + B*F + D*F)
    """
    if num.is_Number and den.is_Number:
        return num / den
    _R, F, G = _poly_pair(num, den)
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
    base meets itself. The same expression as the division (tests/test_algebra.py).
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
    (the list may be in another order; tests/test_algebra.py compares the two).

    The crossover's closed form has many dims and is often of degree 1 in one of them,
    where no general factoring (Wang's algorithm, ~12 ms a call) is needed: a primitive
    ``a·x + b`` is irreducible once ``gcd(a, b) = 1``, else it is ``gcd · (a·x + b)/gcd``
    and only the gcd, which has fewer dims, is factored further. Powers of a single dim
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


def to_fraction(c: Any) -> Fraction:
    """A ring coefficient (QQ or ZZ, gmpy or python) as a Fraction."""
    return Fraction(int(c.numerator), int(c.denominator))


def factor(expr: sp.Expr) -> sp.Expr:
    """``sympy.factor(expr)`` for a ratio of polynomials, without re-reading it into ``Poly``s.

    Both sides are factored over the integers on the ring; the rational constant is
    whatever makes the product equal ``expr`` (leading coefficients multiply), and the
    result is assembled with sympy's own ``_keep_coeff``, as ``factor`` does. The same
    expression as ``sympy.factor`` (tests/test_algebra.py); anything else falls back to it.
    """
    if expr.is_Number:
        return expr
    num, den = sp.fraction(expr)
    R, F, G = _poly_pair(num, den)
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
    (tests/test_algebra.py).

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
    way :func:`to_expr` writes a ring element (:func:`_polynomial`), that is the expression ``xreplace`` builds
    through ``flatten`` (tests/test_algebra.py), without ``flatten``'s general machinery.
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
    return _polynomial(
        (sp.Rational(coefficient.numerator, coefficient.denominator), factors)
        for factors, coefficient in acc.items()
        if coefficient
    )
