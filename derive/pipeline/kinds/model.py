"""The model kind: a whole model (parameters, KV cache, memory fit, training totals)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.pipeline import ModelDerivation, derive_model
from derive.pipeline.kinds.protocol import Problem
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.problem_set import MODEL_ASK_KEYS

__all__ = ["ModelKind", "model_spec_of"]


def model_spec_of(problem: Problem) -> ModelSpec:
    """The model a model or serving problem is about."""
    return cast(ModelSpec, problem.spec)  # KINDS is keyed by kind: a model's problem


@dataclass(frozen=True)
class ModelKind:
    """A whole model: a :class:`ModelSpec`, or a set's :class:`ModelEntry` without a ``phase``."""

    kind: ProblemKind = ProblemKind.MODEL
    noun: str = "a whole-model problem"
    chains: bool = False

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> ModelDerivation:
        """:func:`derive.pipeline.derive_model`."""
        return derive_model(model_spec_of(problem), operators)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every quantity a model answers."""
        return getattr(problem, "ask", ()) or MODEL_ASK_KEYS
