"""``--format text``: every formula printed readably, its numbers read back as the LaTeX wrote them.

Text is printed from a document's own text templates, each formula's LaTeX read as plain
notation (derive/present/plain.py), never from its Markdown. A fraction whose parts hold braces (``\\frac{9.89 \\times
10^{14}}{…}``) once lost its ``\\frac`` and its braces, so its two numbers ran together
(``frac9.89 × 10^143.35 × 10^12``, ``141107412992`` and ``8192`` as ``1411074129928192``).
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from functools import cache

import pytest
from conftest import ROOT

from derive.pipeline.key import build_key
from derive.present.plain import COLUMNS, display, plain_latex
from derive.problem.sets.problem_set import load_problem_set

BUILTIN = ROOT / "derive" / "data" / "problems" / "rooflines.toml"
MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$(.+?)(?<!\\)\$", re.S)
# a number as LaTeX writes it (1.5 \times 10^{13}) and as text does (1.5 × 10^13)
LATEX_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*\\times\s*10\^\{(-?\d+)\})?")
TEXT_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?: × 10\^(-?\d+))?")


def _value(mantissa: str, exponent: str | None) -> Fraction:
    return Fraction(Decimal(mantissa)) * Fraction(10) ** int(exponent or 0)


def numbers(pattern: re.Pattern[str], text: str) -> Counter[Fraction]:
    return Counter(_value(m.group(1), m.group(2)) for m in pattern.finditer(text))


def read_back(tex: str) -> list[str]:
    """What is wrong with one formula's text: markup left in it, or a number that is not one
    of the formula's own (two run together, one split, one half-read)."""
    text = plain_latex(tex)
    wrong = [f"markup left: {text!r}" for mark in ("\\", "{", "}") if mark in text]
    wrong += [f"a command left: {text!r}" for _ in re.findall(r"frac(?!tion)", text)]
    stray = numbers(TEXT_NUMBER, text) - numbers(LATEX_NUMBER, tex)
    wrong += [f"{float(n):g} is not a number of {tex!r} (text: {text!r})" for n in stray]
    for p, q in re.findall(r"(?<![\w.)])\((\d+)\)/\((\d+)\)", text):  # an exact fraction
        if f"\\frac{{{p}}}{{{q}}}" not in tex:
            wrong.append(f"({p})/({q}) is not a fraction of {tex!r}")
    if re.search(r"\d\.\d+\.\d", text):
        wrong.append(f"a number that does not parse: {text!r}")
    return wrong


@cache
def builtin_formulas() -> tuple[str, ...]:
    """Every formula of the built-in key's Markdown (its steps' lines, tables and notes)."""
    files = build_key(load_problem_set(BUILTIN), "rooflines", time_limit=None, jobs=1)
    found = dict.fromkeys(
        (m.group(1) or m.group(2)).replace("\n", " ")
        for name, text in sorted(files.items())
        if name.endswith(".md")
        for m in MATH.finditer(text)
    )
    return tuple(found)


def test_the_reader_catches_the_old_garbling():
    tex = r"\frac{9.89 \times 10^{14}}{3.35 \times 10^{12}}"
    assert numbers(LATEX_NUMBER, tex) == Counter(
        {Fraction(989 * 10**12): 1, Fraction(335 * 10**10): 1}
    )
    assert numbers(TEXT_NUMBER, "frac9.89 × 10^143.35 × 10^12") != numbers(LATEX_NUMBER, tex)
    assert numbers(TEXT_NUMBER, "1411074129928192") - numbers(LATEX_NUMBER, "141107412992}{8192")


def test_every_formula_of_the_builtin_key_reads_back_in_text():
    formulas = builtin_formulas()
    assert len(formulas) > 300  # the key's steps are all there
    assert any(r"\frac" in f and "^{" in f for f in formulas)  # and the once garbled kind too
    wrong = [w for tex in formulas for w in read_back(tex)]
    assert wrong == []


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\frac{2 B D F}{9.89 \times 10^{14}}", "(2 B D F)/(9.89 × 10^14)"),
        (
            r"\left\lfloor{\frac{C N - M_{W}}{S m_{\mathrm{kv}}}}\right\rfloor",
            "⌊(C N - M_W)/(S m_kv)⌋",
        ),
        (r"\frac{141107412992}{8192 \cdot 327680}", "(141107412992)/(8192 · 327680)"),
        (r"{141107412992}{8192}", "141107412992 8192"),  # never run together
        (r"\sum_i n_i \, \ell_i \, V", "Σ_i n_i ℓ_i V"),  # a collective's links, not "ell"
        (r"B^{1/31} + x^{2} + T_{\text{single roofline}}", "B^(1/31) + x^2 + T_(single roofline)"),
        (r"\sqrt{\frac{C}{k \cdot r}} = \frac12", "√((C)/(k · r)) = (1)/(2)"),
        (r"\eta_{c} \cdots b^{*}", "η_c ⋯ b^*"),
        (r"t^{(\text{mm-h100})} + t^{\frac{1}{2}}", "t^(mm-h100) + t^((1)/(2))"),
    ],
)
def test_plain_notation(tex: str, text: str):
    assert plain_latex(tex) == text


def test_stars_in_math_stay():
    assert display(r"b^{*} = b^{*}_{x}") == "b^* = b^*_x"


def _formula_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if " = " in line]


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "matmul", "--chip", "h100", "--dtype", "bf16"],
        [
            "model",
            "llama-3-70b",
            "--chip",
            "h100",
            "--capacity",
            "16e9",
            "--devices",
            "16",
            "--set",
            "S=8192",
        ],
        [
            "train",
            "llama-3-8b",
            "--chip",
            "h100",
            "--dp",
            "8",
            "--batch-tokens",
            "1048576",
            "--seq",
            "4096",
        ],
        ["compare", "matmul", "--chip", "h100", "--chip", "tpu-v5e", "--dtype", "bf16"],
        [
            "check",
            "matmul",
            "--chip",
            "h100",
            "--dtype",
            "bf16",
            "--quantity",
            "crossover",
            "--claim",
            "B >= 300",
        ],
        ["compare", "--flops", "1e9", "--bytes", "1e6", "--chip", "h100", "--chip", "tpu-v5e"],
    ],
    ids=["solve", "model", "train", "compare", "check", "compare-kernel"],
)
def test_text_output_has_no_garbled_fraction(cli, argv: list[str]):
    text = cli([*argv, "--format", "text"])
    md = cli([*argv, "--format", "md"])
    assert text.code == md.code and text.code in (0, 1), text.err + md.err  # check: 1, incorrect
    assert not re.search(r"^\s*[#|]", text.out, re.M), text.out  # no Markdown heading or table
    assert not re.search(r"frac(?!tion)", text.out) and "\\" not in text.out
    known = numbers(LATEX_NUMBER, md.out) + numbers(TEXT_NUMBER, md.out)
    for line in _formula_lines(text.out):
        assert not numbers(TEXT_NUMBER, line) - known, line


def test_a_displayed_formula_too_wide_breaks_before_a_relation_never_inside_a_term():
    terms = " + ".join(f"\\frac{{B D w_{{{i}}}}}{{4}}" for i in range(5))
    lines = display(f"\\text{{bytes}} = {terms} = 2 B F + 2 B D \\cdot 1024").splitlines()
    assert lines == [f"bytes = {plain_latex(terms)}", "    = 2 B F + 2 B D · 1024"], lines
    longer = " + ".join(f"\\frac{{B D w_{{{i}}}}}{{4}}" for i in range(8))  # one part too wide
    lines = display(f"B^* = - {longer} - x").splitlines()
    assert lines[0].startswith("B^* = - (B D w_0)/(4) + ")  # a sign stays with its term
    assert lines[1].startswith("    + (B D w_") and lines[1].endswith("(4) - x"), lines
    assert all(len(line) <= COLUMNS for line in lines)


def test_every_display_of_the_builtin_key_fits_and_loses_nothing():
    for tex in builtin_formulas():
        lines = display(tex).splitlines()
        assert " ".join(line.strip() for line in lines) == plain_latex(tex), tex
        assert all(len(line) <= COLUMNS for line in lines), lines
