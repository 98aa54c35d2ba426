"""Issue 37: the equation solver finds real roots, and names contradictions and identities.

Each root is checked independently: it is a root (the polynomial vanishes there exactly) and
it lies between two rationals where the polynomial changes sign (bisection by hand).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy as sp

from derive.pipeline import solve_questions


def _unknown(q, name: str = "X"):
    return next(a for a in q.answers if a.name == name)


def _bracket(f, low: Fraction, high: Fraction, steps: int = 40) -> tuple[Fraction, Fraction]:
    """A sign change of ``f`` narrowed by bisection with exact fractions."""
    assert f(low) * f(high) < 0
    for _ in range(steps):
        mid = (low + high) / 2
        if f(low) * f(mid) <= 0:
            high = mid
        else:
            low = mid
    return low, high


@pytest.mark.parametrize(
    ("equation", "f"),
    [
        ("X^5 - X - 1 = 0", lambda x: x**5 - x - 1),
        ("X^64 + X = 5", lambda x: x**64 + x - 5),
    ],
)
def test_a_polynomial_has_its_positive_real_root(equation, f):
    q = solve_questions(equations=[equation], unknowns=["X"])
    assert q.solving.verdict == "solved"
    root = _unknown(q).value
    value = sp.N(root, 60)  # CRootOf evaluates to any precision
    assert abs(f(value)) < sp.Float(10) ** -40
    low, high = _bracket(f, Fraction(0), Fraction(2))
    assert Fraction(str(sp.N(root, 30))) - low > -(10**-20)
    assert high - Fraction(str(sp.N(root, 30))) > -(10**-20)


def test_an_inequality_is_solved_on_its_real_interval():
    q = solve_questions(equations=["X^5 + X <= 100"], unknowns=["X"])
    assert q.solving.verdict == "solved"
    answer = _unknown(q)
    n = max(k for k in range(1, 10) if k**5 + k <= 100)  # the largest count that keeps it
    assert answer.value == n
    assert "it holds for X in (0, " in answer.note and "2.4992" in answer.note


def test_an_inequality_whose_interval_is_unbounded():
    answer = _unknown(solve_questions(equations=["X^2 >= 4"], unknowns=["X"]))
    assert answer.value == 2 and "[2, ∞)" in answer.note


@pytest.mark.parametrize(
    ("equation", "verdict"),
    [
        ("X = X + 1", "no solution"),
        ("X = X", "infinitely many solutions"),
        ("X <= X + 1", "infinitely many solutions"),
        ("X >= X + 1", "no solution"),
    ],
)
def test_contradictions_and_identities_are_named(equation, verdict):
    assert solve_questions(equations=[equation], unknowns=["X"]).solving.verdict == verdict


# ---- exact roots a student can type (issue 49, item 7) ---------------------------------


def _root_decimal(f, low: Fraction, high: Fraction) -> str:
    """The root of ``f`` in (low, high), by bisection here, to 5 significant figures."""
    a, b = _bracket(f, low, high, steps=60)
    return f"{float((a + b) / 2):.5g}"


ROOT_SET = """title = "roots"
[[problem]]
id = "r"
text = "Solve X^5 - X - 1 = 0 for X"
equations = ["X^5 - X - 1 = 0"]
unknowns = ["X"]
"""


@pytest.mark.parametrize("fmt", ["md", "tex", "text"])
def test_a_root_without_radicals_is_printed_as_its_equation(cli, fmt):
    decimal = _root_decimal(lambda x: x**5 - x - 1, Fraction(1), Fraction(2))
    r = cli(["solve", "--equation", "X^5 - X - 1 = 0", "--unknown", "X", "--format", fmt])
    assert r.code == 0, r
    assert "CRootOf" not in r.out and "operatorname" not in r.out
    said = {  # as each format prints math: LaTeX in Markdown and in an align, plain in text
        "md": f"X \\approx {decimal},\\ \\text{{the real root of }} X^{{5}} - X - 1 = 0",
        "tex": f"X &\\approx {decimal},\\ \\text{{the real root of }} X^{{5}} - X - 1 = 0",
        "text": f"X ≈ {decimal}, the real root of X^5 - X - 1 = 0",
    }
    assert said[fmt] in r.out, r.out


def test_which_real_root_is_said(cli):
    f = lambda x: x**5 - 5 * x + 1  # noqa: E731  three real roots, two of them positive
    smallest_positive = _root_decimal(f, Fraction(0), Fraction(1, 2))
    r = cli(["solve", "--equation", "X^5 - 5*X + 1 = 0", "--unknown", "X"])
    assert r.code == 0 and "CRootOf" not in r.out, r
    assert (
        f"X \\approx {smallest_positive},\\ \\text{{the 2nd smallest of the 3 real roots of"
        in r.out
    )
    largest = _root_decimal(f, Fraction(1), Fraction(2))
    assert f"X ≈ {largest}, the largest of the 3 real roots of X^5 - 5\\*X + 1 = 0" in r.out


def test_the_key_and_the_checker_say_the_root_a_student_can_type(cli, tmp_path):
    path = tmp_path / "roots.toml"
    path.write_text(ROOT_SET, encoding="utf-8")
    out = tmp_path / "key"
    assert cli(["key", str(path), "-o", str(out)]).code == 0
    for name in ("roots.md", "roots.tex"):
        text = (out / name).read_text(encoding="utf-8")
        assert "CRootOf" not in text and "the real root of" in text, name
    decimal = _root_decimal(lambda x: x**5 - x - 1, Fraction(1), Fraction(2))
    check = ["check", "--problem-set", str(path), "--problem", "r", "--quantity", "X"]
    r = cli([*check, "--claim", decimal, "--format", "json"])
    assert r.code == 0, r
    data = json.loads(r.out)
    assert data["verdict"] == "correct" and data["exact"] is False
    assert data["expected_text"] == f"{decimal}, the real root of X^5 - X - 1 = 0"
    assert cli([*check, "--claim", "1.2"]).code == 1  # 2.8 % off
