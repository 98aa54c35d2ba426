"""``derive solve --flops F --bytes Q --chip NAME``: a kernel by its numbers, no operator."""

from __future__ import annotations

import argparse
import json
import sys

from derive.analysis.kernel_numbers import KernelNumbers, NumbersSpec, kernel_numbers
from derive.errors import ProblemError
from derive.present.json_export import measured_json, step_json
from derive.present.render import render
from derive.problem.binding import ProblemSpec, bind_hardware
from derive.problem.dtypes import get_dtype
from derive.problem.timing import bind_timing
from derive.solution.number_steps import number_steps, numbers_given, numbers_verdict

__all__ = ["kernel_json", "kernel_markdown", "run_kernel_numbers"]


def _compute(args: argparse.Namespace) -> str:
    if args.compute:
        return get_dtype(args.compute).compute_as
    if len(args.dtype) == 1 and "=" not in args.dtype[0]:
        return get_dtype(args.dtype[0]).compute_as
    if args.peak is not None and not args.dtype:
        return "given"  # the peak typed is the one used, whatever the dtype
    if args.dtype:
        raise ProblemError(
            "--dtype", "a kernel by its numbers takes one dtype (or --compute DTYPE) for its peak"
        )
    return "bf16"  # the peak a kernel's numbers are read against unless --compute says otherwise


def kernel_markdown(kernel: KernelNumbers) -> str:
    """The worked solution of a kernel by its numbers, as Markdown."""
    return render(
        "kernel.md.j2",
        "md",
        title="A kernel by its numbers",
        given=numbers_given(kernel),
        steps=number_steps(kernel),
        verdict=numbers_verdict(kernel),
        level=1,
    )


def kernel_json(kernel: KernelNumbers) -> dict[str, object]:
    """Every quantity of a kernel by its numbers (exact strings)."""
    measured = kernel.measured
    return {
        "flops": None if kernel.flops is None else str(kernel.flops),
        "bytes": None if kernel.bytes is None else str(kernel.bytes),
        "intensity": str(kernel.intensity),
        "compute_dtype": kernel.compute_dtype,
        "peak": str(kernel.peak.value),
        "bandwidth": str(kernel.bandwidth.value),
        "ridge": str(kernel.ridge),
        "effective_ridge": str(kernel.effective_ridge),
        "attainable": str(kernel.attainable),
        "fraction_of_peak": str(kernel.fraction_of_peak),
        "binding": kernel.binding,
        "step": step_json(kernel.step),
        "mfu": None if measured is None or measured.mfu is None else str(measured.mfu),
        "mbu": None if measured is None or measured.mbu is None else str(measured.mbu),
        "measured": measured_json(measured),
    }


def run_kernel_numbers(args: argparse.Namespace) -> int:
    """Derive and print a kernel given by ``--flops``/``--bytes`` or ``--intensity``."""
    from derive.commands.cli import timing_from_args

    if args.operator is not None:
        raise ProblemError(
            f"derive solve {args.operator}",
            "give an operator or a kernel's numbers (--flops/--bytes/--intensity), not both",
        )
    compute = _compute(args)
    spec = ProblemSpec(
        operator="kernel",
        chip=args.chip,
        peak=args.peak,
        bandwidth=args.bandwidth,
        link_bandwidth=args.link_bandwidth,
    )
    _, peak, bandwidth, _ = bind_hardware(spec, compute)
    kernel = kernel_numbers(
        NumbersSpec(args.flops, args.bytes, args.intensity),
        peak,
        bandwidth,
        compute,
        bind_timing(timing_from_args(args)),
    )
    if args.format == "json":
        sys.stdout.write(json.dumps(kernel_json(kernel), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(kernel_markdown(kernel))
    return 0
