"""The worked-solution step for a measured run: MFU, MBU, the implied intensity, the verdict.

Reads :class:`~derive.analysis.measured.Measured`; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.measured import Measured, MeasuredVerdict
from derive.formula.decimals import fmt_decimal, fmt_ending_decimal
from derive.solution.display import rounded
from derive.solution.notation import tex, tex_text_number
from derive.solution.steps import Line, Rich, Step, StepKind, rich

__all__ = ["measured_step"]


def as_given(value: sp.Expr) -> str:
    """A measured number as it was typed, a decimal (``0.0013``, ``1.3 \\times 10^{-7}``), when
    its decimal ends; else its exact fraction. A fraction inside a fraction prints too small
    to read."""
    if value.is_Rational and not value.is_Integer:
        text = fmt_ending_decimal(value)
        if text is not None:
            return tex_text_number(text)
    return tex(value)


def _from_intensity(measured: Measured, rate: str) -> list[str]:
    """How a rate that was not measured follows from the other and the kernel's intensity."""
    if measured.from_intensity != rate or not (measured.flops_per_s and measured.bytes_per_s):
        return []
    intensity = tex(measured.flops_per_s / measured.bytes_per_s)
    if rate == "flops_per_s":
        return [r"\text{bytes/s} \cdot I", rf"{tex(measured.bytes_per_s)} \cdot {intensity}"]
    return [r"\frac{\text{FLOP/s}}{I}", rf"\frac{{{tex(measured.flops_per_s)}}}{{{intensity}}}"]


def _rate_lines(measured: Measured, flops: sp.Expr | None, moved: sp.Expr | None) -> list[Line]:
    lines = []
    time = measured.time
    if measured.flops_per_s is not None:
        forms = (
            [
                r"\frac{\text{FLOPs}}{T_{\text{measured}}}",
                rf"\frac{{{tex(flops)}}}{{{as_given(time)}}}",
            ]
            if time is not None and flops is not None
            else _from_intensity(measured, "flops_per_s")
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
            [
                r"\frac{\text{bytes}}{T_{\text{measured}}}",
                rf"\frac{{{tex(moved)}}}{{{as_given(time)}}}",
            ]
            if time is not None and moved is not None
            else _from_intensity(measured, "bytes_per_s")
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
                rf"\frac{{{tex(flops)}}}{{{as_given(measured.time)} \cdot {peak}}}"
                if measured.time is not None and flops is not None
                else rf"\frac{{{tex(measured.flops_per_s)}}}{{{peak}}}",
                tex(measured.mfu),
                approx=rounded(measured.mfu),
            )
        )
    if measured.mbu is not None and measured.bytes_per_s is not None:
        lines.append(
            Line.of(
                r"\text{MBU}",
                r"\frac{\text{bytes/s}}{\beta}",
                rf"\frac{{{tex(moved)}}}{{{as_given(measured.time)} \cdot {bandwidth}}}"
                if measured.time is not None and moved is not None
                else rf"\frac{{{tex(measured.bytes_per_s)}}}{{{bandwidth}}}",
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
                r"\text{MBU} \cdot I \cdot \frac{\beta}{\pi}",
                rf"{tex(measured.mbu)} \cdot {tex(measured.intensity)} \cdot \frac{{{bandwidth}}}{{{peak}}}",
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
