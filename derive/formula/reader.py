"""A safe reader for formulas people type, in LaTeX or plain text.

Nothing here calls ``eval``, ``sympify``, ``parse_expr`` or any sympy function
that accepts a string. The pipeline is::

    check_text (length, characters)  ->  check_nesting
    -> tokens (plain lexer, or pylatexenc + whitelist)  ->  parse_tokens (syntax tree)
    -> Evaluator.bound (names, magnitude, degree)  ->  Evaluator.build (sympy)

Every refusal is a :class:`~derive.errors.ParseError` (a
:class:`~derive.errors.LimitError` for size limits) naming the input, with the
position of the problem counted from 1.

>>> import sympy as sp
>>> B, D, F = sp.symbols("B D F", positive=True, integer=True)
>>> parse_formula(r"\\frac{2BDF}{0.5DF}", {"B": B, "D": D, "F": F}).expr
4*B
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from derive.errors import LimitError, ParseError
from derive.formula.evaluate import evaluate
from derive.formula.limits import (
    MAX_DEGREE,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_LENGTH,
    MAX_LITERAL_DIGITS,
    MAX_LOG10,
    MAX_ROOT,
    MAX_TOKENS,
    RejectError,
    check_nesting,
    check_text,
    show,
)
from derive.formula.parser import Node, parse_tokens
from derive.formula.relations import scan_relations
from derive.formula.tokens import Token, lex

__all__ = [
    "MAX_DEGREE",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_LITERAL_DIGITS",
    "MAX_LOG10",
    "MAX_ROOT",
    "MAX_TOKENS",
    "SYNTAXES",
    "Parsed",
    "choose_syntax",
    "parse_formula",
    "read_tree",
    "split_relations",
]

SYNTAXES = ("auto", "latex", "plain")


@dataclass(frozen=True)
class Parsed:
    """A parsed formula.

    Attributes:
        expr: the exact sympy expression.
        syntax: ``"latex"`` or ``"plain"``, the syntax that was used.
        decided: one line saying how the syntax was chosen.
    """

    expr: sp.Expr
    syntax: str
    decided: str


def choose_syntax(text: str, syntax: str) -> tuple[str, str]:
    """The syntax to read ``text`` with, and one line saying why.

    ``auto`` reads LaTeX when the text has a backslash or a brace, plain text otherwise.

    >>> choose_syntax(r"\\frac{B}{2}", "auto")
    ('latex', 'auto: read as LaTeX (found a backslash)')

    Raises:
        RejectError: for a syntax not in :data:`SYNTAXES`.
    """
    if syntax not in SYNTAXES:
        raise RejectError(f"unknown syntax {syntax!r} (allowed: {', '.join(SYNTAXES)})")
    if syntax != "auto":
        return syntax, f"{syntax}: as requested"
    if "\\" in text:
        return "latex", "auto: read as LaTeX (found a backslash)"
    if "{" in text or "}" in text:
        return "latex", "auto: read as LaTeX (found a brace)"
    return "plain", "auto: read as plain text (no backslash or brace)"


def _refuse(what: str, text: object, reject: RejectError) -> ParseError:
    """The public error for a rejection: LimitError for limits, else ParseError."""
    label = f"{what} {show(text)}" if isinstance(text, str) else what
    cls = LimitError if reject.limit else ParseError
    return cls(label, reject.why)


def read_tree(
    text: str, syntax: str = "auto", mark: Callable[[list[Token]], list[Token]] | None = None
) -> tuple[Node, str, str]:
    """The one front end of every formula: text checks, tokens, syntax tree.

    Claims, steps, givens, defined formulas and equations all come through here, so a
    text is tokenised and parsed the same everywhere; only what a name stands for (a dim,
    a quantity with its unit) differs by caller.

    Args:
        text: the formula.
        syntax: ``"auto"``, ``"latex"`` or ``"plain"``.
        mark: a pass over the tokens before parsing (the formula reader marks the units
            written after a number, :func:`derive.formula.literals.mark_units`).

    Returns:
        The tree, the syntax used and how it was chosen.

    Raises:
        RejectError: anything outside the grammar or past the limits.
    """
    check_text(text)
    chosen, decided = choose_syntax(text, syntax)
    check_nesting(text)
    if chosen == "latex":  # pylatexenc's walker loads with the first LaTeX text
        from derive.formula.latex import latex_tokens

        tokens = latex_tokens(text)
    else:
        tokens = lex(text)
    if mark is not None:
        tokens = mark(tokens)
    return parse_tokens(tokens, len(text)), chosen, decided


def _parse(text: str, symbols: Mapping[str, sp.Symbol], syntax: str) -> Parsed:
    """:func:`parse_formula` without the error translation."""
    tree, chosen, decided = read_tree(text, syntax)
    return Parsed(evaluate(tree, symbols), chosen, decided)


def parse_formula(
    text: str, symbols: Mapping[str, sp.Symbol], syntax: str = "auto", what: str = "claim"
) -> Parsed:
    """Read one expression typed as LaTeX or plain text into an exact sympy expression.

    Args:
        text: the formula, e.g. ``\\frac{2BDF}{2BD+DF+2BF}`` or ``2*B*D*F/(B*D+D*F+B*F)``.
        symbols: the names allowed, mapped to their symbols (an operator's dims).
        syntax: ``"auto"``, ``"latex"`` or ``"plain"``.
        what: how to name the input in errors (``"claim"``, ``"step 3"``).

    Returns:
        The expression, the syntax used and how it was chosen.

    Raises:
        ParseError: anything outside the grammar, unknown names, division by zero.
        LimitError: text, nesting, literals, magnitude or degree past the limits.

    >>> import sympy as sp
    >>> B, D = sp.symbols("B D")
    >>> parse_formula("2BD + 0.5D^2", {"B": B, "D": D}).expr
    2*B*D + D**2/2
    """
    try:
        return _parse(text, symbols, syntax)
    except RejectError as reject:
        raise _refuse(what, text, reject) from None


def split_relations(
    text: str, syntax: str = "auto", what: str = "line"
) -> tuple[list[str], list[str]]:
    """Split a derivation line at its top-level ``=`` and ``\\approx`` signs.

    Relations: ``=``; ``"approx"`` for ``\\approx``, ``\\simeq``, ``\\sim``, ``≈`` and ``~``.
    Signs inside brackets or braces are not top-level. Order relations
    (``<``, ``\\le``, ``!=``, ``==``, ...) anywhere are refused.

    Returns:
        The sides (stripped text) and the relations between them; a line with
        no relation gives ``([line], [])``.

    Raises:
        ParseError: an order relation, an empty side, bad characters.
        LimitError: an over-long line.

    >>> split_relations(r"I = \\frac{2BDF}{2BD} \\approx F")
    (['I', '\\\\frac{2BDF}{2BD}', 'F'], ['=', 'approx'])
    """
    try:
        check_text(text)
        chosen, _ = choose_syntax(text, syntax)
        return scan_relations(text, latex=chosen == "latex")
    except RejectError as reject:
        raise _refuse(what, text, reject) from None
