"""The questions of a whole problem set, answered in the order their references need.

A problem's formulas may name ``<id>.<quantity>`` of another problem, its defined
quantities and unknowns included, so the problems are answered in an order where each
comes after the problems it names; a cycle of references between problems is refused,
naming it. A problem's own quantities are asked for (``quantities(id)``) only when it
has questions or another problem names it: deriving is the costly part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from sympy import Rational

from derive.errors import ProblemError
from derive.problem.question_spec import QuestionSpec
from derive.questions.records import Known, Questions
from derive.questions.solve import answer_questions, ordered, references_of

if TYPE_CHECKING:
    from derive.declare.registry import Registry
    from derive.problem.sets.problem_set import ProblemSet


EXPECT_RTOL = Rational(1, 200)
"""How close a derived value must come to a problem's ``expect`` (0.5 %)."""


def as_known(questions: Questions) -> dict[str, Known]:
    """A problem's answers as quantities another problem may name."""
    return {
        a.name: Known(a.name, a.value, a.measure, f"a {a.role.value} quantity")
        for a in questions.answers
    }


def answer_set(
    problems: Sequence[tuple[str, QuestionSpec | None]],
    quantities: Callable[[str], Mapping[str, Known]],
) -> dict[str, Questions]:
    """Answer every problem's questions; ``quantities(id)`` gives a problem's own quantities.

    Raises:
        ProblemError: a cycle of references between problems, or any problem's own error.
    """
    specs = dict(problems)
    ids = {pid: pid for pid in specs}
    for spec in specs.values():  # issue 37: a name that is also a problem's id is ambiguous
        for key, pairs in (
            ("given", spec.given if spec else ()),
            ("define", spec.define if spec else ()),
        ):
            for name, _ in pairs:
                if spec is not None and name in ids:
                    raise ProblemError(
                        spec.label(key, name),
                        f"{name!r} is the id of a problem of this set; choose another name",
                    )
    refs = {
        pid: tuple(r for r in references_of(spec, ids) if r != pid)
        for pid, spec in specs.items()
        if spec is not None
    }

    def cycle(path: list[str]) -> ProblemError:
        spec = specs[path[-2]]
        assert spec is not None  # only problems with questions name others
        return ProblemError(spec.label("define"), "a cycle of references: " + " -> ".join(path))

    order = ordered(specs, refs, cycle)
    tables: dict[str, dict[str, Known]] = {}

    def table(pid: str) -> dict[str, Known]:
        if pid not in tables:
            tables[pid] = dict(quantities(pid))
        return tables[pid]

    answered: dict[str, Questions] = {}
    for pid in order:
        spec = specs[pid]
        if spec is None:
            continue
        others = {ref: table(ref) for ref in refs[pid]}
        answered[pid] = answer_questions(spec, table(pid), others, pid)
        table(pid).update(as_known(answered[pid]))
    return answered


def entry_quantities(
    pset: ProblemSet, pid: str, registry: Registry | None = None
) -> dict[str, Known]:
    """The dims and quantities of problem ``pid`` of a set, by their JSON names (each kind's
    catalogue rows read from its analysis, :func:`~derive.questions.quantities.quantities_of`)."""
    from derive.analysis.analyse import analyse
    from derive.analysis.comms_only import analyse_comms
    from derive.analysis.kernel_numbers import kernel_of
    from derive.model.analysis import analyse_model
    from derive.model.binding import bind_model
    from derive.model.phase import analyse_phase, parse_phase
    from derive.model.registry import load_models
    from derive.problem.binding import bind
    from derive.problem.comms_binding import bind_comms, only_communicates
    from derive.problem.sets.kernels import KernelEntry
    from derive.problem.sets.problem_set import ModelEntry, ProblemEntry
    from derive.problem.sets.registry import set_registry
    from derive.problem.timing import bind_timing
    from derive.questions.quantities import quantities_of
    from derive.training.analysis import analyse_training
    from derive.training.binding import bind_training

    entry = next(e for e in pset.every_entry() if e.id == pid)
    if isinstance(entry, ProblemEntry):
        registry = registry or set_registry(pset, trust=False)
        operator = registry.get(entry.spec.operator)
        if only_communicates(operator):  # timed on its link: t_comms, bytes_sent, …
            return quantities_of(analyse_comms(bind_comms(entry.spec, operator)))
        return quantities_of(analyse(bind(entry.spec, operator)))
    if isinstance(entry, ModelEntry):
        models = load_models(pset.operators)
        a = analyse_model(bind_model(entry.spec, models.get(entry.spec.model)))
        phase = None
        if entry.serving is not None:
            phase = analyse_phase(
                a.problem,
                parse_phase(entry.serving.phase),
                entry.serving.tp,
                bind_timing(entry.serving.timing),
                crossovers=False,
                mesh=entry.serving.mesh,
            )
        table = quantities_of(a, phase)
        if entry.train is not None:  # the run's names: t_lower, bubble_fraction, dp, …
            table.update(quantities_of(analyse_training(bind_training(entry.train, a))))
        return table
    if isinstance(entry, KernelEntry):
        return quantities_of(kernel_of(entry.spec))
    return {}


def answer_problem_set(pset: ProblemSet, registry: Registry | None = None) -> dict[str, Questions]:
    """Every problem's givens, definitions and equations answered, by problem id.

    Raises:
        ProblemError: one line naming the file, the problem and the key.
    """
    problems = [(e.id, getattr(e, "questions", None)) for e in pset.every_entry()]
    if not any(spec is not None for _, spec in problems):
        return {}
    return answer_set(problems, lambda pid: entry_quantities(pset, pid, registry))


def check_expect(pset: ProblemSet, answered: Mapping[str, Questions]) -> None:
    """A problem's ``expect`` of a defined quantity must match its exact value (to 0.5 %)."""
    from derive.formula.limits import RejectError
    from derive.questions.read import read_formula

    for entry in pset.every_entry():
        spec = getattr(entry, "questions", None)
        if spec is None or entry.id not in answered:
            continue
        for name, text in spec.expect:
            got = answered[entry.id].answer(name)
            try:
                want = read_formula(text, {})
            except RejectError as reject:
                raise ProblemError(spec.label("expect", name), reject.why) from None
            if got is None or not got.value.is_number:
                raise ProblemError(spec.label("expect", name), "the key derives no number for it")
            if want.measure.exponents != got.measure.exponents or abs(
                got.value - want.value
            ) > EXPECT_RTOL * abs(got.value):
                raise ProblemError(
                    spec.label("expect", name),
                    f"expected {text}, derived {float(got.value):.6g} {got.unit}".rstrip(),
                )
