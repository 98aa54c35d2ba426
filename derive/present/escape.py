"""Escaping user text for Markdown and LaTeX, and rich text (prose with math) in both.

Every user string a template prints goes through these (the ``e`` and ``rich`` filters of
:mod:`derive.present.render`). LaTeX escaping reads derive's own table first (TeX specials,
the math signs derive prints) and hands any other letter to pylatexenc's encoder, so
"Žižek" prints as ``\\v{Z}i\\v{z}ek`` and compiles under pdflatex's default input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from pylatexenc.latexencode import UnicodeToLatexEncoder

from derive.solution.steps import Math

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~&#])")
_TEX_MAP = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "≈": r"$\approx$",
    "×": r"$\times$",
    "→": r"$\to$",
    "≪": r"$\ll$",
    "≫": r"$\gg$",
    "⇔": r"$\Leftrightarrow$",
    "Σ": r"$\Sigma$",
    "π": r"$\pi$",
    "β": r"$\beta$",
    "η": r"$\eta$",
    "µ": r"$\mu$",
    "÷": r"$\div$",
    "μ": r"$\mu$",
    "·": r"$\cdot$",
    "∞": r"$\infty$",
    "—": "---",
    "–": "--",
    "−": "$-$",
    "…": r"\ldots{}",
    "ᵀ": r"$^{\mathsf{T}}$",  # a transpose (QKᵀ in the attention operators' docs)
    "✓": r"$\checkmark$",
    "✗": r"$\times$",
    "[": "{[}",
    "]": "{]}",
    '"': "''",
    "'": "'",
}


def md_escape(text: str) -> str:
    """Escape prose for Markdown: every character Markdown could read as syntax."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


# Letters pdflatex's UTF-8 input reads as they are (kept raw, as derive always printed them).
_TEX_RAW = frozenset("éèàüöäçñ")

# pylatexenc's encoder for the rest of Unicode: accents as TeX accents (\\v{Z}), Greek as
# math letters; a character it cannot encode (CJK, emoji) becomes "?", as it always did.
_ENCODER = UnicodeToLatexEncoder(
    non_ascii_only=True, unknown_char_policy=lambda ch: "?", unknown_char_warning=False
)


@lru_cache(maxsize=512)
def _tex_letter(ch: str) -> str:
    """One non-ASCII character derive's table lacks, as pdflatex can typeset it."""
    if ch in _TEX_RAW:
        return ch
    if ch.isprintable() and ord(ch) > 0x7F:
        return _ENCODER.unicode_to_latex(ch)
    return "?"  # control characters


def _tex_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch == "-":
        return "-{}"
    if ch in _TEX_MAP:
        return _TEX_MAP[ch]
    if ch == "\n":
        return " "
    return _tex_letter(ch)


# a hyphen before a hyphen gets an empty group, so "--flag" does not print as an en dash
_TEX_SPECIAL = re.compile("-(?=-)|[" + re.escape("".join(_TEX_MAP)) + r"]|[^\x20-\x7e]")


# A symbol with a subscript written in prose (``T_math``, ``h_kv``, ``β_link``, ``T_mem,k``):
# one letter, ``_``, a word and perhaps an index, standing alone; a longer name
# (``kv_bytes``) or a dotted one (``p.t_lower``) is an identifier, not a symbol.
_SUBSCRIPTED = re.compile(
    r"(?<![\w\\.])([A-Za-z]|[^\W\d_])_([A-Za-z0-9]+|[^\W\d_])(,[a-z]+(?![\w(]))?(?![\w])"
)
# An identifier in prose (``attn_norm``, ``cost_per_million``, ``mm-h100.t_lower``,
# ``d_h_kv``): a name of two letters or more with an underscore, a one-letter name with two,
# or a dotted reference to another problem's quantity; typeset as code (``\texttt``).
_IDENTIFIER = re.compile(
    r"(?<![\w\\.$-])(?:[A-Za-z][\w-]*\.[A-Za-z]\w*_\w+"
    r"|[A-Za-z][A-Za-z0-9]+(?:_[A-Za-z0-9]+)+|[A-Za-z](?:_[A-Za-z0-9]+){2,})(?![\w-])"
)
# A quote that opens: at the start or after a space or an opening bracket, before a letter.
# Two pieces of inline math side by side (``$\\cdot$$P_{…}$``) are one: ``$\\cdot P_{…}$``.
_ADJACENT_MATH = re.compile(r"(?<!\\)\$\$(?=\S)")
_OPENING = re.compile(r"(?<![^\s(\[{])(['\"])(?=\S)")


def _subscripted(match: re.Match[str]) -> str:
    """``T_math`` → ``$T_{\\mathrm{math}}$``, ``d_h`` → ``$d_{h}$``, ``β_link`` → ``$\\beta_…$``."""
    head, tail = match.group(1), match.group(2)
    head_tex, tail_tex = (_TEX_MAP.get(c, c).strip("$") for c in (head, tail))
    if (head_tex == head and not head.isascii()) or (tail_tex == tail and not tail.isascii()):
        return _TEX_SPECIAL.sub(_tex_char, match.group(0))  # a letter with no math symbol
    index = match.group(3) or ""
    if len(index) > 2:  # a word: P_block,dense
        tail, index = tail + index, ""
    sub = (tail_tex if len(tail) == 1 else rf"\mathrm{{{tail}}}") + index
    return f"${head_tex}_{{{sub}}}$"


def _tex_prose(text: str) -> str:
    """Prose without subscripted symbols: opening quotes turned, then TeX specials."""
    text = _OPENING.sub(lambda m: "``" if m.group(1) == '"' else "`", text)
    text = text.replace("<=", "≤").replace(">=", "≥")
    return _TEX_SPECIAL.sub(_tex_char, text)


# A number in e-notation standing alone in prose (``9.89e14 FLOP/s``, ``1e-6``): not part of
# a word, a name or a path (``q3-d4096``, ``given-1.97e14``, ``1e3-run``), nor a decimal's digits.
_E_NUMBER = re.compile(r"(?<![\w.\-/\\])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w\-/]|\.\d)")


def _powered(match: re.Match[str]) -> str:
    """``9.89e14`` → ``$9.89 \\times 10^{14}$``, ``1e-6`` → ``$10^{-6}$`` (a paper's number)."""
    mantissa, exponent = match.group(1), int(match.group(2))
    power = f"10^{{{exponent}}}"
    return f"${power}$" if mantissa == "1" else rf"${mantissa} \times {power}$"


def tex_prose_numbers(text: str) -> str:
    """Prose for LaTeX with its e-notation numbers as a paper prints them (math with a power
    of ten); everything else as :func:`tex_escape` writes it.

    >>> print(tex_prose_numbers("π = 9.89e14 FLOP/s, β = 3.35e12 B/s; id given-1.97e14"))
    $\\pi$ = $9.89 \\times 10^{14}$ FLOP/s, $\\beta$ = $3.35 \\times 10^{12}$ B/s; id given-1.97e14
    """
    return _tex_prose_numbers(str(text))


@lru_cache(maxsize=4096)
def _tex_prose_numbers(text: str) -> str:
    """:func:`tex_prose_numbers` of a str (remembered: a key escapes the same prose for
    many problems; most calls repeat an earlier one)."""
    out, start = [], 0
    for match in _E_NUMBER.finditer(text):
        out += [tex_escape(text[start : match.start()]), _powered(match)]
        start = match.end()
    return "".join([*out, tex_escape(text[start:])])


def tex_escape(text: str, code: bool = True) -> str:
    """Escape prose for LaTeX (pdflatex): TeX specials, and unicode math as math.

    A symbol with a subscript prints as math (``T_math`` → ``$T_{\\mathrm{math}}$``), never
    as an escaped underscore; a quote that opens a phrase turns (``'All'`` → `` `All' ``).
    Other non-ASCII letters go through pylatexenc's encoder (``Ž`` → ``\\v{Z}``, ``ï`` →
    ``{\\"\\i}``); what neither knows (control characters, CJK, emoji) prints as ``?``.

    >>> print(tex_escape("Žižek's naïve Ångström, 5%"))
    \\v{Z}i\\v{z}ek's na{\\"\\i}ve \\r{A}ngström, 5\\%
    >>> print(tex_escape("max(T_math, β_link) in 'All About Rooflines'; kv_bytes"))
    max($T_{\\mathrm{math}}$, $\\beta_{\\mathrm{link}}$) in `All About Rooflines'; \\texttt{kv\\_\\allowbreak{}bytes}
    """
    return _tex_escape(str(text), code)


@lru_cache(maxsize=4096)
def _tex_escape(text: str, code: bool) -> str:
    """:func:`tex_escape` of a str (remembered, as :func:`_tex_prose_numbers` is)."""
    if not code:  # a name inside math (``\\mathrm{kv\\_bytes}``): no identifier as code
        return _ADJACENT_MATH.sub(" ", _symbols(text))
    out, start = [], 0
    for match in _IDENTIFIER.finditer(text):
        out += [_symbols(text[start : match.start()]), tex_code(match.group(0))]
        start = match.end()
    return _ADJACENT_MATH.sub(" ", "".join([*out, _symbols(text[start:])]))


def _symbols(text: str) -> str:
    """Prose with its subscripted symbols as math (no identifiers in it)."""
    out, start = [], 0
    for match in _SUBSCRIPTED.finditer(text):
        out += [_tex_prose(text[start : match.start()]), _subscripted(match)]
        start = match.end()
    return "".join([*out, _tex_prose(text[start:])])


def tex_code(name: str) -> str:
    """A name as code (``\\texttt``), breakable after each underscore: an identifier in
    prose, or a name a template prints as code (the ``code`` filter).

    >>> print(tex_code("attn_norm"))
    \\texttt{attn\\_\\allowbreak{}norm}
    """
    return r"\texttt{" + _tex_prose(name).replace(r"\_", r"\_\allowbreak{}") + "}"


def rich_text(
    parts: str | Iterable[str | Math],
    prose: Callable[[str], str],
    math: Callable[[str], str] = str,
) -> str:
    """Rich text (prose and math): each prose part through ``prose``, each math part's LaTeX
    through ``math`` and set in ``$…$``."""
    if isinstance(parts, str):
        return prose(parts)
    return "".join(f"${math(p.latex)}$" if isinstance(p, Math) else prose(p) for p in parts)


def md_pair(cell: tuple[str | None, str]) -> str:
    """A table's cell of math and words (either may be empty) as Markdown."""
    math, words = cell
    return " ".join(t for t in (f"${math}$" if math is not None else "", md_escape(words)) if t)


def md_rich(parts: str | Iterable[str | Math]) -> str:
    """Rich text (prose and math) as Markdown."""
    return rich_text(parts, md_escape)


def tex_rich(parts: str | Iterable[str | Math]) -> str:
    """Rich text (prose and math) as LaTeX, its e-notation numbers with powers of ten."""
    return rich_text(parts, tex_prose_numbers)
