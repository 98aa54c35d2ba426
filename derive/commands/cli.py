"""Command line: ``derive [solve|key|check|chips|operators] …``; bare ``derive`` writes the built-in key.

``main(argv) -> int``: 0 success, 1 a checked claim is wrong, 2 bad input (one
line on stderr, nothing written).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO, TypeAlias

from derive.errors import DeriveError, ProblemError

if TYPE_CHECKING:
    from derive.problem.binding import ProblemSpec
    from derive.problem.timing import TimingSpec

__all__ = [
    "KERNEL_FLAGS",
    "REPORT_FORMATS",
    "ProblemFlags",
    "Subparsers",
    "add_format_flag",
    "add_kernel_flags",
    "build_parser",
    "is_kernel",
    "load_engine",
    "main",
    "run",
]

Subparsers: TypeAlias = "argparse._SubParsersAction[_Parser]"
"""What ``ArgumentParser.add_subparsers`` returns: each command module adds its parser to it."""


class ProblemFlags(Protocol):
    """:func:`add_problem_flags`, handed to the command modules that describe a problem."""

    def __call__(
        self, parser: argparse.ArgumentParser, chip: bool = True, operator_optional: bool = False
    ) -> None: ...


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 through our error path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ProblemError(self.prog, f"{message} (see {self.prog} --help)")


def add_problem_flags(
    parser: argparse.ArgumentParser, chip: bool = True, operator_optional: bool = False
) -> None:
    """The flags that describe a problem (shared by solve, check, compare)."""
    if operator_optional:  # derive check --problem-set takes the problem from the set
        parser.add_argument("operator", nargs="?", help="operator name (see 'derive operators')")
    else:
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
    parser.add_argument(
        "--time-limit",
        metavar="SECONDS",
        help="seconds the derivation (and judgement) may take (default $DERIVE_TIME_LIMIT or 10)",
    )
    add_timing_flags(parser)


_TIMING_FLAGS = (
    ("--efficiency", "ETA", "derate both ceilings: peak·η and bandwidth·η, η in (0, 1]"),
    ("--compute-efficiency", "ETA", "derate the compute peak only"),
    ("--memory-efficiency", "ETA", "derate the memory bandwidth only"),
    ("--launch-overhead", "TIME", "latency added to every kernel of the step, e.g. 5us"),
    ("--link-latency", "TIME", "latency per step of a collective (a ring hop), e.g. 1us"),
    ("--measured-time", "TIME", "a measured time of the step (gives MFU and MBU)"),
    ("--measured-flops-per-s", "FLOP_PER_S", "a measured compute rate"),
    ("--measured-bytes-per-s", "BYTES_PER_S", "a measured memory rate"),
)


def add_timing_flags(parser: argparse.ArgumentParser) -> None:
    """Efficiencies, overheads and measurements (exact: durations take s, ms, us, ns)."""
    for flag, metavar, helptext in _TIMING_FLAGS:
        parser.add_argument(flag, metavar=metavar, help=helptext)


KERNEL_FLAGS = (
    ("--flops", "a kernel by its numbers: its FLOPs (no operator), e.g. 1e12"),
    ("--bytes", "a kernel by its numbers: the bytes it moves, e.g. 2.5e9"),
    ("--intensity", "a kernel by its intensity alone, FLOPs per byte"),
)
"""The flags that give a kernel by its numbers (``derive solve`` and ``derive check``)."""


def add_kernel_flags(parser: argparse.ArgumentParser) -> None:
    """``--flops``, ``--bytes`` and ``--intensity``: a kernel by its numbers, no operator."""
    for flag, helptext in KERNEL_FLAGS:
        parser.add_argument(flag, metavar="N", help=helptext)


REPORT_FORMATS = ("md", "tex", "json")
"""The ``--format`` choices of a report (the names of :data:`derive.present.formats.FORMATS`,
written out so that parsing flags does not load the renderers; a test keeps them equal)."""


def add_format_flag(parser: argparse.ArgumentParser) -> None:
    """``--format md|tex|json``: the report's format (:mod:`derive.present.formats`)."""
    parser.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        default="md",
        help="md (Markdown, math in $…$), tex (a LaTeX fragment) or json (default md)",
    )


def is_kernel(args: argparse.Namespace) -> bool:
    """True when the flags give a kernel by its numbers."""
    return any(getattr(args, flag[2:], None) is not None for flag, _ in KERNEL_FLAGS)


def timing_from_args(args: argparse.Namespace) -> TimingSpec:
    """The timing flags as typed."""
    from derive.problem.timing import TimingSpec

    return TimingSpec(
        **{
            flag[2:].replace("-", "_"): getattr(args, flag[2:].replace("-", "_"), None)
            for flag, _, _ in _TIMING_FLAGS
        }
    )


# Commands that live in their own modules, each offering ``add_<name>_parser``; only the
# one being run is imported (the others' start-up cost: benchmarks/README.md).
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
        "compare chips for one operator (and compute dtypes) or one model's serving step",
    ),
    "model": (
        "model",
        "add_model_parser",
        "a whole model: parameters, KV cache, memory fit, training",
    ),
    "sweep": (
        "sweep",
        "add_sweep_parser",
        "evaluate derived quantities over a grid of dims, as CSV",
    ),
    "serve": ("serve", "add_serve_parser", "serve a problem set as a workbook in the browser"),
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
    add_problem_flags(solve, operator_optional=True)
    add_kernel_flags(solve)
    add_format_flag(solve)
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
        timing=timing_from_args(args),
    )


def _cmd_solve(args: argparse.Namespace) -> int:
    if is_kernel(args):
        from derive.commands.kernel import run_kernel_numbers

        return run_kernel_numbers(args)
    if args.operator is None:
        raise ProblemError(
            "derive solve", "give an operator, or a kernel by --flops and --bytes (or --intensity)"
        )
    from derive.declare.registry import load_registry
    from derive.pipeline import derive_spec

    registry = load_registry(tuple(Path(path) for path in args.operators))
    from derive.present.formats import render

    derivation = derive_spec(spec_from_args(args), registry)
    sys.stdout.write(render(derivation.document(level=1), args.format))
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


# Commands whose whole run (derive, judge, render) goes under the time budget; sweep puts
# its derivation under it (its CSV streams), key each problem (derive.commands.key).
_BUDGETED = ("solve", "check", "compare")


def _costly_input(args: argparse.Namespace) -> str:
    """How a time-limit error names the input that was too costly."""
    if getattr(args, "claim", None) is not None:
        return f"--claim {args.claim!r}"
    if getattr(args, "chain", None) is not None:
        return f"--chain {args.chain!r}"
    return f"derive {args.command} {args.operator}"


def _dispatch(args: argparse.Namespace) -> int:
    if args.command is None:
        from derive.commands.key import run_builtin_key

        return run_builtin_key()
    handlers = {"solve": _cmd_solve, "chips": _cmd_chips, "operators": _cmd_operators}
    handler: Callable[[argparse.Namespace], int] | None = handlers.get(args.command)
    if handler is None:  # a command module's handler (``.get`` with it as default is eager)
        handler = args.handler
    if args.command in _BUDGETED:
        from derive.deadline import run_command_with_deadline, time_limit

        seconds = time_limit(args.time_limit)
        return run_command_with_deadline(handler, args, seconds=seconds, what=_costly_input(args))
    return handler(args)


def load_engine() -> None:
    """Import sympy and the engine with the cycle collector paused, then freeze what they made.

    Importing sympy creates a few hundred thousand objects that live until the process ends,
    and each full collection walks all of them again (what that cost a cold ``derive key``
    is in benchmarks/README.md). A command-line run is one short process, so
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


class _StdoutError(Exception):
    """Standard output could not be written (a full disk, a closed pipe, ...)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class _GuardedStdout:
    """Standard output whose write errors are told apart from every other OSError.

    ``derive key > /dev/full`` fails inside ``write`` (or at the last flush); the CLI
    reports that once, as a line on stderr with exit 2, rather than as a traceback.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise _StdoutError(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise _StdoutError(exc) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null so the interpreter's exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # stdout is not a file (captured in a test): nothing is flushed at exit


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    stdout = sys.stdout
    sys.stdout = _GuardedStdout(stdout)
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        for arg in argv:  # no command line can carry one; main(argv) from Python can
            if "\x00" in arg:
                raise ProblemError(f"argument {arg!r}", "contains a NUL character")
        args = build_parser(_command_of(argv)).parse_args(argv)
        code = _dispatch(args)
        sys.stdout.flush()
        return code
    except DeriveError as exc:
        sys.stderr.write(exc.one_line() + "\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except _StdoutError as exc:
        sys.stdout = stdout
        _silence_stdout()
        if isinstance(exc.error, BrokenPipeError):
            return 0
        why = exc.error.strerror or str(exc.error)
        sys.stderr.write(f"error: standard output: cannot write: {why}\n")
        return 2
    finally:
        sys.stdout = stdout
