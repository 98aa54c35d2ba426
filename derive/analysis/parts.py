"""Composite layers: the per-part breakdown and fused against unfused.

Reads an :class:`~derive.analysis.analyse.Analysis` of a :class:`~derive.declare.composite.Composite`;
computes per part FLOPs, bytes, intensity and time at the bound dims, and the
same layer unfused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from derive.analysis.algebra import cancel_ratio, substitute
from derive.analysis.analyse import Analysis, analyse
from derive.declare.composite import Composite, unfused

__all__ = ["LayerBreakdown", "PartRow", "breakdown"]


@dataclass(frozen=True)
class PartRow:
    """One part at the bound dims (formulas where dims are free)."""

    label: str
    operator: str
    flops: sp.Expr
    bytes: sp.Expr
    intensity: sp.Expr
    time: sp.Expr
    share: sp.Expr | None


@dataclass(frozen=True)
class LayerBreakdown:
    """Per-part rows, the dominant part, and the unfused layer for comparison."""

    rows: tuple[PartRow, ...]
    dominant: str | None
    unfused: Analysis | None


def _rows(a: Analysis) -> tuple[PartRow, ...]:
    op: Composite = a.problem.operator
    p = a.problem
    bound = p.bound_subs()
    rows = []
    for part in op.parts:
        flops = substitute(part.subs(part.operator.flops), bound)
        byts = substitute(
            sp.Add(*(t.bytes for t in a.memory.terms if op.part_of(t.tensor.name) == part.label)),
            bound,
        )
        time = (
            sp.Max(flops / p.peak.value, byts / p.bandwidth.value)
            if (flops / p.peak.value).is_number and byts.is_number
            else flops / p.peak.value
        )
        rows.append(
            PartRow(
                part.label,
                part.operator.name,
                flops,
                byts,
                cancel_ratio(flops, byts) if byts != 0 else sp.oo,
                time,
                None,
            )
        )
    if all(r.time.is_number for r in rows):
        total = sp.Add(*(r.time for r in rows))
        rows = [replace(r, share=r.time / total) for r in rows]
    return tuple(rows)


def _unfused(a: Analysis) -> Analysis:
    op: Composite = a.problem.operator
    plain = unfused(op)
    dtypes = dict(a.problem.dtypes)
    fallback = dtypes[op.reads[0].name] if op.reads else next(iter(dtypes.values()))
    bound_dtypes = tuple((n, dtypes.get(n, fallback)) for n in plain.tensor_names)
    return analyse(replace(a.problem, operator=plain, dtypes=bound_dtypes))


def breakdown(a: Analysis) -> LayerBreakdown:
    """The per-part breakdown of a composite's analysis."""
    rows = _rows(a)
    dominant = (
        max(rows, key=lambda r: r.share).label if rows and rows[0].share is not None else None
    )
    return LayerBreakdown(rows, dominant, _unfused(a) if a.problem.operator.fused else None)
