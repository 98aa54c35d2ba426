"""Every kind of problem derive answers, behind one protocol (:class:`Kind`).

Each spec and problem-set entry carries its :class:`~derive.catalogue.ProblemKind`
(``problem.kind``); :data:`KINDS` maps it to the kind's implementation, one module each:

>>> from derive.problem.kernel_spec import KernelSpec
>>> problem = KernelSpec(intensity="20", chip="h100")
>>> kind_of(problem).noun
'a kernel by its numbers'
>>> kind_of(problem).derive(problem).kernel.attainable  # 20 FLOPs/byte · 3.35e12 B/s
67000000000000

To add a kind (a training step): write ``training.py`` here with a frozen class that
implements :class:`Kind` (its ``derive`` calls its pipeline entry), and add its row to
:data:`KINDS`; the checker judges its claims once ``derive.checking.api`` has its row too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from derive.catalogue import ProblemKind
from derive.errors import ProblemError
from derive.pipeline.kinds.comms import CommsKind
from derive.pipeline.kinds.decode_crossover import DecodeCrossoverKind
from derive.pipeline.kinds.kernel import KernelKind
from derive.pipeline.kinds.model import ModelKind
from derive.pipeline.kinds.native import BudgetKind, WhatIfKind
from derive.pipeline.kinds.operator import OperatorKind
from derive.pipeline.kinds.protocol import Derived, Kind, Problem
from derive.pipeline.kinds.questions import QuestionsKind
from derive.pipeline.kinds.serving import ServingKind
from derive.pipeline.kinds.training import TrainingKind

__all__ = ["KINDS", "SUB_KINDS", "Derived", "Kind", "Problem", "SubKind", "derived_kind", "kind_of"]

KINDS: Mapping[ProblemKind, Kind] = MappingProxyType(
    {
        ProblemKind.OPERATOR: OperatorKind(),
        ProblemKind.KERNEL: KernelKind(),
        ProblemKind.MODEL: ModelKind(),
        ProblemKind.SERVING: ServingKind(),
        ProblemKind.TRAINING: TrainingKind(),
        ProblemKind.BUDGET: BudgetKind(),
        ProblemKind.WHAT_IF: WhatIfKind(),
        ProblemKind.COMMS: CommsKind(),
        ProblemKind.DECODE_CROSSOVER: DecodeCrossoverKind(),
        ProblemKind.QUESTIONS: QuestionsKind(),
    }
)
"""The implementation of each kind derive answers."""


class SubKind(Kind, Protocol):
    """A kind a problem of its parent kind (``kind.parent``) turns out to be once its
    operator or model is known: it says which problems it covers."""

    def covers(self, problem: Problem, operators: Sequence[str | Path] = ()) -> bool:
        """Whether a problem of the parent kind is of this kind."""
        ...


SUB_KINDS: Mapping[ProblemKind, SubKind] = MappingProxyType(
    {
        ProblemKind.COMMS: CommsKind(),
        ProblemKind.DECODE_CROSSOVER: DecodeCrossoverKind(),
    }
)
"""Each sub-kind (a kind whose ``parent`` is another), which tells its problems apart."""


def derived_kind(problem: Problem, operators: Sequence[str | Path] = ()) -> ProblemKind:
    """The kind of what a problem derives to: its own, or the sub-kind that covers it (an
    operator problem whose operator only communicates is :attr:`ProblemKind.COMMS`; a
    derivation names its own kind).

    Raises:
        ProblemError: not a problem (see :func:`kind_of`).
    """
    kind = kind_of(problem).kind
    for sub in SUB_KINDS.values():
        if sub.kind.parent is kind and sub.covers(problem, operators):
            return sub.kind
    return kind


def kind_of(problem: Problem) -> Kind:
    """The kind of a problem (a spec or a set's entry).

    Raises:
        ProblemError: not a problem, or a kind derive does not answer yet.
    """
    kind = getattr(problem, "kind", None)
    if not isinstance(kind, ProblemKind):
        raise ProblemError(
            "problem",
            "expected a ProblemSpec, a ModelSpec, a KernelSpec or a problem of a problem set, "
            f"got {type(problem).__name__}",
        )
    if kind not in KINDS:
        raise ProblemError("problem", f"{kind.label}: not derived yet")
    return KINDS[kind]
