"""The steps of a composite layer: the per-part table, and fused against unfused bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_tex, time_text
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import math_of, rounded_line

if TYPE_CHECKING:  # a layer's analysis (loaded with it: derive/analysis/analyse.py)
    from derive.analysis.parts import Fusion, LayerBreakdown


def parts_steps(layer: LayerBreakdown, fused: Analysis) -> list[Step]:
    """The per-part table and, when the layer fuses anything, fused against unfused."""
    header = ("part", "operator", q.FLOPS.prose, q.BYTES.prose, q.INTENSITY.prose, "time", "share")
    rows = []
    for row in layer.rows:
        time = Math(time_tex(row.time)) if row.time.is_number else Math(tex(row.time))
        share = f"{fmt_decimal(100 * row.share, 3)} %" if row.share is not None else "—"
        rows.append(
            (
                rich(row.label + (" (dominant)" if row.label == layer.dominant else "")),
                rich(row.operator),
                rich(math_of(row.flops)),
                rich(math_of(row.bytes)),
                _intensity_cell(row.intensity),
                rich(time),
                rich(share),
            )
        )
    dominant = f"{layer.dominant} dominates: it takes the largest share of the summed per-part times {_PART_TIME[layer.with_comms]}."
    notes = (rich(dominant),) if layer.dominant else ()
    reason = rich(
        "Each part's FLOPs and bytes in the layer's dims, at the bound dims; the layer's totals are their sums."
    )
    steps = [
        Step(
            StepKind.PARTS,
            f"layer = Σ parts; each part timed at {_PART_TIME[layer.with_comms]}",
            reason,
            (),
            notes,
            table=(header, *rows),
        )
    ]
    if layer.fusion is not None:
        steps.append(fusion_step(fused, layer.fusion))
    return steps


# a part's time: its roofline, plus the collectives it sends when some part sends one
_PART_TIME = {False: "max(T_math, T_mem)", True: "max(T_math, T_mem) + T_comms"}


def _intensity_cell(value: sp.Expr) -> Rich:
    if value == sp.oo:
        return rich("— (no bytes)")
    return rich(Math(tex(value) if not value.is_number or value.is_Integer else tex_decimal(value)))


def fusion_step(fused: Analysis, fusion: Fusion) -> Step:
    lines = [
        Line.of(r"\text{bytes}_{\text{unfused}}", tex(fusion.bytes_unfused)),
        Line.of(r"\text{bytes}_{\text{fused}}", tex(fusion.bytes_fused)),
        Line.of(
            r"\text{fusion savings}",
            r"\text{bytes}_{\text{unfused}} - \text{bytes}_{\text{fused}}",
            tex(fusion.savings),
        ),
        rounded_line(
            r"\frac{\text{bytes}_{\text{unfused}}}{\text{bytes}_{\text{fused}}}", value=fusion.ratio
        ),
    ]
    notes = [
        rich(
            f"Kept on chip (neither written nor read back): {', '.join(fusion.kept_on_chip)}; the weights still have to be read."
        )
    ]
    unfused = fusion.unfused
    if unfused.t_lower is not None and fused.t_lower is not None:
        notes.append(
            rich(
                f"Runtime lower bound: {time_text(unfused.t_lower)} unfused, {time_text(fused.t_lower)} fused."
            )
        )
    return Step(
        StepKind.FUSION,
        "fusion removes the intermediate's write and read",
        rich("The same layer with every intermediate written to memory and read back."),
        tuple(lines),
        tuple(notes),
    )
