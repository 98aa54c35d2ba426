"""An equation solved for one of a run's whole-number settings (a training run's ``dp``, ``pp``).

A training run is derived with its parallel degrees as numbers (each choice changes the
sharding, the collectives and the pipeline schedule), so no closed form in ``dp`` exists
to hand to sympy. :func:`solve_setting` derives the run at each whole value from 1 up (a
value the run refuses, such as a ``dp`` that does not divide the batch, is skipped) and
reads the equation over that run's quantities, exactly:

- ``<``, ``<=``, ``>``, ``>=``: the smallest value where the relation holds; when it
  holds from the first value on and then stops, the largest value before it stops; when it
  holds at every value, that is the answer (``infinitely many solutions``, the run shown at
  the first value);
- ``=``: the first value where it holds exactly, else the first one past the root (where
  ``lhs - rhs`` changes sign), as counts elsewhere are taken from the root up.

A setting with a long range of values (a batch in tokens, tried in steps of dp · b · S;
a serving step's batch; a model's width) is searched by bisection instead: the relation is
taken to change once over the range (the quantity is monotone in the setting), and the value
found is exact at the boundary (it holds there and not at the value beside it). A setting
with few admissible values (a sequence length, a divisor of the batch) is scanned over them.

The questions are then answered over the run at that value, which is the run reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import sympy as sp

from derive.errors import ProblemError
from derive.formula.limits import RejectError
from derive.problem.question_spec import QuestionSpec
from derive.questions.read import NUMBER, read_formula, split_equation
from derive.questions.records import Answer, Known, Questions, Role, Solving
from derive.questions.solve import HOLDS, answer_questions

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
    spec: QuestionSpec,
    name: str,
    run_at: Callable[[int], Mapping[str, Known] | None],
    values: Sequence[int],
) -> tuple[int, str | None]:
    """The value of ``name`` the equation asks for, and how it was found (None: every value
    tried keeps it, the first is shown), trying ``values`` in order (see the module)."""
    text = spec.equations[0]
    relation = split_equation(text)[1]
    holds = HOLDS[relation]
    first: tuple[int, bool, int] | None = None  # value, held, sign of the gap
    last_held: int | None = None
    for n in values:
        own = run_at(n)
        if own is None:
            continue
        gap = _gap(spec, text, own)
        held, sign = holds(gap), int(sp.sign(gap))
        if first is None:
            first = (n, held, sign)
        if relation == "=":
            if first[1]:  # held so far: it holds everywhere, unless it stops here
                if not held:
                    return first[0], f"{name} = {first[0]} meets it exactly"
            elif held:
                return n, f"{name} = {n} meets it exactly"
            elif sign != first[2]:
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
        raise ProblemError(spec.label("unknowns", name), f"no {name} {_span(values)} runs")
    if first[1]:  # every value keeps it; one value (a mesh's dp) is an answer, not an identity
        one = f"{name} = {first[0]}, the one value, keeps it"
        return first[0], None if len(values) > 1 else one
    raise _none_meets(spec, name, values, text)


def _none_meets(spec: QuestionSpec, name: str, values: Sequence[int], text: str) -> ProblemError:
    """No value of ``name`` tried meets ``text``."""
    return ProblemError(spec.label("unknowns", name), f"no {name} {_span(values)} meets {text}")


def _span(values: Sequence[int]) -> str:
    """``from 1 to 4096`` (a range), ``of 1, 2, 4`` (a short list), ``of the 13 values 1, 2,
    4, …, 4096`` (a long one)."""
    if len(values) > 8 and not isinstance(values, range):
        return f"of the {len(values)} values {', '.join(map(str, values[:3]))}, …, {values[-1]}"
    if isinstance(values, range) and values.step == 1:
        return f"from {values.start} to {values[-1]}" if len(values) else "in an empty range"
    if isinstance(values, range):
        return f"from {values.start} to {values[-1]} in steps of {values.step}"
    return "of " + ", ".join(str(v) for v in values)


def _bisect(
    spec: QuestionSpec,
    name: str,
    run_at: Callable[[int], Mapping[str, Known] | None],
    values: range,
) -> tuple[int, str | None]:
    """As :func:`_search` over a long range, by bisection: the relation is taken to change
    once in the range (the quantity is monotone in ``name``); the value found is checked
    against its neighbour below, so the boundary itself is exact."""
    text = spec.equations[0]
    relation = split_equation(text)[1]
    holds = HOLDS[relation]

    def state(i: int) -> tuple[bool, int]:
        own = run_at(values[i])
        if own is None:
            raise ProblemError(
                spec.label("unknowns", name), f"the run refuses {name} = {values[i]}"
            )
        gap = _gap(spec, text, own)
        return holds(gap), int(sp.sign(gap))

    if not len(values):
        raise ProblemError(spec.label("unknowns", name), f"no {name} {_span(values)} runs")
    held0, sign0 = state(0)
    if relation == "=" and held0:
        everywhere = state(len(values) - 1)[0]  # at the end too: 0 all along (monotone)
        return values[0], None if everywhere else f"{name} = {values[0]} meets it exactly"

    def flipped(i: int) -> bool:
        held, sign = state(i)
        return (held or sign != sign0) if relation == "=" else held != held0

    # gallop from the start (the answer is usually near it), then bisect
    lo, step = 0, 1
    hi = None
    while lo + step < len(values):
        if flipped(lo + step):
            hi = lo + step
            break
        lo, step = lo + step, step * 2
    if hi is None:
        if not flipped(len(values) - 1):
            if held0:
                return values[0], None
            raise _none_meets(spec, name, values, text)
        hi = len(values) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if flipped(mid):
            hi = mid
        else:
            lo = mid
    below, at = values[lo], values[hi]
    if relation == "=":
        held, _ = state(hi)
        how = (
            f"{name} = {at} meets it exactly"
            if held
            else f"the first {name} past the root is {at} (below it, {below})"
        )
        return at, how + f"; by bisection ({name} taken as monotone in that range)"
    if held0:
        return below, (
            f"the largest {name} that keeps it is {below} (not {at}); by bisection "
            "(the relation taken to change once in that range)"
        )
    return at, (
        f"the smallest {name} that keeps it is {at} (not {below}); by bisection "
        "(the relation taken to change once in that range)"
    )


def solve_setting(
    spec: QuestionSpec,
    name: str,
    run_at: Callable[[int], Mapping[str, Known] | None],
    values: Sequence[int] | None = None,
    bisect: bool = False,
    what: str = "run",
) -> tuple[int, Questions]:
    """Solve the one equation of ``spec`` for the setting ``name`` by deriving the run.

    Args:
        spec: one equation and ``unknowns == (name,)``, with any givens and definitions.
        name: the setting (``dp``).
        run_at: the run's quantities with ``name`` set to a value, or None when the run
            refuses that value.
        values: the values tried, in order (default 1 to :data:`MAX_SETTING`).
        what: what is derived at each value (``run``, ``step``), for the note.
        bisect: search ``values`` (a range) by bisection, for long ranges (a batch in
            tokens): the relation is taken to change once over it.

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
    tried = range(1, MAX_SETTING + 1) if values is None else values
    if bisect:
        assert isinstance(tried, range)
        value, how = _bisect(spec, name, run_at, tried)
    else:
        value, how = _search(spec, name, run_at, tried)
    own = run_at(value)
    assert own is not None  # the search found a run there
    rest = answer_questions(replace(spec, equations=(), unknowns=()), own)
    if how is None:  # as the equations' solver says of an identity
        note = (
            f"{spec.equations[0]} holds for every {name} {_span(tried)} (every value satisfies "
            f"it); shown at {name} = {value}"
        )
        return value, replace(
            rest, solving=Solving(spec.equations, "infinitely many solutions", note)
        )
    found = sp.Integer(value)
    note = (
        f"found by deriving the {what} at {name} {_span(tried)}: {how}"
        if bisect
        else f"found by deriving the run at each {name} from 1: {how}"
        if values is None
        else f"found by deriving the {what} at each {name} {_span(tried)}: {how}"
    )
    answer = Answer(name, Role.UNKNOWN, spec.equations[0], found, found, found, NUMBER, note)
    solving = Solving(spec.equations, "solved", note)
    return value, replace(rest, answers=(answer, *rest.answers), solving=solving)
