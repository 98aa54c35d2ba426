"""Numeric-first judging (derive.checking.sampling) gives the verdicts of the exact judge.

The exact judge proves every equality with ``cancel`` and never looks at points; the
numeric-first judge decides at random points and proves with ``cancel`` only when that is
cheap. Here both run on the 289-answer corpus and on random claims, and must agree; the
claims of the kind that used to run into the time limit (roots of dims, issue 27 F1) get a
verdict. Nothing here asserts a time (benchmarks/check_latency.py --roots reports it).
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_answers_corpus import ANSWERS, PROBLEMS, spec_of

import derive
from derive.checking import matching
from derive.checking.sampling import Sameness, compare, ratio_constant
from derive.deadline import run_with_deadline
from derive.problem.binding import ProblemSpec

B, D, F = sp.symbols("B D F", positive=True, integer=True)
DIMS = (B, D, F)


def _record(result) -> tuple:
    return (result.verdict, result.read_as, result.diagnosis, result.expected, result.reason)


@pytest.fixture
def exact_judge(monkeypatch):
    """The judge without points: every comparison proved or refuted by cancel."""

    def judge(spec, quantity, claim):
        with monkeypatch.context() as m:
            m.setattr(matching, "compare", lambda a, b: Sameness.UNDECIDED)
            m.setattr(matching, "ratio_constant", lambda a, b: Sameness.UNDECIDED)
            return derive.check(spec, quantity, claim)

    return judge


@pytest.fixture
def points_only(monkeypatch):
    """The numeric-first judge with no symbolic confirmation: the points alone decide."""
    monkeypatch.setattr(matching, "cheap", lambda expr: False)


@pytest.mark.parametrize(
    "answer", ANSWERS, ids=[f"{a['problem']}:{a['quantity']}:{a['claim']}" for a in ANSWERS]
)
def test_corpus_verdicts_are_the_exact_judges(answer, exact_judge, points_only):
    spec = spec_of(PROBLEMS[answer["problem"]])
    exact = exact_judge(spec, answer["quantity"], answer["claim"])
    sampled = derive.check(spec, answer["quantity"], answer["claim"])
    assert _record(sampled) == _record(exact)


# --- random claims ---------------------------------------------------------------------------

LEAF = st.one_of(
    st.sampled_from(DIMS),
    st.integers(min_value=1, max_value=9).map(sp.Integer),
    st.tuples(st.integers(1, 9), st.integers(1, 9)).map(lambda t: sp.Rational(*t)),
)


def _combine(children):
    binary = st.tuples(children, children)
    return st.one_of(
        binary.map(lambda t: t[0] + t[1]),
        binary.map(lambda t: t[0] - t[1]),
        binary.map(lambda t: t[0] * t[1]),
        binary.map(lambda t: t[0] / t[1] if t[1] != 0 else t[0]),
        st.tuples(children, st.integers(-3, 3)).map(lambda t: t[0] ** t[1] if t[0] != 0 else t[0]),
    )


RATIONAL = st.recursive(LEAF, _combine, max_leaves=8)
ROOT = st.tuples(st.sampled_from(DIMS), st.integers(1, 5), st.integers(2, 40)).map(
    lambda t: t[0] ** sp.Rational(t[1], t[2])
)
WITH_ROOTS = st.recursive(st.one_of(LEAF, ROOT), _combine, max_leaves=6)
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _exact_same(a: sp.Expr, b: sp.Expr) -> bool:
    return sp.cancel(sp.together(a - b)) == 0


@FUZZ
@given(a=RATIONAL, b=RATIONAL)
def test_random_rational_claims(a, b):
    """On rational functions the points say what cancel says, and a rearranged form is the same."""
    said = compare(a, b)
    assert said is not Sameness.UNDECIDED
    assert (said is Sameness.SAME) == _exact_same(a, b)
    assert compare(a, sp.together(a)) is Sameness.SAME
    assert compare(a, a + sp.Rational(1, 10**6)) is Sameness.DIFFERENT


@FUZZ
@given(a=WITH_ROOTS, b=WITH_ROOTS)
def test_random_claims_with_roots(a, b):
    """With roots of dims: a claim rearranged or multiplied by one written as a root is the same;
    a different one is told apart, and matches what cancel decides when cancel is cheap."""
    said = compare(a, b)
    assert said is not Sameness.UNDECIDED
    if matching.expansion_size(a - b) <= 50:
        assert (said is Sameness.SAME) == _exact_same(a, b)
    one = (B ** sp.Rational(1, 3)) ** 3 / B
    assert compare(a, sp.together(a) * one) is Sameness.SAME
    if a != 0:
        assert compare(a, 2 * a) is Sameness.DIFFERENT
        assert ratio_constant(3 * a, a) == 3


def test_irrational_constants_use_high_precision():
    root2 = sp.sqrt(2)
    assert compare(root2 * sp.sqrt(B), sp.sqrt(2 * B)) is Sameness.SAME
    assert compare(root2 * B, sp.Rational(14142135623730951, 10**16) * B) is Sameness.DIFFERENT
    assert compare(root2 + B, root2 + B + sp.Rational(1, 10**40)) is Sameness.DIFFERENT


def test_verdicts_do_not_depend_on_the_run():
    a = (B ** sp.Rational(1, 31) + B ** sp.Rational(1, 29)) ** -2
    assert {compare(a, 1 / (2 * B)) for _ in range(5)} == {Sameness.DIFFERENT}


# --- the claims that used to run into the time limit (issue 27, F1) ---------------------------

MATMUL = ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e")
BOUND = ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e", sets=("D=4096", "F=4096"))
INTENSITY = r"\frac{2BDF}{2BD+2DF+2BF}"
F1_CLAIMS = [
    ("(B^{1/31}+B^{1/29})^{-2}", "incorrect"),
    ("(B^{1/31}+D^{1/29}+F^{1/23})^{-5}", "incorrect"),
    ("(D^{1/7}+F^{1/11})^{3}", "incorrect"),
    ("(B^{1/31}+B^{1/29})^{-2} + (B^{1/29}+B^{1/31})^{-2}", "incorrect"),
    (INTENSITY + r" \cdot \frac{B^{1/31}+B^{1/29}}{B^{1/29}+B^{1/31}}", "correct"),
    (INTENSITY + " (B^{1/3})^{3}/B", "correct"),
    (INTENSITY + " + (B^{1/31}+B^{1/29})^{-2} - (B^{1/29}+B^{1/31})^{-2}", "correct"),
    (r"\frac{2B^{30/31}B^{1/31}DF}{2BD+2DF+2BF}", "correct"),
]


@pytest.mark.parametrize("spec", [MATMUL, BOUND], ids=["free", "bound"])
@pytest.mark.parametrize("claim, verdict", F1_CLAIMS, ids=[c for c, _ in F1_CLAIMS])
def test_roots_of_dims_get_a_verdict(spec, claim, verdict):
    """Judged (not stopped by the budget, which stays as a backstop: 60 s here)."""
    r = run_with_deadline(derive.check, spec, "intensity", claim, seconds=60, what=claim)
    assert r.verdict.value == verdict, (r.read_as, r.diagnosis, r.reason)
