"""``derive key``'s derivations: every problem of a set derived (in worker processes, each
within its time budget), then handed to :mod:`derive.present.key.files` for the files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import partial
from typing import TYPE_CHECKING, cast

import sympy as sp

from derive.catalogue import phrase_of
from derive.catalogue import table as q
from derive.deadline import run_with_deadline, workers
from derive.declare.registry import Registry
from derive.errors import DeriveError, ProblemError
from derive.pipeline import Derivation, analyse_spec, derive_spec
from derive.present.key.figures import plot_figure, plot_xs
from derive.present.key.files import ProblemPart, key_files, preload, problem_part
from derive.present.key.names import safe_name
from derive.problem.sets.errors import in_file_terms, raise_collected
from derive.problem.sets.problem_set import ProblemSet
from derive.problem.sets.registry import set_registry

if TYPE_CHECKING:
    from derive.analysis.crossover.records import Crossover
    from derive.analysis.kernel_numbers import KernelNumbers
    from derive.catalogue import Quantity
    from derive.catalogue.reading import Exact
    from derive.deadline import Workers
    from derive.figures.model import Series
    from derive.model.analysis import ModelAnalysis
    from derive.model.binding import ModelProblem
    from derive.pipeline.kinds.comms import CommsDerivation
    from derive.pipeline.kinds.surface import Shown
    from derive.present.key.models import DerivedModel
    from derive.present.key.questions import NativeProblem
    from derive.problem.binding import Problem
    from derive.problem.serving_spec import ServingSpec
    from derive.problem.sets.kernels import KernelEntry
    from derive.problem.sets.natives import NativeEntry, WhatIfSpec
    from derive.problem.sets.problem_set import ModelEntry, ProblemEntry
    from derive.problem.train_spec import TrainSpec
    from derive.questions.records import Questions


def _build_problem(
    pset: ProblemSet, stem: str, registry: Registry, index: int
) -> ProblemPart | ProblemError:
    """Derive and render problem ``index`` of the set (pure: the same in any process).

    An error in the problem comes back as a value, said in the file's own terms, so that
    every problem's errors are reported together.
    """
    entry = pset.problems[index]
    try:
        derived = derive_spec(entry.spec, registry)
    except DeriveError as exc:
        return in_file_terms(exc, pset.source, entry.id)
    problem = derived.analysis.problem if isinstance(derived, Derivation) else None
    wrong = _expect_errors(pset.source, entry, derived, at=problem)
    if wrong:
        return wrong[0]
    try:
        if not derived.kind.roofline:  # a transfer alone: no roofline, no plot
            from derive.present.key.comms import comms_part

            return comms_part(pset, stem, index, cast("CommsDerivation", derived).analysis)
        d = cast(Derivation, derived)  # the operator kind's record
    except DeriveError as exc:
        return in_file_terms(exc, pset.source, entry.id)
    try:
        plot = (
            plot_figure(stem, entry, entry.plot, lambda spec: analyse_spec(spec, registry))
            if entry.plot
            else None
        )
    except DeriveError as exc:
        return in_file_terms(exc, pset.source, entry.id, "plot")
    return problem_part(pset, stem, index, d.analysis, d.solution, plot)


def _model(entry: ModelEntry, operators: tuple[str, ...]) -> DerivedModel:
    """A model problem's analysis, with the steps its ``ask`` needs, its serving step and
    the curves of its serving plot.

    Raises:
        ProblemError: the problem asks for a quantity it does not give enough to derive.
    """
    from derive.model.analysis import select_quantities
    from derive.pipeline.cache import model_analysis
    from derive.present.key.models import model_ask

    full = model_analysis(entry.spec, operators)
    ask = model_ask(entry)
    missing = [k for k in ask if full.quantity(k) is None]
    if missing:
        why = dict(full.left_out).get(missing[0]) or "; ".join(w for _, w in full.left_out)
        raise ProblemError(
            f"ask {missing[0]!r}",
            f"cannot be derived from what the problem gives ({why or 'not derivable'})",
        )
    from derive.present.key.models import DerivedModel

    if entry.train is not None:
        return _training(entry, select_quantities(full, ask), operators)
    serving = entry.serving
    if serving is None:
        return DerivedModel(select_quantities(full, ask))
    from derive.pipeline import derive_set_serving

    phase = derive_set_serving(entry, operators).phase  # a decode with no batch: its crossover
    series = () if serving.plot is None else _serving_series(full.problem, serving, phase.crossover)
    return DerivedModel(select_quantities(full, ask), phase, series)


def _training(entry: ModelEntry, model: ModelAnalysis, operators: tuple[str, ...]) -> DerivedModel:
    """A training problem: its run, the strategies when asked, the curves of its plot."""
    from derive.pipeline.cache import training_analysis, training_strategies
    from derive.present.key.models import DerivedModel

    train = entry.train
    assert train is not None  # called for a problem with a training run
    run = training_analysis(entry.spec, train, operators)
    rows, winner = (
        training_strategies(entry.spec, train, operators)
        if q.COMPARE_STRATEGIES.name in entry.ask
        else ((), None)
    )
    series = () if train.plot is None else _training_series(entry, train, operators)
    return DerivedModel(model, training=run, strategies=rows, winner=winner, series=series)


def _training_series(
    entry: ModelEntry, train: TrainSpec, operators: tuple[str, ...]
) -> tuple[Series, ...]:
    """T_lower against the tokens per DP rank b for DP (ZeRO ≤ 2) and FSDP (ZeRO-3) on the
    run's devices, each curve marking its own critical batch (inside the plot's range)."""
    from dataclasses import replace

    from derive.figures.model import Series
    from derive.pipeline.cache import training_analysis
    from derive.training.analysis import t_lower_at

    plot = train.plot
    assert plot is not None  # called for a problem with a training plot
    runs = [
        (
            label,
            training_analysis(
                entry.spec, replace(train, zero=zero, keep_gathered_weights=keep), operators
            ),
        )
        for label, zero, keep in (
            ("DP (ZeRO ≤ 2)", "1", None),
            ("FSDP (ZeRO-3)", "3", train.keep_gathered_weights),
        )
    ]
    stars = [run.critical_tokens_per_device for _, run in runs]
    points = plot_xs(plot.start, plot.stop, [star for star in stars if star is not None])
    xs = tuple(sp.Integer(b) for b in points)
    return tuple(
        Series(
            label,
            xs,
            tuple(t_lower_at(run, b) for b in xs),
            star if star is not None and plot.start <= star <= plot.stop else None,
        )
        for (label, run), star in zip(runs, stars, strict=True)
    )


def _serving_series(
    problem: ModelProblem, serving: ServingSpec, cross: Crossover | None
) -> tuple[Series, ...]:
    """Decode tokens/s against the batch, one curve per context of the serving plot; the
    first curve marks the matmuls' crossover B* (when it is a number)."""
    from derive.figures.model import Series
    from derive.model.phase import at_batch_and_context, decode_rates
    from derive.problem.timing import bind_timing

    plot = serving.plot
    assert plot is not None  # called for a problem with a serving plot
    timing = bind_timing(serving.timing)
    mark = (
        cross.exact if cross is not None and cross.is_number and cross.exact is not None else None
    )
    batches = plot_xs(plot.start, plot.stop, [mark] if mark is not None else [])
    xs = tuple(sp.Integer(b) for b in batches)
    return tuple(
        Series(
            f"S = {length}",
            xs,
            decode_rates(
                at_batch_and_context(problem, plot.start, length),
                serving.tp,
                timing,
                batches,
                serving.mesh,
            ),
            mark if index == 0 else None,
        )
        for index, length in enumerate(plot.contexts)
    )


def _kernels(pset: ProblemSet) -> list[KernelNumbers]:
    """Every kernel problem of the set, derived (errors collected, in the file's own terms); a
    set with none loads no kernel module."""
    if not pset.kernels:
        return []
    from derive.pipeline.cache import kernel_analysis
    from derive.pipeline.kinds.kernel import KernelDerivation

    kernels, errors = [], []
    for entry in pset.kernels:
        try:
            kernels.append(kernel := kernel_analysis(entry.spec))
        except DeriveError as error:
            errors.append(in_file_terms(error, pset.source, entry.id))
            continue
        errors += _expect_errors(pset.source, entry, KernelDerivation(kernel, entry.spec))
    raise_collected(pset.source, errors)
    return kernels


def build_key(
    pset: ProblemSet,
    stem: str,
    registry: Registry | None = None,
    *,
    time_limit: float | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    errors: Sequence[DeriveError] = (),
) -> dict[str, str]:
    """Render every file of the key for a problem set, in memory: name → text.

    Args:
        pset: the problem set.
        stem: the files' common name.
        registry: the operators (default: :func:`~derive.problem.sets.registry.set_registry`, trusted).
        time_limit: seconds each problem may take (None: no limit); past it a
            :class:`~derive.errors.TimeLimitError` names the problem.
        jobs: worker processes deriving problems at once (output is the same for any number).
        progress: called as ``progress(done, total)`` after each problem.
        errors: errors already found in the file (parsing); they are raised together with
            the ones found here, one line each.
    """
    stem = safe_name(stem)
    registry = registry or set_registry(pset, trust=True)
    preload()  # once here rather than once in each worker
    for entry in pset.problems:  # the operators' files too (a name not known: the worker says so)
        with suppress(DeriveError):
            registry.get(entry.spec.operator)
    with workers(
        partial(_build_problem, pset, stem, registry), seconds=time_limit, jobs=jobs
    ) as pool:
        built = pool.each(
            len(pset.problems),
            name=lambda i: f"{pset.source}: problem {pset.problems[i].id!r}",
            on_done=progress,
        )
        return _assemble(pset, stem, registry, built, errors, time_limit, pool)


def _assemble(
    pset: ProblemSet,
    stem: str,
    registry: Registry,
    built: list[ProblemPart | ProblemError],
    errors: Sequence[DeriveError],
    time_limit: float | None,
    pool: Workers,
) -> dict[str, str]:
    """The key's files from the derived operator problems: the set's kernels, models,
    questions, budgets and what-ifs derived here, the figures drawn by ``pool``."""
    raise_collected(
        pset.source, [*errors, *(part for part in built if isinstance(part, ProblemError))]
    )
    parts = [part for part in built if isinstance(part, ProblemPart)]
    kernels = _kernels(pset)  # after the operators: cheap, here
    operators = tuple(str(path) for path in pset.operators)
    models, failed = [], []
    for entry in pset.models:  # every model problem's error at once, in the file's own terms
        try:
            models.append(derived := _model(entry, operators))
            if entry.expect:
                failed += _expect_errors(pset.source, entry, *_shown(entry, derived, operators))
        except DeriveError as exc:
            failed.append(in_file_terms(exc, pset.source, entry.id))
    raise_collected(pset.source, failed)
    answered = _questions(pset, registry, time_limit)
    natives = _natives(pset)
    return key_files(
        pset,
        stem,
        parts,
        kernels=kernels,
        models=models,
        pool=pool,
        answered=answered,
        natives=natives,
    )


def _natives(pset: ProblemSet) -> tuple[NativeProblem, ...]:
    """Every budget and what-if of the set, solved, its ``expect`` checked (to 0.5 %); the
    errors of all of them at once, each naming the file, the problem and the key."""
    if not pset.natives:  # the question layer loads only for a set that has some
        return ()
    from derive.pipeline.kinds import kind_of
    from derive.present.key.questions import NativeProblem
    from derive.questions.natives import native_answer, native_quantities

    out, errors = [], []  # type: list[NativeProblem], list[DeriveError]
    for entry in pset.natives:
        try:
            derived = kind_of(entry).derive(entry)
            has = native_quantities(entry)
            for name in entry.ask:
                if name not in has:
                    raise ProblemError(
                        f"{entry.where}: key 'ask'",
                        f"this problem has no {name!r}; its quantities: {', '.join(has)}",
                    )
            wrong = _expect_errors(pset.source, entry, cast("Shown", derived))
            if wrong:
                errors += wrong
                continue
            answers = tuple(native_answer(entry, name) for name in entry.ask or has)
            phrases = tuple(phrase_of(entry.kind, a.name) or a.name for a in answers)
            given = "; ".join(
                f"{_set_key(entry, key)} = {value}"
                for key, value in vars(entry.spec).items()
                if value is not None and key != "rate_unit"
            )
            document = derived.document(3)  # type: ignore[attr-defined]
            out.append(NativeProblem(entry, document, answers, phrases, given))
        except DeriveError as exc:
            errors.append(exc)
    raise_collected(pset.source, errors)
    return tuple(out)


def _set_key(entry: NativeEntry, field: str) -> str:
    """A spec's field as its set key (a what-if's measured rate by its unit's key)."""
    if field == "measured_rate":
        return cast("WhatIfSpec", entry.spec).rate_flag.removeprefix("--").replace("-", "_")
    return field


def _shown(entry: ModelEntry, derived: DerivedModel, operators: tuple[str, ...]) -> list[Shown]:
    """A model problem's derivations, the model's first: a serving step's or a run's value of
    a name they share wins (the step's ``cost_per_million_tokens``, the run's memory)."""
    from derive.pipeline import derive_model, derive_set_serving
    from derive.pipeline.kinds.training import TrainingDerivation

    shown: list[Shown] = [derive_model(entry.spec, operators)]
    if entry.serving is not None:
        shown.append(derive_set_serving(entry, operators))
    if derived.training is not None:
        shown.append(TrainingDerivation(derived.training))
    return shown


def _expect_errors(
    source: str,
    entry: ProblemEntry | KernelEntry | ModelEntry | NativeEntry,
    *shown: Shown,
    at: Problem | None = None,
) -> list[ProblemError]:
    """A problem's ``expect`` against the values its derivations ``shown`` give (by catalogue
    row, :meth:`~derive.pipeline.kinds.surface.Shown.values`; a later one's wins): one error
    per value they do not give, naming the quantity, the value stated and the value derived.

    A word or a truth matches as spelled (``true``, ``false``); a formula in the
    problem's dims identically, at the set's dims (``at``); a whole number of a dimensionless
    row (a count: parameters, a batch, a crossover's first integer), and any whole number of
    an operator's (its FLOPs at the set's dims), exactly; any other number to 0.5 % (:data:`~derive.questions.set_answers.EXPECT_RTOL`).
    """
    values = {row.name: (row, v.exact) for d in shown for row, v in d.values().items()}
    errors = []
    for name, text in entry.expect:
        what = f"{source}: problem {entry.id!r}: key 'expect' ({name})"
        row, got = values.get(name, (None, None))
        lacks = f"this problem has no {name!r}; its quantities: {', '.join(values) or 'none'}"
        try:
            why = _wrong(text, row, got, at, what) if row else lacks
        except DeriveError as error:
            why = error.why
        if why:
            errors.append(ProblemError(what, why))
    return errors


def _wrong(text: str, row: Quantity, got: Exact, at: Problem | None, what: str) -> str:
    """Why ``text`` is not ``got``, the value of ``row`` (as :func:`_expect_errors` judges),
    or "" when it is."""
    from derive.formula.reader import parse_formula
    from derive.formula.units import Dimension
    from derive.questions.set_answers import EXPECT_RTOL

    if isinstance(got, bool | str):
        ok = text.strip().lower() == str(got).lower()
    else:
        bound = at.bound_subs() if at is not None else {}
        got = got.xreplace(bound)
        dims = at.operator.dims if at is not None else got.free_symbols
        want = parse_formula(text, {str(d): d for d in dims}, "plain", what).expr
        diff = sp.cancel(want.xreplace(bound) - got)
        count = got.is_integer and (row.dimension is Dimension.COUNT or at is not None)
        near = diff.is_number and got.is_number and not count
        ok = bool(abs(diff) <= abs(got) * EXPECT_RTOL) if near else diff == 0
        got = sp.N(got, 6) if got.is_number and not got.is_integer else got
    return "" if ok else f"expected {text}, but the key derives {got}"


def _questions(
    pset: ProblemSet, registry: Registry, time_limit: float | None
) -> dict[str, Questions]:
    """Every problem's givens, definitions and equations, answered within the time budget,
    its ``expect`` of defined quantities checked (issue 23)."""
    if not any(getattr(e, "questions", None) is not None for e in pset.every_entry()):
        return {}
    from derive.questions.set_answers import answer_problem_set, check_expect

    answered = run_with_deadline(
        answer_problem_set, pset, registry, seconds=time_limit, what=f"{pset.source}: questions"
    )
    check_expect(pset, answered)
    return answered
