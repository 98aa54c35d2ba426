"""The records of a model's analysis, and the sheet that fills them one quantity at a time.

A :class:`Quantity` is a formula in the notation's symbols with its exact value;
:class:`ModelAnalysis` is the whole, frozen: every quantity in the order it was derived.
How they are shown, step by step, is the solution stage's
(:mod:`derive.solution.model_steps`). :class:`Sheet` is the running substitution
:func:`~derive.model.analysis.analyse_model` derives with; it never leaves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.counts import Part
from derive.model.symbols import sym

__all__ = ["ModelAnalysis", "Quantity", "Sheet", "Unit"]


class Unit(str, Enum):
    """The unit of a quantity (JSON ``unit``)."""

    PARAMS = "parameters"
    BYTES = "B"
    BYTES_PER_TOKEN = "B/token"
    FLOPS = "FLOP"
    FLOPS_PER_TOKEN = "FLOP/token"
    SECONDS = "s"
    DAYS = "days"
    FRACTION = "1"
    SEQUENCES = "sequences"
    TOKENS = "tokens"
    TOKENS_PER_S = "tokens/s"
    DEVICES = "devices"
    BOOLEAN = "bool"
    DOLLARS = "$"
    JOULES = "J"
    JOULES_PER_TOKEN = "J/token"


@dataclass(frozen=True)
class Quantity:
    """One derived quantity: its key, formula in symbols, exact value and unit."""

    key: str
    formula: sp.Basic
    value: sp.Basic
    unit: Unit

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

    def q(self, key: str, formula: sp.Basic, unit: Unit) -> Quantity:
        """Evaluate ``formula`` with every value known so far and record it under ``key``."""
        value = formula.xreplace(self.values)
        if isinstance(value, sp.Expr) and not value.is_number:
            value = sp.expand(value)
        self.values[sym(key)] = value
        self.derived.append(Quantity(key, formula, value, unit))
        return self.derived[-1]

    def known(self, *keys: str) -> bool:
        """True when every key's value is a number."""
        return all(sym(k) in self.values and bool(self.values[sym(k)].is_number) for k in keys)
