"""``derive check``: judge a claimed roofline quantity, or a whole derivation, exactly.

::

    derive check matmul --dtype bf16 --dtype Y=int8 --chip tpu-v5e \\
        --quantity intensity --claim '\\frac{2BDF}{2BD+2DF+2BF}'
    derive check --problem-set set.toml --problem q2 --quantity crossover --claim 'B \\geq 121'
    derive check gpt2-small --chip a100 --quantity params --claim 124e6
    derive check llama-3-8b --quantity kv_bytes_per_token --claim '128 KiB/token'
    derive check --problem-set set.toml --answers answers.csv -o verdicts.csv

Exit codes: 0 the claim (or every step) is right, or every row of ``--answers`` was
read; 1 it is wrong (or some rows could not be read); 2 the claim, the file or the
problem cannot be read (one line on stderr; with ``--format json`` the verdict
``unreadable`` is also printed). Claims are read only by :mod:`derive.formula`;
nothing here evaluates text.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.checking.api import (
    DEFAULT_RTOL,
    KERNEL_QUANTITIES,
    QUANTITIES,
    SERVING_QUANTITIES,
    TRAINING_QUANTITIES,
    parse_rtol,
    quantity_named,
)
from derive.checking.api import CheckResult as ApiCheckResult
from derive.commands.check_kernel import (
    KERNEL_ONLY,
    judge_kernel,
    kernel_claim,
    refuse_kernel_mix,
)
from derive.commands.check_model import (
    is_model_claim,
    judging,
    model_claim,
    model_spec_of,
    refuse_a_model_name,
    refuse_unreadable,
    write_out,
    write_report,
)
from derive.commands.options import (
    MODEL_FLAGS,
    add_format_flag,
    add_layers_flag,
    add_model_flags,
    add_sharding_flags,
    add_tolerance_flag,
    flags_given,
)
from derive.errors import DeriveError, ParseError, ProblemError, UnknownNameError, closest
from derive.formula.reader import SYNTAXES
from derive.pipeline.kinds import Problem, derived_kind, kind_of
from derive.problem.binding import ProblemSpec
from derive.problem.kernel_spec import KernelSpec
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.errors import in_file_terms, said_as_flags
from derive.problem.sets.natives import NATIVE_QUANTITIES, NativeEntry
from derive.problem.sets.problem_set import (
    MODEL_ASK_KEYS,
    KernelEntry,
    ModelEntry,
    ProblemEntry,
    ProblemSet,
    QuestionEntry,
)

__all__ = ["ALL_QUANTITIES", "add_check_parser", "parse_rtol", "problem_of", "run"]

ALL_QUANTITIES = tuple(
    dict.fromkeys(
        QUANTITIES
        + MODEL_ASK_KEYS
        + SERVING_QUANTITIES
        + TRAINING_QUANTITIES
        + KERNEL_QUANTITIES
        + NATIVE_QUANTITIES
    )
)
"""What ``--quantity`` may name: an operator's quantities, a whole model's, its serving step's, a kernel's."""

_PROBLEM_FLAGS = (
    "dtype",
    "compute",
    "chip",
    "peak",
    "bandwidth",
    "link_bandwidth",
    "mesh",
    "convention",
    "regime",
    "set",
    "solve_for",
    "shard",
    "collective",
    "layers",
)


def add_check_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``derive check`` on the CLI's subparsers."""
    p = sub.add_parser(
        "check", help="judge a claimed quantity or a whole derivation against the exact answer"
    )
    from derive.commands.options import add_kernel_flags, add_problem_flags

    add_problem_flags(p, operator_optional=True)
    add_kernel_flags(p)
    add_model_flags(p, prefix="model: ")
    p.add_argument(
        "--quantity",
        metavar="Q",
        help=f"the quantity claimed: {', '.join(QUANTITIES)}; "
        f"of a whole model (OPERATOR names a model): {', '.join(MODEL_ASK_KEYS)}; "
        f"of its serving step (--phase): {', '.join(SERVING_QUANTITIES)}; "
        f"of a kernel by its numbers (--flops/--bytes): {', '.join(KERNEL_QUANTITIES)}; "
        "with --problem-set, a problem's defined quantities and unknowns",
    )
    p.add_argument(
        "--claim", metavar="TEXT", help="the claimed value or formula, LaTeX or plain text"
    )
    p.add_argument(
        "--chain",
        metavar="FILE",
        help="a derivation, one step per line ('=' exact, '\\approx' leading order or rounding)",
    )
    p.add_argument(
        "--problem-set",
        metavar="SET",
        help="a problem-set TOML file: judge against one of its problems (--problem ID)",
    )
    p.add_argument("--problem", metavar="ID", help="the id of a problem of --problem-set")
    p.add_argument(
        "--answers",
        metavar="CSV",
        help="grade many answers against --problem-set (columns: who, problem, quantity, claim)",
    )
    p.add_argument(
        "-o", "--output", metavar="FILE", help="with --answers: write the verdicts' CSV here"
    )
    p.add_argument(
        "--hide-expected",
        action="store_true",
        help="give only the verdict and the diagnosis, never the expected answer",
    )
    p.add_argument(
        "--syntax", choices=SYNTAXES, default="auto", help="how to read the claim (default: auto)"
    )
    add_sharding_flags(p)  # as derive solve's (a set: keys 'shard' and 'collective')
    add_layers_flag(p)
    add_tolerance_flag(p, default=None)  # a set's problem may set its own
    add_format_flag(p, ("text", "md", "tex", "json"))  # a verdict is text unless asked
    p.add_argument(
        "--trust",
        action="store_true",
        help="allow the Python operator files a --problem-set names (they run as code)",
    )
    p.set_defaults(handler=run)
    return p


def _operators(args: argparse.Namespace, pset: ProblemSet | None = None) -> tuple[str, ...]:
    """``--operators``, after a set's own (its files and its ``[[operator]]`` tables)."""
    from derive.problem.sets.registry import set_operators

    own = set_operators(pset, args.trust) if pset is not None else ()
    return own + tuple(args.operators)


def problem_of(args: argparse.Namespace) -> tuple[Problem, tuple[str, ...]]:
    """The problem the flags name and its operator (or model) files.

    An OPERATOR and its flags; a model and its flags when ``--quantity`` is a whole-model
    quantity (``params``, ``max_batch``, …); or a problem of a set (any kind: a set's kernel
    comes back as its :class:`~derive.problem.kernel_spec.KernelSpec`).
    """
    from derive.commands.options import spec_from_args

    if args.problem_set is None:
        if args.problem is not None:
            raise ProblemError("--problem", "needs --problem-set SET (the file the id is in)")
        if args.collective is not None:  # one collective in the book's notation: its operator
            return _collective(args, spec_from_args(args))
        if args.operator is None:
            raise ProblemError(
                "derive check",
                "give an OPERATOR (or a MODEL) and its flags, or --problem-set SET --problem ID",
            )
        if is_model_claim(args, _operators(args)):
            return model_spec_of(args), _operators(args)
        model_only = flags_given(args, MODEL_FLAGS)
        if model_only:
            raise ProblemError(
                model_only[0],
                f"only a whole model takes it (with a model quantity: {', '.join(MODEL_ASK_KEYS)})",
            )
        return replace(spec_from_args(args), shards=tuple(args.shard or ())), _operators(args)
    refuse_set_flags(args)
    pset = _load_set(args.problem_set, args.trust)
    if args.problem is None:
        raise ProblemError("--problem-set", f"needs --problem ID (one of {_ids(pset)})")
    return _entry(pset, args.problem), _operators(args, pset)


def _collective(args: argparse.Namespace, spec: ProblemSpec) -> tuple[Problem, tuple[str, ...]]:
    """``--collective TEXT`` on ``--mesh``: the problem of its operator, as ``derive solve`` times it."""
    from derive.pipeline.kinds.comms import collective_problem

    if args.operator is not None:
        raise ProblemError("--collective", f"is the problem itself: give it without {args.operator!r}")  # fmt: skip
    problem, _, declared = collective_problem(spec, args.collective)
    return problem, (*_operators(args), declared)


def refuse_set_flags(args: argparse.Namespace) -> None:
    """Refuse an operator, a problem flag or a timing flag with ``--problem-set``, in one line.

    The set fixes each problem's numbers, its efficiencies, overheads and measurements
    included; a flag that would change them would be silently ignored.

    Raises:
        ProblemError: an operator, or any flag of :data:`_PROBLEM_FLAGS`, ``MODEL_FLAGS``
            or ``TIMING_KEYS`` given with ``--problem-set``.
    """
    from derive.problem.timing import TIMING_KEYS

    given = flags_given(args, _PROBLEM_FLAGS + MODEL_FLAGS)
    if args.operator is not None or given:
        what = args.operator if args.operator is not None else given[0]
        raise ProblemError(
            f"derive check --problem-set with {what}",
            "the problem comes from the set; give --problem ID and no operator or problem flags",
        )
    timing = flags_given(args, TIMING_KEYS)
    if timing:
        raise ProblemError(
            f"derive check --problem-set with {timing[0]}",
            "the problem set fixes the problem's numbers (its efficiencies, overheads and "
            "measurements are keys of the problem); give --problem ID and no timing flags",
        )


def _ids(pset: ProblemSet) -> str:
    return ", ".join(entry.id for entry in pset.every_entry())


def _load_set(path: str, trust: bool) -> ProblemSet:
    """The set at ``path``; refused when it names Python operator files and ``trust`` is false."""
    from derive.problem.sets.problem_set import load_problem_set
    from derive.problem.sets.registry import require_trust

    pset = load_problem_set(Path(path))
    require_trust(pset, trust)
    return pset


def _entry(
    pset: ProblemSet, problem_id: str
) -> ProblemEntry | KernelEntry | ModelEntry | NativeEntry:
    for entry in (*pset.entries(), *pset.natives):
        if entry.id.lower() == str(problem_id).lower():
            return entry
    raise ProblemError(
        f"problem {problem_id!r}", f"no such problem in the set; its ids are {_ids(pset)}"
    )


def _claim(args: argparse.Namespace) -> int:
    if args.quantity is None:
        raise ProblemError(
            "--quantity", f"--claim needs --quantity (one of {', '.join(ALL_QUANTITIES)})"
        )
    if args.quantity in KERNEL_ONLY and args.problem_set is None:
        raise ProblemError(
            f"--quantity {args.quantity}",
            "a quantity of a kernel by its numbers: give --flops and --bytes (or --intensity) "
            "and a chip, without an operator, model or problem set",
        )
    if args.problem_set is not None and args.problem is not None:
        from derive.checking.api import defined_names

        pset = _load_set(args.problem_set, args.trust)
        if args.quantity in defined_names(pset, args.problem):
            return _defined_claim(args, pset)
        alone = {e.id.lower(): e for e in pset.questions}.get(str(args.problem).lower())
        if alone is not None:
            return _questions_claim(args, alone, ())
    if not _an_alias(args.quantity):
        _known_quantity(args.quantity)
    problem, operators = problem_of(args)
    args.quantity = quantity_named(problem.kind, args.quantity)  # an alias: its row's name
    _known_quantity(args.quantity)
    claim = _CLAIMS[derived_kind(problem, operators).judged_as]
    return claim(args, problem, operators)


def _named_by_flags(args: argparse.Namespace) -> str:
    """``--quantity`` by its catalogue name, for the kind the flags give: a kernel's (its
    numbers), a model's (a model's name or ``--phase``), else an operator's."""
    from derive.commands.options import is_kernel
    from derive.pipeline import model_names

    quantity = str(args.quantity)
    if is_kernel(args):
        kinds: tuple[ProblemKind, ...] = (ProblemKind.KERNEL,)
    elif args.phase is not None or str(args.operator or "").lower() in {
        name.lower() for name in model_names(_operators(args))
    }:
        kinds = (ProblemKind.SERVING, ProblemKind.TRAINING, ProblemKind.MODEL)
    else:
        kinds = (ProblemKind.OPERATOR,)
    named = (quantity_named(kind, quantity) for kind in kinds)
    return next((name for name in named if name != quantity), quantity)


def _an_alias(quantity: str) -> bool:
    """Whether ``--quantity`` spells a catalogue row, by its name or an alias (``I``, ``AI``)."""
    from derive.catalogue import table

    return any(quantity.lower() in row.aliases or quantity == row.name for row in table.QUANTITIES)


def _model_claim(args: argparse.Namespace, problem: Problem, operators: tuple[str, ...]) -> int:
    try:
        return model_claim(args, cast(ModelSpec | ModelEntry, problem), operators)
    except DeriveError as exc:
        if args.problem_set and isinstance(problem, ModelEntry) and said_as_flags(exc):
            raise in_file_terms(exc, args.problem_set, problem.id) from None  # the set's key
        raise


def _kernel_claim(args: argparse.Namespace, problem: Problem, operators: tuple[str, ...]) -> int:
    spec = cast(KernelSpec, problem.spec)  # the kernel kind's spec
    return judge_kernel(args, spec, f"problem {args.problem!r} (a kernel by its numbers)")


def _operator_quantity(args: argparse.Namespace) -> None:
    """Refuse a quantity an operator problem (computing or only communicating) has not."""
    from derive.checking.api import COMMS_QUANTITIES

    if args.quantity in KERNEL_ONLY and args.quantity not in COMMS_QUANTITIES:
        raise ProblemError(
            f"--quantity {args.quantity}",
            f"a quantity of a kernel by its numbers, but problem {args.problem!r} is an "
            f"operator problem (its quantities: {', '.join(QUANTITIES)})",
        )
    if args.quantity not in QUANTITIES and args.quantity not in COMMS_QUANTITIES:
        raise ProblemError(
            f"--quantity {args.quantity}",
            f"a whole-model quantity, but problem {args.problem!r} is an operator problem "
            f"(its quantities: {', '.join(QUANTITIES)})",
        )


def _operator_check(
    args: argparse.Namespace, spec: Problem, operators: tuple[str, ...]
) -> ApiCheckResult:
    """The verdict on ``--claim`` about an operator problem (an unreadable claim refused)."""
    from derive.checking.api import Verdict, check

    _operator_quantity(args)
    try:
        result = check(spec, args.quantity, args.claim, operators=operators, **judging(args))
    except UnknownNameError:
        refuse_a_model_name(args, operators)
        raise
    if result.verdict is Verdict.UNREADABLE:
        refuse_unreadable(args, result)
    return result


def _operator_claim(args: argparse.Namespace, spec: Problem, operators: tuple[str, ...]) -> int:
    from derive.checking.api import ClaimDetail, Verdict, model_verdict_text
    from derive.checking.api import verdict_text as report

    result = _operator_check(args, spec, operators)
    detail = result.detail
    if detail is None:  # a sharded operator's winner, collectives or tensor: a word's report
        rtol, words = parse_rtol(args.rtol or DEFAULT_RTOL), model_verdict_text
        write_report(args, words.model_claim_report(result, rtol), lambda: words.claim_json(result, rtol, {}, {}))  # fmt: skip
        return 1 if result.verdict is Verdict.INCORRECT else 0
    assert isinstance(detail, ClaimDetail)  # every judged claim carries its detail
    ctx, claim, judgement = detail.context, detail.claim, detail.judgement
    hidden = args.hide_expected
    write_report(
        args,
        report.claim_report(ctx, claim, judgement, result.diagnosis, hidden),
        lambda: report.claim_json(ctx, claim, judgement, result.diagnosis, hidden),
    )
    return 1 if result.verdict is Verdict.INCORRECT else 0


def _comms_claim(args: argparse.Namespace, spec: Problem, operators: tuple[str, ...]) -> int:
    """An operator that only communicates: a claimed time on its link."""
    from derive.checking.api import Verdict, model_verdict_text

    result = _operator_check(args, spec, operators)
    rtol = parse_rtol(args.rtol)
    report = model_verdict_text.model_claim_report(result, rtol)
    write_report(args, report, lambda: model_verdict_text.judged_json(result, rtol))
    return 1 if result.verdict is Verdict.INCORRECT else 0


def _questions_claim(args: argparse.Namespace, problem: Problem, operators: tuple[str, ...]) -> int:
    """Givens and equations alone: only their defined names are claimed (read before)."""
    entry = cast(QuestionEntry, problem)
    raise ProblemError(
        f"--quantity {args.quantity}",
        f"problem {entry.id!r} is givens and equations alone; its quantities: "
        + ", ".join(entry.questions.answers),
    )


def _known_quantity(quantity: str) -> None:
    """Refuse a quantity no problem kind has (a set's defined names are read before)."""
    if quantity not in ALL_QUANTITIES:
        raise ProblemError(
            "derive check",
            f"argument --quantity: invalid choice: {quantity!r}; {closest(quantity, ALL_QUANTITIES)}"
            " (with --problem-set, also a problem's defined quantities and unknowns)",
        )


def _defined_claim(args: argparse.Namespace, pset: ProblemSet) -> int:
    """A claim about a defined quantity or an unknown of a set's problem (issue 23)."""
    from derive.checking.api import check_defined

    result = check_defined(
        pset,
        args.problem,
        args.quantity,
        args.claim,
        rtol=args.rtol,
        hide_expected=args.hide_expected,
    )
    return _defined_report(args, result)


def _defined_report(args: argparse.Namespace, result: ApiCheckResult) -> int:
    """A defined quantity's verdict (a budget's and a what-if's too), or its claim refused."""
    from derive.checking.api import Verdict
    from derive.checking.api import model_verdict_text as frame

    if result.verdict is Verdict.UNREADABLE:
        raise ParseError(f"--claim {args.claim!r}", result.reason or "not readable")
    rtol = parse_rtol(args.rtol)
    judged = {"expected": result.expected}  # the same frame as every other check's JSON
    write_report(
        args,
        frame.model_claim_report(result, rtol),
        lambda: frame.claim_json(result, rtol, judged, {"problem": args.problem}),
    )
    return 0 if result.verdict is Verdict.CORRECT else 1


def _native_claim(args: argparse.Namespace, problem: Problem, operators: tuple[str, ...]) -> int:
    """A claim about a set's budget or what-if (issue 36), printed as a defined quantity's."""
    from derive.checking.api import check

    result = check(
        problem, args.quantity, args.claim, rtol=args.rtol, hide_expected=args.hide_expected
    )
    return _defined_report(args, result)


_CLAIMS: dict[ProblemKind, Callable[[argparse.Namespace, Problem, tuple[str, ...]], int]] = {
    ProblemKind.OPERATOR: _operator_claim,
    ProblemKind.KERNEL: _kernel_claim,
    ProblemKind.MODEL: _model_claim,
    ProblemKind.BUDGET: _native_claim,
    ProblemKind.COMMS: _comms_claim,
    ProblemKind.QUESTIONS: _questions_claim,
}
"""How ``--claim`` is judged and printed, by the kind it is judged as."""


def _derivation(args: argparse.Namespace) -> int:
    from derive.checking.api import ChainDetail, Verdict, check_derivation, read_chain_text
    from derive.checking.api import verdict_text as report

    spec, operators = problem_of(args)
    kind = kind_of(spec)
    if not kind.chains:
        raise ProblemError(
            "--chain", f"{kind.noun} is checked one quantity at a time: give --claim"
        )
    text = read_chain_text(args.chain)
    result = check_derivation(
        spec,
        text,
        quantity=args.quantity,
        operators=operators,
        what=f"--chain {args.chain!r}",
        **judging(args),
    )
    if result.verdict is Verdict.UNREADABLE:
        data = report.unreadable_json(
            args.quantity, args.chain, result.reason or "", result.position
        )
        write_out(args, {**data, "line": result.line})
        error = result.detail
        raise (
            error if isinstance(error, DeriveError) else ParseError("--chain", result.reason or "")
        )
    detail = result.detail
    assert isinstance(detail, ChainDetail)  # every checked derivation carries its detail
    ctx, chain = detail.context, detail.chain
    hidden = args.hide_expected
    write_report(
        args,
        report.chain_report(ctx, chain, result.diagnosis, hidden),
        lambda: report.chain_json(ctx, chain, result.diagnosis, hidden),
    )
    return 1 if result.verdict is Verdict.INCORRECT else 0


def run(args: argparse.Namespace) -> int:
    """The handler of ``derive check``: 0 right, 1 wrong; errors raise :class:`DeriveError` (exit 2)."""
    if args.problem_set is None and args.quantity is not None:
        args.quantity = _named_by_flags(args)  # an alias (``I``, ``AI``): its row's name
    quantity = args.quantity
    checked_now = args.problem_set is None or args.claim is None  # a set's defined names later
    if quantity is not None and checked_now and not _an_alias(quantity):
        _known_quantity(quantity)  # a set's problem reads an alias by its own kind
    if args.rtol is not None:
        parse_rtol(args.rtol)  # a bad tolerance is refused before anything is read
    from derive.commands.options import is_kernel

    if is_kernel(args):
        refuse_kernel_mix(args)  # an operator, a set or a derivation with a kernel's numbers
    given = [n for n in ("claim", "chain", "answers") if getattr(args, n) is not None]
    if len(given) != 1:
        raise ProblemError(
            "--claim / --chain / --answers",
            "give exactly one of --claim TEXT, --chain FILE or --answers CSV",
        )
    if args.output is not None and not args.output.strip():
        raise ProblemError("-o ''", "an empty file name; give the verdicts' CSV a name")
    if args.output is not None and args.answers is None:
        raise ProblemError("--output", "only --answers writes a file (the verdicts' CSV)")
    if args.answers is not None:
        from derive.commands.grade import grade

        if args.problem_set is None:
            raise ProblemError("--answers", "needs --problem-set SET (the problems the rows name)")
        if args.problem is not None or args.quantity is not None:
            raise ProblemError(
                "--answers",
                "each row names its problem and quantity; give no --problem or --quantity",
            )
        refuse_set_flags(args)
        return grade(args)  # each row with its problem's tolerance
    if args.rtol is None:  # a claim about a set's problem: its own tolerance, else 1 %
        own = _load_set(args.problem_set, args.trust) if args.problem_set and args.problem else None
        args.rtol = (own and own.rtol(args.problem, args.quantity)) or DEFAULT_RTOL
    if is_kernel(args):
        return kernel_claim(args)
    return _claim(args) if args.claim is not None else _derivation(args)
