"""What every check needs: the analysed problem, how it was typed, and the tolerance."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.declare.registry import Registry
from derive.errors import ProblemError
from derive.formula.decimals import parse_decimal
from derive.problem.binding import ProblemSpec

DEFAULT_RTOL = "0.01"


def parse_rtol(text: str) -> sp.Rational:
    """The tolerance as an exact rational in [0, 1): 0 accepts only the exact value.

    Raises:
        ProblemError: not a decimal, or not from 0 to less than 1.
    """
    value = parse_decimal(text, "--rtol")
    if not 0 <= value < 1:
        raise ProblemError(
            f"--rtol {text}",
            "must be a decimal from 0 (exact only) to less than 1 (0.01 is 1%)",
        )
    return value


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
