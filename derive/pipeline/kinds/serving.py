"""The serving kind: one prefill or decode step of a model on a group of devices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.errors import ProblemError
from derive.pipeline import ServingDerivation, derive_serving
from derive.pipeline.kinds.model import model_spec_of
from derive.pipeline.kinds.protocol import Problem
from derive.problem.serving_spec import SERVING_ASK_KEYS
from derive.problem.sets.problem_set import MODEL_ASK_KEYS, ModelEntry

__all__ = ["ServingKind"]


@dataclass(frozen=True)
class ServingKind:
    """A serving step: a set's :class:`ModelEntry` with a ``phase`` (``derive model --phase``)."""

    kind: ProblemKind = ProblemKind.SERVING
    noun: str = "a whole-model problem"
    chains: bool = False

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> ServingDerivation:
        """:func:`derive.pipeline.derive_serving` on the model and its step."""
        serving = cast(ModelEntry, problem).serving  # KINDS is keyed by kind: a set's step
        if serving is None:
            raise ProblemError("problem", "a serving step needs a phase (decode or prefill)")
        return derive_serving(model_spec_of(problem), serving, operators)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else the model's quantities and the step's."""
        return getattr(problem, "ask", ()) or MODEL_ASK_KEYS + SERVING_ASK_KEYS
