"""The protocol every kind of problem implements, and the problems it takes.

A kind knows how a problem of it is derived (bound, analysed, its worked solution built)
and how a sentence names it; the stages look a kind up in :data:`derive.pipeline.kinds.KINDS`
by ``problem.kind`` instead of telling records apart with ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

from derive.catalogue import ProblemKind

if TYPE_CHECKING:  # types only: a kind's problems load with the kind (kinds/__init__.py)
    from derive.problem.binding import ProblemSpec
    from derive.problem.kernel_spec import KernelSpec
    from derive.problem.model_spec import ModelSpec
    from derive.problem.sets.kernels import KernelEntry
    from derive.problem.sets.natives import BudgetSpec, NativeEntry, WhatIfSpec
    from derive.problem.sets.problem_set import ModelEntry, ProblemEntry, QuestionEntry


Problem: TypeAlias = (
    "ProblemSpec | ProblemEntry | KernelSpec | KernelEntry | ModelSpec | ModelEntry"
    " | BudgetSpec | WhatIfSpec | NativeEntry | QuestionEntry"
)
"""A problem as typed (a spec) or of a problem set (an entry); each carries its ``kind``."""


class Derived(Protocol):
    """A derived problem: it renders its worked solution and its JSON report."""

    def markdown(self) -> str:
        """The worked solution, as Markdown."""
        ...

    def as_json(self) -> dict:
        """Every quantity, as exact strings."""
        ...


class OneClaimAtATime:
    """A kind whose claims are checked one quantity at a time (no typed derivation: ``chains``)."""

    chains = False


class Kind(Protocol):
    """What derive does with a problem of one kind.

    Attributes:
        kind: the kind (its ``problem.kind``).
        noun: how an error names a problem of the kind ("a kernel by its numbers").
        chains: whether a typed derivation (``derive check --chain``) is checked for it;
            otherwise its claims are checked one quantity at a time.
    """

    @property
    def kind(self) -> ProblemKind:
        """The kind."""
        ...

    @property
    def noun(self) -> str:
        """How an error names a problem of the kind."""
        ...

    @property
    def chains(self) -> bool:
        """Whether a typed derivation is checked for it."""
        ...

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> Derived:
        """Bind, analyse and build the worked solution (analyses shared through the cache).

        Raises:
            DeriveError: the problem cannot be bound or analysed.
        """
        ...

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """What the problem asks (a set's ``ask``), or what a problem of the kind answers."""
        ...
