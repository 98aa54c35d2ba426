"""Escaping user text for Markdown and LaTeX, and rich text (prose with math) in both.

Every user string a template prints goes through these (the ``e`` and ``rich`` filters of
:mod:`derive.present.render`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from derive.solution.steps import Math

__all__ = ["md_escape", "md_rich", "tex_escape", "tex_rich"]

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


def _tex_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch == "-":
        return "-{}"
    if ch in _TEX_MAP:
        return _TEX_MAP[ch]
    if ch == "\n":
        return " "
    return ch if ch in "éèàüöäçñ" else "?"  # other control characters and non-ASCII


# a hyphen before a hyphen gets an empty group, so "--flag" does not print as an en dash
_TEX_SPECIAL = re.compile("-(?=-)|[" + re.escape("".join(_TEX_MAP)) + r"]|[^\x20-\x7e]")


def tex_escape(text: str) -> str:
    """Escape prose for LaTeX (pdflatex): TeX specials, and unicode math as math.

    Characters pdflatex's default input cannot take are replaced by ``?``.
    """
    return _TEX_SPECIAL.sub(_tex_char, str(text))


def md_rich(parts: str | Iterable[str | Math]) -> str:
    """Rich text (prose and math) as Markdown."""
    if isinstance(parts, str):
        return md_escape(parts)
    return "".join(
        f"${part.latex}$" if isinstance(part, Math) else md_escape(part) for part in parts
    )


def tex_rich(parts: str | Iterable[str | Math]) -> str:
    """Rich text (prose and math) as LaTeX."""
    if isinstance(parts, str):
        return tex_escape(parts)
    return "".join(
        f"${part.latex}$" if isinstance(part, Math) else tex_escape(part) for part in parts
    )
