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
implements :class:`Kind` (its ``derive`` calls its pipeline entry), add its row to
:data:`KINDS` and its member to ``ProblemKind``, whose ``judged_as`` names the claim path
that judges it (docs/architecture.md, "Adding a problem kind").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Generic, Protocol, TypeVar, cast

from derive.catalogue import ProblemKind
from derive.errors import ProblemError
from derive.pipeline.kinds.protocol import Derived, Kind, Problem

__all__ = ["KINDS", "Derived", "Kind", "Problem", "SubKind", "derived_kind", "kind_of"]

_K = TypeVar("_K", bound=Kind)


class _Table(Mapping[ProblemKind, _K], Generic[_K]):
    """A read-only table of kinds whose rows name their class as ``(module, class)`` in
    this package: a kind's module (and what it imports) loads when the kind is first looked
    up, so a command deriving operators does not import the training, serving or question
    layers (what that saves a cold key: benchmarks/README.md). Iterating gives every kind;
    the values are made once each."""

    def __init__(self, rows: Mapping[ProblemKind, tuple[str, str]]) -> None:
        self._rows = dict(rows)
        self._made: dict[ProblemKind, _K] = {}

    def __getitem__(self, kind: ProblemKind) -> _K:
        made = self._made.get(kind)
        if made is None:
            module, name = self._rows[kind]
            made = self._made[kind] = getattr(import_module(f"{__name__}.{module}"), name)()
        return made

    def __contains__(self, kind: object) -> bool:
        return kind in self._rows

    def __iter__(self) -> Iterator[ProblemKind]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"<kinds {', '.join(kind.name for kind in self._rows)}>"


KINDS: Mapping[ProblemKind, Kind] = _Table(
    {
        ProblemKind.OPERATOR: ("operator", "OperatorKind"),
        ProblemKind.KERNEL: ("kernel", "KernelKind"),
        ProblemKind.MODEL: ("model", "ModelKind"),
        ProblemKind.SERVING: ("serving", "ServingKind"),
        ProblemKind.TRAINING: ("training", "TrainingKind"),
        ProblemKind.BUDGET: ("native", "BudgetKind"),
        ProblemKind.WHAT_IF: ("native", "WhatIfKind"),
        ProblemKind.COMMS: ("comms", "CommsKind"),
        ProblemKind.DECODE_CROSSOVER: ("decode_crossover", "DecodeCrossoverKind"),
        ProblemKind.QUESTIONS: ("questions", "QuestionsKind"),
    }
)
"""The implementation of each kind derive answers (each loaded on first use)."""


class SubKind(Kind, Protocol):
    """A kind a problem of its parent kind (``kind.parent``) turns out to be once its
    operator or model is known: it says which problems it covers."""

    def covers(self, problem: Problem, operators: Sequence[str | Path] = ()) -> bool:
        """Whether a problem of the parent kind is of this kind."""
        ...


def derived_kind(problem: Problem, operators: Sequence[str | Path] = ()) -> ProblemKind:
    """The kind of what a problem derives to: its own, or the sub-kind that covers it (an
    operator problem whose operator only communicates is :attr:`ProblemKind.COMMS`; a
    derivation names its own kind).

    Raises:
        ProblemError: not a problem (see :func:`kind_of`).
    """
    kind = kind_of(problem).kind
    subs = (sub for sub in ProblemKind if sub.parent is kind and sub is not kind)
    for sub in subs:  # a sub-kind's module loads only for a problem of its parent
        if cast(SubKind, KINDS[sub]).covers(problem, operators):
            return sub
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
