"""Reading a derivation's text: a file or a string, LaTeX environments and line breaks taken apart.

``align``/``align*``/``aligned`` (and ``equation``, ``gather``, ``split``, ...) environments,
``&`` alignment, ``\\\\`` line breaks (with an optional ``[4pt]``), ``\\label``/``\\tag``/
``\\nonumber``, surrounding ``$``/``$$``/``\\[ \\]``, blank lines and ``%``/``#`` comments
are dropped; each step keeps the number of the line it is on. Notation is rewritten
as for claims (:func:`derive.formula.answer.rewrite_notation`).
"""

from __future__ import annotations

import re

from derive.errors import LimitError, ParseError
from derive.formula.answer import rewrite_notation
from derive.problem.input_files import read_text_file

MAX_CHAIN_LINES = 200
MAX_CHAIN_BYTES = 100_000


def read_chain_text(path: str) -> str:
    """The text of a derivation file.

    Raises:
        ProblemError: missing or not a regular file; LimitError: too big or too many lines;
        ParseError: not UTF-8 text, or no derivation in it.
    """
    return read_text_file(
        path,
        f"--chain {path!r}",
        MAX_CHAIN_BYTES,
        hint="give a text file with one derivation step per line",
    )


_ENVIRONMENT = re.compile(
    r"\\(?:begin|end)\{(?:align|aligned|alignat|equation|gather|gathered|split|eqnarray|multline)\*?\}"
)
_LABELS = re.compile(r"\\(?:nonumber|notag)(?![A-Za-z])|\\(?:label|tag)\{[^{}]*\}")
_BREAK_SPACE = re.compile(r"^\[[^\]]*\]")


def split_lines(text: str, what: str = "derivation") -> list[tuple[int, str]]:
    """The numbered, cleaned steps of a derivation text: ``align`` environments, ``&`` and labels
    dropped, ``\\\\`` splitting a line in two (both keep the line's number).

    Raises:
        LimitError: too big or too many lines; ParseError: NUL bytes, or no derivation in it.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_CHAIN_BYTES:
        raise LimitError(what, f"larger than {MAX_CHAIN_BYTES // 1000} KB")
    if "\x00" in text:
        raise ParseError(what, "not a text file (contains NUL bytes)")
    raw = text.lstrip("\ufeff").split("\n")
    if len(raw) > MAX_CHAIN_LINES + 1 or (len(raw) == MAX_CHAIN_LINES + 1 and raw[-1].strip()):
        raise LimitError(what, f"more than {MAX_CHAIN_LINES} lines")
    lines: list[tuple[int, str]] = []
    for n, line in enumerate(raw, 1):
        if line.strip().startswith(("%", "#")):
            continue
        line = _LABELS.sub(" ", _ENVIRONMENT.sub(" ", line))
        for piece in line.split("\\\\"):
            s = _clean(_BREAK_SPACE.sub("", piece.strip()))
            if s and not s.startswith(("%", "#")):
                lines.append((n, s))
    if not lines:
        raise ParseError(
            what, "no derivation in the file (write e.g. I = \\frac{2BDF}{2BD+DF+2BF})"
        )
    return lines


def _clean(line: str) -> str:
    s = line.rstrip("\r").strip().replace("&", " ")
    s = s.strip()
    for a, b in (("$$", "$$"), ("$", "$"), ("\\[", "\\]")):
        if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
            s = s[len(a) : -len(b)].strip()
    s = s.rstrip(",;").strip()
    return rewrite_notation(s) if s else s
