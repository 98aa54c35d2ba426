"""derive.algebra gives exactly what sympy gives, faster: checked on random polynomials.

The outputs must be the *same expressions* (same srepr), not only equal values,
because keys and golden files print them.
"""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.algebra import cancel, cancel_ratio, expand, is_polynomial

B, D, F, P = sp.symbols("B D F P", positive=True, integer=True)
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
    assert sp.srepr(cancel_ratio(n, d)) == sp.srepr(sp.cancel(n / d))
    assert sp.srepr(cancel_ratio(num, den)) == sp.srepr(sp.cancel(num / den))


@SETTINGS
@given(polys, polys)
def test_expand_is_sympy_expand(p, q):
    e = p * q + (p - q) ** 2
    assert sp.srepr(expand(e)) == sp.srepr(sp.expand(e))
    assert is_polynomial(e)


def test_not_a_polynomial_falls_back_to_sympy():
    e = sp.sqrt(B) / (B + sp.sqrt(B) * D)
    assert cancel(e) == sp.cancel(e)
    assert expand((sp.sqrt(B) + 1) ** 2) == sp.expand((sp.sqrt(B) + 1) ** 2)
    assert not is_polynomial(1 / B)
    assert cancel(B / (B + B**2)) == 1 / (B + 1)
    assert cancel_ratio(sp.Integer(0), B) == 0
    assert cancel(sp.Rational(3, 4)) == sp.Rational(3, 4)
