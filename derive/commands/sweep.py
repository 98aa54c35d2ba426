"""``derive sweep``: derived quantities over a grid of dims, written as CSV.

The command parses the grid (:mod:`derive.commands.sweep_grid`), checks it against
the problem, derives it and streams the CSV (:mod:`derive.commands.sweep_values`,
formatted by :mod:`derive.commands.csv_numbers`) to stdout or, atomically, to a file
(:mod:`derive.commands.atomic_file`). Those modules use numpy; they are imported
only when a sweep runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from derive.errors import ProblemError

if TYPE_CHECKING:
    from derive.commands.cli import Subparsers
    from derive.commands.options import ProblemFlags
    from derive.commands.sweep_grid import Axis
    from derive.declare.operator import Operator

__all__ = ["add_sweep_parser", "run_sweep"]


def _axes(args: argparse.Namespace, operator: Operator) -> list[Axis]:
    from derive.commands.sweep_grid import parse_over

    axes: list[Axis] = []
    for text in args.over:
        ax = parse_over(text, operator.dims)
        if any(a.dim == ax.dim for a in axes):
            raise ProblemError(
                f"--over {ax.dim.name}", "the dim is swept twice; give one --over per dim"
            )
        axes.append(ax)
    return axes


def run_sweep(args: argparse.Namespace) -> int:
    """``derive sweep``: parse, check the grid against the problem, evaluate, write CSV."""
    from derive.analysis.analyse import analyse
    from derive.commands.atomic_file import write_atomic
    from derive.commands.options import spec_from_args
    from derive.commands.sweep_grid import grid_size
    from derive.commands.sweep_values import sweep_csv_chunks, unbound_dims
    from derive.declare.registry import load_registry
    from derive.problem.binding import bind

    registry = load_registry(tuple(Path(path) for path in args.operators))
    operator = registry.get(args.operator)
    if not args.over:
        raise ProblemError("derive sweep", "give at least one --over DIM=A..B")
    axes = _axes(args, operator)
    problem = bind(spec_from_args(args), operator)
    bound = problem.bound_subs()
    clash = [ax.dim.name for ax in axes if ax.dim in bound]
    if clash:
        raise ProblemError(
            f"--over {clash[0]}",
            f"{clash[0]} is bound with --set; a dim is either swept or set, not both",
        )
    swept = {ax.dim for ax in axes}
    free = [d.name for d in operator.dims if d not in bound and d not in swept]
    if free:
        raise ProblemError(f"sweep of {operator.name}", unbound_dims(free))
    grid_size(axes)  # the size check, before any algebra
    from derive.deadline import run_with_deadline, time_limit

    analysis = run_with_deadline(
        analyse, problem, seconds=time_limit(args.time_limit), what=f"derive sweep {operator.name}"
    )
    chunks = sweep_csv_chunks(analysis, axes)
    if args.output:
        write_atomic(Path(args.output), chunks)
    else:
        for chunk in chunks:
            sys.stdout.write(chunk.decode("ascii"))
    return 0


def add_sweep_parser(sub: Subparsers, add_problem_flags: ProblemFlags) -> None:
    """Register ``derive sweep OPERATOR [problem flags] --over DIM=A..B [...] [-o FILE]``."""
    parser = sub.add_parser("sweep", help="evaluate derived quantities over a grid of dims, as CSV")
    add_problem_flags(parser)
    parser.add_argument(
        "--over",
        action="append",
        default=[],
        metavar="DIM=GRID",
        help="DIM=A..B (every integer), DIM=A..B:N (N log-spaced integers) or DIM=v1,v2 (repeatable: a product)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the CSV to FILE (atomically) instead of stdout",
    )
    parser.set_defaults(handler=run_sweep)
