"""What a measured run implies: MFU, MBU, the intensity it implies, and whether it is possible.

From a measured time T of a step with F FLOPs and Q bytes (or from measured rates):
achieved FLOP/s = F / T, achieved bytes/s = Q / T; ``mfu`` = achieved FLOP/s / π,
``mbu`` = achieved bytes/s / β. With both rates, the intensity the pair implies is
I = FLOP/s ÷ bytes/s, and MFU = MBU · I / (π/β) holds exactly. A run faster than the
roofline allows (MFU > 1, MBU > 1, or T below the step's per-kernel lower bound at the
nominal ceilings) is impossible; the record names the ceiling it beats.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.problem.timing import Timing


class MeasuredVerdict(Enum):
    """Whether a measurement fits under the roofline."""

    POSSIBLE = "possible"
    IMPOSSIBLE = "impossible"


@dataclass(frozen=True)
class Measured:
    """A measurement read against the roofline.

    Attributes:
        time: the measured time (None when only rates are given).
        flops_per_s: achieved FLOP/s (measured, or FLOPs / time).
        bytes_per_s: achieved bytes/s (measured, or bytes / time).
        mfu: flops_per_s / π (None without a compute rate).
        mbu: bytes_per_s / β (None without a memory rate).
        intensity: flops_per_s / bytes_per_s, the intensity the pair implies.
        ridge: π / β.
        lower_bound: the step's per-kernel lower bound at the nominal ceilings.
        verdict: possible or impossible.
        beats: the ceilings an impossible measurement beats.
        from_intensity: ``"flops_per_s"`` or ``"bytes_per_s"`` when that rate was not
            measured but follows from the other and the kernel's intensity (one run moves
            FLOP/s ÷ I bytes per second), else None.
        kernel_intensity: the kernel's own intensity when both rates were measured and
            their ratio is not it (the pair cannot be one run of this kernel); each rate is
            then also read through it (``needed_bytes_per_s``, ``needed_flops_per_s``).
        needed_bytes_per_s: FLOP/s ÷ I, the memory traffic the measured FLOP/s needs at
            the kernel's intensity (with ``kernel_intensity``).
        needed_flops_per_s: bytes/s · I, the FLOP/s the measured traffic carries at the
            kernel's intensity (with ``kernel_intensity``).
        needed_bytes_share: needed_bytes_per_s ÷ β (above 1: impossible).
        needed_flops_share: needed_flops_per_s ÷ π (above 1: impossible).
    """

    time: sp.Expr | None
    flops_per_s: sp.Expr | None
    bytes_per_s: sp.Expr | None
    mfu: sp.Expr | None
    mbu: sp.Expr | None
    intensity: sp.Expr | None
    ridge: sp.Expr
    lower_bound: sp.Expr | None
    verdict: MeasuredVerdict
    beats: tuple[str, ...]
    from_intensity: str | None = None
    kernel_intensity: sp.Expr | None = None
    needed_bytes_per_s: sp.Expr | None = None
    needed_flops_per_s: sp.Expr | None = None
    needed_bytes_share: sp.Expr | None = None
    needed_flops_share: sp.Expr | None = None


def measure(
    timing: Timing,
    *,
    flops: sp.Expr | None,
    moved: sp.Expr | None,
    peak: sp.Rational,
    bandwidth: sp.Rational,
    lower_bound: sp.Expr | None,
    intensity: sp.Expr | None = None,
) -> Measured | None:
    """Read ``timing``'s measurements against a step of ``flops`` and ``moved`` bytes.

    With ``intensity`` (a kernel's, known exactly), a lone measured rate gives the other
    one too, so a rate above the memory roof (I·β) is caught as impossible even when only
    the FLOP/s was measured.
    """
    if not timing.measured:
        return None
    time = timing.measured_time
    flops_per_s = timing.measured_flops_per_s
    bytes_per_s = timing.measured_bytes_per_s
    if time is not None and flops_per_s is None and flops is not None:
        flops_per_s = flops / time
    if time is not None and bytes_per_s is None and moved is not None:
        bytes_per_s = moved / time
    from_intensity = None
    kernel_intensity = needed_bytes = needed_flops = None
    if intensity is not None and intensity.is_positive and intensity.is_finite:
        if flops_per_s is not None and bytes_per_s is None:
            bytes_per_s, from_intensity = flops_per_s / intensity, "bytes_per_s"
        elif bytes_per_s is not None and flops_per_s is None:
            flops_per_s, from_intensity = bytes_per_s * intensity, "flops_per_s"
        elif (
            flops_per_s is not None
            and bytes_per_s is not None
            and flops_per_s / bytes_per_s != intensity
        ):
            kernel_intensity = intensity
            needed_bytes, needed_flops = flops_per_s / intensity, bytes_per_s * intensity
    mfu = flops_per_s / peak if flops_per_s is not None else None
    mbu = bytes_per_s / bandwidth if bytes_per_s is not None else None
    # no intensity of the rates when no bytes moved (a kernel of FLOPs alone)
    intensity = flops_per_s / bytes_per_s if flops_per_s is not None and bytes_per_s else None
    beats = []
    if mfu is not None and mfu > 1:
        beats.append("compute peak")
    if mbu is not None and mbu > 1:
        beats.append("memory bandwidth")
    if needed_bytes is not None and needed_bytes > bandwidth and "memory bandwidth" not in beats:
        beats.append("memory bandwidth at the kernel's intensity")
    if needed_flops is not None and needed_flops > peak and "compute peak" not in beats:
        beats.append("compute peak at the kernel's intensity")
    if not beats and time is not None and lower_bound is not None and time < lower_bound:
        beats.append("per-kernel lower bound")
    return Measured(
        time=time,
        flops_per_s=flops_per_s,
        bytes_per_s=bytes_per_s,
        mfu=mfu,
        mbu=mbu,
        intensity=intensity,
        ridge=peak / bandwidth,
        lower_bound=lower_bound,
        verdict=MeasuredVerdict.IMPOSSIBLE if beats else MeasuredVerdict.POSSIBLE,
        beats=tuple(beats),
        from_intensity=from_intensity,
        kernel_intensity=kernel_intensity,
        needed_bytes_per_s=needed_bytes,
        needed_flops_per_s=needed_flops,
        needed_bytes_share=needed_bytes / bandwidth if needed_bytes is not None else None,
        needed_flops_share=needed_flops / peak if needed_flops is not None else None,
    )
