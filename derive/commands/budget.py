"""``derive budget``: the compute-optimal parameters and tokens a training compute buys.

    derive budget --compute 5.76e23
    derive budget --compute 5.76e23 --tokens-per-param 20 --flops-per-param-token 6 --format json
    derive budget --compute 5.76e23 --params 70e9
    derive budget --params 70e9

Exit codes: 0, or 2 for bad input (one line naming the flag).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from derive.commands.options import REPORT_FORMATS, add_format_flag

_FLAGS = (
    ("--compute", "C", "training compute in FLOPs, e.g. 5.76e23"),
    ("--params", "N", "parameters (with --compute: solve D; alone: D = r·N and C)"),
    ("--tokens", "D", "training tokens (with --compute: solve N; alone: N = D/r and C)"),
    ("--tokens-per-param", "R", "tokens per parameter at the optimum (default 20, Chinchilla)"),
    ("--flops-per-param-token", "K", "training FLOPs per parameter per token (default 6)"),
)


def add_budget_parser(sub: Any) -> None:
    """The ``budget`` subcommand and its flags."""
    p = sub.add_parser(
        "budget",
        help="a scaling-law budget: compute-optimal parameters and tokens from compute",
        description="Solve C = k·N·D and D = r·N (Chinchilla) exactly for N and D, or the rest "
        "from one or two of C, N, D.",
    )
    for flag, metavar, helptext in _FLAGS:
        p.add_argument(flag, metavar=metavar, help=helptext)
    add_format_flag(p, REPORT_FORMATS)
    p.set_defaults(handler=run_budget)


def run_budget(args: argparse.Namespace) -> int:
    """``derive budget``: the worked solution (Markdown or LaTeX) or the JSON report."""
    from derive.pipeline.budget import derive_budget
    from derive.present.formats import render

    derivation = derive_budget(
        args.compute, args.params, args.tokens, args.tokens_per_param, args.flops_per_param_token
    )
    sys.stdout.write(render(derivation.document(), args.format))
    return 0
