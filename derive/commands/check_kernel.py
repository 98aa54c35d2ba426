"""``derive check --flops F --bytes Q --chip NAME``: the kernel-by-its-numbers side of ``derive check``.

The kernel takes the flags of ``derive solve --flops …`` (counts or ``--intensity``, a
chip or ``--peak``/``--bandwidth``, ``--compute``/``--dtype``, the efficiencies, the launch
overhead and a measured run); the claim is judged by :func:`derive.check` with a
:class:`~derive.problem.kernel_spec.KernelSpec` and printed like a model claim.
"""

from __future__ import annotations

import argparse

from derive.checking.api import KERNEL_QUANTITIES, QUANTITIES, parse_rtol
from derive.commands.check_model import judging, refuse_unreadable, write_report
from derive.commands.options import MODEL_FLAGS, flags_given
from derive.errors import ProblemError
from derive.problem.kernel_spec import KernelSpec

KERNEL_ONLY = tuple(q for q in KERNEL_QUANTITIES if q not in QUANTITIES)
"""Quantities only a kernel by its numbers has (``attainable``, ``fraction_of_peak``, …)."""

_KERNEL = "a kernel by its numbers (--flops/--bytes or --intensity)"
# flags of an operator problem that a kernel, which has no dims or tensors, does not take
_NOT_KERNEL = ("regime", "set", "solve_for", "operators", "convention")


def refuse_kernel_mix(args: argparse.Namespace) -> None:
    """Refuse what a kernel by its numbers cannot be judged with, in one line.

    Raises:
        ProblemError: an operator or a model named too, a problem set, a derivation, or a
            flag of an operator or a model.
    """
    allowed = ", ".join(KERNEL_QUANTITIES)
    if args.operator is not None:
        raise ProblemError(
            f"derive check {args.operator} with --flops/--bytes/--intensity",
            "give an operator (or a model) or a kernel's numbers, not both; "
            f"a kernel's quantities are {allowed}",
        )
    if args.problem_set is not None or args.answers is not None:
        raise ProblemError(
            "--problem-set" if args.problem_set is not None else "--answers",
            f"{_KERNEL} is given by its flags; give them or --problem-set SET, not both",
        )
    if args.chain is not None:
        raise ProblemError(
            "--chain",
            f"{_KERNEL} is checked one quantity at a time: give --quantity Q --claim TEXT",
        )
    refused = flags_given(args, _NOT_KERNEL + MODEL_FLAGS)
    if refused:
        raise ProblemError(
            f"{refused[0]} with --flops/--bytes/--intensity",
            f"{_KERNEL} has no dims, tensors or model; its flags: --chip or --peak/--bandwidth, "
            "--compute or --dtype, --efficiency, --compute-efficiency, --memory-efficiency, "
            "--launch-overhead, --measured-time, --measured-flops-per-s, --measured-bytes-per-s",
        )


def kernel_claim(args: argparse.Namespace) -> int:
    """Judge ``--claim`` about ``--quantity`` of the kernel the flags give: 0 right, 1 wrong."""
    from derive.commands.kernel import kernel_spec_of

    refuse_kernel_mix(args)
    return judge_kernel(args, kernel_spec_of(args), _KERNEL)


def judge_kernel(args: argparse.Namespace, spec: KernelSpec, what: str) -> int:
    """Judge ``--claim`` about ``--quantity`` of ``spec`` (``what`` names the kernel); 0 right, 1 wrong.

    The kernel comes from the flags (:func:`kernel_claim`) or from a problem set's ``kernel``
    problem (``--problem-set SET --problem ID``).
    """
    from derive.checking.api import Verdict, check, model_verdict_text

    allowed = ", ".join(KERNEL_QUANTITIES)
    if args.quantity is None:
        raise ProblemError("--quantity", f"--claim needs --quantity (one of {allowed})")
    if args.quantity not in KERNEL_QUANTITIES:
        raise ProblemError(
            f"--quantity {args.quantity}",
            f"not a quantity of {what}; its quantities are {allowed}",
        )
    result = check(spec, args.quantity, args.claim, **judging(args))
    if result.verdict is Verdict.UNREADABLE:
        refuse_unreadable(args, result)
    rtol = parse_rtol(args.rtol)
    report = model_verdict_text.model_claim_report(result, rtol)
    write_report(args, report, lambda: model_verdict_text.judged_json(result, rtol))
    return 1 if result.verdict is Verdict.INCORRECT else 0
