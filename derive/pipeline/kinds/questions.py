"""The questions-only kind: givens, defined quantities and equations, alone or after a problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind, Quantity
from derive.declare.registry import Registry
from derive.errors import ProblemError
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.pipeline.kinds.surface import Shown
from derive.problem.sets.problem_set import QuestionEntry

if TYPE_CHECKING:
    from derive.present.formats import Document
    from derive.problem.question_spec import QuestionSpec
    from derive.problem.sets.problem_set import ProblemSet
    from derive.questions.records import Known, Questions


def _items(value: Mapping[str, object] | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    if isinstance(value, Mapping):
        return tuple(f"{k}={v}" for k, v in value.items())
    return tuple(value)


# -- questions: givens, defined quantities, equations --------------------------------------


def question_spec_of(
    given: Mapping[str, str] | tuple[str, ...] | list[str] = (),
    define: Mapping[str, str] | tuple[str, ...] | list[str] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
) -> QuestionSpec | None:
    """The questions of ``--given/--define/--equation/--unknown`` (or the Python keywords)."""
    from derive.problem.question_spec import question_spec_from_flags

    return question_spec_from_flags(_items(given), _items(define), equations, unknowns)


def answer_one(spec: QuestionSpec, own: Mapping[str, Known] | None = None) -> Questions:
    """Answer one problem's questions over its own quantities (none: givens alone)."""
    from derive.questions.solve import answer_questions

    return answer_questions(spec, own or {})


def answer_for(spec: QuestionSpec, analysis: object, phase: object = None) -> Questions:
    """A problem's questions over the quantities of its kind (an operator, a comms-only
    operator, a kernel, a model, and a serving step's)."""
    from derive.questions.quantities import explain_missing, quantities_of

    try:
        return answer_one(spec, quantities_of(analysis, phase))
    except ProblemError as error:
        raise explain_missing(error, analysis) from None


def solve_questions(
    given: Mapping[str, str] | tuple[str, ...] = (),
    define: Mapping[str, str] | tuple[str, ...] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
) -> Questions:
    """A problem of givens, definitions and equations alone (``derive solve --given …``)."""

    spec = question_spec_of(given, define, equations, unknowns)
    if spec is None or not spec.answers:
        raise ProblemError(
            "derive solve", "give an operator, or --define or --equation with --unknown"
        )
    return answer_one(spec)


def entry_quantities(
    pset: ProblemSet, pid: str, registry: Registry | None = None
) -> dict[str, Known]:
    """The dims and quantities of problem ``pid`` of a set, by their JSON names."""
    from derive.questions.set_answers import entry_quantities as quantities_of

    return quantities_of(pset, pid, registry)


def answer_set_questions(
    pset: ProblemSet, registry: Registry | None = None
) -> dict[str, Questions]:
    """Every problem's givens, definitions and equations answered, by problem id.

    Raises:
        ProblemError: one line naming the file, the problem and the key.
    """
    from derive.questions.set_answers import answer_problem_set

    return answer_problem_set(pset, registry)


def _with_questions_json(out: dict, questions: Questions | None) -> dict:
    if questions is None:
        return out
    from derive.present.questions_view import questions_json

    return {**out, **questions_json(questions)}


# -- the kind: a problem of givens, definitions and equations alone -----------------------


@dataclass(frozen=True, repr=False)
class QuestionsDerivation(Shown):
    """A problem of givens, defined quantities and equations alone, answered: no catalogue
    quantity (its names are its own: ``questions.answers``)."""

    questions: Questions

    kind = ProblemKind.QUESTIONS
    """Givens and equations alone."""

    def _rows(self) -> tuple[Quantity, ...]:
        return ()

    def document(self, level: int = 3) -> Document:
        """The answers as a document (Markdown, LaTeX and JSON)."""
        from derive.present.questions_view import questions_document

        return questions_document(self.questions, level)

    def as_json(self) -> dict:
        """The answers as JSON (``given``, ``defined``, ``solved`` …)."""
        from derive.present.questions_view import questions_json

        return questions_json(self.questions)

    def __repr__(self) -> str:
        names = ", ".join(a.name for a in self.questions.answers[:3])
        return f"<QuestionsDerivation: {names or 'no answers'}>"


@dataclass(frozen=True)
class QuestionsKind(OneClaimAtATime):
    """A set's problem of givens, definitions and equations alone (a :class:`QuestionEntry`)."""

    kind: ProblemKind = ProblemKind.QUESTIONS
    noun: str = "a problem of givens and equations alone"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> QuestionsDerivation:
        """Its questions answered over its givens alone."""
        entry = cast(QuestionEntry, problem)  # KINDS is keyed by kind: a questions-only entry
        return QuestionsDerivation(replace(answer_one(entry.questions), problem=entry.id))

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else its defined quantities and unknowns."""
        entry = cast(QuestionEntry, problem)
        return entry.ask or tuple(entry.questions.answers)
