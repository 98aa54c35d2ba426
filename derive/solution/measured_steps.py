"""The worked-solution step for a measured run: MFU, MBU, the implied intensity, the verdict.

Reads :class:`~derive.analysis.measured.Measured`; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.measured import Measured, MeasuredVerdict
from derive.formula.decimals import fmt_decimal
from derive.solution.display import rounded
from derive.solution.notation import tex
from derive.solution.steps import Line, Rich, Step, StepKind, rich

__all__ = ["measured_step"]


def _rate_lines(measured: Measured, flops: sp.Expr | None, moved: sp.Expr | None) -> list[Line]:
    lines = []
    time = measured.time
    if measured.flops_per_s is not None:
        forms = (
            [r"\frac{\text{FLOPs}}{T_{\text{measured}}}", rf"\frac{{{tex(flops)}}}{{{tex(time)}}}"]
            if time is not None and flops is not None
            else []
        )
        lines.append(
            Line.of(
                r"\text{FLOP/s}",
                *forms,
                tex(measured.flops_per_s),
                approx=rounded(measured.flops_per_s),
            )
        )
    if measured.bytes_per_s is not None:
        forms = (
            [r"\frac{\text{bytes}}{T_{\text{measured}}}", rf"\frac{{{tex(moved)}}}{{{tex(time)}}}"]
            if time is not None and moved is not None
            else []
        )
        lines.append(
            Line.of(
                r"\text{bytes/s}",
                *forms,
                tex(measured.bytes_per_s),
                approx=rounded(measured.bytes_per_s),
            )
        )
    return lines


def measured_step(
    measured: Measured, flops: sp.Expr | None, moved: sp.Expr | None, peak: str, bandwidth: str
) -> Step:
    """MFU = FLOP/s ÷ π, MBU = bytes/s ÷ β, and MFU = MBU · I / (π/β) (topic ``measured``)."""
    lines = _rate_lines(measured, flops, moved)
    if measured.mfu is not None and measured.flops_per_s is not None:
        lines.append(
            Line.of(
                r"\text{MFU}",
                r"\frac{\text{FLOP/s}}{\pi}",
                rf"\frac{{{tex(measured.flops_per_s)}}}{{{peak}}}",
                tex(measured.mfu),
                approx=rounded(measured.mfu),
            )
        )
    if measured.mbu is not None and measured.bytes_per_s is not None:
        lines.append(
            Line.of(
                r"\text{MBU}",
                r"\frac{\text{bytes/s}}{\beta}",
                rf"\frac{{{tex(measured.bytes_per_s)}}}{{{bandwidth}}}",
                tex(measured.mbu),
                approx=rounded(measured.mbu),
            )
        )
    if measured.intensity is not None and measured.mbu is not None and measured.mfu is not None:
        lines += [
            Line.of(
                r"I_{\text{implied}}",
                r"\frac{\text{FLOP/s}}{\text{bytes/s}}",
                tex(measured.intensity),
                approx=rounded(measured.intensity),
            ),
            Line.of(
                r"\text{MFU}",
                r"\text{MBU} \cdot \frac{I}{\pi / \beta}",
                rf"{tex(measured.mbu)} \cdot \frac{{{tex(measured.intensity)}}}{{{tex(measured.ridge)}}}",
                tex(measured.mfu),
                approx=rounded(measured.mfu),
            ),
        ]
    notes: list[Rich] = []
    if measured.verdict is MeasuredVerdict.IMPOSSIBLE:
        beaten = " and the ".join(measured.beats)
        notes.append(
            rich(
                f"Impossible: this measurement beats the {beaten}"
                + (
                    f" (the step cannot take less than {fmt_decimal(measured.lower_bound)} s)"
                    if measured.lower_bound is not None and measured.lower_bound.is_number
                    else ""
                )
                + "; check the counts, the units or the timer."
            )
        )
    else:
        notes.append(rich("Possible: the measurement fits under every ceiling."))
    return Step(
        StepKind.MEASURED,
        "MFU = achieved FLOP/s ÷ peak, MBU = achieved bytes/s ÷ bandwidth, MFU = MBU · I / ridge",
        rich("The rates a measured run achieved, as fractions of the nominal ceilings."),
        tuple(lines),
        tuple(notes),
    )
