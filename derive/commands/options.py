"""The flags of derive's commands, each group declared once.

A command's parser adds the groups it takes: the problem of an operator
(:func:`add_problem_flags`), the timing of a step (:func:`add_timing_flags`), a kernel
by its numbers (:func:`add_kernel_flags`), a model's serving step (:func:`add_phase_flags`),
the whole-model flags ``derive check MODEL`` takes (:func:`add_model_flags`) and the output
format (:func:`add_format_flag`). The readers beside them turn parsed flags into the typed
specs of :mod:`derive.problem` (:func:`spec_from_args`, :func:`timing_from_args`,
:func:`serving_of`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from derive.errors import ProblemError

if TYPE_CHECKING:
    from derive.problem.binding import ProblemSpec
    from derive.problem.serving_spec import ServingSpec
    from derive.problem.timing import TimingSpec


def flags_given(args: argparse.Namespace, flags: tuple[str, ...]) -> list[str]:
    """The flags of ``flags`` (argparse's names, ``link_bandwidth``) given a value, as typed
    (``--link-bandwidth``)."""
    return [f"--{f.replace('_', '-')}" for f in flags if getattr(args, f, None)]


def dest(flag: str) -> str:
    """The attribute argparse stores a flag in: ``--link-latency`` → ``link_latency``."""
    return flag[2:].replace("-", "_")


DEFAULT_RTOL = "0.01"
"""The checker's default tolerance (``derive.checking.api.DEFAULT_RTOL``; a test keeps the two
equal): spelled here so that ``derive model --help`` need not load the checker and sympy."""


_MODEL_FLAG_ROWS: tuple[tuple[str, str, str], ...] = (
    ("--capacity", "BYTES", "HBM bytes per device (overrides the chip's), e.g. 80e9"),
    ("--devices", "N", "devices holding the model (default 1)"),
    ("--train-tokens", "D", "training tokens, e.g. 15e12"),
    ("--mfu", "ETA", "model FLOPs utilisation in (0, 1], e.g. 0.4"),
    (
        "--measured-tokens-per-s",
        "R",
        "measured tokens per second: without --phase, the training rate per device; with "
        "--phase, the serving rate of the whole cluster (every replica), as derive's own "
        "tokens_per_s (decode) or prefill_tokens_per_s (prefill)",
    ),
    (
        "--state-bytes",
        "BYTES|RECIPE",
        "training-state bytes per parameter, or a recipe: adam-mixed (2+2+12), adam-fp32, sgd-mixed",
    ),
    (
        "--phase",
        "decode|prefill",
        "time one serving step: decode (B sequences, one token each, KV of S read) or prefill "
        "(B prompts of T tokens: --set T=… or S=…)",
    ),
    (
        "--tp",
        "T",
        "tensor-parallel degree, a divisor of --devices (default --devices); "
        "--devices/T data-parallel replicas each serve their own B sequences",
    ),
)
"""Every flag only a whole model takes: (flag, metavar, help), declared once."""

MONEY_FLAG_ROWS: tuple[tuple[str, str, str], ...] = (
    (
        "--price-per-hour",
        "PRICE",
        "price per device-hour, e.g. '$2.49' or '2.49 $/h' (gives cost_of_run, "
        "cost_per_million_tokens, cost_per_step)",
    ),
    (
        "--power",
        "WATTS",
        "power per device, e.g. 700 or '0.7 kW' (gives energy_of_run, energy_per_token)",
    ),
)
"""The money and energy of a run or a serving step (issue 36): ``derive model`` and ``derive train``."""
_MODEL_FLAG_ROWS += MONEY_FLAG_ROWS


def add_money_flags(parser: argparse.ArgumentParser) -> None:
    """``--price-per-hour`` and ``--power`` (per device)."""
    for flag, metavar, helptext in MONEY_FLAG_ROWS:
        parser.add_argument(flag, metavar=metavar, help=helptext)


MODEL_FLAGS = tuple(dest(flag) for flag, _, _ in _MODEL_FLAG_ROWS)
"""Their attribute names (``derive check`` refuses them for an operator problem)."""

_PHASES = ("decode", "prefill")


def add_model_flags(
    parser: argparse.ArgumentParser, flags: Sequence[str] = (), prefix: str = ""
) -> None:
    """The model flags ``flags`` (default: every one), each help text after ``prefix``.

    ``derive model`` takes them all; ``derive check`` all, said as "model: …" (its
    positional may name an operator); ``derive compare`` ``--phase``, ``--devices`` and ``--tp``.
    """
    for flag, metavar, helptext in _MODEL_FLAG_ROWS:
        if flags and flag not in flags:
            continue
        if flag == "--phase":
            parser.add_argument(flag, choices=_PHASES, help=prefix + helptext)
        else:
            parser.add_argument(flag, metavar=metavar, help=prefix + helptext)


REPORT_FORMATS = ("md", "tex", "json", "text")
"""The ``--format`` choices of a report (the names of :data:`derive.present.formats.FORMATS`,
written out so that parsing flags does not load the renderers; a test keeps them equal)."""


def add_format_flag(parser: argparse.ArgumentParser, choices: Sequence[str]) -> None:
    """``--format``: the output format, one of ``choices`` (the first is the default)."""
    parser.add_argument("--format", choices=tuple(choices), default=choices[0])


def add_operators_flag(
    parser: argparse.ArgumentParser,
    helptext: str = "a Python file of Operator declarations (repeatable)",
) -> None:
    """``--operators PATH`` (repeatable): files that declare operators (or models) besides the built-ins."""
    parser.add_argument("--operators", action="append", default=[], metavar="PATH", help=helptext)


_REPEATED = frozenset({"--dtype", "--set"})
"""Flags given again and again, each adding to a list (``--dtype x=int8 --dtype w=bf16``)."""


def _add_flags(parser: argparse.ArgumentParser, rows: Sequence[tuple[str, str, str]]) -> None:
    """Each row's flag with its metavar and help (a flag of :data:`_REPEATED` makes a list)."""
    for flag, metavar, helptext in rows:
        repeat: dict[str, Any] = {"action": "append", "default": []} if flag in _REPEATED else {}
        parser.add_argument(flag, metavar=metavar, help=helptext, **repeat)


_CHIP = ("--chip", "NAME", "a chip (see 'derive chips')")
_PEAK = (
    ("--peak", "FLOP_PER_S", "compute peak (or overriding a chip's), e.g. 1.97e14"),
    ("--bandwidth", "BYTES_PER_S", "HBM bandwidth (or overriding a chip's), e.g. 8.1e11"),
    ("--peak-from", "PARTS", "the peak from the microarchitecture instead of --peak: "
     "'units=132,flops_per_clock=1024,clock=1.83e9' (units × FLOPs per clock × clock)"),
)  # fmt: skip
_LINK = (
    ("--link-bandwidth", "BYTES_PER_S", "interconnect bandwidth, one way"),
    ("--mesh", "AXES", "the collectives' mesh, innermost axis first: "
     "name=size@bandwidth[+latency][:ring|line|torus|switch|switch+sharp],…"),
)  # fmt: skip


def add_hardware_flags(
    parser: argparse.ArgumentParser, chip: bool = True, link: bool = True
) -> None:
    """The hardware: ``--chip``, or the numbers ``--peak`` and ``--bandwidth`` (and ``--link-bandwidth``)."""
    _add_flags(parser, ((_CHIP,) if chip else ()) + _PEAK + (_LINK if link else ()))
    if link:
        add_convention_flag(parser)


CONVENTION_HELP = (
    "derive (default, exact) or scaling-book: the Scaling Book's formulas (collectives V/W on a "
    "mesh, W both ways on a torus axis, one way on a line; a serving step's TP all-reduces only on "
    "a typed --mesh; its FSDP and TP rules, 10 B/param), derive's own beside; train also megatron "
    "(18 B/param) and deepspeed"
)


def add_convention_flag(parser: argparse.ArgumentParser) -> None:
    """``--convention NAME``, declared once for every command (each reads the names it knows)."""
    parser.add_argument("--convention", metavar="NAME", help=CONVENTION_HELP)


def add_sharding_flags(parser: argparse.ArgumentParser) -> None:
    """``--collective TEXT`` and ``--shard`` (repeatable): a mesh's problem in the book's notation."""
    parser.add_argument(
        "--collective",
        metavar="TEXT",
        help="one collective in the Scaling Book's notation on --mesh, e.g. 'AllGather_y(A[E_y, F])'",
    )
    parser.add_argument(
        "--shard",
        metavar="DIM:P|A[B_x, D]",
        action="append",
        help="a tensor sharded on --mesh in the book's notation (repeat per tensor): every "
        "strategy and its collectives; or DIM split over P devices (F:8 column parallel)",
    )


def add_tolerance_flag(parser: argparse.ArgumentParser, default: str | None = DEFAULT_RTOL) -> None:
    """``--rtol R``: the relative tolerance a claimed number is judged with (None: the set's)."""
    parser.add_argument(
        "--rtol",
        default=default,
        metavar="R",
        help="relative tolerance for numbers, 0 for exact only (default: a set problem's "
        "rtol, else 0.01 = 1%%)",
    )


_DTYPES = (
    ("--dtype", "[T=]DTYPE", "bind every tensor, or tensor T (repeatable; later wins)"),
    ("--compute", "DTYPE", "compute dtype (default: the widest dtype read)"),
)
_DIMS = (
    ("--regime", "R", "asymptotic regime: 'B << D, F', 'B >> G', 'B -> oo', 'D, F >> 1'"),
    ("--set", "DIM=INT", "bind a dim to a positive integer (repeatable, or a comma list: B=8,S=1024)"),
    ("--solve-for", "DIM", "the dim to solve the crossover for (default B)"),
    ("--time-limit", "SECONDS",
     "seconds the derivation (and judgement) may take (default $DERIVE_TIME_LIMIT or 10)"),
)  # fmt: skip


def add_problem_flags(
    parser: argparse.ArgumentParser, chip: bool = True, operator_optional: bool = False
) -> None:
    """The flags that describe a problem (shared by solve, check, compare)."""
    # optional for derive check --problem-set, which takes the problem from the set
    nargs = "?" if operator_optional else None
    parser.add_argument("operator", nargs=nargs, help="operator name (see 'derive operators')")
    add_operators_flag(parser)
    _add_flags(parser, _DTYPES)
    add_hardware_flags(parser, chip=chip)
    _add_flags(parser, _DIMS)
    add_timing_flags(parser)


_TIMING_FLAGS = (
    ("--efficiency", "ETA", "derate both ceilings: peak·η and bandwidth·η, η in (0, 1]"),
    ("--compute-efficiency", "ETA", "derate the compute peak only"),
    ("--memory-efficiency", "ETA", "derate the memory bandwidth only"),
    ("--launch-overhead", "TIME", "latency added to every kernel of the step, e.g. 5us"),
    ("--link-latency", "TIME", "latency per hop: a collective's ring step or a send, e.g. 1us"),
    ("--measured-time", "TIME", "a measured time of the step (gives MFU and MBU)"),
    ("--measured-flops-per-s", "FLOP_PER_S", "a measured compute rate"),
    ("--measured-bytes-per-s", "BYTES_PER_S", "a measured memory rate"),
)


TIMING_DESTS = tuple(dest(flag) for flag, _, _ in _TIMING_FLAGS)
"""The timing flags' argparse names."""


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


def is_kernel(args: argparse.Namespace) -> bool:
    """True when the flags give a kernel by its numbers."""
    return any(getattr(args, flag[2:], None) is not None for flag, _ in KERNEL_FLAGS)


def _timing_of(args: argparse.Namespace, flags: Sequence[str], **extra: str | None) -> TimingSpec:
    """The timing flags ``flags`` of ``args`` (and ``extra``) as typed."""
    from derive.problem.timing import TimingSpec

    return TimingSpec(**{dest(flag): getattr(args, dest(flag), None) for flag in flags}, **extra)


def timing_from_args(args: argparse.Namespace) -> TimingSpec:
    """The timing flags as typed."""
    return _timing_of(args, [flag for flag, _, _ in _TIMING_FLAGS])


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
        mesh=getattr(args, "mesh", None),
        convention=getattr(args, "convention", None),
        regime=args.regime,
        sets=tuple(args.set),
        solve_for=args.solve_for,
        timing=timing_from_args(args),
        shards=tuple(s for s in getattr(args, "shard", None) or () if "[" in s),
        layers=getattr(args, "layers", None),
    )


_SERVING_TIMING_FLAGS = (
    ("--efficiency", "derate both ceilings by η in (0, 1]"),
    ("--compute-efficiency", "derate the compute peak only"),
    ("--memory-efficiency", "derate the memory bandwidth only"),
    ("--launch-overhead", "latency added to every kernel launch, e.g. 5us"),
    ("--link-latency", "latency per ring step of an all-reduce, e.g. 1us"),
    (
        "--measured-time",
        "a measured time of the step (gives MFU and MBU); or give --measured-tokens-per-s",
    ),
)


def add_serving_timing_flags(parser: argparse.ArgumentParser) -> None:
    """The timing flags of a model's serving step (``derive model --phase``)."""
    for flag, helptext in _SERVING_TIMING_FLAGS:
        parser.add_argument(flag, metavar="X", help=helptext)
    parser.add_argument(
        "--mesh",
        metavar="AXES",
        help="TP's all-reduces on a mesh, innermost axis first (name=size@bandwidth[+latency]"
        "[:topology],…; default: the chip's node; tpu:AxB: a slice)",
    )
    add_convention_flag(parser)


def serving_of(args: argparse.Namespace) -> ServingSpec | None:
    """The serving step the flags ask for, as typed (None without ``--phase``).

    Raises:
        ProblemError: a step's flag (a timing flag or ``--tp``) given without ``--phase``.
    """
    from derive.problem.serving_spec import ServingSpec

    if getattr(args, "phase", None) is None:
        used = [flag for flag, _ in _SERVING_TIMING_FLAGS if getattr(args, dest(flag), None)]
        used += [f for f in ("--convention", "--mesh") if getattr(args, f[2:], None) is not None]
        if used or getattr(args, "tp", None) is not None:
            raise ProblemError(
                (used or ["--tp"])[0], "times a serving step: give --phase decode|prefill"
            )
        return None
    convention = getattr(args, "convention", None)
    mesh = getattr(args, "mesh", None)
    return ServingSpec(args.phase, args.tp, phase_timing(args), convention=convention, mesh=mesh)


def phase_timing(args: argparse.Namespace) -> TimingSpec:
    """The step's timing flags as typed, with ``--measured-tokens-per-s`` as the serving rate."""
    return _timing_of(
        args,
        [flag for flag, _ in _SERVING_TIMING_FLAGS],
        measured_tokens_per_s=getattr(args, "measured_tokens_per_s", None),
    )


WHAT_IF_FLAGS = (
    (
        "--profile",
        "CLASS=SHARE,…",
        "shares of the measured step's time by class, summing to 1, e.g. "
        "gemm=0.62,attention=0.2,other=0.18 (a what-if; with --speedup)",
    ),
    ("--speedup", "CLASS=X,…", "a speed-up per class of --profile, e.g. gemm=1.8"),
)
"""A what-if on a measured step (issue 36): ``derive solve`` and ``derive model``."""


def add_what_if_flags(parser: argparse.ArgumentParser) -> None:
    """``--profile`` and ``--speedup``: Amdahl's law on a measured step."""
    for flag, metavar, helptext in WHAT_IF_FLAGS:
        parser.add_argument(flag, metavar=metavar, help=helptext)


def add_layers_flag(parser: argparse.ArgumentParser) -> None:
    """``--layers N|MODEL``: a composite's fusion savings × a model's layers (issue 36)."""
    parser.add_argument(
        "--layers",
        metavar="N|MODEL",
        help="scale a composite's fusion_savings by a layer count, or by a model's "
        "(e.g. 80 or llama-3-70b)",
    )


_QUESTION_FLAGS = (
    ("--given", "NAME=VALUE", "a named value with an optional unit, e.g. price='2.49 $/h'"),
    ("--define", "NAME=FORMULA", "a defined quantity, e.g. cost='price * devices * t_lower'"),
    ("--equation", "'LHS = RHS'", "an equation solved exactly for the --unknown names"),
    ("--unknown", "X", "a name the equations are solved for (a new name or a free dim)"),
)


def add_question_flags(parser: argparse.ArgumentParser) -> None:
    """``--given``, ``--define``, ``--equation``, ``--unknown`` (each repeatable; issue 23)."""
    for flag, metavar, helptext in _QUESTION_FLAGS:
        parser.add_argument(
            flag, action="append", default=[], metavar=metavar, help=helptext + " (repeatable)"
        )


def question_spec_from_args(args: argparse.Namespace) -> object:
    """The questions the flags ask (a QuestionSpec), or None."""
    if not any(getattr(args, name, None) for name in ("given", "define", "equation", "unknown")):
        return None  # nothing to read: the reader is not even imported (cold start)
    from derive.pipeline import question_spec_of

    return question_spec_of(
        tuple(getattr(args, "given", ())),
        tuple(getattr(args, "define", ())),
        tuple(getattr(args, "equation", ())),
        tuple(getattr(args, "unknown", ())),
    )


_ALWAYS_APPLY = frozenset({"command", "handler", "format", "time_limit"})
"""Flags every problem takes (the output format, the time budget) and argparse's own keys."""


def refuse_unused(args: argparse.Namespace, used: Sequence[str], what: str) -> None:
    """Refuse, in one line, the first flag given that ``what`` does not use: never drop one.

    Args:
        args: the parsed flags.
        used: the ``dest`` names of the flags ``what`` reads.
        what: how to name the problem (``a kernel by its numbers``).

    Raises:
        ProblemError: naming the flag and what it does not apply to.
    """
    for dest, value in vars(args).items():
        if dest in _ALWAYS_APPLY or dest in used or value in (None, [], False):
            continue
        flag = dest if dest == "operator" else "--" + dest.replace("_", "-")
        raise ProblemError(flag, f"does not apply to {what}")


def add_timeout_flag(parser: argparse.ArgumentParser, help: str) -> None:
    """``--timeout S``: the time limit of one check in seconds (``serve`` and ``publish``)."""
    from derive.formula.decimals import ascii_float

    parser.add_argument("--timeout", type=ascii_float, default=5.0, metavar="S", help=help)


def check_timeout(args: argparse.Namespace) -> float:
    """The ``--timeout`` of ``args``, refused (exit 2) outside 0.1 to 600 seconds."""
    if not 0.1 <= args.timeout <= 600:
        raise ProblemError(f"--timeout {args.timeout}", "must be 0.1 to 600 seconds")
    return float(args.timeout)
