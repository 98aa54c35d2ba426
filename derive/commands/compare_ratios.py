"""``derive compare --baseline CHIP``: each row's ceilings and bound as ratios to a baseline.

For each row, the baseline is the baseline chip's row with the same compute dtype (the
chip's first dtype when it lacks it). Ratios are exact: peak, HBM bandwidth, ridge and,
when every dim is bound, the speedup T_lower(baseline) / T_lower(row). The speedup
*follows* a ceiling when it equals that ceiling's ratio: a memory-bound step gains the
bandwidth ratio, not the peak's (A100 → H100 in bf16: compute 3.17×, bandwidth 1.64×).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import sympy as sp

from derive.errors import ProblemError

if TYPE_CHECKING:
    from derive.commands.compare import CompareRow

__all__ = ["Follows", "Ratios", "ratios_to"]


class Follows(Enum):
    """Which ceiling's ratio the speedup equals."""

    COMPUTE = "compute"
    BANDWIDTH = "bandwidth"
    BOTH = "both"  # the two ratios are equal
    MIXED = "mixed"  # kernels bound on different ceilings: between the two
    NONE = "—"  # no bound dims, no speedup


@dataclass(frozen=True)
class Ratios:
    """A row against its baseline row (each ratio row ÷ baseline; speedup baseline ÷ row)."""

    chip: str
    row_compute: str
    baseline: str
    compute: str
    peak: sp.Expr
    bandwidth: sp.Expr
    ridge: sp.Expr
    speedup: sp.Expr | None
    follows: Follows


def _follows(speedup: sp.Expr | None, peak: sp.Expr, bandwidth: sp.Expr) -> Follows:
    if speedup is None:
        return Follows.NONE
    if speedup == peak and speedup == bandwidth:
        return Follows.BOTH
    if speedup == peak:
        return Follows.COMPUTE
    return Follows.BANDWIDTH if speedup == bandwidth else Follows.MIXED


def ratios_to(rows: list[CompareRow], baseline: list[CompareRow]) -> list[Ratios]:
    """One :class:`Ratios` per row against the baseline chip's rows."""
    if not baseline:
        raise ProblemError("--baseline", "the baseline chip has no row for these dtypes")
    by_dtype = {row.compute: row for row in baseline}
    out = []
    for row in rows:
        base = by_dtype.get(row.compute, baseline[0])
        peak = row.chip.peak(row.compute).value / base.chip.peak(base.compute).value
        bandwidth = row.chip.hbm.value / base.chip.hbm.value
        mine, theirs = row.analysis.t_lower, base.analysis.t_lower
        speedup = theirs / mine if mine is not None and theirs is not None else None
        out.append(
            Ratios(
                chip=row.chip.name,
                row_compute=row.compute,
                baseline=base.chip.name,
                compute=base.compute,
                peak=peak,
                bandwidth=bandwidth,
                ridge=peak / bandwidth,
                speedup=speedup,
                follows=_follows(speedup, peak, bandwidth),
            )
        )
    return out
