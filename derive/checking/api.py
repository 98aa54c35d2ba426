"""The Python API for programs that grade: ``derive.check`` and ``derive.check_derivation``.

::

    >>> import derive
    >>> from derive.problem.binding import ProblemSpec
    >>> spec = ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e")
    >>> derive.check(spec, "intensity", "BDF/(BD + DF + BF)").verdict
    <Verdict.CORRECT: 'correct'>

Both functions take a :class:`~derive.problem.binding.ProblemSpec` or a problem of a
problem set (:class:`~derive.problem.sets.problem_set.ProblemEntry`), need no argparse, and
return frozen records. :func:`check` also takes a whole-model problem
(:class:`~derive.problem.model_spec.ModelSpec`, or a set's
:class:`~derive.problem.sets.problem_set.ModelEntry`) and a model quantity (``params``,
``kv_bytes_per_token``, ``max_batch``, ``mfu``, …; see
:mod:`derive.checking.model_claims`), and a kernel given by its numbers
(:class:`~derive.problem.kernel_spec.KernelSpec`; see :mod:`derive.checking.kernel_claims`). A claim that cannot be read is a verdict (``UNREADABLE``, with
the reason and the position), not an exception; a problem that cannot be bound, an
unknown quantity or a bad tolerance raise :class:`~derive.errors.DeriveError` (those
are the caller's mistakes, not the student's).

Thread safety: nothing here is shared and mutable. Analysed problems are cached with
``functools.lru_cache`` (its bookkeeping is locked; a problem analysed by two threads at
once is analysed twice, and both results are equal and immutable).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import sympy as sp

from derive.catalogue import ProblemKind
from derive.catalogue.table import CROSSOVER
from derive.checking import model_verdict_text, verdict_text
from derive.checking.chain import StepResult, read_chain_text
from derive.checking.comms_check import COMMS_QUANTITIES, CommsDetail
from derive.checking.context import DEFAULT_RTOL, Context, parse_rtol
from derive.checking.hidden import conceal
from derive.checking.kernel_claims import KERNEL_QUANTITIES
from derive.checking.quantities import QUANTITIES
from derive.checking.serving_claims import SERVING_QUANTITIES
from derive.checking.training_claims import TRAINING_QUANTITIES
from derive.checking.verdict import Verdict
from derive.errors import ParseError, ProblemError
from derive.formula.answer import Relation, position_of
from derive.pipeline import Derivation, ModelDerivation
from derive.pipeline.kinds import derived_kind, kind_of
from derive.problem.binding import ProblemSpec
from derive.problem.kernel_spec import KernelSpec
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.natives import BudgetSpec, NativeEntry, WhatIfSpec
from derive.problem.sets.problem_set import (
    KernelEntry,
    ModelEntry,
    ProblemEntry,
    ProblemSet,
    QuestionEntry,
)

if TYPE_CHECKING:
    from derive.checking.chain import ChainResult
    from derive.checking.claims import Claim
    from derive.checking.comms_check import CommsClaim
    from derive.checking.judge import Judgement
    from derive.checking.kernel_check import KernelDetail
    from derive.checking.kernel_claims import KernelClaim
    from derive.checking.matching import How
    from derive.checking.model_claims import ModelClaim
    from derive.model.analysis import ModelAnalysis

__all__ = [
    "COMMS_QUANTITIES",
    "DEFAULT_RTOL",
    "KERNEL_QUANTITIES",
    "QUANTITIES",
    "SERVING_QUANTITIES",
    "TRAINING_QUANTITIES",
    "CheckResult",
    "CommsDetail",
    "DerivationResult",
    "StepResult",
    "Verdict",
    "check",
    "check_defined",
    "check_derivation",
    "context_for",
    "defined_names",
    "model_values",
    "model_verdict_text",
    "native_names",
    "parse_rtol",
    "quantity_named",
    "read_chain_text",
    "verdict_text",
]

Problem: TypeAlias = (
    ProblemSpec
    | ProblemEntry
    | ModelSpec
    | ModelEntry
    | KernelSpec
    | KernelEntry
    | BudgetSpec
    | WhatIfSpec
    | NativeEntry
    | QuestionEntry
)
Tolerance: TypeAlias = str | Fraction | sp.Rational


@dataclass(frozen=True)
class ClaimDetail:
    """What the command line prints beyond the record: the context, the claim read, the judgement."""

    context: Context
    claim: Claim
    judgement: Judgement


@dataclass(frozen=True)
class ModelDetail:
    """What the command line prints beyond the record of a model claim."""

    analysis: ModelAnalysis
    claim: ModelClaim
    exact: str
    """The exact value as text (``124439808``, ``True``)."""

    def json_parts(self, hidden: bool) -> tuple[dict, dict, None]:
        """Its keys of the verdict's JSON (:func:`~derive.checking.model_verdict_text.judged_json`)."""
        expected = None if hidden else self.exact
        return {"expected": expected}, {"model": self.analysis.problem.model.name}, None


@dataclass(frozen=True)
class ChainDetail:
    """The context and the internal result of a derivation."""

    context: Context
    chain: ChainResult


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one claim.

    Attributes:
        verdict: correct, correct-leading-order, incorrect or unreadable.
        quantity: the quantity judged (``intensity``, ``crossover``, ...).
        claim: the claim as typed.
        read_as: how it was read (``B ≥ 121``, ``0.14 ms = 7/50000 s``); None when unreadable.
        diagnosis: why, one sentence each (empty when unreadable).
        expected: the exact answer as the worked solution prints it, then a decimal with its
            unit (``9850/41 ≈ 240.24 FLOPs/byte``); None when hidden or unreadable.
        reason: why the claim could not be read (unreadable only).
        position: where reading stopped, counted from 1 (unreadable only, when known).
        relative_error: for numbers, the relative error as a percentage (``0.71%``).
        exact: for a correct claim, True when it is the exact value (or the exact integer
            threshold), False when it is only right to the tolerance; None otherwise.
    """

    verdict: Verdict
    quantity: str
    claim: str
    read_as: str | None
    diagnosis: tuple[str, ...]
    expected: str | None
    reason: str | None = None
    position: int | None = None
    relative_error: str | None = None
    exact: bool | None = None
    detail: ClaimDetail | ModelDetail | KernelDetail | CommsDetail | ParseError | None = field(
        default=None, repr=False, compare=False
    )
    """The internal judgement (for the command line's JSON), or the refusal; not part of the API."""
    kind: ProblemKind | None = field(default=None, repr=False, compare=False)
    """The kind of problem the claim was judged in (an operator that only communicates:
    ``COMMS``), which the command line and the workbook print it by."""

    @classmethod
    def unreadable(cls, quantity: str, claim: str, error: ParseError) -> CheckResult:
        """A claim that could not be read: why, and where reading stopped."""
        why = error.why
        return cls(
            Verdict.UNREADABLE, quantity, claim, None, (), None, why, position_of(why), detail=error
        )


@dataclass(frozen=True)
class _Asked:
    """A claim to judge: what :func:`check` was given, its quantity by its row's name."""

    problem: Problem
    quantity: str
    claim: str
    tolerance: Tolerance
    hide_expected: bool
    syntax: str
    operators: Sequence[str | Path]

    @property
    def rtol(self) -> sp.Rational:
        """The tolerance, exact."""
        return _rtol(self.tolerance)


@dataclass(frozen=True)
class DerivationResult:
    """The verdict on a derivation, every step, and every wrong line (the first first)."""

    verdict: Verdict
    quantity: str | None
    steps: tuple[StepResult, ...]
    wrong_lines: tuple[int, ...]
    diagnosis: tuple[str, ...]
    expected: str | None
    reason: str | None = None
    position: int | None = None
    line: int | None = None
    detail: ChainDetail | ParseError | None = field(default=None, repr=False, compare=False)

    @property
    def first_wrong_line(self) -> int | None:
        """The first wrong line, or None."""
        return self.wrong_lines[0] if self.wrong_lines else None


def _spec_of(problem: Problem) -> ProblemSpec:
    """An operator problem's spec (only an operator problem has a context of dims)."""
    kind = kind_of(problem)
    if not kind.chains:
        raise ProblemError("problem", f"{kind.noun}: only single claims are checked (derive.check)")
    return cast(ProblemSpec, problem.spec)  # the operator kind's spec


def _rtol(rtol: Tolerance) -> sp.Rational:
    if isinstance(rtol, str):
        return parse_rtol(rtol)
    value = sp.Rational(rtol.numerator, rtol.denominator) if isinstance(rtol, Fraction) else rtol
    if not isinstance(value, sp.Rational):
        raise ProblemError(
            f"rtol {rtol!r}", 'give it as decimal text ("0.01") or a Fraction: floats are not exact'
        )
    if not 0 <= value < 1:
        raise ProblemError(f"rtol {rtol}", "must be a number from 0 (exact only) to less than 1")
    return value


def _as_problem(
    problem: Problem | Derivation | ModelDerivation | str, operators: Sequence[str | Path]
) -> tuple[Problem | Derivation, Sequence[str | Path]]:
    """A name or a derivation as the problem it answers, with its operator files."""
    if isinstance(problem, str):
        from derive.pipeline import model_names

        if problem.lower() in (name.lower() for name in model_names(operators)):
            return ModelSpec(model=problem), operators
        return ProblemSpec(problem), operators
    if isinstance(problem, ModelDerivation):
        if problem.spec is None:
            raise ProblemError("problem", "a ModelDerivation without its spec: use solve_model")
        return problem.spec, operators
    if isinstance(problem, Derivation):
        if problem.spec is None:
            raise ProblemError("problem", "a Derivation without its spec: use derive.solve")
        return problem, tuple(operators) or problem.operators
    as_problem = getattr(type(problem), "as_problem", None)
    if as_problem is not None:  # a kernel's, a serving step's or a training run's derivation
        return as_problem(problem), operators
    return problem, operators


def _derivation_context(d: Derivation, operators: tuple[str, ...], rtol: sp.Rational) -> Context:
    """A derivation's own analysis; its operator joins the registry when it was an object."""
    from derive.declare.registry import Registry
    from derive.pipeline.cache import registry

    assert d.spec is not None  # _as_problem refused one without
    known = registry(operators)
    operator = d.analysis.problem.operator
    if operator.name.lower() not in (name.lower() for name in known.names()):
        known = Registry((*known.operators, operator))
    return Context(d.analysis, d.spec, known, rtol)


def _context(spec: ProblemSpec, operators: tuple[str, ...], rtol: sp.Rational) -> Context:
    from derive.pipeline.cache import operator_analysis, registry

    return Context(operator_analysis(spec, operators), spec, registry(operators), rtol)


def context_for(
    problem: Problem | Derivation,
    rtol: Tolerance = DEFAULT_RTOL,
    operators: Sequence[str | Path] = (),
) -> Context:
    """The analysed problem a check needs (cached).

    Raises:
        DeriveError: the problem cannot be bound, or the tolerance is not in (0, 1).
    """
    names = tuple(str(p) for p in operators)
    if isinstance(problem, Derivation):
        return _derivation_context(problem, names, _rtol(rtol))
    return _context(_spec_of(problem), names, _rtol(rtol))


def model_values(
    problem: ModelSpec | ModelEntry, quantities: Sequence[str], operators: Sequence[str | Path] = ()
) -> tuple[tuple[str, str, str], ...]:
    """Each quantity asked of a model problem (or its serving step): name, exact text, shown.

    The shown text is what a claim's ``expected:`` line prints (``124439808 parameters ≈
    1.2444e8``); ``derive model --quantity Q`` without ``--claim`` prints it.

    Raises:
        ProblemError: an unknown quantity, or one not derived for this problem.
    """
    from derive.checking.model_claims import model_quantity, shown_expected
    from derive.checking.serving_claims import claims_analysis_for

    a = claims_analysis_for(problem, operators)
    found = [(name, model_quantity(a, name)) for name in quantities]
    return tuple((name, str(q.value), shown_expected(q)) for name, q in found)


@dataclass(frozen=True)
class Judged:
    """A claim read and judged, as every kind's judge gives it to :func:`_judged`."""

    verdict: Verdict
    read_as: str
    diagnosis: tuple[str, ...]
    hidden: tuple[str, ...]
    """The diagnosis with the expected value kept back (``hide_expected``)."""
    expected: str | None
    error: sp.Rational | None
    detail: ClaimDetail | ModelDetail | KernelDetail | CommsDetail | None
    """None for a sharded operator's word or tensor bytes (the claim is its own reading)."""
    how: How | None = None


def _judged(asked: _Asked, read: Callable[[], Any], judge: Callable[[Any], Judged]) -> CheckResult:
    """The one claim → judgement → report path: the claim read (unreadable: its verdict),
    judged by the kind, and the result built (and concealed when asked)."""
    try:
        claim = read()
    except ParseError as e:
        return CheckResult.unreadable(asked.quantity, asked.claim, e)
    return judged_result(asked.quantity, asked.claim, judge(claim), asked.rtol, asked.hide_expected)


def judged_result(
    quantity: str, claim: str, j: Judged, rtol: sp.Rational, hide_expected: bool
) -> CheckResult:
    """The result of a judged claim (concealed under ``hide_expected``): every kind's, a
    set's defined quantity's too (:mod:`derive.checking.defined_check`)."""
    from derive.checking.matching import as_percent, exactly

    result = CheckResult(
        j.verdict,
        quantity,
        claim,
        j.read_as,
        j.hidden if hide_expected else j.diagnosis,
        j.expected,
        relative_error=None if j.error is None else as_percent(j.error),
        exact=exactly(j.verdict, j.error, j.how),
        detail=j.detail,
    )
    return conceal(result, as_percent(rtol)) if hide_expected else result


def _check_model(asked: _Asked) -> CheckResult:
    """A claim about a whole model, or about its serving step (the quantities of both)."""
    problem = cast("ModelSpec | ModelEntry", asked.problem)  # a model-judged kind's
    quantity, claim, operators, rtol = asked.quantity, asked.claim, asked.operators, asked.rtol
    from derive.checking.hints import earned, facets
    from derive.checking.model_claims import judge_model_claim, model_quantity, read_model_claim
    from derive.checking.model_slips import model_slips
    from derive.checking.serving_claims import (
        SERVING_QUANTITIES,
        judge_crossover,
        phase_for,
        serving_slips,
    )
    from derive.checking.training_claims import all_claims_analysis_for, training_analysis_for

    a = all_claims_analysis_for(problem, operators)
    model_quantity(a, quantity)  # unknown or not derived: the caller's mistake, raised

    def judge(read: ModelClaim) -> Judged:
        phase = phase_for(problem, operators) if quantity in SERVING_QUANTITIES else None
        crossover = phase is not None and quantity == CROSSOVER.name
        j = judge_crossover(a, phase, read, read.relation) if phase and crossover else None
        if j is None:  # the serving step's and the training run's slips weighed with the model's
            trains = quantity in TRAINING_QUANTITIES
            run = training_analysis_for(problem, operators) if trains else None
            return judge_model_claim(a, quantity, read, rtol, model_slips(a, phase, run, quantity))
        if j.verdict is Verdict.INCORRECT and phase and read.relation in _STATES_A_BATCH:
            found = earned(serving_slips(phase, quantity), read.value, rtol, facets(quantity))
            # B ≥ the ridge: the threshold's reason and why
            slip = (found.why,) if found is not None else ()
            j = replace(j, diagnosis=j.diagnosis + slip, hidden=j.hidden + slip)
        return j

    return _judged(asked, lambda: read_model_claim(a, quantity, claim, asked.syntax), judge)


_STATES_A_BATCH = (Relation.GREATER_EQUAL, Relation.GREATER)
"""``B ≥ 481``: a claimed threshold, read for the crossover's slips too (the ridge typed as it)."""


def _check_quantity(quantity: str) -> None:
    from derive.checking.quantities import QUANTITIES

    if quantity not in QUANTITIES:
        raise ProblemError(
            f"quantity {quantity!r}", f"unknown quantity; known: {', '.join(QUANTITIES)}"
        )


def check(
    problem: Problem | Derivation | ModelDerivation | str,
    quantity: str,
    claim: str,
    *,
    rtol: Tolerance = DEFAULT_RTOL,
    hide_expected: bool = False,
    syntax: str = "auto",
    operators: Sequence[str | Path] = (),
) -> CheckResult:
    """Judge one claim about one quantity of a problem.

    Args:
        problem: a ProblemSpec or a ModelSpec, or a problem of a problem set (either kind),
            or a :class:`~derive.problem.kernel_spec.KernelSpec` (a kernel by its numbers; a
            set's :class:`~derive.problem.sets.kernels.KernelEntry` too); or what
            ``derive.solve`` / ``derive.solve_model`` returned (its problem is judged); or a
            name: a model's (``"gpt2-small"``), else an operator's, as typed with no flags.
        quantity: one of :data:`derive.checking.quantities.QUANTITIES` (an operator
            problem), of :data:`derive.checking.model_claims.MODEL_QUANTITIES` (a model) or
            of :data:`derive.checking.kernel_claims.KERNEL_QUANTITIES` (a kernel).
        claim: what the student typed (``240 FLOPs/byte``, ``B \\geq 121``, ``\\frac{2BDF}{...}``).
        rtol: relative tolerance for numbers (text such as ``"0.01"``, or an exact fraction).
        hide_expected: leave the expected answer out (verdict and diagnosis only; a diagnosis
            that would state the answer is left out too).
        syntax: ``auto``, ``latex`` or ``plain``.
        operators: operator files the problem's operator is declared in (besides the built-ins).

    Raises:
        DeriveError: the problem, the quantity or the tolerance is wrong (not the claim).
    """
    problem, operators = _as_problem(problem, operators)
    kind = derived_kind(cast(Problem, problem), operators)
    named = quantity_named(kind.parent, quantity)
    asked = _Asked(cast(Problem, problem), named, claim, rtol, hide_expected, syntax, operators)
    return replace(_JUDGES[kind.judged_as](asked), kind=kind)


def quantity_named(kind: ProblemKind, quantity: str) -> str:
    """A quantity by its catalogue name: an alias (``I``, ``AI``) read as the row's name, an
    ``ask`` that shows one answer box (``crossover_regime``) as that box's quantity."""
    from derive.catalogue import find, shown_by, spelling_map

    name = quantity
    if find(quantity) is None:
        kinds = (
            (kind,)
            if kind in (ProblemKind.OPERATOR, ProblemKind.KERNEL)
            else (kind, ProblemKind.MODEL)
        )
        spellings = spelling_map(*kinds)
        name = spellings.get(quantity, spellings.get(quantity.lower(), quantity))
    shows = shown_by(kind, name)
    return shows[0] if len(shows) == 1 else name


def _check_kernel(a: _Asked) -> CheckResult:
    """A claim about a kernel given by its numbers (a kernel declares no operator)."""
    from derive.checking.kernel_check import kernel_for
    from derive.checking.kernel_claims import judge_kernel_claim, read_kernel_claim

    kernel = kernel_for(cast(KernelSpec, a.problem.spec))  # the kernel kind's spec

    def judge(read: KernelClaim) -> Judged:
        return judge_kernel_claim(kernel, a.quantity, read, a.rtol)

    return _judged(a, lambda: read_kernel_claim(kernel, a.quantity, a.claim, a.syntax), judge)


def _check_comms(a: _Asked) -> CheckResult:
    """A claimed time of an operator that only communicates (derived already, or a problem
    of an operator problem's spec), judged against its time on the link."""
    from derive.checking.comms_check import comms_analysis, judge_comms_claim, read_comms_claim
    from derive.pipeline.kinds import KINDS
    from derive.pipeline.kinds.comms import CommsDerivation

    kind = KINDS[ProblemKind.COMMS]
    derived = a.problem if kind_of(a.problem) is kind else kind.derive(a.problem, a.operators)
    analysis = comms_analysis(cast(CommsDerivation, derived), a.quantity)

    def judge(read: CommsClaim) -> Judged:
        return judge_comms_claim(analysis, a.quantity, a.claim, read, a.rtol)

    return _judged(a, lambda: read_comms_claim(a.claim, a.syntax), judge)


def _check_questions(a: _Asked) -> CheckResult:
    """Givens and equations alone: a claim about one of its names is a defined quantity's.

    Raises:
        ProblemError: always (``check_defined`` judges it, with its set).
    """
    entry = cast(QuestionEntry, a.problem)
    raise ProblemError(
        f"quantity {a.quantity!r}",
        f"problem {entry.id!r} is givens and equations alone; its quantities: "
        f"{', '.join(entry.questions.answers)}",
    )


def _check_operator(asked: _Asked) -> CheckResult:
    """A claim about an operator problem, judged in its context of dims."""
    from derive.checking.claims import read_claim_for
    from derive.checking.comms_slips import SHARDED_QUANTITIES, beside, judge_sharded
    from derive.checking.expected_text import hide, show_expected
    from derive.checking.judge import judge_claim

    quantity, claim = asked.quantity, asked.claim
    _check_quantity(quantity)
    ctx = context_for(asked.problem, asked.tolerance, asked.operators)
    if quantity in SHARDED_QUANTITIES:  # a word, or a tensor's bytes, of a sharded operator
        return _judged(asked, lambda: judge_sharded(ctx, quantity, claim), lambda j: j)

    def judge(read: Claim) -> Judged:
        j = judge_claim(ctx, quantity, read)
        diagnosis = j.diagnosis
        if (
            j.verdict is Verdict.CORRECT and not asked.hide_expected
        ):  # the book's value: derive's own beside
            diagnosis = (*diagnosis, *beside(ctx.analysis, quantity))
        hidden = hide(j.diagnosis, j.expected, j.leading)
        expected = show_expected(j.expected, quantity)
        how = j.match.how if j.match else None
        detail = ClaimDetail(
            ctx, read, j if asked.hide_expected else replace(j, diagnosis=diagnosis)
        )
        return Judged(j.verdict, read.read_as(), diagnosis, hidden, expected, j.relative_error, detail, how)  # fmt: skip

    return _judged(asked, lambda: read_claim_for(ctx, quantity, claim, asked.syntax), judge)


def check_defined(
    problem_set: ProblemSet,
    problem: str,
    quantity: str,
    claim: str,
    *,
    rtol: Tolerance = DEFAULT_RTOL,
    hide_expected: bool = False,
) -> CheckResult:
    """Judge one claim about a defined quantity or an unknown of a set's problem.

    The quantity is one of the problem's ``define`` names or ``unknowns``; the claim a
    number with its unit (``1.26e6 $``), optionally after ``name =``, or a formula over the
    problem's names. A forgotten unit conversion (h and s, GB and GiB, …) is a named slip.

    Raises:
        DeriveError: the problem or the quantity is wrong (not the claim).
    """
    from derive.checking.defined_check import check_defined as judge

    return judge(problem_set, problem, quantity, claim, _rtol(rtol), hide_expected)


def defined_names(problem_set: ProblemSet, problem: str) -> tuple[str, ...]:
    """The defined quantities and unknowns of a set's problem (empty when it has none)."""
    from derive.checking.defined_check import defined_names as names

    return names(problem_set, problem)


def _check_native(a: _Asked) -> CheckResult:
    """A claim about a set's budget or what-if (issue 36), read with units like a defined one."""
    from derive.checking.defined_check import judge_claim_text
    from derive.questions.natives import native_answer

    problem = cast("BudgetSpec | WhatIfSpec | NativeEntry", a.problem)  # a native kind's
    answer = native_answer(problem, a.quantity)  # no such quantity: a ProblemError
    return judge_claim_text(answer, a.claim, {}, a.rtol, a.hide_expected)


def native_names(problem: object) -> tuple[str, ...]:
    """The quantities a set's budget or what-if has (``derive grade`` checks a row's)."""
    from derive.questions.natives import native_quantities

    return native_quantities(problem)  # type: ignore[arg-type]


_JUDGES: Mapping[ProblemKind, Callable[[_Asked], CheckResult]] = MappingProxyType(
    {
        ProblemKind.OPERATOR: _check_operator,
        ProblemKind.KERNEL: _check_kernel,
        ProblemKind.MODEL: _check_model,
        ProblemKind.BUDGET: _check_native,
        ProblemKind.COMMS: _check_comms,
        ProblemKind.QUESTIONS: _check_questions,
    }
)
"""How a claim is judged, by the kind it is judged as (``ProblemKind.judged_as``)."""


def check_derivation(
    problem: Problem | Derivation | ModelDerivation | str,
    lines: Sequence[str] | str,
    *,
    quantity: str | None = None,
    rtol: Tolerance = DEFAULT_RTOL,
    hide_expected: bool = False,
    syntax: str = "auto",
    operators: Sequence[str | Path] = (),
    what: str = "derivation",
) -> DerivationResult:
    """Check every step of a multi-line derivation (LaTeX ``align``, ``&=``, ``\\\\`` welcome).

    Args:
        problem: a ProblemSpec, or a problem of a problem set.
        lines: the derivation, as one text or a list of lines.
        quantity: the quantity the first line is about, when its left side does not say.
        what: how to name the derivation in errors (``--chain 'steps.tex'``).

    Raises:
        DeriveError: the problem, the quantity or the tolerance is wrong (not the derivation).
    """
    from derive.checking.chain import check_chain, split_lines
    from derive.checking.expected_text import show_expected

    problem, operators = _as_problem(problem, operators)
    if quantity is not None:
        _check_quantity(quantity)
    ctx = context_for(problem, rtol, operators)
    text = lines if isinstance(lines, str) else "\n".join(lines)
    try:
        numbered = split_lines(text, what)
        r = check_chain(ctx, numbered, syntax, quantity)
    except ParseError as e:
        return DerivationResult(
            Verdict.UNREADABLE,
            quantity,
            (),
            (),
            (),
            None,
            e.why,
            position_of(e.why),
            _line_of(e.what),
            detail=e,
        )
    if hide_expected:
        r = _hidden(ctx, r, text)
    expected = None if r.expected is None else show_expected(r.expected, r.quantity or "")
    return DerivationResult(
        r.verdict,
        r.quantity,
        r.steps,
        r.wrong_lines,
        r.diagnosis,
        expected,
        detail=ChainDetail(ctx, r),
    )


def _hidden(ctx: Context, r: ChainResult, text: str) -> ChainResult:
    """A derivation's result with every expected value kept back (steps and diagnosis alike):
    sentences that state a target dropped, then every clause that states a number the
    derivation did not write (:func:`~derive.checking.hidden.kept_back`)."""
    from derive.checking.expected_text import hide
    from derive.checking.hidden import kept_back
    from derive.checking.matching import as_percent
    from derive.checking.quantities import expected, leading

    a = ctx.analysis
    targets = [t for q in r.quantities for t in (expected(a, q), leading(a, q, a.problem.regime))]
    tolerance = as_percent(ctx.rtol)

    def kept(why: str) -> str:
        said = hide((why,), *targets) if why else ()
        said = tuple(k for k in (kept_back(s, text, None, tolerance) for s in said) if k)
        return said[0] if said else ("" if not why else "(kept back: it states the expected value)")

    steps = tuple(replace(s, why=kept(s.why)) for s in r.steps)
    diagnosis = tuple(
        k for k in (kept_back(s, text, None, tolerance) for s in hide(r.diagnosis, *targets)) if k
    )
    return replace(r, steps=steps, diagnosis=diagnosis, expected=None, leading=None)


def _line_of(what: str) -> int | None:
    import re

    m = re.search(r"\bline (\d+)", what)
    return int(m.group(1)) if m else None
