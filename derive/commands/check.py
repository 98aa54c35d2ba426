"""``derive check``: judge a claimed roofline quantity, or a whole derivation, exactly.

::

    derive check matmul --dtype bf16 --dtype Y=int8 --chip tpu-v5e \\
        --quantity intensity --claim '\\frac{2BDF}{2BD+2DF+2BF}'

Exit codes: 0 the claim (or every step) is right, 1 it is wrong, 2 the claim,
the file or the problem cannot be read (one line on stderr). Claims are read
only by :mod:`derive.formula`; nothing here evaluates text.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import sympy as sp

from derive.checking.context import DEFAULT_RTOL, Context
from derive.checking.quantities import QUANTITIES
from derive.errors import ProblemError
from derive.formula import SYNTAXES, Parsed
from derive.problem.decimals import parse_decimal

__all__ = ["add_check_parser", "build_context", "parse_rtol", "run"]


def add_check_parser(
    sub, add_problem_flags: Callable[[argparse.ArgumentParser], None]
) -> argparse.ArgumentParser:
    """Register ``derive check`` on the CLI's subparsers."""
    p = sub.add_parser(
        "check", help="judge a claimed quantity or a whole derivation against the exact answer"
    )
    add_problem_flags(p)
    p.add_argument(
        "--quantity",
        choices=QUANTITIES,
        metavar="Q",
        help=f"the quantity claimed: {', '.join(QUANTITIES)}",
    )
    p.add_argument(
        "--claim", metavar="TEXT", help="the claimed value or formula, LaTeX or plain text"
    )
    p.add_argument(
        "--chain",
        metavar="FILE",
        help="a derivation, one step per line ('=' exact, '\\approx' leading order)",
    )
    p.add_argument(
        "--syntax", choices=SYNTAXES, default="auto", help="how to read the claim (default: auto)"
    )
    p.add_argument(
        "--rtol",
        default=DEFAULT_RTOL,
        metavar="R",
        help="relative tolerance for numbers (default 0.01 = 1%%)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(handler=run)
    return p


def parse_rtol(text: str) -> sp.Rational:
    """The tolerance as an exact rational in (0, 1).

    Raises:
        ProblemError: not a decimal, or not strictly between 0 and 1.
    """
    value = parse_decimal(text, "--rtol")
    if not 0 < value < 1:
        raise ProblemError(
            f"--rtol {text}", "must be a decimal greater than 0 and less than 1 (0.01 is 1%)"
        )
    return value


def build_context(
    args: argparse.Namespace, claim: str | None = None
) -> tuple[Context, Parsed | None]:
    """Bind and analyse the problem named by the flags; a claim is read first (cheap refusals first)."""
    from derive.analysis.analyse import analyse
    from derive.checking.judge import read_claim
    from derive.commands.cli import spec_from_args
    from derive.declare.registry import load_registry
    from derive.problem.binding import bind

    rtol = parse_rtol(args.rtol)
    spec = spec_from_args(args)
    registry = load_registry(tuple(Path(p) for p in args.operators))
    op = registry.get(spec.operator)
    parsed = (
        read_claim({d.name: d for d in op.dims}, claim, args.syntax) if claim is not None else None
    )
    return Context(analyse(bind(spec, op)), spec, registry, rtol), parsed


def _write(data: dict | str) -> None:
    sys.stdout.write(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n" if isinstance(data, dict) else data
    )


def run(args: argparse.Namespace) -> int:
    """The handler of ``derive check``: 0 right, 1 wrong; errors raise :class:`DeriveError` (exit 2)."""
    from derive.checking import verdict_text as report
    from derive.checking.chain import check_chain, read_chain
    from derive.checking.judge import INCORRECT, judge_expr

    if (args.claim is None) == (args.chain is None):
        raise ProblemError("--claim / --chain", "give exactly one of --claim TEXT or --chain FILE")
    if args.claim is not None and args.quantity is None:
        raise ProblemError(
            "--quantity", f"--claim needs --quantity (one of {', '.join(QUANTITIES)})"
        )
    if args.chain is not None:
        lines = read_chain(args.chain)
        ctx, _ = build_context(args)
        result = check_chain(ctx, lines, args.syntax, args.quantity)
        _write(
            report.chain_json(ctx, result)
            if args.format == "json"
            else report.chain_text(ctx, result)
        )
        return 1 if result.verdict == INCORRECT else 0
    ctx, parsed = build_context(args, args.claim)
    verdict = judge_expr(ctx, args.quantity, parsed.expr)
    _write(
        report.claim_json(ctx, parsed, verdict)
        if args.format == "json"
        else report.claim_text(ctx, parsed, verdict)
    )
    return 1 if verdict.verdict == INCORRECT else 0
