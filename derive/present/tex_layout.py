"""Fitting LaTeX math to a column: a width estimate, line breaks in long sums, slashed
fractions in narrow places, and table column widths (the LaTeX filters and tests of
:mod:`derive.present.render`).

Widths are estimates in characters (:func:`tex_width`); the compile tests
(tests/present/test_appendix_columns.py, tests/present/test_standalone_key.py) are what guard them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from derive.present.escape import rich_text, tex_prose_numbers
from derive.solution.steps import Math

_TEX_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|.", re.S)
BREAK_WIDTH = 30  # the unit of the narrow-place widths below (in characters, see tex_width)
# A line of a display, beside its left side: a character of tex_width prints 0.5 to 0.7 em
# wide, so 24 fit with ``T_mem =`` and the ``\qquad`` of a continuation line in a column
# of about 20 em: a two-column article's at 11pt type (A4 or letter) and all wider ones.
DISPLAY_WIDTH = 24
# A left side wider than this gets a line of its own (``I_{aggregate}`` does).
SIDE_WIDTH = 8
_NEXT_LINE = " \\\\\n  &\\qquad "  # a continuation line of an align* row


@lru_cache(maxsize=4096)
def tex_width(tex: str, start: float = 0.0) -> float:
    """A rough printed width of LaTeX math, in characters (a fraction counts its wider side).

    ``start`` is added first, so ``tex_width(b, tex_width(a)) == tex_width(a + " " + b)``
    exactly, floats and all, when ``a`` ends outside any group: a line grows one term at a time.
    Remembered: a key measures the same math again and again (more than half its calls).
    """
    tokens = _TEX_TOKEN.findall(tex)
    return _tokens_width(tokens, 0, len(tokens), start)


_ZERO_WIDTH = frozenset(("{", "}", r"\left", r"\right", r"\,", r"\ "))
_WIDE_TOKENS = frozenset((r"\cdot", r"\times", r"\approx", r"\le", r"\ge"))


def _token_width(token: str) -> float:
    if token in _ZERO_WIDTH or token.isspace():
        return 0.0
    if token in _WIDE_TOKENS:
        return 2.2
    if token.startswith("\\"):
        return 1.0
    return 1.25 if token.isupper() else 1.0 + (1.2 if token in "+-=" else 0.0)


_TOKEN_WIDTHS: dict[str, float] = {}


def _tokens_width(tokens: list[str], i: int, end: int, width: float = 0.0) -> float:
    """The width of ``tokens[i:end]`` (see :func:`tex_width`), read in place: a group is
    measured where it lies, not joined into text and read again."""
    widths = _TOKEN_WIDTHS
    while i < end:
        token = tokens[i]
        if token == r"\frac":
            num_start, num_end, i = _group_span(tokens, i + 1, end)
            den_start, den_end, i = _group_span(tokens, i, end)
            width += max(
                _tokens_width(tokens, num_start, num_end),
                _tokens_width(tokens, den_start, den_end),
            )
            continue
        if token == "_" or token == "^":
            body_start, body_end, i = _group_span(tokens, i + 1, end)
            width += 0.7 * _tokens_width(tokens, body_start, body_end)
            continue
        known = widths.get(token)
        if known is None:
            known = widths[token] = _token_width(token)
        if known:  # adding 0.0 would change nothing, but skip it as the reference does
            width += known
        i += 1
    return width


def _group_span(tokens: list[str], i: int, end: int) -> tuple[int, int, int]:
    """Where the braced group (or single token) at ``tokens[i]`` lies, as :func:`_group`
    reads it within ``tokens[:end]``: ``(first, stop, index after it)``."""
    if i >= end:
        return i, i, i
    if tokens[i] != "{":
        return i, i + 1, i + 1
    depth, j = 0, i
    while j < end:
        token = tokens[j]
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return i + 1, j, j + 1
        j += 1
    return i + 1, end, end


def _group(tokens: list[str], i: int) -> tuple[str, int]:
    """The LaTeX of the braced group (or single token) at ``tokens[i]``, and the index after it."""
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


def tex_is_wide(tex: str, width: int = SIDE_WIDTH) -> bool:
    """True when LaTeX math is wider than ``width`` characters (see :func:`tex_break_sum`)."""
    return tex_width(tex) > width


def _one_fraction(tex: str) -> tuple[str, str, str] | None:
    """``(sign, numerator, denominator)`` when ``tex`` is one ``\\frac`` (maybe negated)."""
    sign = "- " if tex.startswith(r"- \frac{") else ""
    tokens = _TEX_TOKEN.findall(tex[len(sign) :])
    if tokens[:1] != [r"\frac"]:
        return None
    numerator, after = _group(tokens, 1)
    denominator, end = _group(tokens, after)
    return (sign, numerator, denominator) if end == len(tokens) else None


def tex_slashed(tex: str, width: int = BREAK_WIDTH // 2) -> str:
    """Each wide top-level fraction written ``(a)/(b)`` (with a break allowed after the slash) and ``\\left(`` … ``\\right)`` as plain
    brackets, so inline math in a narrow cell or a verdict can break at its ``+`` and ``-``
    signs (a ``\\frac`` or a ``\\left``…``\\right`` group cannot break).

    >>> tex_slashed(r"B \\ge \\frac{2 D F G}{41 D F - 9850 D - 9850 F}")
    'B \\\\ge (2 D F G)/\\\\allowbreak (41 D F - 9850 D - 9850 F)'
    """
    if tex_width(tex) <= width:
        return tex
    tokens, out, i = _TEX_TOKEN.findall(tex), [], 0
    while i < len(tokens):
        if tokens[i] in (r"\left", r"\right"):  # plain brackets: TeX may break inside them
            i += 1
        elif tokens[i] == r"\frac":
            numerator, after = _group(tokens, i + 1)
            denominator, end = _group(tokens, after)
            whole = "".join(tokens[i:end])
            wide = tex_width(whole) > width
            plain = [
                side.replace(r"\left(", "(").replace(r"\right)", ")")
                for side in (numerator, denominator)
            ]
            out.append(f"({plain[0]})/\\allowbreak ({plain[1]})" if wide else whole)
            i = end
        elif tokens[i] == "{":  # a group (a sub- or superscript): left as it is
            body, end = _group(tokens, i)
            out.append("{" + body + "}")
            i = end
        else:
            out.append(tokens[i])
            i += 1
    return "".join(out)


_CDOT = r" \cdot "
_DEPTH = {"{": 1, "}": -1, r"\left": 1, r"\right": -1}


def _top_level(tex: str, cut: str = " [+-] ") -> list[str]:
    r"""``tex`` cut before each ``+`` and ``-`` (or each match of the pattern ``cut``) outside
    any group and ``\left``…``\right`` (each later piece starts with its sign, as a continued
    line repeats it).

    >>> _top_level(r"\frac{1}{2} \cdot \left(a \cdot b\right) \cdot c", r" \\cdot ")
    ['\\frac{1}{2}', '\\cdot \\left(a \\cdot b\\right)', '\\cdot c']
    """
    pieces, depth, start = [], 0, 0
    for match in re.finditer(r"[{}]|\\left|\\right|" + cut, tex):
        token = match.group(0)
        depth += _DEPTH.get(token, 0)
        if depth == 0 and token not in _DEPTH:
            pieces.append(tex[start : match.start()])
            start = match.start() + 1
    pieces.append(tex[start:])
    return pieces


def _unsized(tex: str) -> str:
    """``tex`` with its ``\\left``…``\\right`` brackets outside any braced group sized
    ``\\bigl``…``\\bigr``: unlike a ``\\left`` group, these can break across lines.

    >>> _unsized(r"\\sum_k \\left[a + \\frac{\\left(b\\right)}{c}\\right]")
    '\\\\sum_k \\\\bigl[a + \\\\frac{\\\\left(b\\\\right)}{c}\\\\bigr]'
    """
    out, depth = [], 0
    for token in _TEX_TOKEN.findall(tex):
        depth += {"{": 1, "}": -1}.get(token, 0)
        sized = {r"\left": r"\bigl", r"\right": r"\bigr"}.get(token) if depth == 0 else None
        out.append(sized or token)
    return "".join(out)


def tex_break_sum(tex: str, width: int = DISPLAY_WIDTH) -> str:
    """A long sum broken into ``align*`` lines at its top-level ``+`` and ``-`` signs.

    Each line holds as many terms as fit in ``width`` (see :func:`tex_width`); the
    continuation lines start ``&\\qquad + …``; a term too wide for a line that holds a
    ``\\left``…``\\right`` group is broken inside it too (sized ``\\bigl``…``\\bigr``),
    and a long product at its top-level ``\\cdot`` signs. Short formulas come back unchanged; a
    fraction too wide to break is set in text style (``\\tfrac``).
    """
    if tex_width(tex) <= width:
        return tex
    fraction = _one_fraction(tex)
    if fraction is not None:
        sign, numerator, denominator = fraction
        wide_num, wide_den = tex_width(numerator) > width, tex_width(denominator) > width
        if not (wide_num or wide_den):
            return sign + r"\tfrac" + tex[len(sign) + len(r"\frac") :]
        top = tex_break_sum(numerator, width)
        if not wide_den and tex_width(denominator) <= width // 2:  # a long sum over a number
            slash = _NEXT_LINE if _NEXT_LINE in top else " "
            return sign + rf"\bigl({top}\bigr)" + slash + rf"\big/ \bigl({denominator}\bigr)"
        bottom = tex_break_sum(denominator, width)
        return sign + rf"\bigl({top}\bigr)" + _NEXT_LINE + rf"\big/ \bigl({bottom}\bigr)"
    terms: list[str] = []
    for term in _top_level(tex):
        if tex_width(term) > width and r"\left" in term:  # its brackets must break too
            terms.extend(_top_level(_unsized(term)))
        elif tex_width(term) > width and _CDOT in term:  # a long product: break at its dots
            terms.extend(_top_level(term, r" \\cdot "))
        else:
            terms.append(term)
    lines: list[str] = []
    line_width = 0.0
    for term in terms:
        if lines:
            joined = tex_width(term, line_width)  # the width of lines[-1] + " " + term
            if joined <= width:
                lines[-1] += " " + term
                line_width = joined
                continue
        lines.append(term)
        line_width = tex_width(term)
    return _NEXT_LINE.join(lines)


def tex_rich_narrow(parts: str | Iterable[str | Math], width: int = BREAK_WIDTH // 2) -> str:
    """Rich text as LaTeX for a narrow place (a table cell, a column's verdict): fractions
    wider than ``width`` characters written ``(a)/(b)`` (see :func:`tex_slashed`)."""
    return rich_text(parts, tex_prose_numbers, lambda latex: tex_slashed(latex, width))


PART_CELL = 9
"""A layer's per-part table has six columns: a count of 10 digits (a billion FLOPs) or a
cell as wide does not fit one of them in a two-column paper at 11pt."""


def tex_table_is_wide(table: tuple, width: int = 12) -> bool:
    """True when a table (a header row, then rows of rich cells) holds a formula wider
    than ``width`` characters (:data:`PART_CELL` in a layer's per-part table): too wide for
    a table cell in a two-column paper."""
    header: tuple[str, ...] = tuple(table[0]) if table else ()
    if len(header) > 2 and header[1] == "operator":
        width = min(width, PART_CELL)
    return any(
        isinstance(part, Math) and tex_width(part.latex) > width
        for row in table[1:]
        for cell in row
        for part in (cell if isinstance(cell, tuple) else ())
    )


_TEX_INLINE_MATH = re.compile(r"(\$[^$]*\$)")


# an underscore or a plus not yet followed by a break (an identifier's ``\\texttt`` has them)
_UNBROKEN = re.compile(r"(?:\\_|\+)(?!\\allowbreak\{\})")


def tex_breakable(tex: str) -> str:
    """LaTeX of a name in a narrow cell, allowed to break after each ``_`` and ``+`` of its
    prose (``attn_norm``, ``up+act+down``); its math is left as it is.

    >>> tex_breakable(r"up+act+down (fused) $a+b$")
    'up+\\\\allowbreak{}act+\\\\allowbreak{}down (fused) $a+b$'
    """
    pieces = _TEX_INLINE_MATH.split(tex)
    for i in range(0, len(pieces), 2):  # the prose between the math
        pieces[i] = _UNBROKEN.sub(r"\g<0>\\allowbreak{}", pieces[i])
    return "".join(pieces)


# Relative widths of a table's tabularx columns (they sum to the number of columns), by
# the table's header: the name columns get the room, short words and percentages less.
_COLUMN_WIDTHS: tuple[tuple[Callable[[tuple[str, ...]], bool], tuple[str, ...]], ...] = (
    # a layer's parts: part (operator), FLOPs, bytes, intensity, time, share
    (
        lambda h: len(h) == 7 and h[1] == "operator",
        ("1.0", "1.25", "1.25", "0.85", "1.0", "0.65"),
    ),
    # a step's kernels: kernel, T_math, T_mem[, T_comms], bound, binds on, share
    (lambda h: len(h) == 6 and h[0] == "kernel", ("1.3", "1", "1", "1", "1.07", "0.63")),
    (
        lambda h: len(h) == 7 and h[0] == "kernel",
        ("1.25", "1.0", "0.95", "1.2", "0.85", "1.07", "0.68"),
    ),
    # a model's weights: block, weights, count, value
    (lambda h: tuple(h) == ("block", "weights", "count", "value"), ("0.8", "1.1", "1.2", "0.9")),
)


def tex_column_widths(header: tuple[str, ...]) -> tuple[str, ...]:
    """The ``\\hsize`` factors of a table's X columns, from its header row (a part and
    its operator share one column); equal widths for a table not in the list."""
    for matches, widths in _COLUMN_WIDTHS:
        if matches(tuple(header)):
            return widths
    merged = len(header) > 2 and header[1] == "operator"
    return ("1",) * (len(header) - (1 if merged else 0))
