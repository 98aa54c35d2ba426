"""Limits on typed formulas, and the checks made before anything is parsed.

Every check here is linear in the length of the text and runs before the text
reaches a parser, so hostile input is refused in microseconds. Inner modules
raise :class:`RejectError` (a reason without a subject); the public functions turn it
into a :class:`~derive.errors.ParseError` or :class:`~derive.errors.LimitError`
that names the input.
"""

from __future__ import annotations

import unicodedata

MAX_LENGTH = 2000
"""Characters in one formula or derivation line."""
MAX_DEPTH = 50
"""Nesting of parentheses, braces, brackets, ``\\frac`` and ``^``."""
MAX_LITERAL_DIGITS = 40
"""Digits in one numeric literal (mantissa and exponent together)."""
MAX_TOKENS = 500
"""Tokens (numbers, names, operators, brackets) in one formula."""
MAX_LOG10 = 400.0
"""Bound on log10 of any numerator or denominator the formula can produce."""
MAX_DEGREE = 64
"""Bound on the total degree (in the symbols) of the formula."""
MAX_EXPONENT = 10_000
"""Largest absolute value of an exponent."""
MAX_ROOT = 100
"""Largest denominator of a rational exponent (``B^{1/2}`` has 2)."""

_OPEN = "([{"
_CLOSE = ")]}"
_SHOW_CHARS = 60


class RejectError(Exception):
    """A reason to refuse a formula, raised inside the parser.

    Attributes:
        why: one line saying what is wrong and what is allowed.
        limit: True when a size limit (not a syntax rule) was exceeded.
    """

    def __init__(self, why: str, limit: bool = False) -> None:
        super().__init__(why)
        self.why = why
        self.limit = limit


def escape_char(c: str) -> str:
    """A printable spelling of one character: itself if printable, else ``\\x00``/``\\u202e``."""
    if c.isprintable():
        return c
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def show(text: str) -> str:
    """Quote user text for a message: shortened, every unprintable character escaped.

    >>> show("B\\x00D")
    "'B\\\\x00D'"
    """
    short = text if len(text) <= _SHOW_CHARS else text[:_SHOW_CHARS] + "..."
    return "'" + "".join(escape_char(c) for c in short) + "'"


def at(pos: int) -> str:
    """A position for a message, counting characters from 1."""
    return f"at position {pos + 1}"


def _char_kind(c: str) -> str:
    """What kind of unwanted character ``c`` is, for the message."""
    category = unicodedata.category(c)
    if category == "Cc":
        return "control character"
    if category == "Cf":
        return "invisible formatting character"
    if category.startswith("Z"):
        return "unusual space character"
    return "unprintable character"


def check_text(text: object) -> str:
    """Refuse non-text, empty, over-long text and unprintable characters.

    Args:
        text: what the user typed.

    Returns:
        The text itself, known to be a printable ``str`` of bounded length.

    Raises:
        RejectError: naming the problem (and the character and its position).
    """
    if not isinstance(text, str):
        raise RejectError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise RejectError(
            f"{len(text)} characters, more than the limit of {MAX_LENGTH}", limit=True
        )
    for pos, c in enumerate(text):
        if not (c.isprintable() or c == "\t"):
            name = unicodedata.name(c, "")
            named = f" ({name})" if name else ""
            raise RejectError(
                f"{_char_kind(c)} '{escape_char(c)}'{named} {at(pos)} "
                "(only printable characters, spaces and tabs are allowed)"
            )
    if not text.strip():
        raise RejectError("empty formula (expected an expression such as 2*B*D*F)")
    return text


def check_nesting(text: str) -> None:
    """Refuse brackets of any kind nested deeper than :data:`MAX_DEPTH`.

    Counts ``( [ {`` against ``) ] }`` without regard to kind or escapes, so it
    over-counts at worst; it runs before any recursive parser sees the text.
    """
    depth = 0
    for pos, c in enumerate(text):
        if c in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise RejectError(
                    f"brackets nested more than {MAX_DEPTH} deep {at(pos)}", limit=True
                )
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
