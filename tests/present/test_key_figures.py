"""The samples of a key's plot are exactly what sympy's ``Min(peak, I(v)·bandwidth)`` gives."""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.present.key.figures import _attainable

B, D = sp.symbols("B D", positive=True, integer=True)

INTENSITIES = (
    2 * B * 4096 * 4096 / (2 * B * 4096 + 2 * 4096 * 4096 + 2 * B * 4096),
    B / (B + 1),
    sp.Rational(1, 3) * B**2 / (B + 7),
    1 / (B + 2),
    sp.sqrt(B) + 1,  # not a rational function: sympy evaluates it
    sp.Integer(5),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(INTENSITIES),
    st.lists(st.integers(1, 70000), min_size=1, max_size=8, unique=True),
    st.integers(1, 10**15),
    st.integers(1, 10**12),
    st.integers(1, 1000),
)
def test_attainable_is_sympy_min(intensity, xs, peak, bandwidth, scale):
    P, W = sp.Rational(peak, scale), sp.Rational(bandwidth, 7)
    got = _attainable(intensity, B, tuple(sorted(xs)), P, W)
    want = tuple(sp.Min(P, intensity.subs(B, v) * W) for v in sorted(xs))
    assert got == want
    assert [type(g) for g in got] == [type(w) for w in want]


def test_attainable_with_a_symbolic_roof_asks_sympy():
    got = _attainable(B / (B + 1), B, (1, 2), D, sp.Integer(3))
    assert got == (sp.Min(D, sp.Rational(3, 2)), sp.Min(D, 2))
