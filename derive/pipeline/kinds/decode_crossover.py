"""The decode-crossover kind: a model's decode asked without a batch, B solved for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from derive.present.formats import Document, render

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover

__all__ = ["DecodeCrossoverDerivation"]


@dataclass(frozen=True)
class DecodeCrossoverDerivation:
    """The decode crossover of a whole model asked without a batch: B solved, no step timed."""

    analysis: ModelAnalysis
    phase: DecodeCrossover

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
