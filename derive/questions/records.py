"""The records of a problem's questions: what a formula may name, and what was derived.

A :class:`Known` is a quantity a formula may name (a dim, a given, a quantity of the
problem by its JSON name, a defined name, an unknown, another problem's quantity): an
exact value in base units and its :class:`~derive.formula.units.Measure`. An
:class:`Answer` is a quantity the questions derive (a given, a defined quantity or an
unknown), with the two lines of its worked step: the formula in names and the same
with numbers. :class:`Questions` is the whole result of one problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.formula.units import Measure, base_text


class Role(Enum):
    """What an answer is."""

    GIVEN = "given"
    DEFINED = "defined"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Known:
    """A quantity a formula may name.

    Attributes:
        name: as typed in formulas (``t_lower``, ``price``, ``mm-h100.t_lower``).
        value: exact, in base units; may hold a free dim's symbol or an unknown's.
        measure: the unit it is shown in (``days``: factor 86400); arithmetic uses only
            its exponents, the value being in base units.
        origin: what it is, for messages (``a dim``, ``a quantity of the problem``).
        branches: for a piecewise quantity (``t_lower = max(T_math, T_mem)``), the names
            of its branches in the order of the ``Max``'s arguments.
    """

    name: str
    value: sp.Expr
    measure: Measure
    origin: str
    branches: tuple[tuple[str, sp.Expr], ...] = ()


@dataclass(frozen=True)
class Answer:
    """A quantity the questions derive, with its worked step (symbolic = numbers = result).

    Attributes:
        name: its name (a JSON key under ``defined``).
        role: given, defined or unknown.
        text: the value or formula as typed (an unknown: its equations).
        formula: the formula in the names' symbols (a given: its value with units as symbols).
        numbers: the formula with every name replaced by its value (display only).
        value: exact, in base units.
        measure: its unit.
        note: how it was found (the branch that binds, the other roots, an integer rounding).
        count: an unknown solved as an integer (a dim, or an equation with ``<=``/``>=``):
            a claim about it is judged exactly, with no tolerance.
    """

    name: str
    role: Role
    text: str
    formula: sp.Expr
    numbers: sp.Expr
    value: sp.Expr
    measure: Measure
    note: str = ""
    count: bool = False

    @property
    def unit(self) -> str:
        """The base unit it carries (``$``, ``s``, ``FLOP/s``; '' for a number)."""
        return base_text(self.measure.exponents)


@dataclass(frozen=True)
class Solving:
    """The verdict on a problem's equations.

    Attributes:
        equations: as typed.
        verdict: ``solved``, ``no solution`` or ``infinitely many solutions``.
        note: one sentence (the branch taken, the roots left out).
    """

    equations: tuple[str, ...]
    verdict: str
    note: str = ""


@dataclass(frozen=True)
class Questions:
    """What one problem's givens, definitions and equations derive, in the order shown.

    Attributes:
        problem: the problem's id ('' on the command line).
        answers: givens, then unknowns, then defined quantities (in dependency order).
        solving: the verdict on the equations (None without equations).
        used: every name the definitions use, with its value (for the numbers line).
        labels: how the question sheet asks for a defined quantity or an unknown (the
            set's ``label``), by name; a name without one is asked by its default label.
    """

    problem: str
    answers: tuple[Answer, ...]
    solving: Solving | None
    used: tuple[Known, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()

    def answer(self, name: str) -> Answer | None:
        """The answer called ``name``, or None."""
        for a in self.answers:
            if a.name == name:
                return a
        return None

    @property
    def derived(self) -> tuple[Answer, ...]:
        """The defined quantities and unknowns (not the givens)."""
        return tuple(a for a in self.answers if a.role is not Role.GIVEN)
