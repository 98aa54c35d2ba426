"""The step of a peak from the microarchitecture (``--peak-from``): units × FLOPs per unit per
clock × clock. Reads :class:`~derive.problem.peak_parts.PeakParts`; computes nothing."""

from __future__ import annotations

from derive.problem.peak_parts import PeakParts
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Step, StepKind, rich


def peak_steps(parts: PeakParts) -> tuple[Step, ...]:
    """One step: π = units · FLOPs per clock · clock."""
    line = Line.of(
        r"\pi",
        r"\text{units} \cdot \text{FLOPs/clock} \cdot f_{\text{clock}}",
        rf"{tex(parts.units)} \cdot {tex(parts.flops_per_clock)} \cdot {tex(parts.clock)}",
        tex(parts.peak),
        approx=tex_decimal(parts.peak) + r"\ \text{FLOP/s}",
    )
    return (
        Step(
            StepKind.PEAK_FROM_PARTS,
            "π = units × FLOPs per unit per clock × clock",
            rich(
                "Every unit retires its FLOPs each clock; the peak is their product, the "
                "ceiling used above."
            ),
            (line,),
            topic="peak",
        ),
    )
