"""The decode-crossover kind: a model's decode asked without a batch, B solved for."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.errors import DeriveError, ProblemError
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.pipeline.kinds.surface import Shown
from derive.present.formats import Document
from derive.problem.sets.problem_set import ModelEntry

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover, PhaseAnalysis
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec


class ServingShown(Shown):
    """The surface of a serving problem's record (a step, or a decode's crossover alone):
    its quantities sit under ``serving`` in the model's JSON, and it is checked as a set's
    model problem with its phase."""

    spec: ModelSpec | None
    serving: ServingSpec | None
    phase: PhaseAnalysis | DecodeCrossover

    def as_problem(self) -> ModelEntry:
        """The problem this derivation answers (what ``derive.check`` judges a claim against).

        Raises:
            ProblemError: the record was built without its specs.
        """
        if self.spec is None or self.serving is None:
            raise ProblemError("problem", "a serving step without its specs: use solve_model")

        # an entry named after what it is, the step (its quantity group's name)
        return ModelEntry(q.STEP.name, "", "", self.spec, (), self.serving)

    kind = ProblemKind.SERVING
    """A serving step (or a decode's crossover: a serving problem without a batch)."""

    def _roots(self) -> tuple[object, ...]:
        return (self.phase,)


@dataclass(frozen=True, repr=False)
class DecodeCrossoverDerivation(ServingShown):
    """The decode crossover of a whole model asked without a batch: B solved, no step timed."""

    analysis: ModelAnalysis
    phase: DecodeCrossover
    spec: ModelSpec | None = None
    serving: ServingSpec | None = None

    kind = ProblemKind.DECODE_CROSSOVER
    """A decode's crossover (a serving problem without a batch: ``kind.parent``)."""

    def document(self, level: int = 2) -> Document:
        """The crossover's worked solution as a document, a section after the model's."""
        from derive.present.serving_step import crossover_document

        return crossover_document(self.phase, self.analysis, level=level)

    def as_json(self) -> dict:
        """The crossover's keys (``derive model --phase decode --format json``, ``serving``)."""
        from derive.present.serving_step import crossover_json

        return crossover_json(self.phase)


@dataclass(frozen=True)
class DecodeCrossoverKind(OneClaimAtATime):
    """A serving problem of a decode whose batch is free: a sub-kind of the serving step's (a
    set names it as a model problem with its phase; :meth:`covers` tells it apart)."""

    kind: ProblemKind = ProblemKind.DECODE_CROSSOVER
    noun: str = "a whole-model problem"

    def covers(self, problem: Problem, operators: Sequence[str | Path] = ()) -> bool:
        """Whether a serving problem is of this kind: a decode with no batch bound (a model
        that cannot be bound is not: its error comes when it is derived)."""
        from derive.model.symbols import batch
        from derive.pipeline.cache import model_analysis

        serving = getattr(problem, "serving", None)
        if serving is None or serving.phase != "decode":
            return False
        try:
            analysis = model_analysis(cast("ModelSpec", problem.spec), tuple(map(str, operators)))
        except DeriveError:
            return False
        return analysis.problem.value_of(batch) is None

    def derive(
        self, problem: Problem, operators: Sequence[str | Path] = ()
    ) -> DecodeCrossoverDerivation:
        """:func:`derive.pipeline.derive_serving_step` on a decode with no batch: B solved.

        Raises:
            ProblemError: its batch is bound (a serving step, not this kind).
        """
        from derive.pipeline.kinds.serving import derive_serving_step

        serving = cast(ModelEntry, problem).serving  # a set's serving problem
        if serving is None:
            raise ProblemError("problem", "a decode's crossover needs its phase (decode)")
        derived = derive_serving_step(cast("ModelSpec", problem.spec), serving, operators)
        if derived.kind is not self.kind:
            raise ProblemError("problem", "its batch is bound: a serving step, not its crossover")
        return cast(DecodeCrossoverDerivation, derived)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else the crossover (all a decode with no batch answers)."""

        return getattr(problem, "ask", ()) or (q.CROSSOVER.name,)
