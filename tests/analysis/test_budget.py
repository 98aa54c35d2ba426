"""``derive budget`` (issue 36): C = 6·N·D and D = 20·N solved exactly, against hand
computations with Fractions and integer square roots."""

from __future__ import annotations

import json
from fractions import Fraction
from math import isqrt

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli


def _json(*argv: str) -> dict:
    r = run_cli(["budget", *argv, "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_compute_optimal_n_and_d_for_5_76e23():
    out = _json("--compute", "5.76e23")
    c = Fraction(576 * 10**21)
    n2 = c / 120  # N² = C / (6·20)
    n = sp.sympify(out["params"]["exact"])
    d = sp.sympify(out["tokens"]["exact"])
    assert sp.Rational(n2.numerator, n2.denominator) == n**2
    assert sp.simplify(d - 20 * n) == 0
    assert isqrt(int(n2)) == int(out["params"]["value"])  # ≈ 6.93e10, floor agrees
    assert sp.simplify(6 * n * d) == 576 * 10**21


def test_a_perfect_square_gives_integers():
    out = _json("--compute", "1.2e23", "--tokens-per-param", "20")  # C/120 = 1e21: not square
    assert "sqrt" in out["params"]["exact"]
    out = _json("--compute", "1.2e22")  # C/120 = 1e20 = (1e10)²
    assert out["params"]["exact"] == "10000000000"
    assert out["tokens"]["exact"] == str(20 * 10**10)


def test_compute_and_params_solve_the_tokens():
    out = _json("--compute", "5.76e23", "--params", "70e9")
    d = Fraction(576 * 10**21) / (6 * 70 * 10**9)
    assert Fraction(out["tokens"]["exact"]) == d
    assert Fraction(out["tokens_per_param"]["exact"]) == d / (70 * 10**9)


def test_compute_and_tokens_solve_the_params():
    out = _json("--compute", "5.76e23", "--tokens", "1.4e12", "--flops-per-param-token", "8")
    assert Fraction(out["params"]["exact"]) == Fraction(576 * 10**21) / (8 * 14 * 10**11)


def test_params_alone_give_tokens_and_compute():
    out = _json("--params", "70e9")
    assert Fraction(out["tokens"]["exact"]) == 20 * 70 * 10**9
    assert Fraction(out["compute"]["exact"]) == 6 * 70 * 10**9 * 20 * 70 * 10**9


def test_steps_name_the_convention_and_its_source():
    r = run_cli(["budget", "--compute", "5.76e23"])
    assert r.code == 0
    assert "Chinchilla" in r.out and "2203.15556" in r.out and "C = k·N·D" in r.out


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--compute", "-5"], "--compute"),
        (["--compute", "5e23", "--params", "7e10", "--tokens", "1e12"], "--tokens"),
        (
            ["--compute", "5e23", "--params", "7e10", "--tokens-per-param", "20"],
            "--tokens-per-param",
        ),
        (["--tokens-per-param", "0"], "--tokens-per-param"),
        ([], "budget"),
    ],
)
def test_bad_budget_is_one_line(argv, flag):
    r = run_cli(["budget", *argv])
    assert r.code == 2 and flag in r.err and r.err.count("\n") == 1, r.err


def test_params_and_tokens_give_the_compute_and_keep_both():
    """Issue 46: N and D given; D was replaced by 20·N and C computed from the replacement."""
    n, d = 70 * 10**9, 15 * 10**12
    out = _json("--params", "70e9", "--tokens", "15e12")
    assert Fraction(out["params"]["exact"]) == n and Fraction(out["tokens"]["exact"]) == d
    assert Fraction(out["compute"]["exact"]) == 6 * n * d
    assert Fraction(out["tokens_per_param"]["exact"]) == Fraction(d, n)
    md = run_cli(["budget", "--params", "70e9", "--tokens", "15e12"]).out
    assert f"C ≈ {6 * n * d:.5g}".replace("e+", "e") in md and "D ≈ 1.5e13" in md


_NUMBER = st.tuples(st.integers(1, 999), st.integers(0, 25)).map(lambda p: f"{p[0]}e{p[1]}")
_FLAGS = {"C": "--compute", "N": "--params", "D": "--tokens"}
_PAIRS = [("C",), ("N",), ("D",), ("C", "N"), ("C", "D"), ("N", "D")]


def _value(text: str) -> sp.Rational:
    mantissa, exponent = text.split("e")
    return sp.Integer(mantissa) * sp.Integer(10) ** int(exponent)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pair=st.sampled_from(_PAIRS),
    numbers=st.fixed_dictionaries({"C": _NUMBER, "N": _NUMBER, "D": _NUMBER}),
    ratio=st.one_of(st.none(), _NUMBER),
    k=st.one_of(st.none(), st.integers(1, 12).map(str)),
)
def test_every_accepted_pair_satisfies_c_eq_knd_and_echoes_its_givens(pair, numbers, ratio, k):
    """Any pair the command accepts: C = k·N·D and D = r·N exactly, each given echoed as given."""
    argv = [arg for sym in pair for arg in (_FLAGS[sym], numbers[sym])]
    if ratio is not None and len(pair) == 1:
        argv += ["--tokens-per-param", ratio]
    if k is not None:
        argv += ["--flops-per-param-token", k]
    out = _json(*argv)
    c, n, d, r = (sp.sympify(out[key]["exact"]) for key in ("compute", "params", "tokens",
                                                           "tokens_per_param"))  # fmt: skip
    kk = sp.Integer(k or 6)
    assert sp.simplify(c - kk * n * d) == 0
    assert sp.simplify(d - r * n) == 0
    assert sp.sympify(out["flops_per_param_token"]["exact"]) == kk
    for sym, value in zip(("C", "N", "D"), (c, n, d), strict=True):
        if sym in pair:
            assert value == _value(numbers[sym]), (sym, out)
    if len(pair) == 1:
        assert r == (_value(ratio) if ratio is not None else 20)
