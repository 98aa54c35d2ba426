"""The LaTeX front end: pylatexenc's node tree, flattened into parser tokens.

pylatexenc (``tolerant_parsing=False``) checks the structure (balanced braces,
macro arguments) and reports a position; we then walk its nodes and keep only a
whitelist. Its context database is ours and minimal: only the macros that take
arguments (``\\frac``, ``\\mathrm``, ...) are declared, every other macro
takes none and is refused by name when the walk reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sympy as sp
from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexNode,
    LatexSpecialsNode,
    LatexWalker,
    LatexWalkerError,
)
from pylatexenc.macrospec import LatexContextDb, MacroSpec

from derive.formula.limits import MAX_DEPTH, MAX_ROOT, RejectError, at
from derive.formula.relations import APPROX_MACROS, REFUSED_MACROS
from derive.formula.tokens import Token, count_check, lex, relation_error

ALLOWED = "allowed: \\frac, \\sqrt, \\cdot, \\times, ^, \\left(...\\right), spacing"
_FRACS = frozenset({"frac", "dfrac", "tfrac"})
_NAME_WRAPPERS = frozenset({"mathrm", "text"})
_SPACING = frozenset({",", ";", ":", "!", " ", "quad", "qquad"})
_TIMES = frozenset({"cdot", "times"})
GREEK_NAMES = frozenset({"pi", "beta"})
"""Greek letters read as names (the caller decides what they stand for: a chip's peak, its bandwidth)."""
_RELATIONS = APPROX_MACROS | REFUSED_MACROS
_WRAPPED_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*$")
_DELIMITERS = {"left": ("open", "([", "\\left"), "right": ("close", ")]", "\\right")}


def _context() -> LatexContextDb:
    """A context database declaring only the whitelisted macros that take arguments."""
    db = LatexContextDb()
    macros = [MacroSpec(name, "{{") for name in sorted(_FRACS)]
    macros += [MacroSpec(name, "{") for name in sorted(_NAME_WRAPPERS)]
    macros.append(MacroSpec("sqrt", "[{"))
    db.add_context_category("derive", macros=macros, environments=[], specials=[])
    db.set_unknown_macro_spec(MacroSpec(""))
    return db


_CONTEXT = _context()


def _walk(text: str) -> list[LatexNode]:
    """Parse ``text`` with pylatexenc, strictly; structural errors carry a position."""
    try:
        nodes, _, _ = LatexWalker(
            text, latex_context=_CONTEXT, tolerant_parsing=False
        ).get_latex_nodes()
    except LatexWalkerError as e:
        pos = getattr(e, "pos", None)
        first = str(e).splitlines()[0].split(" @(")[0] if str(e) else "malformed"
        where = at(pos) if isinstance(pos, int) else "somewhere"
        raise RejectError(f"malformed LaTeX {where}: {first}") from None
    except RecursionError:
        raise RejectError(f"LaTeX nested more than {MAX_DEPTH} deep", limit=True) from None
    return list(nodes)


class _Flattener:
    """Walks the node tree and appends tokens; refuses anything off the whitelist."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[Token] = []
        self.handlers: dict[type, Callable[[LatexNode, int], None]] = {
            LatexCharsNode: self.chars,
            LatexGroupNode: self.group,
            LatexMacroNode: self.macro,
        }

    def nodes(self, nodes: list[LatexNode | None], depth: int) -> None:
        """Flatten a node list at nesting ``depth``."""
        if depth > MAX_DEPTH:
            pos = nodes[0].pos if nodes and nodes[0] is not None else 0
            raise RejectError(f"LaTeX nested more than {MAX_DEPTH} deep {at(pos)}", limit=True)
        for node in nodes:
            if node is None:
                continue
            handler = self.handlers.get(type(node))
            if handler is None:
                raise RejectError(
                    f"unsupported LaTeX construct {_describe(node)} {at(node.pos)} ({ALLOWED})"
                )
            handler(node, depth)
            count_check(self.out)

    def chars(self, node: LatexCharsNode, depth: int) -> None:
        """Plain characters: the plain lexer, with ``[`` ``]`` allowed."""
        self.out += lex(self.text, node.pos, node.pos + node.len, latex=True)

    def group(self, node: LatexGroupNode, depth: int) -> None:
        """``{...}`` groups like parentheses."""
        self.out.append(Token("open", "{", node.pos))
        self.nodes(node.nodelist, depth + 1)
        self.out.append(Token("close", "}", node.pos + node.len - 1))

    def macro(self, node: LatexMacroNode, depth: int) -> None:
        """Whitelisted macros become tokens; relations and everything else are refused."""
        name = node.macroname
        if (name in _FRACS or name in _NAME_WRAPPERS or name == "sqrt") and node.nodeargd is None:
            raise RejectError(
                f"'\\{name}' {at(node.pos)} used as an argument: put it in braces, as in \\frac{{1}}{{\\frac{{1}}{{2}}}}"
            )
        if name in _FRACS:
            self.frac(node, depth)
        elif name == "sqrt":
            self.sqrt(node, depth)
        elif name in _TIMES:
            self.out.append(Token("op", "*", node.pos))
        elif name in _DELIMITERS:
            self.out.append(Token(name, "\\" + name, node.pos))
        elif name in _NAME_WRAPPERS:
            self.out.append(Token("exact", _wrapped_name(node), node.pos))
        elif name in GREEK_NAMES:
            self.out.append(Token("exact", name, node.pos))
        elif name in _RELATIONS:
            raise relation_error("\\" + name, node.pos)
        elif name not in _SPACING:
            raise RejectError(f"unsupported LaTeX construct '\\{name}' {at(node.pos)} ({ALLOWED})")

    def frac(self, node: LatexMacroNode, depth: int) -> None:
        """``\\frac{a}{b}``: a ``frac`` token and two brace groups (``\\frac12`` too)."""
        self.out.append(Token("frac", "\\" + node.macroname, node.pos))
        for arg in node.nodeargd.argnlist:
            self.argument(arg, depth)

    def argument(self, arg: LatexNode, depth: int) -> None:
        """A macro's argument as a brace group (``{x}``, or a bare ``x`` as in ``\\frac12``)."""
        if isinstance(arg, LatexGroupNode):
            self.group(arg, depth + 1)
        else:
            self.out.append(Token("open", "{", arg.pos))
            self.nodes([arg], depth + 1)
            self.out.append(Token("close", "}", arg.pos + arg.len - 1))

    def sqrt(self, node: LatexMacroNode, depth: int) -> None:
        """``\\sqrt{x}`` and ``\\sqrt[n]{x}``: the tokens of ``({x}^{1/n})``."""
        index, radicand = node.nodeargd.argnlist
        n = 2
        if index is not None:
            text = _plain_text(index.nodelist if isinstance(index, LatexGroupNode) else [index])
            if text is None or not text.strip().isdigit() or not 2 <= int(text) <= MAX_ROOT:
                raise RejectError(
                    f"'\\sqrt[...]' {at(node.pos)} takes a whole index from 2 to {MAX_ROOT}, "
                    "as in \\sqrt[3]{x}"
                )
            n = int(text)
        if radicand is None:
            raise RejectError(f"'\\sqrt' {at(node.pos)} needs its argument in braces: \\sqrt{{x}}")
        pos = node.pos
        self.out.append(Token("open", "(", pos))
        self.argument(radicand, depth)
        self.out += [
            Token("op", "^", pos),
            Token("open", "{", pos),
            Token("num", "1", pos, sp.Integer(1)),
            Token("op", "/", pos),
            Token("num", str(n), pos, sp.Integer(n)),
            Token("close", "}", pos),
            Token("close", ")", pos + node.len - 1),
        ]


def _describe(node: LatexNode) -> str:
    """How to name a refused node in a message."""
    if isinstance(node, LatexEnvironmentNode):
        return f"'\\begin{{{node.environmentname}}}'"
    if isinstance(node, LatexCommentNode):
        return "'%' (a comment)"
    if isinstance(node, LatexMathNode):
        return "'$' (math delimiters; write the formula without them)"
    if isinstance(node, LatexSpecialsNode):
        return f"'{node.specials_chars}'"
    return f"'{type(node).__name__}'"


def _plain_text(nodes: list[LatexNode]) -> str | None:
    """The characters of a node list made only of character runs and groups, else None."""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, LatexCharsNode):
            parts.append(node.chars)
        elif isinstance(node, LatexGroupNode):
            inner = _plain_text(node.nodelist)
            if inner is None:
                return None
            parts.append(inner)
        else:
            return None
    return "".join(parts)


def _wrapped_name(node: LatexMacroNode) -> str:
    """The name inside ``\\mathrm{...}``/``\\text{...}`` (``d_{model}`` -> ``d_model``)."""
    arg = node.nodeargd.argnlist[0]
    inner = arg.nodelist if isinstance(arg, LatexGroupNode) else [arg]
    text = _plain_text(inner)
    if text is None or not _WRAPPED_NAME.match(text.strip()):
        raise RejectError(
            f"'\\{node.macroname}{{...}}' {at(node.pos)} may only wrap a name such as d_model"
        )
    return text.strip()


def _check_delimiters(tokens: list[Token]) -> list[Token]:
    """Drop ``\\left``/``\\right`` after checking each is followed by a matching bracket.

    Square brackets are accepted only as ``\\left[ ... \\right]``: a bare ``B[0]``
    looks like indexing and is refused.
    """
    out: list[Token] = []
    for i, token in enumerate(tokens):
        if token.kind not in _DELIMITERS:
            after_delimiter = i > 0 and tokens[i - 1].kind in _DELIMITERS
            if token.text in "[]" and token.kind in ("open", "close") and not after_delimiter:
                raise RejectError(
                    f"bare '{token.text}' {at(token.pos)} (write \\left[ ... \\right] or use parentheses)"
                )
            out.append(token)
            continue
        kind, chars, spelled = _DELIMITERS[token.kind]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is None or nxt.kind != kind or nxt.text not in chars:
            raise RejectError(
                f"'{spelled}' {at(token.pos)} must be followed by one of {' '.join(chars)}"
            )
    return out


def latex_tokens(text: str) -> list[Token]:
    """Tokens of a LaTeX formula, every construct checked against the whitelist.

    >>> [t.text for t in latex_tokens(r"\\frac{2BD}{D} \\cdot 10^{3}")]
    ['\\\\frac', '{', '2', 'BD', '}', '{', 'D', '}', '*', '10', '^', '{', '3', '}']
    """
    flattener = _Flattener(text)
    flattener.nodes(_walk(text), 0)
    return _check_delimiters(flattener.out)
