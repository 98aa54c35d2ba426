"""Command line: ``derive [solve|key|check|chips|operators] …``; bare ``derive`` writes the built-in key.

``main(argv) -> int``: 0 success, 1 a checked claim is wrong, 2 bad input (one
line on stderr, nothing written).
"""

from __future__ import annotations

import argparse
import errno
import gc
import io
import os
import re
import sys
from collections.abc import Callable
from importlib import import_module
from typing import TextIO, TypeAlias

from derive.commands.options import (
    REPORT_FORMATS,
    add_format_flag,
    add_kernel_flags,
    add_layers_flag,
    add_operators_flag,
    add_problem_flags,
    add_question_flags,
    add_sharding_flags,
    add_what_if_flags,
    is_kernel,
    question_spec_from_args,
    spec_from_args,
)
from derive.errors import DeriveError, ProblemError, closest, name_too_long

Subparsers: TypeAlias = "argparse._SubParsersAction[_Parser]"
"""What ``ArgumentParser.add_subparsers`` returns: each command module adds its parser to it."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit 2 through our error path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ProblemError(self.prog, f"{_few_choices(message)} (see {self.prog} --help)")


_CHOICE = re.compile(r"^(argument \S+: invalid choice: )('.*?') \(choose from (.*)\)$", re.S)


def _few_choices(message: str) -> str:
    """argparse's "invalid choice" with the closest five choices instead of all (issue 37: a
    --quantity typo printed 1,010 characters of them)."""
    m = _CHOICE.match(message)
    if m is None:
        return message
    choices = re.findall(r"'([^']*)'", m.group(3))
    if len(choices) <= 8:
        return message
    return f"{m.group(1)}{m.group(2)}; {closest(m.group(2).strip(chr(39)), choices)}"


# Commands that live in their own modules, each offering ``add_<name>_parser``; only the
# one being run is imported (the others' start-up cost: benchmarks/README.md).
_LATER = {
    "key": "write an answer key, questions, LaTeX and figures for a problem set",
    "check": "check a claimed formula, number or derivation",
    "compare": "compare chips for one operator (and compute dtypes) or one model's serving step",
    "model": "a whole model: parameters, KV cache, memory fit, training",
    "train": "a model trained on a cluster: memory, communication, step time, critical batch",
    "sweep": "evaluate derived quantities over a grid of dims, as CSV",
    "serve": "serve a problem set as a workbook in the browser",
    "publish": "write a problem set's workbook as a static site that checks in the browser",
    "budget": "a scaling-law budget: compute-optimal parameters and tokens from compute",
    "export": "export a problem set to PrairieLearn, Moodle or QTI 1.2 (an LMS imports it)",
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
    add_question_flags(solve)
    add_what_if_flags(solve)
    add_layers_flag(solve)
    add_sharding_flags(solve)
    solve.add_argument(
        "--compare-shardings",
        action="store_true",
        help="with --shard: every dim split over the same group, side by side",
    )
    add_format_flag(solve, REPORT_FORMATS)
    chips = sub.add_parser("chips", help="list chips with every ceiling and ridge point")
    add_format_flag(chips, ("text", "md", "json"))
    ops = sub.add_parser("operators", help="list operators with their shapes")
    add_operators_flag(ops)
    add_format_flag(ops, ("text", "md", "json"))
    _add_later_commands(sub, command)
    return parser


def _add_later_commands(sub: Subparsers, command: str | None = "") -> None:
    """Full parsers for the command being run (all when ``command`` is ""), stubs for the rest."""
    for name, helptext in _LATER.items():
        if command not in ("", name):
            sub.add_parser(name, help=helptext, add_help=False)
            continue
        getattr(import_module(f"derive.commands.{name}"), f"add_{name}_parser")(sub)


def _command_of(argv: list[str]) -> str:
    """The command word in argv ("" when it cannot be told, so every command loads)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None:  # bare derive, derive --help, derive --version: no command module
        return "none"
    return (
        first if first in _LATER else ("none" if first in ("solve", "chips", "operators") else "")
    )


def _cmd_solve(args: argparse.Namespace) -> int:
    if is_kernel(args):
        from derive.commands.kernel import run_kernel_numbers

        return run_kernel_numbers(args)
    questions = question_spec_from_args(args)
    if args.operator is None and questions is not None:
        return _cmd_questions(args, questions)
    collective = getattr(args, "collective", None)
    if collective is not None and args.operator is not None:
        raise ProblemError(
            "--collective", f"is the problem itself: give it without {args.operator!r}"
        )
    if args.operator is None and collective is None:
        raise ProblemError(
            "derive solve",
            "give an operator, a kernel by --flops and --bytes (or --intensity), "
            "or --define or --equation with --unknown",
        )
    from dataclasses import replace

    from derive.commands.sections import with_sections
    from derive.pipeline import (
        CommsDerivation,
        Derivation,
        answer_for,
        derive_spec,
        registry_naming,
    )
    from derive.present.formats import render
    from derive.present.questions_view import with_questions

    shard = getattr(args, "shard", None)
    if shard is None and getattr(args, "compare_shardings", False):
        raise ProblemError("--compare-shardings", "give the group with --shard DIM:P")
    sharded: tuple = ()
    derivation: Derivation | CommsDerivation
    if collective is not None:  # issue 45: one collective in the book's notation
        from derive.pipeline.kinds.comms import derive_collective

        derivation = derive_collective(spec_from_args(args), collective)
    elif shard is not None:  # issue 36: one dim over P; issue 45: the book's notation
        from derive.pipeline.shard import derive_book_sharded, derive_sharded

        registry = registry_naming(args.operator, args.operators)
        if "[" in shard[0] or len(shard) > 1:
            if args.compare_shardings:
                raise ProblemError("--compare-shardings", "is for one --shard DIM:P")
            derivation, sharded = derive_book_sharded(spec_from_args(args), registry, shard)
        else:
            derivation, sharded = derive_sharded(
                spec_from_args(args), registry, shard[0], args.compare_shardings
            )
    else:
        derivation = derive_spec(
            spec_from_args(args), registry_naming(args.operator, args.operators)
        )
    if questions is not None:
        answered = answer_for(questions, derivation.analysis)  # type: ignore[arg-type]
        derivation = replace(derivation, questions=answered)
    document = with_sections(derivation.document(level=1), args, "FLOP/s", "--measured-flops-per-s")
    document = replace(document, sections=(*document.sections, *sharded))
    if getattr(args, "layers", None) is not None:  # issue 36: fusion savings × layers
        from derive.pipeline.fusion_layers import fusion_layers_section

        analysis = getattr(derivation, "analysis", None)
        layered = fusion_layers_section(analysis, args.layers)
        document = replace(document, sections=(*document.sections, *layered))
    sys.stdout.write(render(with_questions(document, derivation.questions), args.format))
    return 0


def _cmd_questions(args: argparse.Namespace, questions: object) -> int:
    """``derive solve --given … --equation … --unknown …``: givens and equations alone."""
    from derive.commands.options import refuse_unused
    from derive.pipeline import answer_one
    from derive.present.formats import render
    from derive.present.questions_view import questions_document

    asked = ("given", "define", "equation", "unknown")
    refuse_unused(args, asked, "givens and equations alone (name an operator to use it)")
    answered = answer_one(questions)  # type: ignore[arg-type]
    if not answered.derived and answered.solving is None:
        raise ProblemError("derive solve", "give --define or --equation with --unknown")
    sys.stdout.write(render(questions_document(answered, level=1), args.format))
    return 0


def _cmd_chips(args: argparse.Namespace) -> int:
    from derive.present import listing
    from derive.present.formats import render

    sys.stdout.write(render(listing.chips_document(), args.format))
    return 0


def _cmd_operators(args: argparse.Namespace) -> int:
    from derive.pipeline import operator_registry
    from derive.present import listing
    from derive.present.formats import render

    registry = operator_registry(args.operators)
    sys.stdout.write(render(listing.operators_document(registry), args.format))
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
    return f"derive {args.command} {getattr(args, 'operator', None) or 'questions'}"


def _dispatch(args: argparse.Namespace) -> int:
    if args.command is None:
        from derive.commands.key import run_builtin_key

        return run_builtin_key()
    handlers = {"solve": _cmd_solve, "chips": _cmd_chips, "operators": _cmd_operators}
    handler: Callable[[argparse.Namespace], int] | None = handlers.get(args.command)
    if handler is None:  # a command module's handler (``.get`` with it as default is eager)
        handler = args.handler
    if args.command in _BUDGETED and getattr(args, "answers", None) is None:  # per answer
        from derive.deadline import run_command_with_deadline, time_limit

        seconds = time_limit(args.time_limit)
        return run_command_with_deadline(handler, args, seconds=seconds, what=_costly_input(args))
    return handler(args)


def load_engine(command: str = "none") -> None:
    """Import sympy and the engine (and ``command``'s module, when it has one of its own)
    with the cycle collector paused, then freeze what they made.

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
        if command in _LATER:
            import_module(f"derive.commands.{command}")
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
        load_engine(_command_of(sys.argv[1:]))
    return main()


def command() -> None:
    """The ``derive`` executable (console script and ``python -m derive``): :func:`run`, then exit.

    The process ends as soon as the command's output is out: standard output and error are
    flushed and the ``atexit`` handlers run (temporary files, logging), then it exits
    without the interpreter's teardown, which frees every object one at a time (sympy's
    included) and took 2 to 3 % of a cold ``derive key`` (benchmarks/README.md). Every file
    derive writes is closed before :func:`main` returns. Where that cannot be relied on (a
    flush fails, another thread still runs) the exit is Python's own.
    """
    code = run()
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        sys.exit(code)
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except (OSError, ValueError):
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()  # what the interpreter runs at exit, in the same order
    os._exit(code)


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


def _refuse_dashes_as_values(argv: list[str]) -> None:
    """``--opt=--`` reaches argparse as an empty list (issue 37): refuse it by its flag."""
    for arg in argv:
        if arg == "--":
            return
        flag, eq, value = arg.partition("=")
        if arg.startswith("--") and eq and value == "--":
            raise ProblemError(flag, f"'--' is not a value; give one, e.g. {flag}=VALUE")


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
        _refuse_dashes_as_values(argv)
        args = build_parser(_command_of(argv)).parse_args(argv)
        if getattr(args, "peak_from", None) is not None:  # issue 36: into --peak
            from derive.commands.sections import resolve_peak_from

            args = resolve_peak_from(args)
        code = _dispatch(args)
        sys.stdout.flush()
        return code
    except DeriveError as exc:
        sys.stderr.write(exc.one_line() + "\n")
        return 2
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        sys.stderr.write(name_too_long(exc).one_line() + "\n")
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
