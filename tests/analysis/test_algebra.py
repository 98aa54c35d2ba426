"""derive.analysis.algebra.rings (and algebra_ratios, algebra_substitution) gives exactly what sympy gives, faster: checked on random polynomials.

The outputs must be the *same expressions* (same classes and args in order, see shape()),
because keys and golden files print them.
"""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.analysis.algebra.ratios import cancel, cancel_ratio
from derive.analysis.algebra.rings import expand

B, D, F, P = sp.symbols("B D F P", positive=True, integer=True)


def shape(e: sp.Basic) -> tuple:
    """The expression's structure: classes and args in order, numbers, symbols with their
    assumptions. Like ``srepr``, but not sensitive to the order in which a symbol's
    assumptions were once written: sympy's caches may hand back an equal symbol made
    elsewhere (``integer=True, positive=True``), so srepr text can differ run to run."""
    if e.is_Symbol:
        return ("Symbol", e.name, tuple(sorted(e.assumptions0.items())))
    if e.is_Number or not e.args:
        return (type(e).__name__, str(e))
    return (type(e).__name__, tuple(shape(a) for a in e.args))


SYMS = (B, D, F, P)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

coeffs = st.builds(sp.Rational, st.integers(-12, 12), st.integers(1, 6))
monomials = st.tuples(coeffs, st.lists(st.integers(0, 2), min_size=4, max_size=4))


def _poly(terms) -> sp.Expr:
    return sp.Add(*(c * sp.Mul(*(s**e for s, e in zip(SYMS, exps))) for c, exps in terms))


polys = st.lists(monomials, min_size=1, max_size=4).map(_poly)
factors = st.lists(monomials, min_size=1, max_size=2).map(_poly)


@SETTINGS
@given(polys, polys, factors)
def test_cancel_ratio_is_sympy_cancel(num, den, common):
    if den == 0 or common == 0:
        return
    n, d = sp.expand(num * common), sp.expand(den * common)  # a shared factor to cancel
    assert shape(cancel_ratio(n, d)) == shape(sp.cancel(n / d))
    assert shape(cancel_ratio(num, den)) == shape(sp.cancel(num / den))


@SETTINGS
@given(polys, polys)
def test_expand_is_sympy_expand(p, q):
    e = p * q + (p - q) ** 2
    assert shape(expand(e)) == shape(sp.expand(e))


def test_not_a_polynomial_falls_back_to_sympy():
    e = sp.sqrt(B) / (B + sp.sqrt(B) * D)
    assert cancel(e) == sp.cancel(e)
    assert expand((sp.sqrt(B) + 1) ** 2) == sp.expand((sp.sqrt(B) + 1) ** 2)
    assert cancel(B / (B + B**2)) == 1 / (B + 1)
    assert cancel_ratio(sp.Integer(0), B) == 0
    assert cancel(sp.Rational(3, 4)) == sp.Rational(3, 4)


pos_coeffs = st.builds(sp.Rational, st.integers(1, 12), st.integers(1, 6))
pos_monomials = st.tuples(pos_coeffs, st.lists(st.integers(0, 2), min_size=4, max_size=4))
pos_polys = st.lists(pos_monomials, min_size=1, max_size=4).map(_poly)
hardware = st.builds(sp.Rational, st.integers(1, 10**6), st.integers(1, 10**3))


def _fields(c):
    return (
        c.status,
        shape(c.g),
        c.exact,
        c.min_compute_bound,
        c.condition,
        c.supremum,
        c.supremum_all,
        c.note,
        c.shortfall,
    )


@SETTINGS
@given(
    pos_polys,
    pos_polys,
    hardware,
    hardware,
    st.sampled_from(SYMS),
    st.dictionaries(st.sampled_from(SYMS), st.integers(1, 50)),
)
def test_ring_crossover_is_the_general_one(flops, byts, peak, bw, x, bound):
    """The ring reading of g and sympy's (its reference) agree on every field, symbolic or bound."""
    from derive.analysis.crossover.solve import _solve, solve_crossover

    bound = {s: sp.Integer(v) for s, v in bound.items() if s != x}
    f, b = flops.subs(bound), byts.subs(bound)
    assert _fields(solve_crossover(f, b, peak, bw, x)) == _fields(
        _solve(f, b, peak, bw, x, on_ring=False)
    )


@SETTINGS
@given(st.lists(st.integers(-30, 30), min_size=2, max_size=5).filter(lambda c: c[0] != 0))
def test_exact_numeric_solve_is_sympys(coefficients):
    """The Fraction solve of a numeric g (rational roots) is sympy's real_roots-and-subs solve."""
    from derive.analysis.crossover.roots import _numeric_sympy, numeric_crossover

    x = sp.Symbol("x", positive=True, integer=True)
    g = sp.Poly.from_list([sp.Integer(c) for c in coefficients], x).as_expr()
    coeffs = tuple(sp.Poly(g, x).all_coeffs())
    assert _fields(numeric_crossover(g, x, coeffs)) == _fields(_numeric_sympy(g, x))


def test_compute_bound_only_below_one_is_never_for_integers():
    """g ≥ 0 only on (0, r) with r < 1: no integer is compute-bound (this used to loop forever)."""
    from derive.analysis.crossover.records import NEVER
    from derive.analysis.crossover.solve import solve_crossover

    D = sp.Symbol("D", positive=True, integer=True)
    flops, byts = sp.Integer(1000), 10 * D**2 + 5 * D + 1  # intensity falls with D
    c = solve_crossover(flops, byts, sp.Integer(200), sp.Integer(1), D)
    g = sp.expand(flops - byts * 200)
    assert c.status == NEVER and c.min_compute_bound is None and "no integer" in c.note
    assert g.subs(D, sp.Rational(1, 100)) > 0 and all(g.subs(D, n) < 0 for n in range(1, 50))


def test_compute_bound_on_a_middle_interval():
    """Roots 2 and 5, compute-bound between them: the smallest integer is 2, found exactly."""
    from derive.analysis.crossover.records import CROSSES
    from derive.analysis.crossover.solve import _solve, solve_crossover

    N = sp.Symbol("N", positive=True, integer=True)
    flops, byts = 7 * N, N**2 + 10  # 7N − (N² + 10) ≥ 0 on [2, 5]
    c = solve_crossover(flops, byts, sp.Integer(1), sp.Integer(1), N)
    assert (c.status, c.exact, c.min_compute_bound) == (CROSSES, 2, 2)
    assert _fields(c) == _fields(
        _solve(flops, byts, sp.Integer(1), sp.Integer(1), N, on_ring=False)
    )


def test_touching_the_ridge_is_not_a_crossover():
    """g = −(x − 3)²: compute and memory time tie at x = 3 only; memory-bound elsewhere."""
    from derive.analysis.crossover.records import NEVER
    from derive.analysis.crossover.solve import solve_crossover

    x = sp.Symbol("x", positive=True, integer=True)
    c = solve_crossover(6 * x, x**2 + 9, 1, 1, x)  # plain ints are accepted too
    assert c.status == NEVER and "isolated points" in c.note


def test_threshold_walks_back_over_a_touching_root():
    """g = (x − 4)²(x − 5): every integer from 4 on has g ≥ 0, so the threshold is 4, not 5."""
    from derive.analysis.crossover.records import CROSSES
    from derive.analysis.crossover.solve import solve_crossover

    x = sp.Symbol("x", positive=True, integer=True)
    flops, byts = x**3 + 56 * x, 13 * x**2 + 80
    c = solve_crossover(flops, byts, 1, 1, x)
    g = sp.expand(flops - byts)
    assert (c.status, c.exact, c.min_compute_bound) == (CROSSES, 5, 4)
    assert all(g.subs(x, n) >= 0 for n in range(4, 40)) and g.subs(x, 3) < 0


def test_compute_bound_only_below_a_root_says_so():
    """g ≥ 0 on (0, 5] only: the verdict names the range instead of claiming x ≥ 1."""
    from derive.analysis.crossover.records import CROSSES
    from derive.analysis.crossover.solve import solve_crossover
    from derive.solution.verdicts import verdict_text

    x = sp.Symbol("x", positive=True, integer=True)
    c = solve_crossover(sp.Integer(50), 2 * x, 10, 1, x)  # g = 50 − 20x ≥ 0 for x ≤ 5/2
    assert c.status == CROSSES and c.min_compute_bound == 1
    assert (
        verdict_text(c, sp.Integer(10))
        == "compute-bound only for x in (0, 5/2]; the smallest is x = 1"
    )


wide_coeffs = st.builds(
    sp.Rational, st.integers(-(10**12), 10**12).filter(bool), st.integers(1, 10**4)
)
wide_monomials = st.tuples(wide_coeffs, st.lists(st.integers(0, 12), min_size=4, max_size=4))


@SETTINGS
@given(st.lists(wide_monomials, min_size=0, max_size=6), st.permutations(range(4)))
def test_to_expr_is_as_expr(terms, order):
    """The ring element written back is the very expression ``as_expr`` builds."""
    from derive.analysis.algebra.rings import ring_of, to_expr, to_poly

    syms = tuple(SYMS[i] for i in order)
    e = sp.Add(*(c * sp.Mul(*(s**k for s, k in zip(syms, exps))) for c, exps in terms))
    p = to_poly(e, ring_of(SYMS))
    assert shape(to_expr(p)) == shape(p.as_expr())
    assert to_expr(p) == p.as_expr() and hash(to_expr(p)) == hash(p.as_expr())


def test_to_expr_edge_cases():
    from derive.analysis.algebra.rings import ring_of, to_expr, to_poly

    x, y, d_model = (
        sp.Symbol("x", positive=True),
        sp.Symbol("y"),
        sp.Symbol("d_model", positive=True, integer=True),
    )
    R = ring_of((x, y, d_model))
    for e in (
        sp.Integer(0),
        sp.Integer(1),
        sp.Integer(-1),
        sp.Rational(-3, 7),
        x,
        -x,
        x**2,
        -(x**2) * y / 3,
        1 - 2 * x,
        3 - x * d_model,
        x + y + d_model + 1,
        10**30 * d_model**9 - y,
    ):
        p = to_poly(sp.expand(e), R)
        assert shape(to_expr(p)) == shape(p.as_expr()), e


@SETTINGS
@given(polys, polys, st.lists(st.integers(0, 9), min_size=4, max_size=4), st.integers(1, 4))
def test_substitute_is_xreplace(num, den, vals, n_bound):
    """Numbers for every symbol give the same Rational as sympy; partial values the same expression."""
    from derive.analysis.algebra.substitution import substitute

    e = num / den if den != 0 else num
    values = {s: sp.Integer(v) for s, v in zip(SYMS[:n_bound], vals)}
    want = e.xreplace(values)
    got = substitute(e, values)
    assert shape(got) == shape(want)


rational_values = st.builds(sp.Rational, st.integers(-9, 9), st.integers(1, 4))


@SETTINGS
@given(
    st.lists(monomials, min_size=0, max_size=6),
    st.dictionaries(st.sampled_from(SYMS), rational_values, max_size=3),
)
def test_substitute_expanded_is_xreplace(terms, values):
    """Some symbols of an expanded polynomial → rationals: the very expression xreplace builds
    (terms cancelling, merging, becoming constants or vanishing)."""
    from derive.analysis.algebra.substitution import substitute

    e = _poly(terms)
    assert shape(substitute(e, values)) == shape(e.xreplace(values))


def test_substitute_edge_cases():
    from derive.analysis.algebra.substitution import substitute

    assert substitute(1 / (B - 2), {B: 2}) == sp.zoo  # sympy's answer, not an exception
    assert substitute(sp.sqrt(B) * D, {B: 4, D: 3}) == 6
    assert substitute(B**-2 * D, {B: 2, D: 3}) == sp.Rational(3, 4)
    assert substitute(sp.Min(B, D), {B: 2, D: 3}) == 2
    assert substitute(2 * B, {}) == 2 * B
    assert substitute(B * D / 3, {B: sp.Rational(3, 2), D: 4}) == 2
    for e, vals in (
        (2 * B * D + 2 * B * F, {D: 8, F: 8}),
        (B * D - B * F, {D: 3, F: 3}),
        (B * D + 1, {D: 0}),
        (B**2 * D + D, {D: sp.Rational(-1, 2)}),
        (B * D + F, {P: 2}),
        (B * (D + F), {D: 2}),
        (B / D + F, {F: 2}),
        (sp.sqrt(B) + D, {D: 1}),
        (B * D + sp.Max(B, F), {D: 2}),
    ):
        assert shape(substitute(e, vals)) == shape(e.xreplace(vals)), (e, vals)
    assert substitute(B * D + F, {P: 2}) is (B * D + F)  # nothing replaced: the expression itself


@SETTINGS
@given(polys, polys, factors, st.sampled_from([1, -1, 2, sp.Rational(3, 4)]))
def test_factor_is_sympy_factor(num, den, common, scale):
    """The crossover's closed form is printed factored: the same expression as sympy.factor."""
    from derive.analysis.algebra.ratios import factor

    if den == 0:
        return
    for e in (
        num / den,
        scale * sp.expand(num * common) / den,
        cancel_ratio(sp.expand(num * common), sp.expand(den * common)),
    ):
        assert shape(factor(e)) == shape(sp.factor(e)), e


def test_factor_edge_cases():
    from derive.analysis.algebra.ratios import factor

    for e in (
        sp.Integer(3),
        B,
        -B,
        3 * D / (2 * D - 3),
        -D / (2 * D - 3),
        B * D * F / (2 * B * D + 2 * B * F + 2 * D * F),
        (B**2 - D**2) / (B + 2 * D),
        9850 * D * F / (41 * D * F - 9850 * D - 9850 * F),
        (4 * B**2 - 1) / 6,
        sp.sqrt(B) / (B + 1),
        1 / (B * D),
    ):
        assert shape(factor(e)) == shape(sp.factor(e)), e


laurent_monomials = st.tuples(coeffs, st.lists(st.integers(-2, 2), min_size=4, max_size=4))
laurents = st.lists(laurent_monomials, min_size=1, max_size=4).map(_poly)


@SETTINGS
@given(laurents, laurents)
def test_cancel_ratio_with_symbols_in_denominators(num, den):
    """Dims divided by a dim (a sharded matmul's 2*B*D*F/P) cancel as sympy.cancel does."""
    if den == 0:
        return
    assert shape(cancel_ratio(num, den)) == shape(sp.cancel(num / den))
    assert shape(cancel_ratio(num * (B + 1) / P, den / (P * D))) == shape(
        sp.cancel(num * (B + 1) / P / (den / (P * D)))
    )


def test_review_edge_cases():
    """Inputs a review found: non-sympy values, nothing replaced, same-named symbols."""
    from fractions import Fraction

    from derive.analysis.algebra.ratios import factor
    from derive.analysis.algebra.substitution import substitute

    assert substitute(2 * B, {B: 1.5}) == 2 * B.xreplace({B: 1.5})
    assert substitute(2 * B, {B: Fraction(1, 2)}) == (2 * B).xreplace({B: Fraction(1, 2)})
    unevaluated = sp.Add(1, 2, evaluate=False)
    assert shape(substitute(unevaluated, {B: 1})) == shape(unevaluated)
    assert substitute(B * D + B, {B * D: 7, B: 2, D: 3}) == (B * D + B).xreplace(
        {B * D: 7, B: 2, D: 3}
    )
    assert factor(unevaluated) == 3
    Bp = sp.Symbol("B")
    e = (B + Bp) / (B - Bp)
    assert shape(factor(e)) == shape(sp.factor(e))


@SETTINGS
@given(polys, polys, st.booleans())
def test_same_polynomial_is_expand_of_the_difference(p, q, equal):
    """The ring comparison says what ``expand(a - b) == 0`` says, for written-differently equals too."""
    from derive.analysis.algebra.rings import same_polynomial

    a, b = (p * q, sp.expand(p * q)) if equal else (p, q)
    assert same_polynomial(a, b) == (sp.expand(a - b) == 0)
    assert same_polynomial(sp.sqrt(B) + p, sp.sqrt(B) + p) and not same_polynomial(
        1 / B, 1 / D
    )  # sympy's fallback


def test_quotient_shapes_are_sympys():
    """Each way a lowest-terms quotient is written: constant, monomial or sum, above and below."""
    cases = [
        (B + D, 2 * B * F),
        (3 * B, 2 * D + F),
        (B + D, 2 * B + 2 * D * F),
        (-B - D, F + 1),
        (2, B + D),
        (1, 2 * B * D),
        (B**2 * D, 3 * F**3),
        (6 * B + 4 * D, 2),
        (B, 7),
        (-5 * B * D, 10 * F),
        (B + D, B * D),
        (1, B),
        (B**2 - D, -F),
    ]
    for n, d in cases:
        assert shape(cancel_ratio(sp.expand(n), sp.expand(d))) == shape(sp.cancel(n / d)), (n, d)


@SETTINGS
@given(
    polys, polys, st.dictionaries(st.sampled_from(SYMS), rational_values.filter(bool), max_size=3)
)
def test_cancel_at_is_cancel_of_the_substituted_ratio(num, den, values):
    """Substituting into each side and cancelling once gives what cancelling the substituted quotient gives."""
    from derive.analysis.algebra.ratios import cancel_at

    if den == 0:
        return
    r = cancel_ratio(num, den)
    want = r.xreplace(values)
    if want.has(sp.zoo, sp.nan):
        return
    assert shape(cancel_at(r, values)) == shape(cancel(want))


def test_crossover_status_prints_as_the_contract_strings():
    """The enum's values are the JSON strings; str, format, ==, json and pickle keep them."""
    import json
    import pickle

    from derive.analysis.crossover.records import (
        ALWAYS,
        CROSSES,
        NEVER,
        UNDETERMINED,
        CrossoverStatus,
    )

    strings = ["crosses", "never", "always", "undetermined"]
    for status, text in zip((CROSSES, NEVER, ALWAYS, UNDETERMINED), strings):
        assert isinstance(status, CrossoverStatus) and status == text
        assert str(status) == f"{status}" == f"{status:>0}" == text
        assert json.dumps({"status": status}) == json.dumps({"status": text})
        assert pickle.loads(pickle.dumps(status)) is status
    assert [s.value for s in CrossoverStatus] == strings


@SETTINGS
@given(polys, polys, st.lists(st.integers(-9, 70000), min_size=1, max_size=6))
def test_values_at_is_subs(num, den, points):
    """One symbol left: the Fraction values_at gives at each point is the Rational subs gives
    (None only where sympy's answer is not a number: a denominator that vanishes)."""
    from derive.analysis.algebra.substitution import values_at

    e = (num / den if den != 0 else num).subs({D: 3, F: sp.Rational(1, 2), P: 7})
    got = values_at(e, B, points)
    if e.has(sp.zoo, sp.nan):  # the other dims' values already divided by zero
        return
    assert got is not None
    for v, value in zip(points, got):
        want = e.subs(B, v)
        if value is None:
            assert not want.is_Rational
        else:
            assert sp.Rational(value.numerator, value.denominator) == want


def test_values_at_refuses_what_is_not_a_ratio_of_polynomials():
    from fractions import Fraction

    from derive.analysis.algebra.substitution import values_at

    assert values_at(sp.sqrt(B), B, [4]) is None
    assert values_at(B + D, B, [4]) is None  # D has no value
    assert values_at(sp.Max(B, 3), B, [4]) is None
    assert values_at(sp.Float(0.5) * B, B, [4]) is None
    assert values_at(1 / (B - 2), B, [2, 3]) == [None, Fraction(1)]  # sympy says zoo at 2
    assert values_at(B**-2 * 3, B, [2]) == [Fraction(3, 4)]
    assert values_at(sp.Integer(5), B, [1, 2]) == [Fraction(5), Fraction(5)]


def _factor_multiset(factors) -> dict:
    """Factors by their terms (a ring element's cached hash can go stale inside sympy's
    division, so elements themselves make poor dict keys)."""
    out: dict = {}
    for poly, multiplicity in factors:
        key = frozenset(poly.items())
        out[key] = out.get(key, 0) + multiplicity
    return out


@SETTINGS
@given(st.lists(factors, min_size=1, max_size=4), st.sampled_from([1, -1, 6, -4]))
def test_integer_factors_is_factor_list(parts, scale):
    """The degree-1 shortcut finds the factors sympy's factor_list finds, normalised alike."""
    from sympy.polys.domains import ZZ

    from derive.analysis.algebra.ratios import integer_factors
    from derive.analysis.algebra.rings import ring_of

    e = sp.expand(scale * sp.Mul(*parts))
    if e == 0:
        return
    _, cleared = ring_of(SYMS).from_expr(e).clear_denoms()
    p = cleared.set_ring(ring_of(SYMS).clone(domain=ZZ))
    want = _factor_multiset(p.factor_list()[1])
    assert _factor_multiset(integer_factors(p)) == want


def test_integer_factors_degree_one_cases():
    from sympy.polys.domains import ZZ

    from derive.analysis.algebra.ratios import integer_factors
    from derive.analysis.algebra.rings import ring_of

    R = ring_of(SYMS).clone(domain=ZZ)
    b, d, f, p = R.gens
    for poly in (
        3 * b * d + 3 * b * f,  # a common factor (b), content 3, then d + f
        (d + f) * (2 * b + d * f),  # gcd(slope, constant) = d + f
        -(d**2 + f**2) * (b + 1),  # a factor of degree 2 in every dim: factor_list for it
        (d + 1) ** 2 * (d * b - f),
        b**3 * d * (p - 1),
        R(7),
        (b + d) * (b - d),  # degree 2 in b and in d: factor_list
    ):
        assert _factor_multiset(integer_factors(poly)) == _factor_multiset(poly.factor_list()[1])
