"""Worked-solution steps for a kernel given by its numbers (``derive solve --flops … --bytes …``).

Reads :class:`~derive.analysis.kernel_numbers.KernelNumbers`; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_tex, time_text
from derive.problem.timing import TimingSpec
from derive.solution.measured_steps import measured_step
from derive.solution.notation import tex, tex_text_number
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import (
    attainable_lines,
    rounded_line,
    time_line,
)


def numbers_given(kernel: KernelNumbers) -> Rich:
    """The given line: counts and ceilings with their sources."""
    counts: Rich = (
        rich("FLOPs ", Math(f"= {tex(kernel.flops)}"), ", bytes ", Math(f"= {tex(kernel.bytes)}"))
        if kernel.flops is not None and kernel.bytes is not None
        else rich("intensity ", Math(f"= {tex(kernel.intensity)}"), " FLOPs/byte")
    )
    if kernel.only:  # one count alone: the other is zero, said so
        missing = q.BYTES.prose if kernel.only == "compute" else q.FLOPS.prose
        counts = (*counts, f": a {kernel.only}-only kernel, no {missing} given, taken as 0")
    return rich(
        "A kernel by its numbers (",
        *counts,
        f"); {kernel.compute_dtype} peak π = {kernel.peak.text} FLOP/s "
        f"({kernel.peak.cite()}), memory bandwidth β = {kernel.bandwidth.text} bytes/s ({kernel.bandwidth.cite()}).",
    )


def _roofline_step(kernel: KernelNumbers, peak: str, bandwidth: str) -> Step:
    if kernel.bytes == 0:  # FLOPs with no bytes: the intensity is unbounded
        first = Line.of("I", r"\frac{\text{FLOPs}}{\text{bytes}}", r"\infty")
    elif kernel.flops is not None and kernel.bytes is not None:
        ratio = rf"\frac{{{tex(kernel.flops)}}}{{{tex(kernel.bytes)}}}"
        first = rounded_line(
            "I", r"\frac{\text{FLOPs}}{\text{bytes}}", ratio, value=kernel.intensity
        )
    else:
        first = Line.of("I", tex(kernel.intensity))
    ridge = rounded_line(
        r"\frac{\pi}{\beta}", rf"\frac{{{peak}}}{{{bandwidth}}}", value=kernel.ridge
    )
    lines = [first, ridge]
    timing = kernel.timing
    notes: list[Rich] = []
    if timing.derated:
        lines.append(
            rounded_line(
                r"\frac{\pi \eta_c}{\beta \eta_m}",
                rf"\frac{{{peak} \cdot {tex(timing.compute_efficiency)}}}{{{bandwidth} \cdot {tex(timing.memory_efficiency)}}}",
                value=kernel.effective_ridge,
            )
        )
        notes.append(
            rich(
                f"Ceilings derated: η_c = {timing.compute_efficiency} of the peak, "
                f"η_m = {timing.memory_efficiency} of the bandwidth."
            )
        )
    lines += attainable_lines(
        kernel.attainable,
        kernel.fraction_of_peak,
        r"\min(\pi \eta_c, I \beta \eta_m)" if timing.derated else r"\min(\pi, I \beta)",
    )
    return Step(
        StepKind.ATTAINABLE,
        "attainable FLOP/s = min(π, I·β)",
        rich(
            "The kernel moves no bytes: its intensity is unbounded, so it is compute-bound "
            "whatever the ridge."
            if kernel.bytes == 0
            else f"The kernel is {kernel.binding}-bound: its intensity against the ridge."
        ),
        tuple(lines),
        tuple(notes),
    )


def _times_step(kernel: KernelNumbers, peak: str, bandwidth: str) -> Step | None:
    step = kernel.step
    if step is None:
        return None
    time = step.kernels[0]
    ceilings = step.ceilings
    eta_c = (
        rf" \cdot {tex(ceilings.compute_efficiency)}" if ceilings.compute_efficiency != 1 else ""
    )
    eta_m = rf" \cdot {tex(ceilings.memory_efficiency)}" if ceilings.memory_efficiency != 1 else ""
    launch = ceilings.launch_overhead
    plus = rf" + {time_tex(launch)}" if launch != 0 else ""
    sym_plus = r" + t_{\text{launch}}" if launch != 0 else ""
    lines = (
        time_line(
            r"T_{\text{math}}",
            r"\frac{\text{FLOPs}}{\pi \eta_c}",
            rf"\frac{{{tex(kernel.flops)}}}{{{peak}{eta_c}}}",
            seconds=time.t_math,
        ),
        time_line(
            r"T_{\text{mem}}",
            r"\frac{\text{bytes}}{\beta \eta_m}",
            rf"\frac{{{tex(kernel.bytes)}}}{{{bandwidth}{eta_m}}}",
            seconds=time.t_mem,
        ),
        time_line(
            r"T_{\text{lower}}",
            r"\max(T_{\text{math}}, T_{\text{mem}})" + sym_plus,
            rf"\max({time_tex(time.t_math)}, {time_tex(time.t_mem)}){plus}",
            seconds=step.t_lower,
        ),
        time_line(
            r"T_{\text{upper}}",
            r"T_{\text{math}} + T_{\text{mem}}" + sym_plus,
            seconds=step.t_upper,
        ),
    )
    return Step(
        StepKind.BOUNDS,
        "T = data/(β·η_m) + ops/(π·η_c) + latency (no overlap); max(…) + latency (overlapped)",
        rich("The iron law of one kernel, and its overlapped form."),
        lines,
    )


def number_steps(kernel: KernelNumbers) -> tuple[Step, ...]:
    """The roofline, times and measurement of a kernel given by its numbers."""
    peak, bandwidth = tex_text_number(kernel.peak.text), tex_text_number(kernel.bandwidth.text)
    steps = [_roofline_step(kernel, peak, bandwidth)]
    times = _times_step(kernel, peak, bandwidth)
    if times is not None:
        steps.append(times)
    if kernel.measured is not None:
        steps.append(measured_step(kernel.measured, kernel.flops, kernel.bytes, peak, bandwidth))
    return tuple(steps)


def _intensity_text(intensity: sp.Expr) -> str:
    """The intensity as a decimal; ∞ for a kernel that moves no bytes."""
    return "∞" if intensity == sp.oo else fmt_decimal(intensity)


def numbers_verdict(kernel: KernelNumbers) -> tuple[Rich, ...]:
    """One line: bound, runtime and fraction of peak (the step's, launch overhead included,
    when the kernel is timed, as its JSON ``step.fraction_of_peak`` says)."""
    runtime = f", runtime ≥ {time_text(kernel.step.t_lower)}" if kernel.step is not None else ""
    fraction = kernel.step.fraction_of_peak if kernel.step is not None else kernel.fraction_of_peak
    return (
        rich(
            f"Verdict: {kernel.binding}-bound (I = {_intensity_text(kernel.intensity)} against the ridge "
            f"{fmt_decimal(kernel.effective_ridge)}){runtime}, {fmt_decimal(100 * fraction, 4)} % of peak."
        ),
    )


_STEP_OF = {
    **dict.fromkeys((r.name for r in (q.T_MATH, q.T_MEM, q.T_LOWER, q.T_UPPER)), StepKind.BOUNDS),
    **dict.fromkeys((q.MFU.name, q.MBU.name), StepKind.MEASURED),
}
_TIMING_WORDS = (
    ("efficiency", "efficiency η = {} of both ceilings"),
    ("compute_efficiency", "compute efficiency η_c = {}"),
    ("memory_efficiency", "memory efficiency η_m = {}"),
    ("launch_overhead", "launch overhead {} per kernel"),
    ("measured_time", "measured time {}"),
    ("measured_flops_per_s", "measured {} FLOP/s"),
    ("measured_bytes_per_s", "measured {} bytes/s"),
)


def kernel_given(kernel: KernelNumbers, timing: TimingSpec) -> Rich:
    """The givens: the counts and the ceilings, then the timing keys as typed (one sentence)."""
    typed = [words.format(getattr(timing, key)) for key, words in _TIMING_WORDS]
    given = [text for text, (key, _) in zip(typed, _TIMING_WORDS) if getattr(timing, key)]
    sentence = "; ".join(given)
    more = f" {sentence[:1].upper()}{sentence[1:]}." if given else ""
    return numbers_given(kernel) + rich(more)


def kernel_steps(kernel: KernelNumbers, ask: tuple[str, ...]) -> tuple[Step, ...]:
    """The steps answering ``ask`` (all without one); the roofline step always stays (it says
    which ceiling binds)."""
    steps = number_steps(kernel)
    if not ask:
        return steps
    kinds = {_STEP_OF.get(quantity, StepKind.ATTAINABLE) for quantity in ask}
    return tuple(s for s in steps if s.kind in kinds or s.kind is StepKind.ATTAINABLE)
