"""The one door from the workbook into the checker: read, check, check a derivation.

Every call the web server makes into derive's checking goes through :class:`Grader`,
and every answer comes back as a plain frozen record of strings (picklable, so it
crosses the worker-process boundary as is). Today it drives the checking internals
the way ``derive check`` does (a :class:`~derive.checking.context.Context` per problem,
``read_claim`` + ``judge_expr``, ``check_chain``, ``claim_json`` for the fields); when
``derive.check`` / ``derive.check_derivation`` (issue 15) land, only this module changes.

Nothing typed is evaluated: answers are read by :mod:`derive.formula` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from derive.checking.chain import MAX_CHAIN_LINES, _clean, check_chain
from derive.checking.context import DEFAULT_RTOL, Context
from derive.checking.diagnose import value_text
from derive.checking.judge import approx_or, read_claim
from derive.checking.quantities import QUANTITIES, Target
from derive.commands.check import parse_rtol
from derive.declare.registry import Registry
from derive.errors import DeriveError, ParseError, ProblemError
from derive.pipeline import derive_spec
from derive.present.notation import tex
from derive.problem.problem_set import ProblemEntry

__all__ = [
    "UNREADABLE",
    "CheckResult",
    "DerivationResult",
    "Grader",
    "LineMark",
    "Reading",
    "reason_of",
]

UNREADABLE = "unreadable"
"""The verdict on an answer derive cannot read (the others are the checker's own strings)."""


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
        read_as: the answer as read (sympy text); None when unreadable.
        read_as_latex: the same as LaTeX, for display.
        diagnosis: one sentence per finding (the reason it cannot be read, when unreadable).
        expected: the exact expected value as text, with a decimal; None when hidden or unknown.
        expected_latex: the expected value as LaTeX; None when hidden or unknown.
    """

    verdict: str
    read_as: str | None
    read_as_latex: str | None
    diagnosis: tuple[str, ...]
    expected: str | None = None
    expected_latex: str | None = None


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
    """Checks answers to the problems of one set; one per worker process.

    Contexts (a bound, analysed problem) are built on first use and kept.
    """

    problems: dict[str, ProblemEntry]
    registry: Registry
    hide_expected: bool = False
    rtol: str = DEFAULT_RTOL
    _contexts: dict[str, Context] = field(default_factory=dict, repr=False)

    def context(self, problem: str) -> Context:
        """The analysed problem ``problem`` (an id of the set)."""
        if problem not in self._contexts:
            entry = self.problems.get(problem)
            if entry is None:
                raise ProblemError(f"problem {problem!r}", "no such problem in this set")
            analysis = derive_spec(entry.spec, self.registry).analysis
            self._contexts[problem] = Context(
                analysis, entry.spec, self.registry, parse_rtol(self.rtol)
            )
        return self._contexts[problem]

    def read(self, problem: str, answer: str) -> Reading:
        """How ``answer`` reads over the problem's dims (no judging: cheap, for the preview)."""
        ctx = self.context(problem)
        try:
            parsed = read_claim(ctx.symbols, answer, "auto", "answer")
        except ParseError as exc:
            return Reading(False, reason=reason_of(exc))
        return Reading(True, str(parsed.expr), tex(parsed.expr))

    def check(self, problem: str, quantity: str, answer: str) -> CheckResult:
        """Judge ``answer`` as the problem's ``quantity``; an unreadable answer is a verdict.

        Raises:
            ProblemError: unknown quantity; DeriveError: the quantity does not apply here.
        """
        from derive.checking.judge import judge_expr
        from derive.checking.verdict_text import claim_json

        if quantity not in QUANTITIES:
            raise ProblemError(
                f"quantity {quantity!r}", f"unknown; allowed: {', '.join(QUANTITIES)}"
            )
        ctx = self.context(problem)
        try:
            parsed = read_claim(ctx.symbols, answer, "auto", "answer")
        except ParseError as exc:
            return CheckResult(UNREADABLE, None, None, (reason_of(exc),))
        judged = judge_expr(ctx, quantity, parsed.expr)
        fields = claim_json(ctx, parsed, judged)
        shown = not self.hide_expected and judged.expected.value is not None
        diagnosis = tuple(fields["diagnosis"])
        if self.hide_expected and judged.verdict != "correct":
            diagnosis = _redact(diagnosis, (judged.expected, judged.leading))
        return CheckResult(
            fields["verdict"],
            fields["claimed"],
            tex(parsed.expr),
            diagnosis,
            _with_decimal(fields["expected"], fields["expected_value"]) if shown else None,
            tex(judged.expected.value) if shown else None,
        )

    def check_derivation(self, problem: str, lines: tuple[str, ...]) -> DerivationResult:
        """Check every step of a derivation typed one step per line."""
        ctx = self.context(problem)
        numbered = [(n, _clean(text)) for n, text in enumerate(lines[:MAX_CHAIN_LINES], 1)]
        numbered = [(n, s) for n, s in numbered if s and not s.startswith(("%", "#"))]
        if not numbered:
            return DerivationResult(
                UNREADABLE,
                None,
                None,
                (),
                ("no derivation: write one step per line, e.g. I = \\frac{2BDF}{2BD+DF+2BF}",),
            )
        try:
            result = check_chain(ctx, numbered, "auto", None)
        except ParseError as exc:
            return DerivationResult(UNREADABLE, None, None, (), (reason_of(exc),))
        target = None if self.hide_expected or result.expected is None else result.expected.value
        steps = tuple(LineMark(s.line, s.text, s.ok, s.why) for s in result.steps)
        diagnosis = result.diagnosis
        if self.hide_expected:
            targets = (result.expected, result.leading)
            steps = tuple(
                LineMark(m.line, m.text, m.ok, _redact((m.why,), targets)[0]) for m in steps
            )
            diagnosis = _redact(diagnosis, targets)
        return DerivationResult(
            result.verdict,
            result.quantity,
            result.first_wrong_line,
            steps,
            diagnosis,
            None if target is None else str(target),
        )


def _redact(sentences: tuple[str, ...], targets: tuple[Target | None, ...]) -> tuple[str, ...]:
    """The sentences with every expected value the checker printed replaced by ``(hidden)``.

    The checker writes expected values only through ``value_text`` (with or without the
    crossover's integer threshold), so those exact strings are what is removed. Until
    ``derive.check`` has its own hidden mode (issue 15), this keeps ``--hide-expected`` honest.
    """
    shown = {
        text
        for t in targets
        if t is not None and t.value is not None
        for text in (value_text(t), approx_or(t), str(t.value))
    }
    out = []
    for sentence in sentences:
        for text in sorted(shown, key=len, reverse=True):
            sentence = sentence.replace(text, "(hidden)")
        out.append(sentence)
    return tuple(out)


def _with_decimal(exact: str | None, decimal: str | None) -> str | None:
    return f"{exact} ≈ {decimal}" if exact is not None and decimal else exact
