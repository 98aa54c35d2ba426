"""Why a claim about a kernel given by its numbers is wrong: the classic slips, recomputed exactly.

Each slip is the kernel's quantity computed the wrong way from the same numbers
(:class:`~derive.analysis.kernel_numbers.KernelNumbers`); a claim that matches one is
named by it. The step bounds and the utilisations share their slips with an operator's
(:mod:`derive.checking.step_slips`):

- ``intensity``: bytes over FLOPs, FLOPs counted once per multiply-accumulate, the ridge;
- ``ridge``: β/π, the derated ridge, the sparse peak, the kernel's intensity;
- ``effective_ridge``: the nominal ridge (the efficiencies left out), β/π;
- ``attainable``, ``fraction_of_peak``: the larger ceiling instead of the smaller, the
  nominal ceilings, the sparse peak, a percentage written without ``%``;
- ``t_math``, ``t_mem``: the nominal ceiling, the sparse peak, one FLOP per
  multiply-accumulate, the other time;
- ``t_lower``, ``t_upper``: the other bound (the serial sum for the overlapped bound),
  the launch overhead or the efficiencies left out, one time alone, half the FLOPs;
- ``mfu``, ``mbu``: as for an operator (the sparse peak, MFU and MBU swapped, …).

Each sentence ends with `` — exact is …`` so the answer can be kept back.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import table as q
from derive.checking.diagnosis_text import approx, sci
from derive.checking.hints import Rank
from derive.checking.hints import Slip as HintSlip
from derive.checking.step_slips import (
    Ceiling,
    Slip,
    sparse_figure,
    time_slips,
    utilisation_slips,
)
from derive.formula.decimals import fmt_decimal

_TIMED = tuple(row.name for row in (q.T_MATH, q.T_MEM, q.T_LOWER, q.T_UPPER))
_NOMINAL = "this is at the nominal ceilings; the efficiency given derates them (π·η_c and β·η_m)"
_MAC = "MACs counted as one FLOP: this is half the FLOPs (a multiply-accumulate is 2 FLOPs)"
_INVERSE = "this is β/π (bandwidth over peak), the inverse of the ridge point π/β"


def _sparse_note(kernel: KernelNumbers) -> tuple[sp.Rational | None, str]:
    """The sparse peak and the sentence naming it (None when the chip has no other figure)."""
    figure = sparse_figure(kernel.chip, kernel.compute_dtype, kernel.peak.value)
    if figure is None or kernel.chip is None:
        return None, ""
    return figure.value, (
        f"this uses the {kernel.chip.name} {kernel.compute_dtype} sparse figure ({figure.text} "
        f"FLOP/s, 2:4 structured sparsity); a dense kernel is read against the dense peak "
        f"{sci(kernel.peak.value)} FLOP/s"
    )


def _roofline_slips(kernel: KernelNumbers, quantity: str) -> list[Slip]:
    """Slips of the intensity, the ridges, the attainable rate and the fraction of peak."""
    timing = kernel.timing
    peak, bandwidth, intensity = kernel.peak.value, kernel.bandwidth.value, kernel.intensity
    eta_c, eta_m = timing.compute_efficiency, timing.memory_efficiency
    sparse, sparse_said = _sparse_note(kernel)
    derated = timing.derated
    if quantity == q.INTENSITY.name:
        return [
            (1 / intensity, "this is bytes/FLOPs, the inverse of the intensity (FLOPs/bytes)"),
            HintSlip(intensity / 2, _MAC.replace("the FLOPs", "the intensity"), Rank.VARIANT),
            (kernel.ridge, "this is the chip's ridge point π/β, not the kernel's FLOPs/bytes"),
        ]
    if quantity == q.RIDGE.name:
        return [
            (1 / kernel.ridge, _INVERSE),
            (
                kernel.effective_ridge if derated else None,
                "this is the derated ridge π·η_c/(β·η_m); the ridge point is π/β",
            ),
            HintSlip(None if sparse is None else sparse / bandwidth, sparse_said, Rank.VARIANT),
            (intensity, "this is the kernel's intensity (FLOPs/bytes), not the chip's ridge π/β"),
        ]
    if quantity == q.EFFECTIVE_RIDGE.name:
        return [
            (
                kernel.ridge,
                "this is the nominal ridge π/β; the efficiencies given derate it: π·η_c/(β·η_m)",
            ),
            (1 / kernel.effective_ridge, "this is the inverse, β·η_m/(π·η_c)"),
        ]
    larger = sp.Max(peak * eta_c, intensity * bandwidth * eta_m)
    nominal = sp.Min(peak, intensity * bandwidth)
    wrong_max = (
        "this is the larger of the two ceilings, π·η_c and I·β·η_m; the attainable rate is the "
        "smaller, min(π·η_c, I·β·η_m)"
        if derated
        else "this is the larger of the two ceilings, π and I·β; the attainable rate is the "
        "smaller, min(π, I·β)"
    )
    if quantity == q.ATTAINABLE.name:
        return [
            (larger, wrong_max),
            (nominal if derated else None, _NOMINAL),
            HintSlip(
                None if sparse is None else sp.Min(sparse, intensity * bandwidth),
                sparse_said,
                Rank.VARIANT,
            ),
        ]
    fraction = kernel.fraction_of_peak
    return [
        HintSlip(
            fraction * 100,
            f"this looks like a percentage written without the % sign (write "
            f"{fmt_decimal(fraction * 100)}% or {approx(fraction)})",
            Rank.UNITS,
        ),
        (larger / peak, wrong_max),
        (nominal / peak if derated else None, _NOMINAL),
        HintSlip(
            None if sparse is None else kernel.attainable / sparse,
            sparse_said.replace("a dense kernel is read against", "the fraction is of"),
            Rank.VARIANT,
        ),
    ]


def _time_slips(kernel: KernelNumbers, quantity: str) -> list[Slip]:
    """Slips of T_math, T_mem and the two bounds (the kernel has both counts)."""
    step = kernel.step
    assert step is not None and kernel.flops is not None and kernel.bytes is not None
    timing = kernel.timing
    peak, bandwidth = kernel.peak.value, kernel.bandwidth.value
    eta_c, eta_m = timing.compute_efficiency, timing.memory_efficiency
    sparse, sparse_said = _sparse_note(kernel)
    if quantity == q.T_MATH.name:
        return [
            (step.t_mem, "this is T_mem (bytes/β), not T_math (FLOPs/π)"),
            (kernel.flops / peak if eta_c != 1 else None, _NOMINAL),
            HintSlip(
                None if sparse is None else kernel.flops / (sparse * eta_c),
                sparse_said,
                Rank.VARIANT,
            ),
            HintSlip(step.t_math / 2, _MAC.replace("the FLOPs", "T_math"), Rank.VARIANT),
        ]
    if quantity == q.T_MEM.name:
        return [
            (step.t_math, "this is T_math (FLOPs/π), not T_mem (bytes/β)"),
            (kernel.bytes / bandwidth if eta_m != 1 else None, _NOMINAL),
        ]
    halved = sp.Max(step.t_math / 2, step.t_mem) + step.launch_overhead
    out = time_slips(quantity, step)
    if quantity == q.T_UPPER.name:
        halved = step.t_math / 2 + step.t_mem + step.launch_overhead
    out.append(
        HintSlip(
            halved, _MAC.replace("half the FLOPs", "the bound with half the FLOPs"), Rank.VARIANT
        )
    )
    return out


def kernel_slips(kernel: KernelNumbers, quantity: str, value: sp.Expr) -> list[Slip]:
    """The slips of a claim about ``quantity`` of ``kernel`` (``value`` is the exact one)."""
    if quantity in (q.MFU.name, q.MBU.name):
        assert kernel.measured is not None  # the target exists, so the measurement does
        ceiling = Ceiling(
            peak=kernel.peak.value,
            bandwidth=kernel.bandwidth.value,
            compute_dtype=kernel.compute_dtype,
            timing=kernel.timing,
            chip=kernel.chip,
            mac=True,  # the classic slip of a kernel's FLOPs: a multiply-add counted once
            fraction_of_peak=kernel.step.fraction_of_peak if kernel.step is not None else None,
        )
        return utilisation_slips(quantity, value, kernel.measured, ceiling)
    if quantity in _TIMED:
        return _time_slips(kernel, quantity)
    return _roofline_slips(kernel, quantity)
