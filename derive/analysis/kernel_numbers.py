"""A kernel given by its numbers (FLOPs and bytes, or its intensity) on a chip: no operator.

``derive solve --flops 1e12 --bytes 2.5e9 --chip h100``: the roofline of one kernel,
with efficiencies, a launch overhead and measurements like any step
(:mod:`derive.analysis.step`, :mod:`derive.analysis.measured`).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.measured import Measured, measure
from derive.analysis.step import Ceilings, Kernel, StepTime, compose
from derive.errors import ParseError, ProblemError
from derive.formula.decimals import parse_decimal, parse_positive
from derive.problem.binding import bind_hardware
from derive.problem.chips import Chip, Figure
from derive.problem.kernel_spec import KernelSpec
from derive.problem.timing import Timing, bind_timing


@dataclass(frozen=True)
class NumbersSpec:
    """The kernel as typed: ``--flops`` and ``--bytes``, or ``--intensity``."""

    flops: str | None = None
    bytes: str | None = None
    intensity: str | None = None


@dataclass(frozen=True)
class KernelNumbers:
    """The roofline of one kernel given by its numbers.

    Attributes:
        flops, bytes: the counts (None when only the intensity is given).
        intensity: FLOPs / bytes, or as given.
        peak, bandwidth: the ceilings (figures with their source).
        compute_dtype: the dtype whose peak is used.
        ridge: π / β; ``effective_ridge``: π·η_c / (β·η_m).
        attainable: min(π·η_c, I·β·η_m); ``fraction_of_peak``: attainable / π.
        binding: "compute" when I ≥ the effective ridge, else "memory".
        step: the kernel's times and bounds (None without both counts).
        measured: what a measurement implies (None without one).
        timing: the efficiencies, overhead and measurements, exact.
        chip: the chip the ceilings come from (None for typed numbers).
    """

    flops: sp.Rational | None
    bytes: sp.Rational | None
    intensity: sp.Rational
    peak: Figure
    bandwidth: Figure
    compute_dtype: str
    ridge: sp.Rational
    effective_ridge: sp.Rational
    attainable: sp.Rational
    fraction_of_peak: sp.Rational
    binding: str
    step: StepTime | None
    measured: Measured | None
    timing: Timing
    chip: Chip | None = None
    # one count alone (issue 36): "compute" (--flops alone, no bytes moved) or "memory"
    # (--bytes alone, no FLOPs); "" with both counts or an intensity
    only: str = ""


def kernel_of(spec: KernelSpec) -> KernelNumbers:
    """Bind a kernel typed by its numbers (hardware, dtype, timing) and derive it.

    Raises:
        DeriveError: a count, a hardware number or a timing flag is not valid.
    """
    compute = spec.compute_dtype()
    chip, peak, bandwidth, _ = bind_hardware(spec.hardware(), compute)
    return kernel_numbers(
        NumbersSpec(spec.flops, spec.bytes, spec.intensity),
        peak,
        bandwidth,
        compute,
        bind_timing(spec.timing),
        chip,
    )


def _count(text: str | None, flag: str) -> sp.Rational | None:
    """A kernel's count, 0 allowed (a kernel that only computes, or only moves bytes).

    Raises:
        ParseError: not a decimal, or negative (named by ``flag``).
    """
    if text is None:
        return None
    value = parse_decimal(text, flag)
    if value < 0:
        raise ParseError(f"{flag} {text!r}", "a count is zero or more")
    return value


def kernel_numbers(
    spec: NumbersSpec,
    peak: Figure,
    bandwidth: Figure,
    compute_dtype: str,
    timing: Timing,
    chip: Chip | None = None,
) -> KernelNumbers:
    """Parse the counts exactly and derive the kernel's roofline, times and measurement."""
    if spec.intensity is not None and (spec.flops is not None or spec.bytes is not None):
        raise ProblemError("--intensity", "give --flops and --bytes, or --intensity, not both")
    if spec.intensity is None and spec.flops is None and spec.bytes is None:
        raise ProblemError("--flops/--bytes", "give --flops or --bytes (or --intensity)")
    only = ""
    if spec.intensity is None and (spec.flops is None or spec.bytes is None):
        only = "compute" if spec.flops is not None else "memory"  # the other count is 0
        spec = NumbersSpec(spec.flops or "0", spec.bytes or "0")
    flops = _count(spec.flops, "--flops")
    moved = _count(spec.bytes, "--bytes")
    if flops is not None and moved is not None:
        if flops == 0 and moved == 0:
            raise ProblemError(
                "--flops 0 --bytes 0",
                "a kernel that computes nothing and moves nothing has no roofline",
            )
        intensity = flops / moved if moved != 0 else sp.oo
    else:
        intensity = parse_positive(spec.intensity or "", "--intensity")
    ceilings = Ceilings.of(peak.value, bandwidth.value, None, timing)  # no link: no latency
    attainable = sp.Min(ceilings.effective_peak, intensity * ceilings.effective_bandwidth)
    effective_ridge = ceilings.effective_peak / ceilings.effective_bandwidth
    step = (
        compose((Kernel("kernel", flops, moved, parts=("kernel",)),), ceilings)
        if flops is not None and moved is not None
        else None
    )
    return KernelNumbers(
        flops=flops,
        bytes=moved,
        intensity=intensity,
        peak=peak,
        bandwidth=bandwidth,
        compute_dtype=compute_dtype,
        ridge=peak.value / bandwidth.value,
        effective_ridge=effective_ridge,
        attainable=attainable,
        fraction_of_peak=attainable / peak.value,
        binding="compute" if intensity >= effective_ridge else "memory",
        step=step,
        measured=measure(
            timing,
            flops=flops,
            moved=moved,
            peak=peak.value,
            bandwidth=bandwidth.value,
            lower_bound=step.nominal_lower if step is not None else None,
            intensity=intensity,
        ),
        timing=timing,
        chip=chip,
        only=only,
    )
