"""Plain text for a terminal: no LaTeX markup, ≤ 100 columns.

The ``text`` format's printing, from a document's records (its ``.txt.j2`` templates):
each formula's LaTeX read as plain notation (:func:`plain_latex`, group by group as braces
nest: ``\\frac{a}{b}`` → ``(a)/(b)`` whatever ``a`` holds, ``\\lfloor`` → ``⌊``, ``\\le``
→ ``≤``, ``\\text{FLOPs}`` → ``FLOPs``, ``x^{a+b}`` → ``x^(a+b)``; two numbers never run
together), and the templates' filters (:func:`heading`, :func:`table`, :func:`pair`,
:func:`display`, :func:`rich`, :func:`wrap`): prose wrapped at 100 columns (a list item's hang kept), and
a displayed formula too wide for a line broken before a relation or a term outside
brackets, never inside a term that fits a line.

>>> print(heading("Ridge", 2) + "\\n\\n" + display(r"\\frac{\\pi}{\\beta} = \\frac{19780}{67} \\approx 295.22"))
Ridge
=====
<BLANKLINE>
(π)/(β) = (19780)/(67) ≈ 295.22
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

COLUMNS = 100
"""The widest line plain text prints (prose is wrapped to it)."""

_SYMBOLS = {
    r"\le": "≤", r"\leq": "≤", r"\ge": "≥", r"\geq": "≥", r"\ll": "≪", r"\gg": "≫",
    r"\approx": "≈", r"\cdot": "·", r"\times": "×", r"\pi": "π", r"\beta": "β",
    r"\alpha": "α", r"\gamma": "γ", r"\eta": "η", r"\sigma": "σ", r"\theta": "θ",
    r"\rho": "ρ", r"\ell": "ℓ", r"\Delta": "Δ", r"\sum": "Σ", r"\infty": "∞",
    r"\to": "→", r"\rightarrow": "→", r"\Rightarrow": "⇒", r"\neq": "≠", r"\ne": "≠",
    r"\lt": "<", r"\gt": ">", r"\mu": "µ", r"\ldots": "…", r"\dots": "…", r"\cdots": "⋯",
    r"\quad": "  ", r"\qquad": "    ", r"\ ": " ", r"\:": " ", r"\,": " ", r"\;": " ", r"\!": "",
    r"\%": "%", r"\max": "max",
    r"\min": "min", r"\log": "log", r"\left": "", r"\right": "", r"\bigl": "", r"\bigr": "",
    r"\Bigl": "", r"\Bigr": "", r"\lceil": "⌈", r"\rceil": "⌉", r"\lfloor": "⌊",
    r"\rfloor": "⌋", r"\{": "{", r"\}": "}", r"\_": "_", r"\&": "&", r"\#": "#",
}  # fmt: skip
# a command that takes arguments, and how it prints them (a wrapper: its argument as it is)
_FORMS = {"frac": "({})/({})", "dfrac": "({})/({})", "tfrac": "({})/({})", "sqrt": "√({})"}
_FORMS |= {w: "{}" for w in ("text", "mathrm", "mathit", "mathbf", "operatorname", "textrm")}
_FORMS |= {w: "{}" for w in ("textit", "textbf", "mbox", "boxed")}
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}]|[^\\{}]+")
_BARE = re.compile(r"[\w.,*′'+-]?[\w.,*′']*|\([^()]*\)")  # a sub/superscript kept as it is
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{[a-z*]+\}(?:\{[^{}]*\})?")


def _argument(tokens: list[str], i: int) -> tuple[str, int]:
    """A command's next argument and the index after it: a group, a command, or one
    character (``\\frac12``)."""
    while i < len(tokens) and tokens[i].isspace():
        i += 1
    token = tokens[i].lstrip() if i < len(tokens) else "}"
    if token == "}":  # a command without its argument
        return "", i
    if token == "{" or token.startswith("\\"):
        return _read(tokens, i + (token == "{"), one=token != "{")
    tokens[i] = token[1:]
    return token[0], i + (not tokens[i])


def _read(tokens: list[str], i: int, one: bool = False) -> tuple[str, int]:
    """Plain notation of ``tokens[i:]`` up to the brace that closes the group (or the end;
    ``one``: of the one next token), and the index after it. A group is read whole before the
    command it belongs to, and a space is put between two numbers that would run together."""
    out: list[str] = []
    while i < len(tokens):
        token, i = tokens[i], i + 1
        if token == "}":
            break
        if token == "{":
            piece, i = _read(tokens, i)
            if out and out[-1].endswith(("^", "_")) and not _BARE.fullmatch(piece):
                piece = f"({piece})"  # 10^{14} → 10^14, B^{1/31} → B^(1/31)
        elif token[1:] in _FORMS and token[0] == "\\":
            args = []
            for _ in range(_FORMS[token[1:]].count("{}")):
                arg, i = _argument(tokens, i)
                args.append(arg)
            piece = _FORMS[token[1:]].format(*args)
        elif token[0] == "\\":
            piece = _SYMBOLS.get(token, token[1:] if token[1:].isalpha() else "")
        else:
            piece = token
        out += [" ", piece] if out and out[-1][-1:].isdigit() and piece[:1].isdigit() else [piece]
        if one:
            break
    return "".join(out), i


def plain_latex(tex: str) -> str:
    """One formula's LaTeX as plain notation: a group is read whole (nested fractions,
    exponents inside a fraction), and no two numbers are printed run together.

    >>> plain_latex(r"\\left\\lfloor{\\frac{1.6 \\times 10^{10} - 1411}{8192}}\\right\\rfloor")
    '⌊(1.6 × 10^10 - 1411)/(8192)⌋'
    """
    text = _ENVIRONMENT.sub("", tex).replace("\\&", "\x01").replace("&", "").replace("\\\\", "; ")
    text, _ = _read(_TOKEN.findall(text), 0)
    return re.sub(r"[ \t]+", " ", text).strip().replace("\x01", "&")  # an escaped & kept


_OPS = "=≈≤≥<>+-·"  # a mark after one of these, or first, is a sign, never a place to break


def _pieces(text: str, marks: str) -> list[str]:
    """``text`` cut before each of ``marks`` that stands alone (`` = ``) outside brackets and
    after an operand (``= - x`` is not cut: that minus is a sign)."""
    pieces: list[str] = []
    depth = start = 0
    for i, ch in enumerate(text):
        depth += (ch in "([{⌊⌈") - (ch in ")]}⌋⌉")
        alone = text[i - 1 : i] == " " and text[i + 1 : i + 2] == " "
        if depth == 0 and ch in marks and alone and text[start : i - 1].strip()[-1:] not in _OPS:
            pieces, start = [*pieces, text[start : i - 1]], i
    return [*pieces, text[start:]]


def heading(title: str, level: int) -> str:
    """A heading as plain text: its title, underlined (``=`` to level 2, ``-`` below)."""
    return f"{title}\n" + ("=" if level <= 2 else "-") * min(len(title), COLUMNS)


def _wrapped(text: str) -> list[str]:
    """One line of prose as lines of at most 100 columns (a list item's hang kept)."""
    if len(text) <= COLUMNS:
        return [text.rstrip()]
    indent = re.match(r"\s*(?:[-*] |\d+\. )?", text)
    lead = " " * len(indent.group(0)) if indent else ""
    return textwrap.wrap(text, COLUMNS, subsequent_indent=lead, break_long_words=False) or [""]


def wrap(text: str) -> str:
    """Plain text with each line longer than 100 columns wrapped, ending in one newline."""
    return "\n".join(w for line in text.split("\n") for w in _wrapped(line)).rstrip("\n") + "\n"


def display(tex: str) -> str:
    """A displayed formula's LaTeX in plain notation; too wide for a line, broken before a
    relation (``= …`` on the next line, indented), a part still too wide before its terms,
    inside a term only when the term alone is wider than a line (at its spaces, as prose)."""
    text = plain_latex(tex)
    if len(text) <= COLUMNS:
        return text
    lines: list[str] = []
    for part in _pieces(text, "=≈≤≥<>"):
        for term in _pieces(part, "+-·") if len(part) > COLUMNS - 4 else [part]:
            if lines and len(lines[-1]) + 1 + len(term) <= COLUMNS:
                lines[-1] += " " + term
            else:
                lines.append(("    " if lines else "") + term)
    wrapper = textwrap.TextWrapper(COLUMNS, subsequent_indent=" " * 6, break_long_words=False)
    return "\n".join(piece for line in lines for piece in wrapper.wrap(line) or [line])


def rich(parts: str | tuple) -> str:
    """Rich text (prose and math) as plain text: prose as it is, math in plain notation."""
    if isinstance(parts, str):
        return parts
    return "".join(plain_latex(part.latex) if hasattr(part, "latex") else part for part in parts)


def table(rows: Sequence[Sequence[str]]) -> str:
    """A table (its header row first) as aligned columns; one "header: cell" line a row
    when too wide."""
    widths = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(len(rows[0]))]
    if sum(widths) + 2 * (len(widths) - 1) <= COLUMNS:
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in rows
        ]
        return "\n".join(lines)
    head, out = rows[0], []
    for r in rows[1:]:
        pairs = "; ".join(f"{h}: {c}" for h, c in zip(head, r, strict=False) if c)
        out += textwrap.wrap(pairs, COLUMNS, initial_indent="- ", subsequent_indent="  ")
    return "\n".join(out)


def pair(cell: tuple[str | None, str]) -> str:
    """A table's cell of math and words (either may be empty) in plain notation."""
    math, words = cell
    return " ".join(t for t in (plain_latex(math) if math is not None else "", words) if t)
