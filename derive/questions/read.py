"""Formulas with units, read by derive's safe parser (plain or LaTeX), never evaluated as code.

A formula names :class:`~derive.questions.records.Known` quantities and units
(``2.49 $/h``, ``80 GB``, ``price * devices * train_seconds``, ``t_lower / mm-h100.t_lower``).
The text goes through :mod:`derive.formula`'s checks, lexer or LaTeX front end and parser;
the size bounds of :class:`~derive.formula.evaluate.Evaluator` run on the tree; then
:func:`read_formula` walks the tree carrying a :class:`Value`: the exact value in base
units, its :class:`~derive.formula.units.Measure`, and the formula in the names' symbols
for the worked step. A name is, in order: a known quantity, a unit
(:func:`~derive.formula.units.measure_atom`), or a run of single-letter known names
(``6ND``); a sum of two measures that differ is refused, naming both.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from derive.formula.answer import Relation, rewrite_notation, split_answer
from derive.formula.evaluate import Evaluator, resolve
from derive.formula.limits import MAX_LOG10, RejectError, at, check_text
from derive.formula.literals import mark_units
from derive.formula.parser import Name, Node, Num, Power, Product, Sum
from derive.formula.reader import read_tree
from derive.formula.units import Measure, measure_atom
from derive.questions.records import Known

NUMBER = Measure((0,) * 6, sp.Integer(1), "")
"""The measure of a pure number."""
_EQUATION_RELATIONS = {
    Relation.EQUALS: "=",
    Relation.LESS_EQUAL: "<=",
    Relation.GREATER_EQUAL: ">=",
    Relation.LESS: "<",
    Relation.GREATER: ">",
}
_REF_PREFIX = "Ref"


@dataclass(frozen=True)
class Value:
    """A formula read: exact value in base units, its measure, its form in names."""

    value: sp.Expr
    measure: Measure
    shown: sp.Expr


def display_symbol(name: str) -> sp.Symbol:
    """The symbol a name is shown with in a worked step (one per name, positive)."""
    return sp.Symbol(name, positive=True)


def _unit_symbol(unit: Measure) -> sp.Symbol:
    return sp.Symbol(f"unit:{unit.text}", positive=True)


def _prepare(
    text: str, references: Mapping[str, str], ratio: bool = True
) -> tuple[str, dict[str, str]]:
    """Rewrite notation as every claim is (:func:`~derive.formula.answer.rewrite_notation`:
    superscripts, ``× 10^``, a currency before its number), spell ``$``, ``%`` and ``µ`` as
    names and ``<id>.<quantity>`` as placeholders.

    Returns the text the parser reads and placeholder -> reference. ``ratio``: ``2 x`` is the
    ratio 2 (as ``1.72x``), false where ``x`` is a name the formula may use.
    """
    s = rewrite_notation(text, ratio)
    s = s.replace("\\$", " USD ").replace("$", " USD ").replace("\\%", " percent")
    s = s.replace("%", " percent").replace("\u00b5", "u").replace("\u03bc", "u")
    placeholders: dict[str, str] = {}
    for pid in sorted(references, key=len, reverse=True):
        pattern = re.compile(rf"(?<![A-Za-z0-9_.-]){re.escape(pid)}\.([A-Za-z][A-Za-z0-9_]*)")

        def swap(m: re.Match[str], pid: str = pid) -> str:
            key = f"{_REF_PREFIX}{len(placeholders) + 1}x"
            placeholders[key] = f"{pid}.{m.group(1)}"
            return key

        s = pattern.sub(swap, s)
    return s, placeholders


def _tree(text: str, is_unit: Callable[[str], bool] = lambda name: True) -> Node:
    """The formula's tree, read by the claims' front end, with units after numbers marked."""
    return read_tree(text, mark=lambda tokens: mark_units(tokens, _spells_unit(is_unit)))[0]


def _spells_unit(is_unit: Callable[[str], bool]) -> Callable[[str], bool]:
    return lambda name: measure_atom(name) is not None and is_unit(name)


def _names(node: Node) -> list[Name]:
    if isinstance(node, Name):
        return [node]
    if isinstance(node, Num):
        return []
    if isinstance(node, Sum):
        return [n for _, t in node.terms for n in _names(t)]
    if isinstance(node, Product):
        return [n for _, f, _ in node.factors for n in _names(f)]
    return _names(node.base) + _names(node.exp)


def names_in(text: str, references: Mapping[str, str] = {}) -> tuple[str, ...]:
    """The names a formula uses as typed (references as ``id.quantity``), unresolved."""
    prepared, placeholders = _prepare(text, references)
    try:
        tree = _tree(prepared)
    except RejectError:
        return ()
    return tuple(dict.fromkeys(placeholders.get(n.text, n.text) for n in _names(tree)))


class _Reader:
    """Reads one tree over one table of known names."""

    def __init__(self, known: Mapping[str, Known], placeholders: Mapping[str, str]) -> None:
        self.known = known
        self.placeholders = placeholders
        self.symbols: dict[str, sp.Symbol] = {}
        self.units: dict[str, Measure] = {}

    def lookup(self, text: str) -> Known | None:
        return self.known.get(self.placeholders.get(text, text))

    def prepare(self, tree: Node) -> None:
        """Resolve every name (or refuse it, listing the names that exist); bound the sizes."""
        self.symbols = {name: sp.Symbol(name) for name in self.known}
        self.symbols.update({p: sp.Symbol(p) for p in self.placeholders})
        for name in _names(tree):
            if not name.unit and self.lookup(name.text) is not None:
                continue
            unit = measure_atom(name.text)
            if unit is not None:
                self.units[name.text] = unit
                self.symbols[name.text] = sp.Symbol(name.text)
                continue
            try:
                resolve(name, {k: v for k, v in self.symbols.items() if len(k) == 1})
            except RejectError:
                typed = self.placeholders.get(name.text, name.text)
                raise RejectError(
                    f"unknown name {typed!r} {at(name.pos)} (names here: {self.listing()})"
                ) from None
        Evaluator(self.symbols).bound(tree)

    def listing(self) -> str:
        names = sorted(n for n in self.known if "." not in n)
        refs = sorted(n for n in self.known if "." in n)
        text = ", ".join(names) or "none"
        if refs:
            text += "; other problems: <id>.<quantity>"
        return text + "; units such as s, ms, h, days, GB, GiB, FLOP, tokens, $, W, J"

    def read(self, node: Node) -> Value:
        if isinstance(node, Num):
            return Value(node.value, NUMBER, node.value)
        if isinstance(node, Name):
            return self.name(node)
        if isinstance(node, Sum):
            return self.sum(node)
        if isinstance(node, Product):
            return self.product(node)
        return self.power(node)

    def name(self, node: Name) -> Value:
        found = None if node.unit else self.lookup(node.text)
        if found is not None:
            return Value(found.value, _base(found.measure), display_symbol(found.name))
        unit = self.units.get(node.text)
        if unit is not None:
            base = Measure(unit.exponents, sp.Integer(1), unit.text)
            return Value(unit.factor, base, _unit_symbol(unit))
        letters = resolve(node, {k: v for k, v in self.symbols.items() if len(k) == 1})
        out = Value(sp.Integer(1), NUMBER, sp.Integer(1))
        for symbol in letters:
            part = self.known[symbol.name]
            out = _times(out, Value(part.value, _base(part.measure), display_symbol(part.name)))
        return out

    def sum(self, node: Sum) -> Value:
        first: Value | None = None
        value, shown = sp.Integer(0), sp.Integer(0)
        for sign, term in node.terms:
            t = self.read(term)
            if first is not None and t.measure.exponents != first.measure.exponents:
                raise RejectError(
                    f"units do not add up {at(node.pos)}: {first.measure.describe()} "
                    f"and {t.measure.describe()}"
                )
            first = first or t
            value, shown = value + sign * t.value, shown + sign * t.shown
        assert first is not None  # a sum has a term
        return Value(value, first.measure, shown)

    def product(self, node: Product) -> Value:
        out = Value(sp.Integer(1), NUMBER, sp.Integer(1))
        for divide, factor, pos in node.factors:
            f = self.read(factor)
            if divide:
                if f.value == 0:
                    raise RejectError(f"division by zero {at(pos)}")
                f = Value(1 / f.value, NUMBER / f.measure, 1 / f.shown)
            out = _times(out, f)
        return out

    def power(self, node: Power) -> Value:
        base = self.read(node.base)
        exp = self.read(node.exp)
        if not exp.measure.dimensionless or not isinstance(exp.value, sp.Rational):
            raise RejectError(f"an exponent {at(node.pos)} must be a plain number")
        measure = base.measure.power(exp.value)
        if measure is None:
            raise RejectError(
                f"{base.measure.describe()} to the power {exp.value} {at(node.pos)} has no unit"
            )
        return Value(sp.Pow(base.value, exp.value), measure, sp.Pow(base.shown, exp.shown))


def _base(measure: Measure) -> Measure:
    return Measure(measure.exponents, sp.Integer(1), measure.text)


def _times(a: Value, b: Value) -> Value:
    m = a.measure * b.measure
    return Value(a.value * b.value, Measure(m.exponents, sp.Integer(1), m.text), a.shown * b.shown)


def read_formula(
    text: str, known: Mapping[str, Known], references: Mapping[str, str] = {}
) -> Value:
    """Read a formula over ``known`` names and units into an exact value with its unit.

    Args:
        text: as typed (``"price * devices * train_seconds"``, ``"2.49 $/h"``).
        known: the names it may use, by name (references by ``id.quantity``).
        references: the ids of the set's other problems (``id -> id``), so ``id.quantity``
            is read as one name.

    Raises:
        RejectError: unknown names (listing the names that exist), units that do not add up,
            the parser's and the size checks' refusals.

    >>> from derive.formula.units import measure_atom
    >>> t = Known("t", sp.Integer(7200), measure_atom("s"), "a given")
    >>> v = read_formula("2.49 $/h * t", {"t": t})
    >>> v.value, v.measure.text
    (249/50, '$')
    """
    check_text(text)  # the length limit applies to the text as typed
    prepared, placeholders = _prepare(text, references, ratio="x" not in known)
    tree = _tree(prepared, lambda name: len(name) > 1 or name not in known)
    reader = _Reader(known, placeholders)
    reader.prepare(tree)
    value = reader.read(tree)
    if value.value.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise RejectError("division by zero (the formula has no finite value)")
    _check_digits(value.value)
    return value


def _check_digits(value: sp.Expr) -> None:
    """Refuse a value with a number past the claim reader's bound (issue 37: ``a = 1e60``, then
    ``a^6`` three times made a 13,000-digit integer nothing could print)."""
    for number in value.atoms(sp.Rational):
        bits = max(abs(int(number.p)).bit_length(), int(number.q).bit_length())
        if bits * math.log10(2) > MAX_LOG10:
            raise RejectError(
                f"its value has a number of more than {MAX_LOG10:g} digits; "
                "use smaller units or fewer powers",
                limit=True,
            )


def split_equation(text: str) -> tuple[str, str, str]:
    """``(lhs, relation, rhs)`` of ``LHS = RHS``, or of ``<``, ``<=``, ``>``, ``>=`` (also
    written ``≤``, ``≥``, ``\\le``, ``\\leq``, ``\\lt``, ...), outside brackets.

    The relations are split by the claims' reader (:func:`~derive.formula.answer.split_answer`),
    so an equation and a claim read their signs the same.

    Raises:
        RejectError: no relation, more than one, or one an equation cannot use (``≈``, ``≠``).

    >>> split_equation("bubble_fraction < 0.05")
    ('bubble_fraction', '<', '0.05')
    """
    check_text(text)
    one = "an equation is one relation, LHS = RHS (or <, <=, >, >=)"
    try:
        sides, relations = split_answer(text)
    except RejectError as reject:
        if not reject.why.startswith("not an answer"):
            raise
        raise RejectError(f"{one}; {reject.why.split(': ', 1)[1].split(' (')[0]}") from None
    if len(relations) != 1 or relations[0] not in _EQUATION_RELATIONS:
        count = len(relations)
        found = {0: "found none", 1: ""}.get(count, f"found {count}")
        raise RejectError(f"{one}; {found or repr(relations[0].value) + ' is not one of them'}")
    (_, lhs), (_, rhs) = sides
    return lhs.strip(), _EQUATION_RELATIONS[relations[0]], rhs.strip()
