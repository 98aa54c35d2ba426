"""``derive sweep``: derived quantities over a grid of dims, written as CSV (and, with
``--plot FILE.svg``, attainable FLOP/s against the swept dim as a figure).

The command parses the grid (:mod:`derive.present.sweep.grid`), checks it against
the problem, derives it and streams the CSV (:mod:`derive.present.sweep.values`,
formatted by :mod:`derive.present.sweep.csv`) to stdout or, atomically, to a file
(:mod:`derive.commands.atomic_file`). Those modules use numpy; they are imported
only when a sweep runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from derive.commands.options import add_problem_flags, spec_from_args

if TYPE_CHECKING:
    from derive.commands.cli import Subparsers


_MODEL_ADVICE = (
    "derive sweep takes an operator; a model's serving step over the batch is "
    "derive model {name} --phase decode --set B=… --set S=… (one point), derive compare {name} "
    "--phase decode (many chips), or serving_plot = {{ from = 1, to = 1024, contexts = [2048] }} "
    "in a problem set (tokens/s against B, plotted by derive key)"
)


def run_sweep(args: argparse.Namespace) -> int:
    """``derive sweep``: parse, derive and evaluate (:mod:`derive.pipeline.sweep`), write CSV."""
    from derive.commands.atomic_file import write_atomic
    from derive.deadline import time_limit
    from derive.pipeline import registry_naming
    from derive.pipeline.sweep import sweep_outputs

    registry_naming(args.operator, args.operators, instead=_MODEL_ADVICE)
    seconds = time_limit(args.time_limit)
    chunks, figure = sweep_outputs(
        spec_from_args(args), args.operators, args.over, seconds, args.plot
    )
    if args.output:
        write_atomic(Path(args.output), chunks)
    else:
        for chunk in chunks:
            sys.stdout.write(chunk.decode("ascii"))
    if figure is not None:  # after the CSV: a grid that fails writes no figure either
        write_atomic(Path(args.plot), [figure.encode("utf-8")])
    return 0


def add_sweep_parser(sub: Subparsers) -> None:
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
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="also write attainable FLOP/s against the swept dim as a figure: FILE.svg (SVG) "
        "or FILE.tex (pgfplots); one --over",
    )
    parser.set_defaults(handler=run_sweep)
