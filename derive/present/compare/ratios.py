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
from derive.formula.decimals import fmt_decimal

if TYPE_CHECKING:
    from derive.present.compare.table import CompareRow
    from derive.problem.chips import Chip


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


def ratio_of(
    row: tuple[Chip, str, sp.Expr | None], base: tuple[Chip, str, sp.Expr | None]
) -> Ratios:
    """A row against a baseline row, each given as (chip, compute dtype, T_lower or None)."""
    (chip, compute, mine), (base_chip, base_compute, theirs) = row, base
    peak = chip.peak(compute).value / base_chip.peak(base_compute).value
    bandwidth = chip.hbm.value / base_chip.hbm.value
    speedup = theirs / mine if mine is not None and theirs is not None else None
    return Ratios(
        chip=chip.name,
        row_compute=compute,
        baseline=base_chip.name,
        compute=base_compute,
        peak=peak,
        bandwidth=bandwidth,
        ridge=peak / bandwidth,
        speedup=speedup,
        follows=_follows(speedup, peak, bandwidth),
    )


def ratios_to(rows: list[CompareRow], baseline: list[CompareRow]) -> list[Ratios]:
    """One :class:`Ratios` per row against the baseline chip's rows."""
    if not baseline:
        raise ProblemError("--baseline", "the baseline chip has no row for these dtypes")
    by_dtype = {row.compute: row for row in baseline}
    out = []
    for row in rows:
        base = by_dtype.get(row.compute, baseline[0])
        out.append(
            ratio_of(
                (row.chip, row.compute, row.analysis.t_lower),
                (base.chip, base.compute, base.analysis.t_lower),
            )
        )
    return out


_FOLLOWS_WORDS = {
    Follows.MIXED: "is mixed: it follows neither ratio alone (kernels bound on different ceilings, on the link, or fixed latencies)"
}


def follows_note(ratios: list[Ratios]) -> str:
    """One line per row whose speedup is known: which ceiling it follows."""
    lines = []
    for ratio in ratios:
        if ratio.speedup is None:
            continue
        lines.append(
            f"- {ratio.chip} ({ratio.row_compute}) against {ratio.baseline} ({ratio.compute}): compute ×{fmt_decimal(ratio.peak, 3)}, "
            f"bandwidth ×{fmt_decimal(ratio.bandwidth, 3)}; the speedup ×{fmt_decimal(ratio.speedup, 3)} "
            + _FOLLOWS_WORDS.get(ratio.follows, f"follows {ratio.follows.value}")
        )
    return ("\n" + "\n".join(lines) + "\n") if lines else ""
