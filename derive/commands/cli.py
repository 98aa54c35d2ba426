"""Command line: ``derive [solve|key|check|chips|operators] …``; bare ``derive`` writes the built-in key.

``main(argv) -> int``: 0 success, 1 a checked claim is wrong, 2 bad input (one
line on stderr, nothing written).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias

from derive.errors import DeriveError, ProblemError

if TYPE_CHECKING:
    from derive.problem.binding import ProblemSpec

__all__ = ["ProblemFlags", "Subparsers", "build_parser", "load_engine", "main", "run"]

Subparsers: TypeAlias = "argparse._SubParsersAction[_Parser]"
"""What ``ArgumentParser.add_subparsers`` returns: each command module adds its parser to it."""


class ProblemFlags(Protocol):
    """:func:`add_problem_flags`, handed to the command modules that describe a problem."""

    def __call__(self, parser: argparse.ArgumentParser, chip: bool = True) -> None: ...


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 through our error path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ProblemError(self.prog, f"{message} (see {self.prog} --help)")


def add_problem_flags(parser: argparse.ArgumentParser, chip: bool = True) -> None:
    """The flags that describe a problem (shared by solve, check, compare)."""
    parser.add_argument("operator", help="operator name (see 'derive operators')")
    parser.add_argument(
        "--operators",
        action="append",
        default=[],
        metavar="PATH",
        help="a Python file of Operator declarations (repeatable)",
    )
    parser.add_argument(
        "--dtype",
        action="append",
        default=[],
        metavar="[T=]DTYPE",
        help="bind every tensor, or tensor T (repeatable; later wins)",
    )
    parser.add_argument(
        "--compute", metavar="DTYPE", help="compute dtype (default: the widest dtype read)"
    )
    if chip:
        parser.add_argument("--chip", metavar="NAME", help="a chip (see 'derive chips')")
    parser.add_argument(
        "--peak", metavar="FLOP_PER_S", help="compute peak instead of a chip, e.g. 1.97e14"
    )
    parser.add_argument(
        "--bandwidth", metavar="BYTES_PER_S", help="memory bandwidth instead of a chip, e.g. 8.2e11"
    )
    parser.add_argument(
        "--link-bandwidth", metavar="BYTES_PER_S", help="interconnect bandwidth, one way"
    )
    parser.add_argument(
        "--regime",
        metavar="R",
        help="asymptotic regime: 'B << D, F', 'B >> G', 'B -> oo', 'D, F >> 1'",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="DIM=INT",
        help="bind a dim to a positive integer (repeatable)",
    )
    parser.add_argument(
        "--solve-for", metavar="DIM", help="the dim to solve the crossover for (default B)"
    )


# Commands that live in their own modules, each offering ``add_<name>_parser``; only the
# one being run is imported (the others cost a quarter second of start-up together).
_LATER = {
    "key": (
        "key",
        "add_key_parser",
        "write an answer key, questions, LaTeX and figures for a problem set",
    ),
    "check": ("check", "add_check_parser", "check a claimed formula, number or derivation"),
    "compare": (
        "compare",
        "add_compare_parser",
        "compare chips and compute dtypes for one problem",
    ),
    "sweep": (
        "sweep",
        "add_sweep_parser",
        "evaluate derived quantities over a grid of dims, as CSV",
    ),
}


def build_parser(command: str | None = "") -> argparse.ArgumentParser:
    """The argument parser of ``derive``; ``command`` limits which command modules load."""
    from derive import __version__

    parser = _Parser(
        prog="derive",
        description="Exact, step-by-step roofline analysis of ML operators. With no command, "
        "writes the built-in answer key (the rooflines chapter) into ./out/.",
    )
    parser.add_argument("--version", action="version", version=f"derive {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    solve = sub.add_parser("solve", help="derive one operator's roofline with a worked solution")
    add_problem_flags(solve)
    solve.add_argument("--format", choices=("md", "json"), default="md")
    chips = sub.add_parser("chips", help="list chips with every ceiling and ridge point")
    chips.add_argument("--format", choices=("text", "md", "json"), default="text")
    ops = sub.add_parser("operators", help="list operators with their shapes")
    ops.add_argument("--operators", action="append", default=[], metavar="PATH")
    ops.add_argument("--format", choices=("text", "md", "json"), default="text")
    _add_later_commands(sub, command)
    return parser


def _add_later_commands(sub: Subparsers, command: str | None = "") -> None:
    """Full parsers for the command being run (all when ``command`` is ""), stubs for the rest."""
    for name, (module, func, helptext) in _LATER.items():
        if command not in ("", name):
            sub.add_parser(name, help=helptext, add_help=False)
            continue
        adder = getattr(import_module(f"derive.commands.{module}"), func)
        adder(sub) if module == "key" else adder(sub, add_problem_flags)


def _command_of(argv: list[str]) -> str:
    """The command word in argv ("" when it cannot be told, so every command loads)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None:  # bare derive, derive --help, derive --version: no command module
        return "none"
    return (
        first if first in _LATER else ("none" if first in ("solve", "chips", "operators") else "")
    )


def spec_from_args(args: argparse.Namespace) -> ProblemSpec:
    """A ProblemSpec from parsed flags."""
    from derive.problem.binding import ProblemSpec

    return ProblemSpec(
        operator=args.operator,
        dtypes=tuple(args.dtype),
        compute=args.compute,
        chip=getattr(args, "chip", None),
        peak=args.peak,
        bandwidth=args.bandwidth,
        link_bandwidth=args.link_bandwidth,
        regime=args.regime,
        sets=tuple(args.set),
        solve_for=args.solve_for,
    )


def _cmd_solve(args: argparse.Namespace) -> int:
    from derive.declare.registry import load_registry
    from derive.pipeline import derive_spec

    registry = load_registry(tuple(Path(path) for path in args.operators))
    derivation = derive_spec(spec_from_args(args), registry)
    if args.format == "json":
        sys.stdout.write(json.dumps(derivation.as_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(derivation.markdown(level=1))
    return 0


def _cmd_chips(args: argparse.Namespace) -> int:
    from derive.present import listing

    if args.format == "json":
        sys.stdout.write(json.dumps(listing.chips_json(), indent=2) + "\n")
    else:
        sys.stdout.write(listing.chips_markdown() if args.format == "md" else listing.chips_text())
    return 0


def _cmd_operators(args: argparse.Namespace) -> int:
    from derive.declare.registry import load_registry
    from derive.present import listing

    registry = load_registry(tuple(Path(path) for path in args.operators))
    if args.format == "json":
        sys.stdout.write(
            json.dumps(listing.operators_json(registry), indent=2, ensure_ascii=False) + "\n"
        )
    elif args.format == "md":
        sys.stdout.write(listing.operators_markdown(registry))
    else:
        sys.stdout.write(listing.operators_text(registry))
    return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.command is None:
        from derive.commands.key import run_builtin_key

        return run_builtin_key()
    handlers = {"solve": _cmd_solve, "chips": _cmd_chips, "operators": _cmd_operators}
    if args.command in handlers:
        return handlers[args.command](args)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


def load_engine() -> None:
    """Import sympy and the engine with the cycle collector paused, then freeze what they made.

    Importing sympy creates a few hundred thousand objects that live until the process ends,
    and each full collection walks all of them again: about a tenth of a cold ``derive key``
    went to the collector (callgrind, set20). A command-line run is one short process, so
    here the collector is paused while those objects are made and they are then moved to the
    permanent generation (``gc.freeze``); collections walk only what the run allocates.
    Only :func:`run` (the ``derive`` command) calls this, and it does nothing when the engine
    is already imported: ``main`` called in-process and ``import derive`` leave the collector alone.
    """
    if "derive.pipeline" in sys.modules:
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        import_module("derive.pipeline")  # sympy, jinja2 and the engine every command uses
        sympy = import_module("sympy")
        (
            sympy.Symbol("x") + 1
        )  # sympy's first Add finishes its import (sympy.tensor, sympy.combinatorics)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def run() -> int:
    """The ``derive`` command (console script and ``python -m derive``): :func:`load_engine`, then :func:`main`.

    ``--help`` and ``--version`` need no engine, so they answer without importing sympy.
    """
    if not any(arg in ("-h", "--help", "--version") for arg in sys.argv[1:]):
        load_engine()
    return main()


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(_command_of(argv)).parse_args(argv)
        return _dispatch(args)
    except DeriveError as exc:
        sys.stderr.write(exc.one_line() + "\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
