"""``derive.check`` for an operator that only communicates: a claimed time on the link.

The operator is derived as ``derive solve`` derives it
(:class:`~derive.pipeline.CommsDerivation`); its quantities are its times, all one
value (nothing else runs): ``t_comms``, ``t_lower``, ``t_upper``. A claim is a number
with a unit of time (``0.52 ms``), read as every claim is
(:func:`derive.formula.answer.read_answer`), right when exact or within the tolerance;
a wrong one names a unit slip (ms for µs) or how far off it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.comms_only import CommsAnalysis
from derive.catalogue import ProblemKind
from derive.catalogue.reading import rows_valued_in
from derive.catalogue.table import T_COMMS
from derive.checking.diagnosis_text import exact_decimal
from derive.checking.expected_text import missed, show_number
from derive.checking.hints import earned, facets
from derive.checking.matching import (
    How,
    check_size,
    match,
    relative_error,
    right_to,
)
from derive.checking.quantities import Target
from derive.checking.scales import read_claim
from derive.checking.verdict import Verdict
from derive.errors import ProblemError
from derive.formula.answer import Answer
from derive.formula.durations import time_text
from derive.formula.limits import show
from derive.formula.units import Dimension, Unit, describe_dimension, unit_alternatives
from derive.pipeline.kinds.comms import CommsDerivation

if TYPE_CHECKING:
    from derive.checking.api import Judged


COMMS_QUANTITIES = tuple(row.name for row in rows_valued_in(ProblemKind.COMMS))
"""What a comms-only operator has: its time on the link (the step's bounds are that time)."""


@dataclass(frozen=True)
class CommsClaim:
    """A claimed time, read: the answer taken apart and its value in seconds."""

    answer: Answer
    value: sp.Expr

    @property
    def read_as(self) -> str:
        """The claim as read (``550 us = 0.00055 s``), as ``derive check`` prints it."""
        typed = (
            exact_decimal(self.answer.expr)
            if self.answer.expr.is_Rational
            else str(self.answer.expr)
        )
        unit = self.answer.unit
        return (
            f"{typed} s" if unit is None else f"{typed} {unit.text} = {exact_decimal(self.value)} s"
        )


@dataclass(frozen=True)
class CommsDetail:
    """What the command line prints beyond the record of a comms-only claim."""

    analysis: CommsAnalysis
    claimed: sp.Expr
    claim: CommsClaim | None = None

    def json_parts(self, hidden: bool) -> tuple[dict, dict, None]:
        """Its keys of the verdict's JSON (:func:`~derive.checking.model_verdict_text.judged_json`)."""
        judged = {
            "claimed": str(self.claimed),
            "expected": None if hidden else str(self.analysis.time),
        }
        return judged, {"operator": self.analysis.problem.operator.name, "binding": "link"}, None


def comms_analysis(derivation: CommsDerivation, quantity: str) -> CommsAnalysis:
    """The analysis a claim about ``quantity`` is judged against (all dims bound).

    Raises:
        ProblemError: not one of its quantities, or a dim left free (its time is a formula).
    """
    name = derivation.analysis.problem.operator.name
    if quantity not in COMMS_QUANTITIES:
        raise ProblemError(
            f"--quantity {quantity}",
            f"operator {name!r} only communicates (no compute, so no intensity, ridge or "
            f"crossover); its quantities are {', '.join(COMMS_QUANTITIES)}",
        )
    time = derivation.analysis.time
    if not time.is_number:
        free = ", ".join(sorted(str(s) for s in time.free_symbols))
        raise ProblemError(
            f"operator {name!r}", f"its time is a formula in {free}: bind them (--set) to check it"
        )
    return derivation.analysis


def _diagnosis(
    a: CommsAnalysis, claim: str, value: sp.Expr, unit: Unit | None, rtol: sp.Rational
) -> str:
    from derive.checking.comms_slips import comms_slips  # it reads a claim as this module does

    exact = sp.Rational(a.time)
    if found := earned(comms_slips(a, T_COMMS.name, exact), value, rtol, facets(T_COMMS.name)):
        return found.why  # the one-way ring's time, or the Scaling Book's approximation
    for spelled, factor in unit_alternatives(unit) if unit is not None else ():
        assert unit is not None
        if match(value / unit.factor * factor, Target(exact), rtol) is not None:
            return (
                f"the number is right in {spelled}, but you wrote {unit.text} "
                f"— exact is {time_text(exact)}"
            )
    error = relative_error(value, exact)
    if error is None:
        return f"your claim is not a number — exact is {time_text(exact)}"
    return missed("time on the link, T_comms", time_text(exact), claim, error, bool(value < exact))


def read_comms_claim(claim: str, syntax: str = "auto") -> CommsClaim:
    """Read a claimed time (a number, with a unit of time or in seconds); nothing is evaluated.

    Raises:
        ParseError: unreadable, an inequality, or a value too large to judge.
    """
    order = "give the time as a value, not an inequality"
    answer = read_claim(claim, {}, syntax, None, order)[0]
    value = answer.expr * (answer.unit.factor if answer.unit is not None else 1)
    check_size(value, f"claim {show(claim)}")
    return CommsClaim(answer, value)


def judge_comms_claim(
    analysis: CommsAnalysis, quantity: str, claim: str, read: CommsClaim, rtol: sp.Rational
) -> Judged:
    """Judge a claimed time (``quantity``, one of :data:`COMMS_QUANTITIES`) of an operator
    that only communicates, timed by :func:`comms_analysis` (derive's own value beside a
    right one, unless hidden)."""
    from derive.checking.api import Judged

    exact = sp.Rational(analysis.time)
    value, unit = read.value, read.answer.unit
    diagnosis: tuple[str, ...]
    extra: tuple[str, ...] = ()
    if unit is not None and unit.dimension is not Dimension.TIME:
        said = describe_dimension(unit.dimension)[0]
        verdict, diagnosis = Verdict.INCORRECT, (f"the unit {unit.text} is {said}; a time is in s",)
    elif (m := match(value, Target(exact), rtol)) is not None:
        verdict, diagnosis = Verdict.CORRECT, ("the claim is the time on the link, T_comms",)
        if m.how is How.TOLERANCE:
            diagnosis = (
                right_to(rtol, "T_comms", show_number(exact, Dimension.TIME), m.relative_error),
            )
        from derive.checking.comms_slips import beside  # under the book's convention

        extra = beside(analysis, quantity)
    else:
        verdict, diagnosis = Verdict.INCORRECT, (_diagnosis(analysis, claim, value, unit, rtol),)
    error = relative_error(value, exact)
    expected = show_number(exact, Dimension.TIME)
    detail = CommsDetail(analysis, value, read)
    return Judged(verdict, read.read_as, diagnosis + extra, diagnosis, expected, error, detail)
