"""One operator's sharding at the bound dims: the collective, its bytes and time, and the
largest group before the link binds (``derive solve OP --shard DIM:P``).

Each group is the operator sharded (:func:`derive.declare.shard.shard_operator`) and analysed
like any other problem: the comparison reads those analyses, it does not recount.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.declare.collective import CollectiveKind

__all__ = ["ShardRow", "Sharding", "link_binds", "sharding_row"]

MAX_GROUPS = 24
"""The most divisors of the dim tried for the largest group."""


@dataclass(frozen=True)
class ShardRow:
    """One sharding analysed: the dim over a group, its collective and the step's bounds."""

    dim: str
    group: int
    collective: CollectiveKind
    sent: sp.Expr  # bytes one device sends
    t_comms: sp.Expr | None
    t_math: sp.Expr
    t_mem: sp.Expr
    t_lower: sp.Expr | None


@dataclass(frozen=True)
class Sharding:
    """The sharding asked for, the largest group before the link binds, the others compared."""

    row: ShardRow
    largest_group: int | None  # None: the link binds at every group tried (or no link)
    compared: tuple[ShardRow, ...] = ()


def sharding_row(dim: str, group: int, analysis: Analysis) -> ShardRow:
    """The row of one sharded operator's analysis (its one collective)."""
    (c,) = analysis.collectives
    return ShardRow(
        dim=dim,
        group=group,
        collective=c.collective.kind,
        sent=c.sent,
        t_comms=c.time,
        t_math=analysis.t_math,
        t_mem=analysis.memory.time,
        t_lower=analysis.t_lower,
    )


def link_binds(row: ShardRow) -> bool:
    """True when the collective takes longer than the compute and memory of the step."""
    if row.t_comms is None:
        return False
    return bool(row.t_comms > sp.Max(row.t_math, row.t_mem))


def largest_group(size: int, analysed: Callable[[int], ShardRow]) -> int | None:
    """The largest divisor P ≥ 2 of ``size`` (of the first :data:`MAX_GROUPS`) whose
    collective does not outlast the step's compute and memory."""
    divisors = [p for p in sp.divisors(size) if p >= 2][:MAX_GROUPS]
    fits = [p for p in divisors if not link_binds(analysed(p))]
    return max(fits) if fits else None
