"""What every check needs: the analysed problem, how it was typed, and the tolerance."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.declare.registry import Registry
from derive.problem.binding import ProblemSpec

__all__ = ["DEFAULT_RTOL", "Context"]

DEFAULT_RTOL = "0.01"


@dataclass(frozen=True)
class Context:
    """An analysed problem with its spec (to rebind variants), registry and relative tolerance."""

    analysis: Analysis
    spec: ProblemSpec
    registry: Registry
    rtol: sp.Rational

    @property
    def symbols(self) -> dict[str, sp.Symbol]:
        """The names a claim may use: the operator's dims."""
        return {d.name: d for d in self.analysis.problem.operator.dims}

    @property
    def bound(self) -> dict[sp.Symbol, sp.Integer]:
        """Bound dims → values."""
        return self.analysis.problem.bound_subs()
