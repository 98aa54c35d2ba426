"""The time of a step: an ordered sequence of kernels, each on its own roofline.

A step is what runs between two points a program waits for: a composite's parts (a
fused group of parts is one kernel), a single operator (one kernel), or a model's kernels
for one phase (fed in as :class:`Kernel` records). Each kernel overlaps its own compute
and memory traffic, never its neighbours', so the step's bounds are sums over kernels:

- ``t_lower = Σ_k [max(T_math,k, T_mem,k) + T_comms,k + latency]`` for a kernel whose
  transfer the kernel waits for, ``Σ_k [max(T_math,k, T_mem,k, T_comms,k) + latency]``
  when it is declared overlapped; both figures are kept (``t_lower_serial``,
  ``t_lower_overlapped``);
- ``t_upper = Σ_k (T_math,k + T_mem,k + T_comms,k + latency)``.

with T_math = FLOPs / (π·η_c), T_mem = bytes / (β·η_m), T_comms = bytes sent / β_link +
link latency × the collective's steps. The single roofline of the summed FLOPs and bytes
(the layer's *aggregate* intensity) is kept for comparison only: it is a valid lower
bound only when the whole step is one kernel.

>>> ceilings = Ceilings(peak=sp.Integer(100), bandwidth=sp.Integer(10))
>>> step = compose((Kernel("a", sp.Integer(100), sp.Integer(1)), Kernel("b", sp.Integer(1), sp.Integer(10))), ceilings)
>>> step.t_lower, step.t_upper, step.single_roofline_t_lower
(2, 211/100, 11/10)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import sympy as sp

from derive.problem.timing import Timing

ZERO = sp.Integer(0)
ONE = sp.Integer(1)


class Binding(Enum):
    """The ceiling a kernel (or a step) is bound on: the largest of its times."""

    COMPUTE = "compute"
    MEMORY = "memory"
    COMMS = "comms"


@dataclass(frozen=True)
class Kernel:
    """One kernel of a step, by its counts.

    Attributes:
        name: the kernel's name (a part's label; fused parts joined with ``+``).
        flops: FLOPs it computes.
        bytes: bytes it moves through memory.
        comms_bytes: bytes one device sends over the interconnect.
        fused: True when several parts run as this one kernel.
        parts: the parts it runs (its own name for a single part).
        comms_overlapped: True when its transfer runs under its compute.
        latency_steps: link-latency steps of its transfers (a collective's ring steps, one
            per point-to-point send).
        launches: how many times it is launched (a block's kernel: once per layer); its
            counts are the totals over the launches, and each launch pays the overhead.
    """

    name: str
    flops: sp.Expr
    bytes: sp.Expr
    comms_bytes: sp.Expr = ZERO
    fused: bool = False
    parts: tuple[str, ...] = ()
    comms_overlapped: bool = False
    latency_steps: sp.Expr = ZERO
    launches: int = 1


@dataclass(frozen=True)
class Ceilings:
    """What times a kernel: the ceilings, their efficiencies and the overheads.

    Attributes:
        peak: π, FLOP/s.
        bandwidth: β, memory bytes/s.
        link: β_link, interconnect bytes/s one way per link (None: not given).
        compute_efficiency: η_c.
        memory_efficiency: η_m.
        launch_overhead: seconds added to every kernel.
        link_latency: seconds per collective step.
    """

    peak: sp.Rational
    bandwidth: sp.Rational
    link: sp.Rational | None = None
    compute_efficiency: sp.Rational = ONE
    memory_efficiency: sp.Rational = ONE
    launch_overhead: sp.Rational = ZERO
    link_latency: sp.Rational = ZERO

    @classmethod
    def of(
        cls, peak: sp.Rational, bandwidth: sp.Rational, link: sp.Rational | None, t: Timing
    ) -> Ceilings:
        """The ceilings at ``t``'s efficiencies and overheads."""
        overheads = (t.compute_efficiency, t.memory_efficiency, t.launch_overhead, t.link_latency)
        return cls(peak, bandwidth, link, *overheads)

    @property
    def effective_peak(self) -> sp.Rational:
        """π·η_c."""
        return self.peak * self.compute_efficiency

    @property
    def effective_bandwidth(self) -> sp.Rational:
        """β·η_m."""
        return self.bandwidth * self.memory_efficiency


@dataclass(frozen=True)
class KernelTime:
    """One kernel's times and bounds (seconds), and what it binds on."""

    kernel: Kernel
    t_math: sp.Expr
    t_mem: sp.Expr
    t_comms: sp.Expr
    t_lower: sp.Expr
    t_lower_overlapped: sp.Expr
    t_lower_serial: sp.Expr
    t_upper: sp.Expr
    binding: Binding
    share: sp.Expr


@dataclass(frozen=True)
class StepTime:
    """A step's totals and bounds, kernel by kernel.

    Attributes:
        kernels: each kernel's times, in order.
        flops, bytes, comms_bytes: totals over kernels.
        t_math, t_mem, t_comms: sums of the kernels' times.
        launch_overhead: the overhead summed over kernels.
        t_lower: Σ per-kernel lower bounds, communication as declared.
        t_lower_overlapped: the same with every transfer under its kernel's compute.
        t_lower_serial: the same with every transfer waited for.
        t_upper: Σ (T_math + T_mem + T_comms + latency): nothing overlaps.
        binding: the ceiling the kernels taking the largest share of t_lower bind on.
        aggregate_intensity: Σ FLOPs / Σ bytes (the layer's single-roofline intensity).
        single_roofline_t_lower: max(Σ T_math, Σ T_mem), what one roofline would claim.
        comms_unpriced: True when a kernel sends bytes but no link bandwidth is given.
        ceilings: what timed the kernels.
    """

    kernels: tuple[KernelTime, ...]
    flops: sp.Expr
    bytes: sp.Expr
    comms_bytes: sp.Expr
    t_math: sp.Expr
    t_mem: sp.Expr
    t_comms: sp.Expr
    launch_overhead: sp.Expr
    t_lower: sp.Expr
    t_lower_overlapped: sp.Expr
    t_lower_serial: sp.Expr
    t_upper: sp.Expr
    binding: Binding
    aggregate_intensity: sp.Expr
    single_roofline_t_lower: sp.Expr
    comms_unpriced: bool
    ceilings: Ceilings

    @property
    def launches(self) -> int:
        """Kernel launches in the step (a block's kernel counts once per layer)."""
        return sum(time.kernel.launches for time in self.kernels)

    @property
    def nominal_lower(self) -> sp.Expr:
        """Σ_k max(FLOPs_k/π, bytes_k/β): the lower bound at the ceilings themselves, no overheads."""
        return sp.Add(
            *(
                sp.Max(
                    time.kernel.flops / self.ceilings.peak,
                    time.kernel.bytes / self.ceilings.bandwidth,
                )
                for time in self.kernels
            )
        )

    @property
    def fraction_of_peak(self) -> sp.Expr:
        """FLOPs / (t_lower · π): the largest fraction of the (nominal) peak the step can run at."""
        return self.flops / (self.t_lower * self.ceilings.peak) if self.t_lower else ZERO

    @property
    def shares(self) -> dict[Binding, sp.Expr]:
        """The share of t_lower taken by kernels bound on each ceiling."""
        out = {binding: ZERO for binding in Binding}
        for kernel in self.kernels:
            out[kernel.binding] += kernel.share
        return out


def _binding(t_math: sp.Expr, t_mem: sp.Expr, t_comms: sp.Expr) -> Binding:
    """The largest time (compute wins a tie with memory, memory one with comms)."""
    best = max(t_math, t_mem, t_comms)
    if t_math == best:
        return Binding.COMPUTE
    return Binding.MEMORY if t_mem == best else Binding.COMMS


def _kernel_time(kernel: Kernel, ceilings: Ceilings) -> KernelTime:
    t_math = kernel.flops / ceilings.effective_peak
    t_mem = kernel.bytes / ceilings.effective_bandwidth
    t_comms = ZERO
    if kernel.comms_bytes != 0 and ceilings.link is not None:
        t_comms = kernel.comms_bytes / ceilings.link + kernel.latency_steps * ceilings.link_latency
    latency = ceilings.launch_overhead * kernel.launches
    overlapped = sp.Max(t_math, t_mem, t_comms) + latency
    serial = sp.Max(t_math, t_mem) + t_comms + latency
    return KernelTime(
        kernel=kernel,
        t_math=t_math,
        t_mem=t_mem,
        t_comms=t_comms,
        t_lower=overlapped if kernel.comms_overlapped else serial,
        t_lower_overlapped=overlapped,
        t_lower_serial=serial,
        t_upper=t_math + t_mem + t_comms + latency,
        binding=_binding(t_math, t_mem, t_comms),
        share=ZERO,
    )


def compose(kernels: tuple[Kernel, ...], ceilings: Ceilings) -> StepTime:
    """The time of a step of ``kernels`` (numbers: every dim bound) on ``ceilings``."""
    if not kernels:
        raise ValueError("a step has at least one kernel")
    times = [_kernel_time(kernel, ceilings) for kernel in kernels]
    t_lower = sp.Add(*(time.t_lower for time in times))
    times = [replace(time, share=time.t_lower / t_lower if t_lower else ZERO) for time in times]
    totals: dict[Binding, sp.Expr] = {binding: ZERO for binding in Binding}
    for time in times:
        totals[time.binding] += time.t_lower
    flops = sp.Add(*(kernel.flops for kernel in kernels))
    moved = sp.Add(*(kernel.bytes for kernel in kernels))
    t_math = sp.Add(*(time.t_math for time in times))
    t_mem = sp.Add(*(time.t_mem for time in times))
    return StepTime(
        kernels=tuple(times),
        flops=flops,
        bytes=moved,
        comms_bytes=sp.Add(*(kernel.comms_bytes for kernel in kernels)),
        t_math=t_math,
        t_mem=t_mem,
        t_comms=sp.Add(*(time.t_comms for time in times)),
        launch_overhead=ceilings.launch_overhead * sum(kernel.launches for kernel in kernels),
        t_lower=t_lower,
        t_lower_overlapped=sp.Add(*(time.t_lower_overlapped for time in times)),
        t_lower_serial=sp.Add(*(time.t_lower_serial for time in times)),
        t_upper=sp.Add(*(time.t_upper for time in times)),
        binding=max(Binding, key=lambda binding: (totals[binding], -list(Binding).index(binding))),
        aggregate_intensity=flops / moved if moved != 0 else sp.oo,
        single_roofline_t_lower=sp.Max(t_math, t_mem),
        comms_unpriced=ceilings.link is None and any(kernel.comms_bytes != 0 for kernel in kernels),
        ceilings=ceilings,
    )
