"""Plain text for a terminal, from a document's Markdown: no LaTeX markup, ≤ 100 columns.

The ``text`` format of a document that has no text template of its own: its Markdown,
with each formula's LaTeX read as plain notation (``\\frac{a}{b}`` → ``(a)/(b)``,
``\\le`` → ``≤``, ``\\text{FLOPs}`` → ``FLOPs``), emphasis and heading marks dropped, and
prose wrapped at 100 columns (tables and lists keep their lines).

>>> plain_text("## Ridge\\n\\n$\\\\pi / \\\\beta = \\\\frac{19780}{67} \\\\approx 295.22$ **FLOPs/byte**\\n")
'Ridge\\n=====\\n\\nπ / β = (19780)/(67) ≈ 295.22 FLOPs/byte\\n'
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["COLUMNS", "plain_latex", "plain_text"]

COLUMNS = 100
"""The widest line plain text prints (prose is wrapped to it)."""

_SYMBOLS = {
    r"\le": "≤", r"\leq": "≤", r"\ge": "≥", r"\geq": "≥", r"\ll": "≪", r"\gg": "≫",
    r"\approx": "≈", r"\cdot": "·", r"\times": "×", r"\pi": "π", r"\beta": "β",
    r"\alpha": "α", r"\gamma": "γ", r"\Delta": "Δ", r"\sum": "Σ", r"\infty": "∞",
    r"\to": "→", r"\rightarrow": "→", r"\Rightarrow": "⇒", r"\neq": "≠", r"\ne": "≠",
    r"\lt": "<", r"\gt": ">", r"\mu": "µ", r"\ldots": "…", r"\dots": "…", r"\quad": "  ",
    r"\qquad": "    ", r"\ ": " ", r"\:": " ", r"\,": " ", r"\;": " ", r"\!": "", r"\%": "%", r"\max": "max",
    r"\min": "min", r"\log": "log", r"\left": "", r"\right": "", r"\bigl": "", r"\bigr": "",
    r"\Bigl": "", r"\Bigr": "", r"\lceil": "⌈", r"\rceil": "⌉", r"\lfloor": "⌊",
    r"\rfloor": "⌋", r"\{": "{", r"\}": "}", r"\_": "_", r"\&": "&", r"\#": "#",
}  # fmt: skip
_WRAPPERS = re.compile(
    r"\\(?:text|mathrm|mathit|mathbf|operatorname|textrm|textit|textbf|mbox|boxed)\{([^{}]*)\}"
)
_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
_COMMAND = re.compile(r"\\[A-Za-z]+|\\[,;:! %{}_&#]")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{[a-z*]+\}(?:\{[^{}]*\})?")


def _command(match: re.Match[str]) -> str:
    word = match.group(0)
    return _SYMBOLS.get(word, word[1:] if word[1:].isalpha() else "")


def plain_latex(tex: str) -> str:
    """One formula's LaTeX as plain notation (innermost groups first, as a reader would)."""
    text = _ENVIRONMENT.sub("", tex).replace("&", "").replace("\\\\", "; ")
    for _ in range(8):  # nested groups: each pass opens the innermost
        before = text
        text = _WRAPPERS.sub("\x00\\1\x00", text)  # marked: ``\mu\text{s}`` stays µs
        text = _FRAC.sub(r"(\1)/(\2)", text)
        text = _SQRT.sub(r"√(\1)", text)
        text = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", text)  # ``\frac{w_{Y}}{8}`` opens too
        if text == before:
            break
    text = _COMMAND.sub(_command, text)
    text = text.replace("{", "").replace("}", "").replace("\x00", "")
    return re.sub(r"[ \t]+", " ", text).strip()


def _math(match: re.Match[str]) -> str:
    return plain_latex(match.group(1) if match.group(1) is not None else match.group(2))


def _plain_inline(line: str) -> str:
    """A line's formulas as plain notation and its emphasis marks dropped."""
    text = _MATH.sub(_math, line)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    return text.replace("`", "")


def _line(line: str) -> list[str]:
    """One Markdown line as plain lines: a heading underlined, prose wrapped."""
    text = _plain_inline(line)
    heading = re.match(r"(#{1,6})\s+(.*)", text)
    if heading:
        title = heading.group(2).strip()
        return [title, ("=" if len(heading.group(1)) <= 2 else "-") * min(len(title), COLUMNS)]
    if len(text) <= COLUMNS:
        return [text.rstrip()]
    indent = re.match(r"\s*(?:[-*] |\d+\. )?", text)
    lead = " " * len(indent.group(0)) if indent else ""
    return textwrap.wrap(text, COLUMNS, subsequent_indent=lead, break_long_words=False) or [""]


_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>$])")


def _unescaped(line: str) -> str:
    """Markdown's backslash escapes undone outside formulas (``Z\\[B\\]`` → ``Z[B]``)."""
    parts = _MATH.split(line)
    out, i = [], 0
    for match in _MATH.finditer(line):
        out.append(_ESCAPED.sub(r"\1", line[i : match.start()]) + match.group(0))
        i = match.end()
    return "".join(out) + _ESCAPED.sub(r"\1", line[i:]) if parts else line


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _table(rows: list[str]) -> list[str]:
    """A Markdown table as aligned columns; one "header: cell" line per cell when too wide."""
    table = [_cells(row) for row in rows if not re.fullmatch(r"\|?[\s:|-]+\|?", row.strip())]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in table) for i in range(len(table[0]))]
    if sum(widths) + 2 * (len(widths) - 1) <= COLUMNS:
        return [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip() for r in table
        ]
    head, out = table[0], []
    for r in table[1:]:
        pairs = "; ".join(f"{h}: {c}" for h, c in zip(head, r, strict=False) if c)
        out += textwrap.wrap(pairs, COLUMNS, initial_indent="- ", subsequent_indent="  ")
    return out


def plain_text(markdown: str) -> str:
    """A Markdown report as plain text for a terminal (see the module docstring)."""
    text = _MATH.sub(lambda m: m.group(0).replace("\n", " "), markdown)  # a display on one line
    lines: list[str] = []
    rows: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.lstrip().startswith("|"):
            rows.append(_plain_inline(_unescaped(line)))
            continue
        if rows:
            lines += _table(rows)
            rows = []
        lines += _line(_unescaped(line))
    return "\n".join(lines).rstrip("\n") + "\n"
