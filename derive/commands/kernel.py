"""``derive solve --flops F --bytes Q --chip NAME``: a kernel by its numbers, no operator."""

from __future__ import annotations

import argparse
import sys

from derive.errors import ProblemError
from derive.pipeline import derive_kernel
from derive.problem.kernel_spec import KernelSpec

_READS = (
    "chip",
    "peak",
    "bandwidth",
    "link_bandwidth",
    "compute",
    "dtype",
    *("given", "define", "equation", "unknown"),
    *("profile", "speedup", "peak_from"),  # the sections after the document (issue 36)
)
"""The flags of ``derive solve`` a kernel reads besides its numbers and the timing flags."""


def kernel_spec_of(args: argparse.Namespace) -> KernelSpec:
    """The kernel the flags of ``derive solve``/``derive check`` describe (``--flops``, ``--chip``, …)."""
    from derive.commands.options import timing_from_args

    return KernelSpec(
        flops=args.flops,
        bytes=args.bytes,
        intensity=args.intensity,
        chip=getattr(args, "chip", None),  # derive compare takes --chips instead
        peak=args.peak,
        bandwidth=args.bandwidth,
        link_bandwidth=args.link_bandwidth,
        compute=args.compute,
        dtypes=tuple(args.dtype),
        timing=timing_from_args(args),
    )


def run_kernel_numbers(args: argparse.Namespace) -> int:
    """Derive and print a kernel given by ``--flops``/``--bytes`` or ``--intensity``."""
    if args.operator is not None:
        raise ProblemError(
            f"derive solve {args.operator}",
            "give an operator or a kernel's numbers (--flops/--bytes/--intensity), not both",
        )
    from derive.commands.options import (
        KERNEL_FLAGS,
        TIMING_DESTS,
        question_spec_from_args,
        refuse_unused,
    )
    from derive.commands.sections import with_sections
    from derive.present.formats import render

    flags = [flag[2:] for flag, _ in KERNEL_FLAGS] + list(TIMING_DESTS) + list(_READS)
    refuse_unused(args, flags, "a kernel by its numbers (it has no operator and no dims)")

    questions = question_spec_from_args(args)
    derivation = derive_kernel(kernel_spec_of(args))
    document = with_sections(derivation.document(), args, "FLOP/s", "--measured-flops-per-s")
    if questions is not None:  # over the kernel's own names: t_lower, intensity, flops, ...
        from derive.pipeline import answer_for
        from derive.present.questions_view import with_questions

        answered = answer_for(questions, derivation.kernel)  # type: ignore[arg-type]
        document = with_questions(document, answered)
    sys.stdout.write(render(document, args.format))
    return 0
