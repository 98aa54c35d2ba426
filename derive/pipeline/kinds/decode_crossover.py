"""The decode-crossover kind: a model's decode asked without a batch, B solved for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from derive.catalogue import ProblemKind
from derive.errors import ProblemError
from derive.pipeline.kinds.surface import Shown
from derive.present.formats import Document, render
from derive.problem.sets.problem_set import ModelEntry

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec

__all__ = ["DecodeCrossoverDerivation", "ServingShown"]


class ServingShown(Shown):
    """The surface of a serving problem's record (a step, or a decode's crossover alone):
    its quantities sit under ``serving`` in the model's JSON, and it is checked as a set's
    model problem with its phase."""

    spec: ModelSpec | None
    serving: ServingSpec | None

    def as_problem(self) -> ModelEntry:
        """The problem this derivation answers (what ``derive.check`` judges a claim against).

        Raises:
            ProblemError: the record was built without its specs.
        """
        if self.spec is None or self.serving is None:
            raise ProblemError("problem", "a serving step without its specs: use solve_model")
        return ModelEntry("step", "", "", self.spec, (), self.serving)

    @property
    def kind(self) -> ProblemKind:
        """A serving step (or a decode's crossover: a serving problem without a batch)."""
        return ProblemKind.SERVING

    def _report(self) -> dict:
        return {"serving": self.as_json()}


@dataclass(frozen=True, repr=False)
class DecodeCrossoverDerivation(ServingShown):
    """The decode crossover of a whole model asked without a batch: B solved, no step timed."""

    analysis: ModelAnalysis
    phase: DecodeCrossover
    spec: ModelSpec | None = None
    serving: ServingSpec | None = None

    def document(self, level: int = 2) -> Document:
        """The crossover's worked solution as a document, a section after the model's."""
        from derive.present.serving_step import crossover_document

        return crossover_document(self.phase, self.analysis, level=level)

    def markdown(self, level: int = 2) -> str:
        """The crossover's worked solution, as a Markdown section after the model's."""
        return render(self.document(level), "md")

    def latex(self) -> str:
        """The crossover's worked solution, as a LaTeX fragment after the model's."""
        return render(self.document(), "tex")

    def as_json(self) -> dict:
        """The crossover's keys (``derive model --phase decode --format json``, ``serving``)."""
        from derive.present.serving_step import crossover_json

        return crossover_json(self.phase)
