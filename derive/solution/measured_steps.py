"""The worked-solution step for a measured run: MFU, MBU, the implied intensity, the verdict.

Reads :class:`~derive.analysis.measured.Measured`; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.measured import Measured, MeasuredVerdict
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal, fmt_ending_decimal
from derive.formula.durations import time_text
from derive.solution.notation import tex, tex_text_number
from derive.solution.steps import Line, Rich, Step, StepKind, rich
from derive.solution.value_display import rounded_line


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


# per rate: the Measured field, its label, what it counts, its utilisation field, its ceiling
_RATES = (
    ("flops_per_s", r"\text{FLOP/s}", r"\text{FLOPs}", q.MFU.name, r"\text{MFU}", r"\pi"),
    ("bytes_per_s", r"\text{bytes/s}", r"\text{bytes}", q.MBU.name, r"\text{MBU}", r"\beta"),
)


def _rate_lines(measured: Measured, counts: tuple[sp.Expr | None, sp.Expr | None]) -> list[Line]:
    """Each achieved rate: the count over the measured time, or the other rate through I."""
    lines = []
    time = measured.time
    for (key, label, counted, *_), count in zip(_RATES, counts):
        rate = getattr(measured, key)
        if rate is None:
            continue
        forms = (
            [
                rf"\frac{{{counted}}}{{T_{{\text{{measured}}}}}}",
                rf"\frac{{{tex(count)}}}{{{as_given(time)}}}",
            ]
            if time is not None and count is not None
            else _from_intensity(measured, key)
        )
        lines.append(rounded_line(label, *forms, value=rate))
    return lines


def _kernel_intensity_lines(measured: Measured, peak: str, bandwidth: str) -> list[Line]:
    """Each measured rate read through the kernel's own intensity, when the pair disagrees with it."""
    if measured.kernel_intensity is None:
        return []
    intensity = tex(measured.kernel_intensity)
    pairs = (
        (
            r"\text{bytes/s}_{\text{needed}}",
            r"\frac{\text{FLOP/s}}{I}",
            rf"\frac{{{tex(measured.flops_per_s)}}}{{{intensity}}}",
            measured.needed_bytes_per_s,
            measured.needed_bytes_share,
            bandwidth,
            r"\beta",
        ),
        (
            r"\text{FLOP/s}_{\text{carried}}",
            r"\text{bytes/s} \cdot I",
            rf"{tex(measured.bytes_per_s)} \cdot {intensity}",
            measured.needed_flops_per_s,
            measured.needed_flops_share,
            peak,
            r"\pi",
        ),
    )
    lines = []
    for label, rule, numbers, value, share, ceiling, symbol in pairs:
        if value is None or share is None:
            continue
        lines.append(rounded_line(label, rule, numbers, value=value))
        lines.append(
            rounded_line(
                rf"\frac{{{label}}}{{{symbol}}}",
                rf"\frac{{{tex(value)}}}{{{ceiling}}}",
                value=share,
            )
        )
    return lines


def measured_step(
    measured: Measured, flops: sp.Expr | None, moved: sp.Expr | None, peak: str, bandwidth: str
) -> Step:
    """MFU = FLOP/s ÷ π, MBU = bytes/s ÷ β, and MFU = MBU · I / (π/β) (topic ``measured``)."""
    counts = (flops, moved)
    lines = _rate_lines(measured, counts)
    for (key, label, _, share, share_label, ceiling), count, roof in zip(
        _RATES, counts, (peak, bandwidth)
    ):
        rate, utilisation = getattr(measured, key), getattr(measured, share)
        if utilisation is None or rate is None:
            continue
        lines.append(
            rounded_line(
                share_label,
                rf"\frac{{{label}}}{{{ceiling}}}",
                rf"\frac{{{tex(count)}}}{{{as_given(measured.time)} \cdot {roof}}}"
                if measured.time is not None and count is not None
                else rf"\frac{{{tex(rate)}}}{{{roof}}}",
                value=utilisation,
            )
        )
    if measured.intensity is not None and measured.mbu is not None and measured.mfu is not None:
        lines += [
            rounded_line(
                r"I_{\text{implied}}",
                r"\frac{\text{FLOP/s}}{\text{bytes/s}}",
                value=measured.intensity,
            ),
            rounded_line(
                r"\text{MFU}",
                r"\text{MBU} \cdot \frac{I}{\pi / \beta}",
                r"\text{MBU} \cdot I \cdot \frac{\beta}{\pi}",
                rf"{tex(measured.mbu)} \cdot {tex(measured.intensity)} \cdot \frac{{{bandwidth}}}{{{peak}}}",
                value=measured.mfu,
            ),
        ]
    lines += _kernel_intensity_lines(measured, peak, bandwidth)
    notes: list[Rich] = []
    if measured.kernel_intensity is not None and measured.intensity is not None:
        notes.append(
            rich(
                f"The two rates imply I = {fmt_decimal(measured.intensity)}, not this kernel's "
                f"I = {fmt_decimal(measured.kernel_intensity)}: they cannot both be one run of "
                "this kernel, so each rate is also read through the kernel's intensity."
            )
        )
    if measured.verdict is MeasuredVerdict.IMPOSSIBLE:
        beaten = " and the ".join(measured.beats)
        notes.append(
            rich(
                f"Impossible: this measurement beats the {beaten}"
                + (
                    f" (the step cannot take less than {time_text(measured.lower_bound)})"
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
