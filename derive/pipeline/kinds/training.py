"""The training kind: one training step of a model on a cluster (dp, tp, pp, ZeRO)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.errors import ProblemError
from derive.pipeline import TrainingDerivation, derive_training
from derive.pipeline.kinds.model import model_spec_of
from derive.pipeline.kinds.protocol import Problem
from derive.problem.sets.problem_set import ModelEntry
from derive.problem.train_spec import TRAIN_ASK_KEYS

__all__ = ["TrainingKind"]


@dataclass(frozen=True)
class TrainingKind:
    """A training run: a set's :class:`ModelEntry` with ``train = {…}`` (``derive train``)."""

    kind: ProblemKind = ProblemKind.TRAINING
    noun: str = "a whole-model problem"
    chains: bool = False

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> TrainingDerivation:
        """:func:`derive.pipeline.derive_training` on the model and its run."""
        train = cast(ModelEntry, problem).train  # KINDS is keyed by kind: a set's run
        if train is None:
            raise ProblemError("problem", "a training run needs a train = { … } table")
        asks = getattr(problem, "ask", ())
        return derive_training(
            model_spec_of(problem), train, operators, "compare_strategies" in asks
        )

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every quantity of the run."""
        return getattr(problem, "ask", ()) or TRAIN_ASK_KEYS
