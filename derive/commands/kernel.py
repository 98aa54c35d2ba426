"""``derive solve --flops F --bytes Q --chip NAME``: a kernel by its numbers, no operator."""

from __future__ import annotations

import argparse
import json
import sys

from derive.analysis.kernel_numbers import KernelNumbers, kernel_of
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.present.json_export import measured_json, step_json
from derive.present.render import render
from derive.problem.kernel_spec import KernelSpec
from derive.problem.timing import TimingSpec
from derive.solution.number_steps import kernel_given, number_steps, numbers_verdict

__all__ = ["kernel_json", "kernel_markdown", "kernel_spec_of", "run_kernel_numbers"]


def kernel_spec_of(args: argparse.Namespace) -> KernelSpec:
    """The kernel the flags of ``derive solve``/``derive check`` describe (``--flops``, ``--chip``, …)."""
    from derive.commands.cli import timing_from_args

    return KernelSpec(
        flops=args.flops,
        bytes=args.bytes,
        intensity=args.intensity,
        chip=args.chip,
        peak=args.peak,
        bandwidth=args.bandwidth,
        link_bandwidth=args.link_bandwidth,
        compute=args.compute,
        dtypes=tuple(args.dtype),
        timing=timing_from_args(args),
    )


def kernel_markdown(kernel: KernelNumbers, timing: TimingSpec | None = None) -> str:
    """The worked solution of a kernel by its numbers, as Markdown (its timing flags, as
    typed, among the givens)."""
    return render(
        "kernel.md.j2",
        "md",
        title="A kernel by its numbers",
        given=kernel_given(kernel, timing or TimingSpec()),
        steps=number_steps(kernel),
        verdict=numbers_verdict(kernel),
        level=1,
    )


def kernel_json(kernel: KernelNumbers) -> dict[str, object]:
    """Every quantity of a kernel by its numbers (exact strings)."""
    measured = kernel.measured
    return {
        q.FLOPS.name: None if kernel.flops is None else str(kernel.flops),
        q.BYTES.name: None if kernel.bytes is None else str(kernel.bytes),
        q.INTENSITY.name: str(kernel.intensity),
        "compute_dtype": kernel.compute_dtype,
        "peak": str(kernel.peak.value),
        "bandwidth": str(kernel.bandwidth.value),
        q.RIDGE.name: str(kernel.ridge),
        q.EFFECTIVE_RIDGE.name: str(kernel.effective_ridge),
        q.ATTAINABLE.name: str(kernel.attainable),
        q.FRACTION_OF_PEAK.name: str(kernel.fraction_of_peak),
        "binding": kernel.binding,
        q.STEP.name: step_json(kernel.step),
        q.MFU.name: None if measured is None or measured.mfu is None else str(measured.mfu),
        q.MBU.name: None if measured is None or measured.mbu is None else str(measured.mbu),
        q.MEASURED.name: measured_json(measured),
    }


def run_kernel_numbers(args: argparse.Namespace) -> int:
    """Derive and print a kernel given by ``--flops``/``--bytes`` or ``--intensity``."""
    if args.operator is not None:
        raise ProblemError(
            f"derive solve {args.operator}",
            "give an operator or a kernel's numbers (--flops/--bytes/--intensity), not both",
        )
    spec = kernel_spec_of(args)
    kernel = kernel_of(spec)
    if args.format == "json":
        sys.stdout.write(json.dumps(kernel_json(kernel), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(kernel_markdown(kernel, spec.timing))
    return 0
