"""The LaTeX width estimate that decides line breaks reads tokens in place; it must give
exactly the floats of the plain reading (join a group's tokens, read the text again), which
is kept here as the reference, or keys would break lines elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from derive.present.tex_layout import tex_break_sum, tex_slashed, tex_width

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|.", re.S)


def _reference_width(tex: str) -> float:
    width, tokens, i = 0.0, _TOKEN.findall(tex), 0
    while i < len(tokens):
        token = tokens[i]
        if token == r"\frac":
            num, i = _reference_group(tokens, i + 1)
            den, i = _reference_group(tokens, i)
            width += max(_reference_width(num), _reference_width(den))
            continue
        if token in ("_", "^"):
            body, i = _reference_group(tokens, i + 1)
            width += 0.7 * _reference_width(body)
            continue
        if token in ("{", "}") or token.isspace() or token in (r"\left", r"\right", r"\,", r"\ "):
            pass
        elif token in (r"\cdot", r"\times", r"\approx", r"\le", r"\ge"):
            width += 2.2
        elif token.startswith("\\"):
            width += 1.0
        else:
            width += 1.25 if token.isupper() else 1.0 + (1.2 if token in "+-=" else 0.0)
        i += 1
    return width


def _reference_group(tokens: list[str], i: int) -> tuple[str, int]:
    if i >= len(tokens):
        return "", i
    if tokens[i] != "{":
        return tokens[i], i + 1
    depth, j = 0, i
    while j < len(tokens):
        depth += {"{": 1, "}": -1}.get(tokens[j], 0)
        if depth == 0:
            return "".join(tokens[i + 1 : j]), j + 1
        j += 1
    return "".join(tokens[i + 1 :]), j


PIECES = st.sampled_from(
    [
        r"\frac",
        "{",
        "}",
        "_",
        "^",
        " ",
        "+",
        "-",
        "=",
        "B",
        "d",
        "2",
        r"\cdot",
        r"\left(",
        r"\right)",
        r"\,",
        r"\ ",
        r"\beta",
        r"\le",
        "\\",
        "é",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_width_is_the_reference_on_any_text(tex):
    assert tex_width(tex) == _reference_width(tex)


def _key_formulas() -> list[str]:
    """Every inline or display formula of the built-in key's LaTeX."""
    text = "".join(path.read_text(encoding="utf-8") for path in sorted(Path("out").glob("*.tex")))
    return re.findall(r"\$([^$]+)\$", text) + re.findall(
        r"\\begin\{align\*\}(.*?)\\end\{align\*\}", text, re.S
    )


def test_width_is_the_reference_on_the_key():
    formulas = _key_formulas()
    assert len(formulas) > 100
    for tex in formulas:
        assert tex_width(tex) == _reference_width(tex), tex


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["2 B D", r"\frac{B}{2}", "F^{2}", r"\left(D + 1\right)", "x_{i}"]),
        min_size=1,
        max_size=30,
    ),
    st.integers(5, 40),
)
def test_break_sum_lines_grow_as_the_whole_text_would_measure(terms, width):
    """A line grown term by term is measured as its whole text would be."""
    tex = " + ".join(terms)
    for line in tex_break_sum(tex, width).split(" \\\\\n  &\\qquad "):
        assert tex_width(line) == _reference_width(line)
    first = tex_width(terms[0])
    for term in terms[1:]:
        assert tex_width(term, first) == _reference_width(terms[0] + " " + term)


_LINE_BREAK = " \\\\\n  &\\qquad "


def test_a_bracketed_sum_too_wide_for_a_line_breaks_inside_its_brackets():
    """A ``\\left[``…``\\right]`` group cannot break: when its term alone is too wide, its
    brackets are sized ``\\bigl``…``\\bigr`` and the sum inside breaks like any other."""
    tex = r"\sum_k \left[\max(T_{\text{math},k}, T_{\text{mem},k}) + T_{\text{comms},k}\right]"
    assert tex_width(tex) > 24
    lines = tex_break_sum(tex, 24).split(_LINE_BREAK)
    assert lines == [
        r"\sum_k \bigl[\max(T_{\text{math},k}, T_{\text{mem},k})",
        r"+ T_{\text{comms},k}\bigr]",
    ]
    assert tex_break_sum(tex, 40) == tex  # it fits: left as it is
    nested = r"2 \left(a + \frac{\left(b + c\right)}{d}\right)"
    assert r"\frac{\left(b + c\right)}{d}" in tex_break_sum(nested, 4)  # inside braces: kept


def test_a_wide_slashed_fraction_may_break_after_its_slash():
    tex = r"B \ge \frac{2 D F G}{41 D F - 9850 D - 9850 F}"
    assert tex_slashed(tex) == r"B \ge (2 D F G)/\allowbreak (41 D F - 9850 D - 9850 F)"
    assert tex_slashed(r"\frac{B}{2}") == r"\frac{B}{2}"  # narrow: a fraction still


def test_a_long_product_breaks_at_its_top_level_dots():
    """Three fractions multiplied do not fit a column: the line breaks before a top-level
    ``\\cdot`` (never one inside a group), and the pieces rejoin to the formula."""
    product = r"\frac{19403778}{26171875} \cdot \frac{310395136}{9701889} \cdot \frac{3.35 \times 10^{12}}{9.89 \times 10^{14}}"
    broken = tex_break_sum(product)
    lines = broken.split(" \\\\\n  &\\qquad ")
    assert len(lines) == 2 and lines[1].startswith(r"\cdot ")
    assert " ".join(lines) == product
    short = r"2 \cdot B \cdot D"
    assert tex_break_sum(short) == short
