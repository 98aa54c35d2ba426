"""The operator kind: an operator declared over symbolic dims, bound to dtypes and a chip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.pipeline import CommsDerivation, Derivation, derive_operator
from derive.pipeline.kinds.protocol import Problem
from derive.problem.binding import ProblemSpec
from derive.problem.sets.problem_set import ASK_KEYS

__all__ = ["OperatorKind"]


@dataclass(frozen=True)
class OperatorKind:
    """An operator problem: a :class:`ProblemSpec`, or a set's :class:`ProblemEntry`."""

    kind: ProblemKind = ProblemKind.OPERATOR
    noun: str = "an operator problem"
    chains: bool = True

    def derive(
        self, problem: Problem, operators: Sequence[str | Path] = ()
    ) -> Derivation | CommsDerivation:
        """:func:`derive.pipeline.derive_operator` on the problem's spec."""
        spec = cast(ProblemSpec, problem.spec)  # KINDS is keyed by kind: an operator's problem
        return derive_operator(spec, operators)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every topic an operator's solution can show."""
        return getattr(problem, "ask", ()) or ASK_KEYS
