"""One recursive-descent parser for both syntaxes: tokens in, a small syntax tree out.

Grammar (``juxtaposition`` binds tighter than ``*`` and ``/``, as in textbooks:
``2BDF/0.5BDF`` is ``(2BDF)/(0.5BDF)``; ``^`` is right-associative)::

    sum      := term (("+" | "-") term)*
    term     := unary (("*" | "/") unary)*
    unary    := ("+" | "-")* product
    product  := power power*                 (a number may only come first)
    power    := primary ("^" exponent)?
    exponent := ("+" | "-")* power
    primary  := number | name ("_" subscript)* | exact-name
              | "(" sum ")" | "[" sum "]" | "{" sum "}" | frac "{" sum "}" "{" sum "}"

The tree holds names unresolved; :mod:`.evaluate` resolves them against the
caller's symbols, bounds sizes and only then builds sympy objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from derive.formula.limits import MAX_DEPTH, RejectError, at
from derive.formula.tokens import Token


@dataclass(frozen=True)
class Num:
    """A literal, exact."""

    value: sp.Rational
    pos: int


@dataclass(frozen=True)
class Name:
    """An identifier run as typed (``BDF``, ``d_model``); ``exact`` forbids splitting it.

    ``unit`` marks a unit written where a unit is expected (after a number: ``2 bytes``),
    which the formula reader takes for the unit and never for a quantity of that name.
    """

    text: str
    pos: int
    exact: bool = False
    unit: bool = False


@dataclass(frozen=True)
class Sum:
    """Signed terms: ``((+1, a), (-1, b))`` is ``a - b``."""

    terms: tuple[tuple[int, Node], ...]
    pos: int


@dataclass(frozen=True)
class Product:
    """Factors, each multiplied (False) or divided by (True), with the operator's position."""

    factors: tuple[tuple[bool, Node, int], ...]
    pos: int


@dataclass(frozen=True)
class Power:
    """``base ^ exp``; ``pos`` is the position of ``^``."""

    base: Node
    exp: Node
    pos: int


Node = Num | Name | Sum | Product | Power

_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_STARTS = ("num", "name", "exact", "unit", "open", "frac")


class _Parser:
    """State of one parse: the tokens, the cursor and the current nesting depth."""

    def __init__(self, tokens: list[Token], end: int) -> None:
        self.tokens = tokens
        self.i = 0
        self.end = end
        self.depth = 0

    # -- cursor -------------------------------------------------------------
    def peek(self) -> Token | None:
        """The next token, or None at the end."""
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def here(self) -> int:
        """The position of the next token, or the end of the input."""
        tok = self.peek()
        return tok.pos if tok is not None else self.end

    def peek_op(self, ops: str) -> Token | None:
        """The next token if it is one of the operators ``ops``."""
        tok = self.peek()
        return tok if tok is not None and tok.kind == "op" and tok.text in ops else None

    def take(self) -> Token:
        """Consume and return the next token."""
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def where(self) -> str:
        """The next token and its position, for messages."""
        tok = self.peek()
        return (
            f"the end of the input {at(self.end)}" if tok is None else f"'{tok.text}' {at(tok.pos)}"
        )

    def fail(self, expected: str) -> RejectError:
        """A syntax error: what was expected, and what was found where."""
        return RejectError(f"expected {expected}, found {self.where()}")

    def enter(self, pos: int) -> None:
        """One level deeper (a bracket, a fraction, an exponent); refuse past the limit."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise RejectError(f"nested more than {MAX_DEPTH} deep {at(pos)}", limit=True)

    # -- grammar ------------------------------------------------------------
    def sum(self) -> Node:
        """``term (("+" | "-") term)*``."""
        pos = self.here()
        terms: list[tuple[int, Node]] = [(1, self.term())]
        while (op := self.peek_op("+-")) is not None:
            self.take()
            terms.append((1 if op.text == "+" else -1, self.term()))
        return terms[0][1] if len(terms) == 1 else Sum(tuple(terms), pos)

    def term(self) -> Node:
        """``unary (("*" | "/") unary)*``."""
        pos = self.here()
        factors: list[tuple[bool, Node, int]] = [(False, self.unary(), pos)]
        while (op := self.peek_op("*/")) is not None:
            self.take()
            factors.append((op.text == "/", self.unary(), op.pos))
        return factors[0][1] if len(factors) == 1 else Product(tuple(factors), pos)

    def signed(self, operand: Callable[[], Node]) -> Node:
        """``("+" | "-")* operand``: the leading signs consumed, a negative one as ``-operand``."""
        pos, sign = self.here(), 1
        while (op := self.peek_op("+-")) is not None:
            self.take()
            sign = -sign if op.text == "-" else sign
        node = operand()
        return node if sign == 1 else Sum(((-1, node),), pos)

    def unary(self) -> Node:
        """``("+" | "-")* product``."""
        return self.signed(self.product)

    def product(self) -> Node:
        """Juxtaposed powers (``2BDF``, ``2(B+D)``, ``(B+D)(D+F)``)."""
        first = self.peek()
        factors: list[tuple[bool, Node, int]] = [
            (False, self.power(), first.pos if first else self.end)
        ]
        while (tok := self.peek()) is not None and tok.kind in _STARTS:
            if tok.kind == "num":
                raise RejectError(
                    f"a number after a factor {at(tok.pos)}: write an explicit * (2*3) or put it first (3B)"
                )
            factors.append((False, self.power(), tok.pos))
        return factors[0][1] if len(factors) == 1 else Product(tuple(factors), factors[0][2])

    def power(self) -> Node:
        """``primary ("^" exponent)?``, right-associative through :meth:`exponent`."""
        base = self.primary()
        op = self.peek_op("^")
        if op is None:
            return base
        self.take()
        self.enter(op.pos)
        exp = self.exponent()
        self.depth -= 1
        return Power(base, exp, op.pos)

    def exponent(self) -> Node:
        """``("+" | "-")* power``: ``2^-1``, ``10^{14}``, ``2^3^2`` = ``2^(3^2)``."""
        return self.signed(self.power)

    def primary(self) -> Node:
        """A number, a name, a bracketed sum or a fraction."""
        tok = self.peek()
        if tok is None or tok.kind not in _STARTS:
            raise self.fail("a number, a name or '('")
        self.take()
        if tok.kind == "num":
            assert tok.value is not None  # the lexer gives every number its value
            return Num(tok.value, tok.pos)
        if tok.kind == "unit":
            return Name(tok.text, tok.pos, exact=True, unit=True)
        if tok.kind in ("name", "exact"):
            return self.name(tok)
        if tok.kind == "frac":
            return self.frac(tok)
        return self.group(tok)

    def group(self, opener: Token) -> Node:
        """The inside of ``( )``, ``[ ]`` or ``{ }`` (the opener already taken)."""
        self.enter(opener.pos)
        closer = _CLOSERS[opener.text]
        nxt = self.peek()
        if nxt is not None and nxt.kind == "close":
            raise RejectError(
                f"empty '{opener.text}{closer}' {at(opener.pos)} (expected an expression inside)"
            )
        node = self.sum()
        nxt = self.peek()
        if nxt is None or nxt.kind != "close" or nxt.text != closer:
            raise self.fail(f"'{closer}' to close the '{opener.text}' {at(opener.pos)}")
        self.take()
        self.depth -= 1
        return node

    def frac(self, tok: Token) -> Node:
        """``\\frac{num}{den}``."""
        parts: list[Node] = []
        for _ in range(2):
            nxt = self.peek()
            if nxt is None or nxt.kind != "open" or nxt.text != "{":
                raise self.fail(f"'{{' after '{tok.text}' {at(tok.pos)}")
            parts.append(self.group(self.take()))
        return Product(((False, parts[0], tok.pos), (True, parts[1], tok.pos)), tok.pos)

    def name(self, tok: Token) -> Node:
        """A name and its subscripts: ``d_model``, ``d_{model}``, ``d_{\\text{model}}``, ``x_1``."""
        text = tok.text
        while self.peek() is not None and self.peek().kind == "sub":  # type: ignore[union-attr]
            text += "_" + self.subscript(self.take())
        return Name(text, tok.pos, exact=tok.kind == "exact")

    def subscript(self, sub: Token) -> str:
        """The text after ``_``: a name, digits, or a braced run of those."""
        tok = self.peek()
        if tok is not None and (
            tok.kind in ("name", "exact") or (tok.kind == "num" and tok.text.isdigit())
        ):
            return self.take().text
        if tok is None or tok.kind != "open" or tok.text != "{":
            raise self.fail(f"a subscript after '_' {at(sub.pos)}")
        self.take()
        parts: list[str] = []
        while (tok := self.peek()) is not None and tok.kind in ("name", "exact", "num", "sub"):
            parts.append(self.take().text)
        joined = "".join(parts)
        nxt = self.peek()
        if not joined or nxt is None or nxt.kind != "close" or nxt.text != "}":
            raise self.fail(f"a subscript name and '}}' after '_' {at(sub.pos)}")
        self.take()
        return joined


def parse_tokens(tokens: list[Token], end: int) -> Node:
    """Parse a whole token stream into one expression tree.

    Args:
        tokens: from :func:`.tokens.lex` or :func:`.latex.latex_tokens`.
        end: the length of the text, for "end of input" positions.

    Raises:
        RejectError: with the position of the first token that does not fit.
    """
    parser = _Parser(tokens, end)
    node = parser.sum()
    if parser.peek() is not None:
        tok = parser.peek()
        hint = "unbalanced" if tok.kind == "close" else "an operator missing?"  # type: ignore[union-attr]
        raise RejectError(f"unexpected '{tok.text}' {at(tok.pos)} ({hint})")  # type: ignore[union-attr]
    return node
