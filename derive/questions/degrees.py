"""An equation solved for one of a run's whole-number settings (a training run's ``dp``, ``pp``).

A training run is derived with its parallel degrees as numbers (each choice changes the
sharding, the collectives and the pipeline schedule), so no closed form in ``dp`` exists
to hand to sympy. :func:`solve_setting` derives the run at each whole value from 1 up (a
value the run refuses, such as a ``dp`` that does not divide the batch, is skipped) and
reads the equation over that run's quantities, exactly:

- ``<``, ``<=``, ``>``, ``>=``: the smallest value where the relation holds; when it
  holds from the first value on and then stops, the largest value before it stops;
- ``=``: the first value where it holds exactly, else the first one past the root (where
  ``lhs - rhs`` changes sign), as counts elsewhere are taken from the root up.

The questions are then answered over the run at that value, which is the run reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import sympy as sp

from derive.errors import ProblemError
from derive.formula.limits import RejectError
from derive.problem.question_spec import QuestionSpec
from derive.questions.read import NUMBER, read_formula, split_equation
from derive.questions.records import Answer, Known, Questions, Role, Solving
from derive.questions.solve import HOLDS, answer_questions

__all__ = ["MAX_SETTING", "solve_setting"]

MAX_SETTING = 4096
"""The largest value tried."""


def _gap(spec: QuestionSpec, text: str, own: Mapping[str, Known]) -> sp.Expr:
    """``lhs - rhs`` of the equation over one run's quantities (units must agree)."""
    lhs_text, _, rhs_text = split_equation(text)
    try:
        lhs, rhs = read_formula(lhs_text, own), read_formula(rhs_text, own)
    except RejectError as reject:
        raise ProblemError(spec.label("equations", text), reject.why) from None
    if lhs.measure.exponents != rhs.measure.exponents:
        raise ProblemError(
            spec.label("equations", text),
            f"units do not add up: the left side is {lhs.measure.describe()}, "
            f"the right side {rhs.measure.describe()}",
        )
    return lhs.value - rhs.value


def _search(
    spec: QuestionSpec, name: str, run_at: Callable[[int], Mapping[str, Known] | None]
) -> tuple[int, str]:
    """The value of ``name`` the equation asks for, and how it was found."""
    text = spec.equations[0]
    relation = split_equation(text)[1]
    holds = HOLDS[relation]
    first: tuple[int, bool, int] | None = None  # value, held, sign of the gap
    last_held: int | None = None
    for n in range(1, MAX_SETTING + 1):
        own = run_at(n)
        if own is None:
            continue
        gap = _gap(spec, text, own)
        held, sign = holds(gap), int(sp.sign(gap))
        if first is None:
            first = (n, held, sign)
        if relation == "=":
            if held:
                return n, f"{name} = {n} meets it exactly"
            if sign != first[2]:
                return (
                    n,
                    f"the first {name} past the root is {n} (below it, {last_held or first[0]})",
                )
            last_held = n
            continue
        if held and not first[1]:
            return n, f"the smallest {name} that keeps it is {n}"
        if not held and first[1]:
            assert last_held is not None
            return last_held, f"the largest {name} that keeps it is {last_held}"
        if held:
            last_held = n
    if first is None:
        raise ProblemError(spec.label("unknowns", name), f"no {name} from 1 to {MAX_SETTING} runs")
    raise ProblemError(
        spec.label("unknowns", name),
        f"no {name} from 1 to {MAX_SETTING} meets {text}"
        if not first[1]
        else f"every {name} from 1 to {MAX_SETTING} keeps {text}: no largest or smallest one",
    )


def solve_setting(
    spec: QuestionSpec,
    name: str,
    run_at: Callable[[int], Mapping[str, Known] | None],
) -> tuple[int, Questions]:
    """Solve the one equation of ``spec`` for the setting ``name`` by deriving the run.

    Args:
        spec: one equation and ``unknowns == (name,)``, with any givens and definitions.
        name: the setting (``dp``).
        run_at: the run's quantities with ``name`` set to a value, or None when the run
            refuses that value.

    Returns:
        The value found, and the questions answered over the run at that value (the
        setting is an unknown's answer, with how it was found).

    Raises:
        ProblemError: more than one equation or unknown, no value that meets it.
    """
    if len(spec.equations) != 1 or spec.unknowns != (name,):
        raise ProblemError(
            spec.label("unknowns", name),
            f"a run's {name} is solved from one equation, with {name} the only unknown",
        )
    value, how = _search(spec, name, run_at)
    own = run_at(value)
    assert own is not None  # the search found a run there
    rest = answer_questions(replace(spec, equations=(), unknowns=()), own)
    found = sp.Integer(value)
    note = f"found by deriving the run at each {name} from 1: {how}"
    answer = Answer(name, Role.UNKNOWN, spec.equations[0], found, found, found, NUMBER, note)
    solving = Solving(spec.equations, "solved", note)
    return value, replace(rest, answers=(answer, *rest.answers), solving=solving)
