"""Tokens, and the lexer for plain text (also used on LaTeX's character runs).

A token stream is the common ground of both syntaxes: the LaTeX front end
turns ``\\frac``, ``\\cdot``, groups and ``\\left(`` into the same tokens the
plain lexer makes, and one parser reads them.

Token kinds:

========== ==================================================================
``num``    a decimal literal, ``value`` is its exact ``Rational``
``name``   a run of letters and digits starting with a letter (``BDF``, ``W1``)
``exact``  a name from ``\\mathrm{...}``/``\\text{...}``: never split into letters
``unit``   a unit written after a number (marked by :mod:`.literals`, formulas with units)
``sub``    ``_`` (joins a subscript to a name: ``d_model``, ``d_{model}``)
``op``     one of ``+ - * / ^`` (``**``, ``·``, ``×``, ``⋅``, ``−`` normalised)
``open``   ``(``, ``[`` or ``{``
``close``  ``)``, ``]`` or ``}``
``frac``   ``\\frac`` (followed by two ``{...}`` groups)
========== ==================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.errors import ParseError
from derive.formula.decimals import parse_decimal
from derive.formula.limits import MAX_LITERAL_DIGITS, MAX_TOKENS, RejectError, at, escape_char

_NUMBER = re.compile(r"(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_SUBSCRIPT = re.compile(r"[A-Za-z0-9]+")
_SPACE = " \t"
_OPERATORS = {
    "**": "^",
    "^": "^",
    "*": "*",
    "/": "/",
    "+": "+",
    "-": "-",
    "\u00b7": "*",  # · middle dot
    "\u00d7": "*",  # × multiplication sign
    "\u22c5": "*",  # ⋅ dot operator
    "\u2212": "-",  # − minus sign
}
_PARENS = {"(": "open", ")": "close"}
_BRACKETS = {"[": "open", "]": "close"}
RELATION_CHARS = (
    "==",
    "<=",
    ">=",
    "!=",
    "=",
    "<",
    ">",
    "\u2264",
    "\u2265",
    "\u2260",
    "\u2248",
    "~",
)
_PLAIN_ALLOWED = (
    "letters, digits, _, spaces, + - * / ^ ( ) . and the operators \u00b7 \u00d7 \u22c5 \u2212"
)


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text, where it starts (0-based) and, for numbers, its value."""

    kind: str
    text: str
    pos: int
    value: sp.Rational | None = None


def relation_error(sign: str, pos: int) -> RejectError:
    """The error for a relation sign found where one expression was expected."""
    return RejectError(
        f"not an expression: a relation '{sign}' {at(pos)} "
        "(a formula is one expression; only = and \\approx may join the steps of a derivation line)"
    )


def count_check(tokens: list[Token]) -> None:
    """Refuse more than :data:`MAX_TOKENS` tokens."""
    if len(tokens) > MAX_TOKENS:
        raise RejectError(f"more than {MAX_TOKENS} tokens (numbers, names, operators)", limit=True)


def _number(text: str, start: int, end: int) -> tuple[Token, int]:
    """Lex the decimal literal at ``start``."""
    m = _NUMBER.match(text, start, end)
    assert m is not None  # the caller saw a digit or '.' followed by a digit
    literal = m.group(0)
    digits = sum(c.isdigit() for c in literal)
    if digits > MAX_LITERAL_DIGITS:
        raise RejectError(
            f"a number with {digits} digits {at(start)} (at most {MAX_LITERAL_DIGITS})", limit=True
        )
    try:
        value = parse_decimal(literal, "number")
    except ParseError as e:  # exponent beyond the decimal parser's range
        raise RejectError(f"number '{literal}' {at(start)}: {e.why}", limit=True) from None
    return Token("num", literal, start, value), m.end()


def _relation_at(text: str, i: int, end: int) -> str | None:
    """The relation sign starting at ``i``, if any."""
    for sign in RELATION_CHARS:
        if text.startswith(sign, i, end):
            return sign
    return None


def _single(text: str, i: int, end: int, latex: bool) -> tuple[Token, int]:
    """Lex an operator or bracket at ``i``, or refuse the character."""
    for spelled, op in _OPERATORS.items():
        if text.startswith(spelled, i, end):
            return Token("op", op, i), i + len(spelled)
    c = text[i]
    brackets = {**_PARENS, **_BRACKETS} if latex else _PARENS
    if c in brackets:
        return Token(brackets[c], c, i), i + 1
    if c == "_":
        return Token("sub", c, i), i + 1
    sign = _relation_at(text, i, end)
    if sign is not None:
        raise relation_error(sign, i)
    if c == "\\":
        raise RejectError(
            f"unexpected '\\' {at(i)} (this is read as plain text; LaTeX needs syntax 'latex')"
        )
    if c == "$":
        raise RejectError(f"math delimiters '$' {at(i)} (write the formula without them)")
    if c == "," and 0 < i < end - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
        raise RejectError(
            f"a comma {at(i)} (thousands separators group three digits, as in 8,030,261,248; "
            "decimals take a point, as in 0.5)"
        )
    allowed = _PLAIN_ALLOWED + (", [ ]" if latex else "")
    raise RejectError(f"unexpected character '{escape_char(c)}' {at(i)} (allowed: {allowed})")


def lex(text: str, start: int = 0, end: int | None = None, latex: bool = False) -> list[Token]:
    """Split ``text[start:end]``, a run of plain characters, into tokens.

    Args:
        text: the whole formula (positions in messages count from its start).
        start: where the run begins (a LaTeX character run begins inside the formula).
        end: where the run ends; the end of ``text`` by default.
        latex: allow ``[`` ``]`` as brackets (plain text refuses them).

    Raises:
        RejectError: on any character outside the grammar, naming it and its position.

    >>> [t.text for t in lex("2BDF/(0.5 D**2)")]
    ['2', 'BDF', '/', '(', '0.5', 'D', '^', '2', ')']
    """
    tokens: list[Token] = []
    i, n = start, len(text) if end is None else end
    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
            continue
        subscript = not latex and tokens and tokens[-1].kind == "sub" and tokens[-1].pos == i - 1
        if subscript and c.isascii() and c.isalnum():
            # plain text: a subscript is the whole run after '_' (flops_2n is one name);
            # LaTeX keeps TeX's rule (x_2n is x_2 times n)
            stop = _SUBSCRIPT.match(text, i, n).end()  # type: ignore[union-attr]
            token, i = Token("name", text[i:stop], i), stop
        elif c.isascii() and (c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit())):
            token, i = _number(text, i, n)
        elif c.isascii() and c.isalpha():
            stop = _NAME.match(text, i, n).end()  # type: ignore[union-attr]
            token, i = Token("name", text[i:stop], i), stop
        else:
            token, i = _single(text, i, n, latex)
        tokens.append(token)
        count_check(tokens)
    return tokens
