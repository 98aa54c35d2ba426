"""The crossover: where compute time equals memory (or link) time, as a record.

Compute-bound means T_math ≥ T_mem, i.e. FLOPs/π ≥ bytes/β, i.e.

    g(x) = FLOPs·β − bytes·π ≥ 0        (bytes > 0, so sign g = sign(I − π/β))

This module holds the verdict (:class:`CrossoverStatus`) and the record (:class:`Crossover`)
that the solution, the presenters and the checks read. Solving is in
:mod:`derive.analysis.crossover.solve` (the decision tree), :mod:`derive.analysis.crossover.roots`
(g with numbers for coefficients) and :mod:`derive.analysis.crossover.bounds` (signs over
positive dims, the supremum of the intensity).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import sympy as sp


class CrossoverStatus(str, Enum):
    """Where the intensity stands against the ridge over every positive value of the dim.

    The values are the strings JSON output has always carried (a contract); a status
    prints, formats and compares as its value (``CROSSES == "crosses"``).
    """

    CROSSES = "crosses"  # memory-bound below the crossover, compute-bound from it on
    NEVER = "never"  # I < ridge for every x > 0 (or compute-bound only off the integers)
    ALWAYS = "always"  # I ≥ ridge for every x > 0
    UNDETERMINED = "undetermined"  # depends on unbound dims (see the crossover's note)

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


CROSSES, NEVER, ALWAYS, UNDETERMINED = (
    CrossoverStatus.CROSSES,
    CrossoverStatus.NEVER,
    CrossoverStatus.ALWAYS,
    CrossoverStatus.UNDETERMINED,
)


@dataclass(frozen=True)
class Crossover:
    """Where I(x) meets the ridge.

    Attributes:
        status: ``crosses``, ``never`` (I < ridge for every x > 0), ``always``
            (I ≥ ridge for every x > 0), or ``undetermined`` (see ``note``).
        exact: the root, a number or a closed form in the other dims; else None.
        min_compute_bound: smallest integer x ≥ 1 with T_math ≥ T_mem, when numeric.
        condition: for a closed form, an expression that must be > 0 for the root to exist.
        supremum: for ``never``, lim I(x) as x → ∞ (in the other dims).
        supremum_all: ``supremum`` as every remaining dim grows too, when finite.
        note: a sentence for the unusual cases.
        shortfall: for ``never``, how many times the ridge exceeds the largest intensity
            (``supremum_all``, else ``supremum``), when that is a positive number.
    """

    status: CrossoverStatus
    variable: sp.Symbol
    g: sp.Expr
    exact: sp.Expr | None = None
    min_compute_bound: int | None = None
    condition: sp.Expr | None = None
    supremum: sp.Expr | None = None
    supremum_all: sp.Expr | None = None
    note: str = ""
    shortfall: sp.Expr | None = None

    @property
    def is_number(self) -> bool:
        """True when the crossover is a number (not a formula in other dims)."""
        return self.exact is not None and self.exact.is_number
