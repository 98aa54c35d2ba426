"""The one door from the workbook into the checker: read, check, check a derivation.

Every call the web server makes into derive's checking goes through :class:`Grader`,
which calls the public checking API (:func:`derive.check`, :func:`derive.check_derivation`)
and hands back plain frozen records of strings (picklable, so they cross the
worker-process boundary as they are). Hiding the expected answer is the checker's own
``hide_expected`` mode.

Nothing typed is evaluated: answers are read by :mod:`derive.formula` only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NoReturn, cast

from sympy.logic.boolalg import BooleanAtom

from derive.catalogue import ProblemKind
from derive.catalogue.table import PARAMS
from derive.checking.api import CheckResult as ApiCheckResult
from derive.checking.api import (
    ModelDetail,
    check,
    check_derivation,
    context_for,
)
from derive.checking.claims import dimension_of, read_claim_for
from derive.checking.comms_check import CommsDetail
from derive.checking.context import DEFAULT_RTOL, Context
from derive.checking.echo import echo_of
from derive.checking.judge import read_claim
from derive.checking.kernel_check import KernelDetail
from derive.checking.quantities import QUANTITIES
from derive.checking.verdict import Verdict
from derive.errors import DeriveError, ParseError, ProblemError
from derive.formula.units import describe_dimension
from derive.model.analysis import ModelAnalysis
from derive.pipeline.kinds import KINDS, derived_kind
from derive.problem.sets.kernels import KernelEntry
from derive.problem.sets.natives import NativeEntry
from derive.problem.sets.problem_set import ModelEntry, ProblemEntry, ProblemSet, QuestionEntry
from derive.solution.notation import tex
from derive.solution.value_display import seconds_tex

UNREADABLE = Verdict.UNREADABLE.value
"""The verdict on an answer derive cannot read."""

DERIVATION_EXAMPLE = (
    r"I = \frac{4ab}{2a + 2b} on line 1, = \frac{2ab}{a + b} on line 2, "
    r"\approx 2a (a leading-order step) on line 3"
)
"""How a derivation is written, in letters no problem uses (the page's placeholder is the same)."""


def reason_of(error: DeriveError) -> str:
    """An error as one line without the CLI's ``error:`` prefix."""
    return error.one_line().removeprefix("error: ")


@dataclass(frozen=True)
class Reading:
    """How an answer was read (the live preview): the expression, or why it cannot be read."""

    ok: bool
    read_as: str | None = None
    latex: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer, with the fields of ``POST /api/check``.

    Attributes:
        verdict: correct, correct-leading-order, incorrect or unreadable.
        read_as: the answer as read (``B ≥ 121``, ``0.14 ms = 7/50000 s``); None when unreadable.
        read_as_latex: the value read, as LaTeX, for display.
        diagnosis: one sentence per finding (the reason it cannot be read, when unreadable).
        expected: the expected value as the worked solution prints it; None when hidden.
        expected_latex: the expected value as LaTeX; None when hidden or unknown.
        exact: for a correct answer, True when exact, False when right to the tolerance only.
    """

    verdict: str
    read_as: str | None
    read_as_latex: str | None
    diagnosis: tuple[str, ...]
    expected: str | None = None
    expected_latex: str | None = None
    exact: bool | None = None


@dataclass(frozen=True)
class LineMark:
    """One checked step of a derivation: its line number, what was compared, whether it holds."""

    line: int
    text: str
    ok: bool
    why: str


@dataclass(frozen=True)
class DerivationResult:
    """The verdict on a derivation, each step, and the first wrong line (1-based, None if none)."""

    verdict: str
    quantity: str | None
    first_wrong_line: int | None
    steps: tuple[LineMark, ...]
    diagnosis: tuple[str, ...]
    expected: str | None = None


@dataclass
class Grader:
    """Checks answers to the problems of one set; one per worker process."""

    problems: Mapping[str, ProblemEntry | KernelEntry | ModelEntry | NativeEntry | QuestionEntry]
    operators: tuple[str | Path, ...] = ()  # the set's: set_operators
    hide_expected: bool = False
    rtol: str = DEFAULT_RTOL
    problem_set: ProblemSet | None = None  # for defined quantities (issue 23)

    @classmethod
    def of(cls, pset: ProblemSet, trust: bool = True, hide_expected: bool = False) -> Grader:
        """The grader of a set's problems (its operators: refused unless ``trust``)."""
        from derive.problem.sets.registry import set_operators

        entries = {entry.id: entry for entry in pset.every_entry()}  # givens and equations too
        return cls(entries, set_operators(pset, trust), hide_expected, problem_set=pset)

    def _defined(self, problem: str, quantity: str | None) -> bool:
        """True when ``quantity`` is a defined quantity or unknown of the problem."""
        if self.problem_set is None or quantity is None:
            return False
        from derive.checking.api import defined_names

        return quantity in defined_names(self.problem_set, problem)

    def _rtol(self, problem: str, quantity: str | None) -> str:
        """The set's tolerance for the problem's quantity (its ``rtol``), else the grader's."""
        own = self.problem_set.rtol(problem, quantity) if self.problem_set else None
        return own or self.rtol

    def _entry(
        self, problem: str
    ) -> ProblemEntry | KernelEntry | ModelEntry | NativeEntry | QuestionEntry:
        entry = self.problems.get(problem)
        if entry is None:
            raise ProblemError(f"problem {problem!r}", "no such problem in this set")
        return entry

    def context(self, problem: str) -> Context:
        """The analysed operator problem ``problem`` (an id of the set; cached by the checking API)."""
        entry = self._entry(problem)
        if not KINDS[entry.kind].chains:
            raise ProblemError(
                f"problem {problem!r}", "only an operator problem has a roofline over its dims"
            )
        return context_for(entry, self.rtol, self.operators)

    def _read_model(self, entry: ModelEntry, answer: str, quantity: str | None) -> Reading:
        from derive.checking.model_claims import MODEL_QUANTITIES, read_model_claim
        from derive.checking.serving_claims import SERVING_QUANTITIES
        from derive.checking.training_claims import TRAINING_QUANTITIES, all_claims_analysis_for

        a = all_claims_analysis_for(entry, self.operators)
        known = MODEL_QUANTITIES + SERVING_QUANTITIES + TRAINING_QUANTITIES
        asked = quantity if quantity in known and a.quantity(quantity) else None
        asked = asked or next((k for k in entry.ask if a.quantity(k)), None) or PARAMS.name
        try:
            claim = read_model_claim(a, asked, answer)
        except ParseError as exc:
            return Reading(False, reason=reason_of(exc))
        return Reading(True, claim.read_as, echo_of(claim, _model_unit(a, asked)))

    def _read_kernel(self, entry: KernelEntry, answer: str, quantity: str | None) -> Reading:
        from derive.checking.kernel_check import kernel_for
        from derive.checking.kernel_claims import read_kernel_claim
        from derive.problem.sets.kernels import kernel_asks, kernel_quantities_of

        has = kernel_quantities_of(entry.spec)
        asked = quantity if quantity in has else kernel_asks(entry)[0]
        try:
            claim = read_kernel_claim(kernel_for(entry.spec), asked, answer)
        except ParseError as exc:
            return Reading(False, reason=reason_of(exc))
        return Reading(True, claim.read_as, echo_of(claim))

    def read(self, problem: str, answer: str, quantity: str | None = None) -> Reading:
        """How ``answer`` reads (no judging: cheap, for the preview).

        With a ``quantity`` the answer is read as a claim about it (units, a named left side,
        a relation); without, as a plain formula over the problem's dims.
        """
        if self._defined(problem, quantity):
            return self._read_by_check(problem, quantity, answer)
        entry = self._entry(problem)
        reader = _READERS[derived_kind(entry, self.operators).judged_as]
        return reader(self, entry, answer, quantity)

    def _read_by_check(self, problem: str, quantity: str | None, answer: str) -> Reading:
        """What the check reads (a defined quantity's, a budget's or a what-if's answer is
        read only as it is judged: the verdict stays hidden, the reading is the check's)."""
        if quantity is None:
            return Reading(False, reason="name the quantity: the answer is read as its box's")
        hidden = Grader(self.problems, self.operators, True, self.rtol, self.problem_set)
        try:
            result = hidden.check(problem, quantity, answer)
        except DeriveError as exc:
            return Reading(False, reason=reason_of(exc))
        if result.verdict == UNREADABLE:
            return Reading(False, reason=result.diagnosis[0] if result.diagnosis else None)
        return Reading(True, result.read_as)

    def _read_operator(self, entry: ProblemEntry, answer: str, quantity: str | None) -> Reading:
        ctx = context_for(entry, self.rtol, self.operators)
        try:
            if quantity in QUANTITIES:
                claim = read_claim_for(ctx, quantity, answer)
                return Reading(True, claim.read_as(), echo_of(claim, _operator_unit(quantity)))
            parsed = read_claim(ctx.symbols, answer, "auto", "answer")
        except ParseError as exc:
            return Reading(False, reason=reason_of(exc))
        return Reading(True, str(parsed.expr), tex(parsed.expr))

    def check(self, problem: str, quantity: str, answer: str) -> CheckResult:
        """Judge ``answer`` as the problem's ``quantity``; an unreadable answer is a verdict.

        Raises:
            ProblemError: unknown quantity; DeriveError: the quantity does not apply here.
        """
        if self._defined(problem, quantity):
            from derive.checking.api import check_defined

            assert self.problem_set is not None  # _defined says so
            found = check_defined(
                self.problem_set,
                problem,
                quantity,
                answer,
                rtol=self._rtol(problem, quantity),
                hide_expected=self.hide_expected,
            )
            if found.verdict is Verdict.UNREADABLE:
                return CheckResult(UNREADABLE, None, None, (found.reason or "cannot be read",))
            return CheckResult(
                found.verdict.value, found.read_as, None, found.diagnosis, found.expected,
                exact=found.exact,
            )  # fmt: skip
        entry = self._entry(problem)
        result = check(
            entry,
            quantity,
            answer,
            rtol=self._rtol(problem, quantity),
            hide_expected=self.hide_expected,
            operators=self.operators,
        )
        if result.verdict is Verdict.UNREADABLE:
            return CheckResult(UNREADABLE, None, None, (result.reason or "cannot be read",))
        assert result.kind is not None  # derive.check names the kind it judged in
        return replace(_RESULTS[result.kind.judged_as](self, result), exact=result.exact)

    def _comms_result(self, result: ApiCheckResult) -> CheckResult:
        """A claimed time on the link: its echo and the exact time as LaTeX."""
        detail = cast(CommsDetail, result.detail)  # the comms-only kind's detail
        echo = echo_of(detail.claim, "s") if detail.claim is not None else None
        return _record(
            result, echo, None if self.hide_expected else seconds_tex(detail.analysis.time)
        )

    def _kernel_result(self, result: ApiCheckResult) -> CheckResult:
        """A kernel claim's record: its value and the exact answer as LaTeX."""
        detail = cast(KernelDetail, result.detail)  # the kernel kind's detail
        latex = None if self.hide_expected else tex(detail.exact)
        return _record(result, echo_of(detail.claim), latex)

    def _operator_result(self, result: ApiCheckResult) -> CheckResult:
        """An operator claim's record: the claim and the expected answer as LaTeX."""
        detail = result.detail
        value = getattr(detail, "claim", None)
        expected = getattr(getattr(detail, "judgement", None), "expected", None)
        echo = echo_of(value, _operator_unit(result.quantity)) if value is not None else None
        shown = expected.value if expected is not None and not self.hide_expected else None
        return _record(result, echo, None if shown is None else tex(shown))

    def _model_result(self, result: ApiCheckResult) -> CheckResult:
        """A model claim's record: its value and the exact answer as LaTeX (truth values as words)."""
        from derive.checking.model_claims import model_quantity

        detail = cast(ModelDetail, result.detail)  # the model and serving kinds' detail
        exact = model_quantity(detail.analysis, result.quantity).value
        echo = echo_of(detail.claim, _model_unit(detail.analysis, result.quantity))
        hidden = self.hide_expected or isinstance(exact, BooleanAtom)
        return _record(result, echo, None if hidden else tex(exact))

    def check_derivation(self, problem: str, lines: tuple[str, ...]) -> DerivationResult:
        """Check every step of a derivation typed one step per line."""
        entry = self._entry(problem)
        kind = KINDS[derived_kind(entry, self.operators)]
        if not kind.chains:
            why = f"{kind.noun} is checked one quantity at a time, in its answer boxes"
            return DerivationResult(UNREADABLE, None, None, (), (why,))
        if not any(line.strip() for line in lines):
            why = f"no derivation: write one step per line, e.g. {DERIVATION_EXAMPLE}"
            return DerivationResult(UNREADABLE, None, None, (), (why,))
        result = check_derivation(
            entry,
            list(lines),
            rtol=self._rtol(problem, None),
            hide_expected=self.hide_expected,
            operators=self.operators,
        )
        if result.verdict is Verdict.UNREADABLE:
            where = f"line {result.line}: " if result.line else ""
            why = where + (result.reason or "cannot be read")
            return DerivationResult(UNREADABLE, result.quantity, None, (), (why,))
        steps = tuple(LineMark(s.line, s.text, s.ok, s.why) for s in result.steps)
        return DerivationResult(
            result.verdict.value,
            result.quantity,
            result.first_wrong_line,
            steps,
            result.diagnosis,
            result.expected,
        )


def _read_comms(grader: Grader, entry: object, answer: str, quantity: str | None) -> Reading:
    """How a claimed time on the link reads (``550 us = 0.00055 s``)."""
    from derive.checking.comms_check import read_comms_claim

    try:
        claim = read_comms_claim(answer)
    except ParseError as exc:
        return Reading(False, reason=reason_of(exc))
    return Reading(True, claim.read_as, echo_of(claim, "s"))


def _operator_unit(quantity: str) -> str:
    """The unit an operator quantity is checked in (``s``, ``bytes``; empty for a count)."""
    return describe_dimension(dimension_of(quantity))[1] if quantity in QUANTITIES else ""


def _model_unit(a: ModelAnalysis, quantity: str) -> str:
    """The unit a model quantity is checked in, in words (``bytes``, ``parameters``, ``s``)."""
    from derive.checking.model_claims import model_quantity, unit_word

    try:
        return unit_word(model_quantity(a, quantity).unit)
    except DeriveError:
        return ""


def _record(result: ApiCheckResult, echo: str | None, latex: str | None = None) -> CheckResult:
    """A judged claim's record: its verdict, reading and diagnosis, with its echo and LaTeX."""
    return CheckResult(
        result.verdict.value, result.read_as, echo, result.diagnosis, result.expected, latex
    )


def _native_result(grader: Grader, result: ApiCheckResult) -> CheckResult:
    """A budget's or a what-if's verdict (read as a defined quantity's: no LaTeX echo)."""
    return _record(result, None)


def _not_graded_here(grader: Grader, *rest: object) -> NoReturn:
    """Givens and equations alone: their names are defined quantities, read and judged as
    those (:meth:`Grader.read` and :meth:`Grader.check` take them first), never here.

    Raises:
        ProblemError: always.
    """
    raise ProblemError("problem", "givens and equations alone: answer its defined quantities")


_READERS: dict[ProblemKind, Callable[..., Reading]] = {
    ProblemKind.OPERATOR: Grader._read_operator,
    ProblemKind.KERNEL: Grader._read_kernel,
    ProblemKind.MODEL: Grader._read_model,
    ProblemKind.BUDGET: lambda grader, entry, answer, q: grader._read_by_check(entry.id, q, answer),
    ProblemKind.COMMS: _read_comms,
    ProblemKind.QUESTIONS: _not_graded_here,
}
"""How the preview reads an answer, by the kind it is judged as."""

_RESULTS: dict[ProblemKind, Callable[[Grader, ApiCheckResult], CheckResult]] = {
    ProblemKind.OPERATOR: Grader._operator_result,
    ProblemKind.KERNEL: Grader._kernel_result,
    ProblemKind.MODEL: Grader._model_result,
    ProblemKind.BUDGET: _native_result,
    ProblemKind.COMMS: Grader._comms_result,
    ProblemKind.QUESTIONS: _not_graded_here,
}
"""How a judged claim becomes the workbook's record, by the kind it is judged as."""
