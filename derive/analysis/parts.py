"""Composite layers: the per-part breakdown and fused against unfused.

Reads the pieces of a composite's analysis (its problem, its memory roofline and
the analysis of the same layer unfused); computes per part FLOPs, bytes, intensity
and time at the bound dims, and what fusion saves. :func:`~derive.analysis.analyse.analyse`
calls it once and keeps the result on the :class:`~derive.analysis.analyse.Analysis`
(``layer``), so the worked solution only reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.algebra.ratios import cancel_ratio
from derive.analysis.algebra.substitution import substitute
from derive.analysis.collectives import CollectiveTime
from derive.declare.composite import Composite, unfused
from derive.problem.binding import Problem

if TYPE_CHECKING:  # analyse imports this module; the records are only annotations here
    from derive.analysis.analyse import Analysis, Roofline


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
class Fusion:
    """The same layer unfused against the fused one, at the bound dims.

    Attributes:
        unfused: the analysis of the layer with every intermediate written and read back.
        bytes_fused: the fused layer's bytes at the bound dims.
        bytes_unfused: the unfused layer's bytes at the bound dims.
        ratio: bytes_unfused / bytes_fused in lowest terms.
        kept_on_chip: the tensors the unfused layer moves and the fused one does not.
    """

    unfused: Analysis
    bytes_fused: sp.Expr
    bytes_unfused: sp.Expr
    ratio: sp.Expr
    kept_on_chip: tuple[str, ...]

    @property
    def savings(self) -> sp.Expr:
        """The bytes the fused layer does not move: bytes_unfused − bytes_fused (issue 36)."""
        return sp.expand(self.bytes_unfused - self.bytes_fused)


@dataclass(frozen=True)
class LayerBreakdown:
    """Per-part rows, the dominant part, and the unfused layer for comparison.

    ``with_comms``: some part sends a collective, so part times include its T_comms
    (added when the part waits for it, overlapped under max when declared ``overlap=True``).
    """

    rows: tuple[PartRow, ...]
    dominant: str | None
    fusion: Fusion | None
    with_comms: bool = False

    @property
    def unfused(self) -> Analysis | None:
        """The analysis of the layer unfused (None when nothing is fused)."""
        return self.fusion.unfused if self.fusion is not None else None


def _composite(problem: Problem) -> Composite:
    if not isinstance(problem.operator, Composite):
        raise TypeError(f"{problem.operator.name} is not a composite layer")
    return problem.operator


def _comms_of(
    layer: Composite, collectives: Sequence[CollectiveTime]
) -> dict[str, tuple[sp.Expr, sp.Expr]]:
    """Per part label: (waited-for comms time, overlapped comms time) of its timed collectives."""
    out: dict[str, tuple[sp.Expr, sp.Expr]] = {}
    for timed in collectives:
        if timed.time is None:
            continue
        label = layer.part_of(timed.collective.name)
        waited, overlapped = out.get(label, (sp.Integer(0), sp.Integer(0)))
        if timed.collective.overlap:
            overlapped = sp.Max(overlapped, timed.time)
        else:
            waited = waited + timed.time
        out[label] = (waited, overlapped)
    return out


def _rows(
    problem: Problem, memory: Roofline, collectives: Sequence[CollectiveTime] = ()
) -> tuple[PartRow, ...]:
    layer = _composite(problem)
    comms = _comms_of(layer, collectives)
    bound = problem.bound_subs()
    peak, bandwidth = problem.peak.value, problem.bandwidth.value
    rows = []
    for part in layer.parts:
        flops = substitute(part.subs(part.operator.flops), bound)
        own = (t.bytes for t in memory.terms if layer.part_of(t.tensor.name) == part.label)
        part_bytes = substitute(sp.Add(*own), bound)
        time = flops / peak
        if time.is_number and part_bytes.is_number:
            time = sp.Max(time, part_bytes / bandwidth)
        if part.label in comms and time.is_number:
            waited, overlapped = comms[part.label]
            time = sp.Max(time, overlapped) + waited
        intensity = cancel_ratio(flops, part_bytes) if part_bytes != 0 else sp.oo
        row = PartRow(part.label, part.operator.name, flops, part_bytes, intensity, time, None)
        rows.append(row)
    if all(row.time.is_number for row in rows):
        total = sp.Add(*(row.time for row in rows))
        rows = [replace(row, share=row.time / total) for row in rows]
    return tuple(rows)


def unfused_problem(problem: Problem) -> Problem | None:
    """The same problem on the layer unfused, or None when the layer fuses nothing.

    Tensors only the unfused layer has (the intermediates) take their own dtype
    (declared, ``--dtype up_Z=bf16`` or a bare ``--dtype``), else the dtype of the layer's
    first read tensor.
    """
    layer = _composite(problem)
    if not layer.fused:
        return None
    plain = unfused(layer)
    dtypes = dict(problem.dtypes) | dict(problem.intermediate_dtypes)
    fallback = dtypes[layer.reads[0].name] if layer.reads else next(iter(dtypes.values()))
    bound_dtypes = tuple((name, dtypes.get(name, fallback)) for name in plain.tensor_names)
    return replace(problem, operator=plain, dtypes=bound_dtypes)


def _fusion(fused: Analysis, plain: Analysis) -> Fusion:
    bound = fused.problem.bound_subs()
    bytes_fused = substitute(fused.memory.bytes, bound)
    bytes_unfused = substitute(plain.memory.bytes, bound)
    kept = {t.name for t in plain.problem.operator.memory_tensors} - {
        t.name for t in fused.problem.operator.memory_tensors
    }
    ratio = cancel_ratio(bytes_unfused, bytes_fused)
    return Fusion(plain, bytes_fused, bytes_unfused, ratio, tuple(sorted(kept)))


def breakdown(analysis: Analysis, plain: Analysis | None) -> LayerBreakdown:
    """The per-part breakdown of a composite's analysis (``plain``: the layer unfused, if fused)."""
    timed = tuple(c for c in analysis.collectives if c.time is not None)
    rows = _rows(analysis.problem, analysis.memory, timed)
    dominant = None
    if rows and rows[0].share is not None:
        dominant = max(rows, key=lambda row: row.share if row.share is not None else 0).label
    fusion = _fusion(analysis, plain) if plain is not None else None
    return LayerBreakdown(rows, dominant, fusion, with_comms=bool(timed))
