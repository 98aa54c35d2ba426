"""Splitting a derivation line at its top-level relation signs.

``I = \\frac{2BDF}{2BD+0.5DF+2BF} \\approx \\frac{2BDF}{0.5DF} = 4B`` has four
sides joined by ``=``, ``approx``, ``=``. A sign inside brackets or braces is
not top-level (the side containing it is refused later, when it is parsed).
Order relations (``<``, ``\\le``, ``!=``, ``==``, ...) are refused anywhere:
a derivation line states equalities and approximations only.
"""

from __future__ import annotations

from derive.formula.limits import RejectError, at
from derive.formula.tokens import relation_error

EQUALS = "="
APPROX = "approx"
APPROX_MACROS = frozenset({"approx", "simeq", "sim"})
REFUSED_MACROS = frozenset(
    {
        "le",
        "leq",
        "ge",
        "geq",
        "ne",
        "neq",
        "lt",
        "gt",
        "ll",
        "gg",
        "leqslant",
        "geqslant",
        "equiv",
        "propto",
        "to",
        "implies",
        "iff",
        "not",
    }
)
_REFUSED_SIGNS = (
    "==",
    "<=",
    ">=",
    "!=",
    "<",
    ">",
    "\u2264",
    "\u2265",
    "\u2260",
    "\u226a",
    "\u226b",
)
_APPROX_SIGNS = ("\u2248", "~")


def macro_at(text: str, i: int) -> str:
    """The name of the macro whose backslash is at ``i`` (``\\approx`` -> ``approx``)."""
    j = i + 1
    while j < len(text) and text[j].isascii() and text[j].isalpha():
        j += 1
    return text[i + 1 : j] if j > i + 1 else text[i + 1 : i + 2]


class _Splitter:
    """Cuts ``text`` into sides; ``cut`` records each relation found at depth 0."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.sides: list[str] = []
        self.relations: list[str] = []
        self.start = 0
        self.last_sign = ""

    def cut(self, pos: int, length: int, relation: str, sign: str) -> None:
        """End the current side at ``pos``; the next begins after the sign."""
        self.sides.append(self._side(self.start, pos, sign, pos))
        self.relations.append(relation)
        self.start = pos + length
        self.last_sign = sign

    def _side(self, start: int, end: int, sign: str, pos: int) -> str:
        """The stripped text of one side; refuse an empty one."""
        side = self.text[start:end].strip()
        if not side:
            raise RejectError(f"nothing on one side of '{sign}' {at(pos)} (expected an expression)")
        return side

    def finish(self) -> tuple[list[str], list[str]]:
        """Close the last side and return sides and relations."""
        self.sides.append(self._side(self.start, len(self.text), self.last_sign, len(self.text)))
        return self.sides, self.relations


def scan_relations(text: str, latex: bool) -> tuple[list[str], list[str]]:
    """Split ``text`` (already checked for length and characters) at top-level relations.

    Args:
        text: one derivation line.
        latex: read backslash macros (``\\approx``, ``\\le``) and skip escaped braces.

    Raises:
        RejectError: an order relation anywhere, or an empty side.
    """
    splitter = _Splitter(text)
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and latex:
            name = macro_at(text, i)
            if name in REFUSED_MACROS:
                raise relation_error("\\" + name, i)
            if name in APPROX_MACROS and depth == 0:
                splitter.cut(i, len(name) + 1, APPROX, "\\" + name)
            i += len(name) + 1
            continue
        refused = next((s for s in _REFUSED_SIGNS if text.startswith(s, i)), None)
        if refused is not None:
            raise relation_error(refused, i)
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0 and c == "=":
            splitter.cut(i, 1, EQUALS, c)
        elif depth == 0 and c in _APPROX_SIGNS:
            splitter.cut(i, 1, APPROX, c)
        i += 1
    return splitter.finish()
