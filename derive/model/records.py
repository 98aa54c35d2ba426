"""The records of a model's analysis, and the sheet that fills them one quantity at a time.

A :class:`Quantity` is a formula in the notation's symbols with its exact value;
:class:`ModelAnalysis` is the whole, frozen: every quantity in the order it was derived.
How they are shown, step by step, is the solution stage's
(:mod:`derive.solution.model_steps`). :class:`Sheet` is the running substitution
:func:`~derive.model.analysis.analyse_model` derives with; it never leaves it.

A quantity's unit is its catalogue row's display unit (the one unit table), as a model
report spells it (:func:`unit_of`); a part of a row's quantity (``P_attn`` of ``params``)
or a term of it (``flops_2n`` of ``flops_per_token``) is a step's own name, not a row, and
is counted in the unit of the row it is part of.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import sympy as sp

from derive.catalogue import Quantity as Row
from derive.catalogue import table
from derive.catalogue.records import DISPLAY_UNITS
from derive.formula.units import Dimension
from derive.model.binding import ModelProblem
from derive.model.counts import Part
from derive.model.symbols import sym


class Unit(str, Enum):
    """How a model report spells a quantity's unit (JSON ``unit``): the words, not which
    quantity has which (that is the catalogue row's display unit, :func:`unit_of`)."""

    PARAMS = "parameters"
    BYTES = "B"
    BYTES_PER_TOKEN = "B/token"
    FLOPS = "FLOP"
    FLOPS_PER_TOKEN = "FLOP/token"
    SECONDS = "s"
    DAYS = "days"
    FRACTION = "1"
    SEQUENCES = "sequences"
    TOKENS = table.TOKENS.display_unit  # "tokens", the one unit table's
    TOKENS_PER_S = "tokens/s"
    DEVICES = "devices"
    BOOLEAN = "bool"
    DOLLARS = "$"
    JOULES = "J"
    JOULES_PER_TOKEN = "J/token"


_BYTE = DISPLAY_UNITS[Dimension.BYTES]  # "byte", the one unit table's
_SPELLED = {_BYTE: Unit.BYTES, f"{_BYTE}/token": Unit.BYTES_PER_TOKEN, "": Unit.FRACTION}
"""A display unit a model report spells its own way (a byte as ``B``, a plain number ``1``)."""


def unit_of(row: Row) -> Unit:
    """The model report's unit of a catalogue row: what it counts when it counts things
    (``parameters``), else its display unit as the report spells it.

    >>> from derive.catalogue import table
    >>> unit_of(table.PARAMS).value, unit_of(table.KV_BYTES).value, unit_of(table.MFU).value
    ('parameters', 'B', '1')
    >>> unit_of(table.TRAIN_DAYS).value
    'days'
    """
    if row.counts:
        return Unit(row.counts)
    return _SPELLED.get(row.display_unit) or Unit(row.display_unit)


@dataclass(frozen=True)
class Quantity:
    """One derived quantity: its key, formula in symbols, exact value and catalogue row
    (for a part or a term of a row's quantity, the row it is counted in)."""

    key: str
    formula: sp.Basic
    value: sp.Basic
    row: Row

    @property
    def unit(self) -> Unit:
        """Its unit as the model report spells it: its row's display unit (:func:`unit_of`)."""
        return unit_of(self.row)

    @property
    def is_number(self) -> bool:
        """True when the value is a number (or a truth value), not symbolic."""
        return bool(self.value.is_number) or isinstance(self.value, sp.logic.boolalg.BooleanAtom)


@dataclass(frozen=True)
class ModelAnalysis:
    """Every derived quantity of a model problem, in order, with verdicts and warnings."""

    problem: ModelProblem
    given: tuple[tuple[sp.Symbol, sp.Expr], ...]
    quantities: tuple[Quantity, ...]
    parts: tuple[Part, ...]  # the weights of one block, part by part
    verdicts: tuple[str, ...]
    warnings: tuple[str, ...]
    # (key, why not derived): printed in documents, so said in the problem's terms
    # ("needs a batch B"), never in one front end's flags
    left_out: tuple[tuple[str, str], ...]
    # the quantities a problem asks for (a key's problem): its worked solution shows
    # those and what they use; () shows everything
    ask: tuple[str, ...] = ()

    def quantity(self, key: str) -> Quantity | None:
        """The quantity called ``key`` (a JSON key such as ``params``), or None."""
        return next((q for q in self.quantities if q.key == key), None)

    def value(self, key: str) -> sp.Basic | None:
        """The exact value of a quantity, or None when it was not derived."""
        q = self.quantity(key)
        return None if q is None else q.value


@dataclass
class Sheet:
    """The running substitution: symbol → exact value, grown one quantity at a time.

    The one mutable object of the analysis: it lives inside :func:`analyse_model`,
    which returns the frozen :class:`ModelAnalysis` made from it.
    """

    values: dict[sp.Symbol, sp.Basic]
    derived: list[Quantity] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def q(self, row: Row, formula: sp.Basic) -> Quantity:
        """Evaluate ``formula`` with every value known so far and record it as ``row``'s."""
        return self.part(row.name, formula, of=row)

    def part(self, key: str, formula: sp.Basic, of: Row) -> Quantity:
        """Evaluate ``formula`` and record it under ``key``: a step's part or term of the
        quantity ``of`` (``P_attn`` of ``params``), counted in its unit."""
        value = formula.xreplace(self.values)
        if isinstance(value, sp.Expr) and not value.is_number:
            value = sp.expand(value)
        self.values[sym(key)] = value
        self.derived.append(Quantity(key, formula, value, of))
        return self.derived[-1]

    def known(self, *keys: str | Row) -> bool:
        """True when every key's value is a number."""
        return all(sym(k) in self.values and bool(self.values[sym(k)].is_number) for k in keys)
