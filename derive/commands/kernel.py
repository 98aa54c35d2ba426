"""``derive solve --flops F --bytes Q --chip NAME``: a kernel by its numbers, no operator."""

from __future__ import annotations

import argparse
import sys

from derive.analysis.kernel_numbers import KernelNumbers, kernel_of
from derive.errors import ProblemError
from derive.present.formats import Document, render
from derive.present.json_export import measured_json, step_json
from derive.problem.kernel_spec import KernelSpec
from derive.problem.timing import TimingSpec
from derive.solution.number_steps import kernel_given, number_steps, numbers_verdict

__all__ = [
    "kernel_document",
    "kernel_json",
    "kernel_markdown",
    "kernel_spec_of",
    "run_kernel_numbers",
]


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


def kernel_document(kernel: KernelNumbers, timing: TimingSpec | None = None) -> Document:
    """The worked solution of a kernel by its numbers (its timing flags, as typed, among the
    givens), in the templates of a list of steps (``kernel.*.j2``); JSON: :func:`kernel_json`."""
    return Document(
        template="kernel",
        context=dict(
            title="A kernel by its numbers",
            given=kernel_given(kernel, timing or TimingSpec()),
            steps=number_steps(kernel),
            verdict=numbers_verdict(kernel),
            level=1,
        ),
        data=lambda: kernel_json(kernel),
    )


def kernel_markdown(kernel: KernelNumbers, timing: TimingSpec | None = None) -> str:
    """The worked solution of a kernel by its numbers, as Markdown."""
    return render(kernel_document(kernel, timing), "md")


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
    if args.operator is not None:
        raise ProblemError(
            f"derive solve {args.operator}",
            "give an operator or a kernel's numbers (--flops/--bytes/--intensity), not both",
        )
    spec = kernel_spec_of(args)
    kernel = kernel_of(spec)
    sys.stdout.write(render(kernel_document(kernel, spec.timing), args.format))
    return 0
