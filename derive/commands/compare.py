"""``derive compare``: one problem on many chips, one row per chip and compute dtype.

The rows are derived by :mod:`derive.pipeline.compare` and laid out by
:mod:`derive.present.compare` (see :mod:`derive.present.compare.table` for the columns).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from derive.commands.options import (
    REPORT_FORMATS,
    add_format_flag,
    add_kernel_flags,
    add_problem_flags,
)
from derive.errors import ProblemError
from derive.pipeline.compare import compare_rows, tensors_compute
from derive.present.compare.ratios import ratios_to
from derive.present.compare.table import baseline_parts, compare_document
from derive.present.formats import render

if TYPE_CHECKING:
    from derive.commands.cli import Subparsers
    from derive.present.compare.ratios import Ratios
    from derive.present.compare.table import CompareRow


def run_compare(args: argparse.Namespace) -> int:
    """``derive compare``: one table over chips and compute dtypes."""
    from derive.commands.compare_model import compare_target, run_compare_model
    from derive.commands.options import is_kernel, spec_from_args

    # --chip and --chips append; every value joins one comma list, in the order given
    args.chips = ",".join(args.chips) if args.chips else None
    if is_kernel(args):
        return _compare_kernel(args)
    if args.operator is None:
        raise ProblemError(
            "derive compare", "give an operator, a model, or a kernel by --flops and --bytes"
        )

    registry = compare_target(args)
    if registry is None:  # a model: one serving step per chip
        if args.peak is not None or args.bandwidth is not None:
            raise ProblemError(
                "derive compare MODEL --peak/--bandwidth",
                "a model is compared on chips; choose them with --chips a,b (default: every chip)",
            )
        return run_compare_model(args)
    spec = replace(spec_from_args(args), compute=None)

    def table(compute: str | None) -> tuple[list[CompareRow], list[Ratios] | None]:
        rows = compare_rows(spec, registry, args.chips, compute)
        if args.baseline is None:
            return rows, None
        chip, dtype = baseline_parts(args.baseline)
        named = replace(spec, peak=None, bandwidth=None)  # the baseline is a chip's row
        if dtype is None:
            return rows, ratios_to(rows, compare_rows(named, registry, chip.name, compute))
        base = replace(named, dtypes=(dtype,))  # in that dtype, at its peak: fp8 against bf16
        return rows, ratios_to(rows, compare_rows(base, registry, chip.name, dtype))

    paper = partial(tensors_compute, spec, registry, args.chips)  # LaTeX's rows: each tensor dtype
    sys.stdout.write(render(compare_document(table, args.compute, paper), args.format))
    return 0


def _compare_kernel(args: argparse.Namespace) -> int:
    """``derive compare --flops F --bytes Q [--chips a,b] [--peak P --bandwidth W]``."""
    from derive.commands.kernel import kernel_spec_of
    from derive.pipeline.compare import kernel_rows
    from derive.present.compare.kernels import kernel_compare_document, refuse_kernel_table

    if args.operator is not None:
        raise ProblemError(
            f"derive compare {args.operator}",
            "give an operator or a kernel's numbers (--flops/--bytes/--intensity), not both",
        )
    if args.baseline is not None:
        refuse_kernel_table("--baseline")
    document = kernel_compare_document(lambda: kernel_rows(kernel_spec_of(args), args.chips))
    sys.stdout.write(render(document, args.format))
    return 0


def add_compare_parser(sub: Subparsers) -> None:
    """Register ``derive compare OPERATOR|MODEL [flags] [--chips a,b] [--baseline CHIP] [--format md|tex|json]``."""
    from derive.commands.compare_model import add_model_compare_flags

    parser = sub.add_parser(
        "compare",
        help="one problem on many chips: a row per chip and compute dtype",
        description="One operator (a row per chip and compute dtype) or one model's serving "
        "step (MODEL --phase decode|prefill: a row per chip, with tokens/s) on many chips, exactly.",
        epilog="The positional names an operator or a model (gpt2-small, llama-3-8b, llama-3-70b, "
        "llama-2-70b, mixtral-8x7b, or one declared in --operators PATH). A model takes --phase, "
        "--devices, --tp, --dtype ROLE=DTYPE (weights=, kv=, activations=) and --set B=… --set S=….",
    )
    add_problem_flags(parser, chip=False, operator_optional=True)
    add_kernel_flags(parser)
    add_model_compare_flags(parser)
    parser.add_argument(
        "--chips",
        metavar="A,B",
        action="append",
        help="comma list of chips (default: every chip, in catalogue order; repeatable)",
    )
    parser.add_argument(  # without it, argparse reads --chip as --chips and keeps the last
        "--chip",
        dest="chips",
        metavar="NAME",
        action="append",
        help="a chip to compare on (repeatable; adds to --chips)",
    )
    parser.add_argument(
        "--baseline",
        metavar="CHIP[:DTYPE]",
        help="add ratio columns against this chip (peak, bandwidth, ridge, T_lower speedup; a model's tokens/s); "
        "CHIP:DTYPE compares against the problem in DTYPE at its peak (--dtype fp8 --baseline h100:bf16)",
    )
    add_format_flag(parser, REPORT_FORMATS)
    parser.set_defaults(handler=run_compare)
