"""Checking a claim about a defined quantity or an unknown of a problem set (issue 23).

A claim is read by the questions' reader (derive's safe parser with units): a number
with a unit (``1.26e6 $``, ``20.6 days``), optionally after ``name =``, or a formula over
the problem's names (``price * devices * train_seconds``). It is right when its unit
measures what the quantity measures and its value is within the tolerance of the exact
one. A wrong value is read for the usual slips: a forgotten unit conversion (an hour
taken as a second, a GB as a GiB, days as hours: the ratio is exactly the conversion
factor, named), a rounding (within 5 %), a factor of 2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

import sympy as sp

from derive.checking.api import CheckResult, Judged, judged_result
from derive.checking.expected_text import in_unit, label_of, missed
from derive.checking.matching import How, right_to
from derive.checking.rounding import sig_fig_sentence
from derive.checking.thresholds import count_reason
from derive.checking.verdict import Verdict
from derive.errors import ProblemError
from derive.formula.decimals import fmt_decimal
from derive.formula.limits import RejectError
from derive.formula.units import MEASURE_BASES, Measure
from derive.problem.sets.problem_set import ProblemSet
from derive.questions.read import Value, read_formula
from derive.questions.records import Answer, Known, Questions, Role
from derive.questions.set_answers import answer_problem_set, as_known, entry_quantities
from derive.questions.solve import root_text

_BYTES, _TIME = MEASURE_BASES[1:3]  # the bases a conversion needs (byte, s)
_UNIT, _ANY = "a unit", ""
CONVERSIONS: tuple[tuple[sp.Rational, str, str], ...] = (
    (sp.Integer(3600), "an hour taken as a second (h and s: a factor of 3600)", _TIME),
    (sp.Integer(60), "a minute taken as a second, or an hour as a minute (a factor of 60)", _TIME),
    (sp.Integer(86400), "a day taken as a second (days and s: a factor of 86400)", _TIME),
    (sp.Integer(24), "a day taken as an hour (a factor of 24)", _TIME),
    (sp.Integer(1000), "a unit prefix lost (ms and s, kW and W: a factor of 1000)", _UNIT),
    (sp.Integer(10) ** 6, "a unit prefix lost (µs and s, MB and B: a factor of 10^6)", _UNIT),
    (sp.Integer(10) ** 9, "a unit prefix lost (ns and s, GB and B: a factor of 10^9)", _UNIT),
    (sp.Rational(2**30, 10**9), "GiB taken for GB (a factor of 1.0737)", _BYTES),
    (sp.Rational(2**20, 10**6), "MiB taken for MB (a factor of 1.0486)", _BYTES),
    (sp.Integer(2), "a factor of 2", _ANY),
)
"""Ratios of a claim to the answer that name a slip (each also read the other way up), with
the premise each needs of the quantity's measure (issue 33, every hint earned): a time's
conversions only for a measure in seconds, GiB only for bytes, a lost prefix only for a
quantity with a unit (a ratio has none)."""
_ROUNDING = sp.Rational(5, 100)
_NAMED = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=(?!=)")


def defined_names(pset: ProblemSet, problem: str) -> tuple[str, ...]:
    """The defined quantities and unknowns of a problem of the set ('' when it has none)."""
    for entry in pset.every_entry():
        if entry.id.lower() == problem.lower():
            spec = getattr(entry, "questions", None)
            return spec.answers if spec is not None else ()
    return ()


def _questions(pset: ProblemSet, problem: str) -> tuple[Questions, dict]:
    entry = next(e for e in pset.every_entry() if e.id.lower() == problem.lower())
    answered = answer_problem_set(pset)
    known = {**entry_quantities(pset, entry.id), **as_known(answered[entry.id])}
    return answered[entry.id], known


def _fits(premise: str, measures: tuple[Measure, ...]) -> bool:
    """True when a conversion's premise fits the quantity: its measure, or a measure of a
    quantity it is computed from (a cost from an hourly price: a time is converted in it)."""
    if premise == _ANY:
        return True
    if premise == _UNIT:
        return any(not m.dimensionless for m in measures)
    return any(m.exponents[MEASURE_BASES.index(premise)] for m in measures)


def _measures(answer: Answer, known: Mapping[str, Known]) -> tuple[Measure, ...]:
    """The measure of ``answer`` and of each name its formula uses."""
    names = [s.name for s in answer.formula.free_symbols if s.name in known]
    return (answer.measure, *(known[n].measure for n in sorted(names)))


def _slip(ratio: sp.Expr, rtol: sp.Rational, measures: tuple[Measure, ...]) -> str | None:
    """The slip a ratio of claim to answer names, within the tolerance (and 1 %)."""
    room = max(rtol, sp.Rational(1, 100))
    for factor, why, premise in CONVERSIONS:
        if not _fits(premise, measures):
            continue
        for f in (factor, 1 / factor):
            if abs(ratio / f - 1) <= room:
                return why
    return None


def _shown(value: sp.Expr, unit: str, name: str = "") -> str:
    root = root_text(value, name, unit) if name else None  # no closed form: decimal, equation
    return root if root is not None else f"{fmt_decimal(value)} {unit}".rstrip()


def check_defined(
    pset: ProblemSet,
    problem: str,
    quantity: str,
    claim: str,
    rtol: sp.Rational,
    hide_expected: bool = False,
) -> CheckResult:
    """Judge one claim about a defined quantity (or an unknown) of a problem of the set.

    Raises:
        ProblemError: the quantity is not one of the problem's defined names.
    """
    if quantity not in defined_names(pset, problem):
        raise ProblemError(
            f"--quantity {quantity}",
            f"not a defined quantity of problem {problem!r} "
            f"(its defined quantities: {', '.join(defined_names(pset, problem)) or 'none'})",
        )
    questions, known = _questions(pset, problem)
    answer = questions.answer(quantity)
    assert answer is not None  # a defined name is always answered
    entry = next(e for e in pset.every_entry() if e.id.lower() == problem.lower())
    spec = getattr(entry, "questions", None)
    accept = spec is None or spec.count_from_root == "accept"
    return judge_claim_text(answer, claim, known, rtol, hide_expected, accept)


def judge_claim_text(
    answer: Answer,
    claim: str,
    known: Mapping[str, Known],
    rtol: sp.Rational,
    hide_expected: bool = False,
    root_accepted: bool = True,
) -> CheckResult:
    """A claim (optionally ``name = …``, a number with its unit or a formula over ``known``)
    judged against ``answer`` (a defined quantity's, or a set's budget's or what-if's:
    :func:`derive.checking.api.check` of a native kind), concealed when asked; a count's real root is
    right, its count named, when ``root_accepted`` (a set's ``count_from_root``)."""
    quantity = answer.name
    text = claim
    named = _NAMED.match(claim)
    if named is not None and named.group(1) == quantity:
        text = claim[named.end() :]
    try:
        value = read_formula(text, {k: v for k, v in known.items() if k != quantity})
    except RejectError as reject:
        return CheckResult(Verdict.UNREADABLE, quantity, claim, None, (), None, reject.why)
    j = _judge(answer, value, claim, rtol, _measures(answer, known))
    root = answer.numbers  # an unknown solved as a count: its real root, the count next to it
    if (
        answer.count
        and j.verdict is Verdict.INCORRECT
        and answer.role is Role.UNKNOWN
        and root.is_number
        and not root.is_integer
        and value.value.is_number
        and not value.value.is_integer
        and abs(value.value - root) <= rtol * abs(root)
    ):
        count = re.search(r"as a count, ([^;]+)", answer.note)
        said = (
            f"the claim is {quantity}'s real root{'' if root_accepted else ', not the count asked'}"
        )
        said += f"; as a count, {count.group(1) if count else f'{quantity} = {answer.value}'}"
        verdict = Verdict.CORRECT if root_accepted else Verdict.INCORRECT
        # right as a root, not as the count: right to the tolerance, never exact
        j = replace(j, verdict=verdict, diagnosis=(said,), hidden=(said,), how=How.TOLERANCE)
    return judged_result(quantity, claim, j, rtol, hide_expected)


def _judge(
    answer: Answer, value: Value, claim: str, rtol: sp.Rational, measures: tuple[Measure, ...]
) -> Judged:
    expected = _shown(answer.value, answer.unit, answer.name)
    read_as = _shown(value.value, value.measure.text) if value.value.is_number else str(value.value)
    same_unit = value.measure.exponents == answer.measure.exponents
    bare = not any(value.measure.exponents)
    if not same_unit and not bare:
        why = (
            f"the claim is {value.measure.describe()}, but {answer.name} is "
            f"{answer.measure.describe()}"
        )
        return Judged(Verdict.INCORRECT, read_as, (why,), (why,), expected, None, None)
    if not value.value.is_number or not answer.value.is_number or answer.value == 0:
        ok = sp.simplify(value.value - answer.value) == 0
        verdict = Verdict.CORRECT if ok else Verdict.INCORRECT
        return Judged(verdict, read_as, (), (), expected, None, None)
    error = abs(value.value - answer.value) / abs(answer.value)
    if answer.count and value.value != answer.value:
        said, hidden = count_reason(label_of(answer.name), value.value, answer.value)
        return Judged(Verdict.INCORRECT, read_as, (said,), (hidden,), expected, None, None)
    label = label_of(answer.name)
    stated = (
        in_unit(answer.value, answer.unit)
        if answer.value.is_Rational
        else _shown(answer.value, answer.unit, answer.name)
    )
    if error <= rtol:
        within = (
            right_to(rtol, label, stated, error)
            if error
            else f"the claim equals the exact {label}, {stated}"
        )
        note = (within,) if same_unit else (f"read in base units ({answer.unit}): give the unit",)
        return Judged(Verdict.CORRECT, read_as, note, note, expected, error, None)
    rounded = sig_fig_sentence(value.value, answer.value, rtol)
    diagnosis = [rounded] if rounded else []
    ratio = value.value / answer.value
    # the answer rounded: a conversion that gives the same number is a coincidence
    slip = None if rounded else _slip(ratio, rtol, measures)
    said = missed(label, f"{stated}", claim, error, bool(ratio < 1))
    if slip is not None:
        said += f": {slip} (off by a factor of {fmt_decimal(ratio)})"
    elif error <= _ROUNDING and not rounded:
        said += ": rounded too early, or a given misread?"
    diagnosis.append(said)
    return Judged(Verdict.INCORRECT, read_as, (*diagnosis,), (*diagnosis,), expected, error, None)
