"""A kernel given by its numbers, as typed: ``--flops``/``--bytes`` (or ``--intensity``) on a chip.

``derive solve --flops 1e12 --bytes 2.5e9 --chip h100`` and ``derive check`` with the same
flags describe the kernel by a :class:`KernelSpec` (text only, like
:class:`~derive.problem.binding.ProblemSpec`); :func:`derive.analysis.kernel_numbers.kernel_of`
derives it. Nothing here evaluates user text.

>>> KernelSpec(flops="1e12", bytes="2.5e9", chip="h100").compute_dtype()
'bf16'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from derive.catalogue import ProblemKind, Typed
from derive.errors import ProblemError
from derive.problem.binding import ProblemSpec
from derive.problem.dtypes import get_dtype
from derive.problem.timing import TimingSpec


@dataclass(frozen=True)
class KernelSpec(Typed):
    """A kernel by its numbers: the counts (or the intensity), the hardware and the timing flags.

    Attributes:
        flops, bytes: the kernel's FLOPs and the bytes it moves (decimal text), or None.
        intensity: FLOPs per byte instead of the two counts.
        chip: a chip of the catalogue, or None with ``peak`` and ``bandwidth``.
        peak, bandwidth, link_bandwidth: hardware numbers instead of (or besides) a chip.
        compute: the dtype whose peak is used (``--compute``).
        dtypes: ``--dtype`` as typed (one dtype, whose compute dtype gives the peak).
        timing: efficiencies, launch overhead and measurements, as typed.
    """

    flops: str | None = None
    bytes: str | None = None
    intensity: str | None = None
    chip: str | None = None
    peak: str | None = None
    bandwidth: str | None = None
    link_bandwidth: str | None = None
    compute: str | None = None
    dtypes: tuple[str, ...] = ()
    timing: TimingSpec = field(default_factory=TimingSpec)

    kind = ProblemKind.KERNEL
    """A kernel given by its numbers."""

    def __post_init__(self) -> None:
        """Refuse timing a kernel cannot use; ``timing=None`` means no timing.

        Raises:
            ProblemError: a timing that is not a :class:`TimingSpec`, a link latency (a
                kernel has no collective), a measured token rate (it has no tokens), or a
                measured time of a kernel given by its intensity alone (no count to divide).
        """
        if self.timing is None:
            object.__setattr__(self, "timing", TimingSpec())
        if not isinstance(self.timing, TimingSpec):
            raise ProblemError(
                "KernelSpec timing",
                f"expected a TimingSpec (or None for no timing), got {type(self.timing).__name__}",
            )
        allowed = (
            "its timing: --efficiency, --compute-efficiency, --memory-efficiency, "
            "--launch-overhead, --measured-time, --measured-flops-per-s, --measured-bytes-per-s"
        )
        if self.timing.link_latency is not None:
            raise ProblemError(
                "--link-latency", f"a kernel by its numbers has no collective to wait on; {allowed}"
            )
        if self.timing.measured_tokens_per_s is not None:
            raise ProblemError(
                "--measured-tokens-per-s", f"a kernel by its numbers has no tokens; {allowed}"
            )
        counted = self.flops is not None or self.bytes is not None
        if self.timing.measured_time is not None and self.intensity is not None and not counted:
            raise ProblemError(
                "--measured-time",
                "a kernel given by its intensity alone has no FLOPs or bytes to divide by "
                "a time; give the counts (flops and bytes) with it, or a measured rate "
                "(--measured-flops-per-s gives MFU, --measured-bytes-per-s MBU)",
            )

    def compute_dtype(self) -> str:
        """The dtype whose peak the kernel is read against (bf16 unless a dtype says otherwise).

        Raises:
            ProblemError: several dtypes, or a per-tensor one (a kernel has no tensors).
        """
        if self.compute:
            return get_dtype(self.compute).compute_as
        if len(self.dtypes) == 1 and "=" not in self.dtypes[0]:
            return get_dtype(self.dtypes[0]).compute_as
        if self.peak is not None and not self.dtypes:
            return "given"  # the peak typed is the one used, whatever the dtype
        if self.dtypes:
            raise ProblemError(
                "--dtype",
                "a kernel by its numbers takes one dtype (or --compute DTYPE) for its peak",
            )
        return "bf16"  # the peak a kernel's numbers are read against, unless --compute

    def hardware(self) -> ProblemSpec:
        """The hardware part of the spec, in the form :func:`~derive.problem.binding.bind_hardware` reads."""
        return ProblemSpec(
            operator="kernel",
            chip=self.chip,
            peak=self.peak,
            bandwidth=self.bandwidth,
            link_bandwidth=self.link_bandwidth,
        )
