"""``derive check MODEL``: the whole-model side of ``derive check``.

When ``--quantity`` is a model's (``params``, ``kv_bytes_per_token``, ``max_batch``, …)
the positional names a model and takes the flags of ``derive model``; the claim is
judged by :func:`derive.check` with a :class:`~derive.problem.model_spec.ModelSpec` (or a
set's model problem) and printed by :mod:`derive.checking.model_verdict_text`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn

from derive.checking.api import SERVING_QUANTITIES, parse_rtol
from derive.commands.options import flags_given
from derive.errors import DeriveError, ParseError, ProblemError
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.problem_set import MODEL_ASK_KEYS, ModelEntry
from derive.problem.timing import TIMING_KEYS

if TYPE_CHECKING:
    from derive.checking.api import CheckResult
    from derive.present.report import Report


_OPERATOR_ONLY = ("compute", "link_bandwidth", "regime", "solve_for")


def judging(args: argparse.Namespace) -> dict[str, Any]:
    """How a claim is judged: ``--rtol``, ``--hide-expected`` and ``--syntax`` (as
    :func:`derive.checking.api.check` takes them; a command without the last two: their defaults)."""
    hide, syntax = getattr(args, "hide_expected", False), getattr(args, "syntax", "auto")
    return {"rtol": args.rtol, "hide_expected": hide, "syntax": syntax}


def write_out(args: argparse.Namespace, data: dict) -> None:
    """What a refused check prints before its error: its JSON verdict (in JSON; else nothing)."""
    from derive.present.formats import Document, render

    sys.stdout.write(render(Document(data=lambda: data, verbatim=lambda: ""), args.format))


def write_report(
    args: argparse.Namespace, report: Report, data: Callable[[], dict], plain: bool = False
) -> None:
    """A check's report on stdout in the format ``--format`` names (text, md, tex or json);
    ``plain``: as text in every format but JSON (``derive model --claim``)."""
    from derive.present.formats import as_text, render
    from derive.present.report import report_document

    document = report_document(report, data)
    sys.stdout.write(render(as_text(document) if plain else document, args.format))


def refuse_unreadable(args: argparse.Namespace, result: CheckResult) -> NoReturn:
    """An unreadable claim: its JSON verdict with ``--format json``, then its one-line error."""
    from derive.checking.api import verdict_text

    reason = result.reason or ""
    write_out(
        args, verdict_text.unreadable_json(args.quantity, args.claim, reason, result.position)
    )
    error = result.detail
    raise error if isinstance(error, DeriveError) else ParseError("claim", reason)


def is_model_claim(args: argparse.Namespace, operators: tuple[str, ...]) -> bool:
    """True when ``derive check NAME --quantity Q`` is about a whole model.

    A quantity only a model has (``params``, ``tokens_per_s``, …) or ``--phase`` says so; a
    quantity both have (``mfu``, ``t_lower``, ``crossover``) is a model's when NAME is one.
    """
    from derive.checking.api import QUANTITIES
    from derive.pipeline import model_names

    if args.phase is not None or args.tp is not None:
        return True
    if args.quantity is None:
        return False  # a derivation (--chain) names its quantity itself: an operator's
    if args.quantity not in QUANTITIES:
        return True
    if args.quantity not in MODEL_ASK_KEYS + SERVING_QUANTITIES or args.operator is None:
        return False
    names = model_names(operators)
    return args.operator.lower() in {m.lower() for m in names}


def model_spec_of(args: argparse.Namespace) -> ModelSpec | ModelEntry:
    """``derive check MODEL …``: the model problem the flags describe (with ``--phase``, its serving step)."""
    refused = flags_given(args, _OPERATOR_ONLY)
    if refused:
        raise ProblemError(
            f"derive check {args.operator} {refused[0]}",
            f"{args.quantity} is a whole-model quantity and a model takes no {refused[0]} "
            "(its flags: --chip or --peak/--bandwidth/--capacity, --devices, --dtype ROLE=DTYPE, "
            "--set, --train-tokens, --mfu, --measured-tokens-per-s, --state-bytes)",
        )
    from derive.commands.model import model_spec

    return with_serving_step(args, model_spec(args, model=args.operator), args.operator)


def with_serving_step(
    args: argparse.Namespace, spec: ModelSpec, name: str
) -> ModelSpec | ModelEntry:
    """The model problem ``spec``, with its serving step when ``--phase`` is given (its
    timing flags and measured rate): what ``derive check MODEL`` and ``derive model
    --quantity`` judge a claim against."""
    timing = flags_given(args, TIMING_KEYS)  # a model takes them only for a serving step
    if args.phase is None:
        serving_only = timing + [f for f in ("--tp", "--mesh", "--convention") if getattr(args, f[2:], None)]  # fmt: skip
        if serving_only:
            raise ProblemError(serving_only[0], "times a serving step: give --phase decode|prefill")
        return spec
    from derive.commands.options import timing_from_args
    from derive.problem.serving_spec import ServingSpec

    serving_timing = replace(
        timing_from_args(args), measured_tokens_per_s=args.measured_tokens_per_s
    )
    convention, mesh = getattr(args, "convention", None), getattr(args, "mesh", None)
    serving = ServingSpec(args.phase, args.tp, serving_timing, convention=convention, mesh=mesh)
    return ModelEntry(name, name, "", spec, (), serving)


def model_claim(
    args: argparse.Namespace,
    problem: ModelSpec | ModelEntry,
    operators: tuple[str, ...],
    plain: bool = False,
) -> int:
    """Judge ``--claim`` on a model problem and print the verdict: in ``--format`` (with
    ``plain``, text in every format but JSON, as ``derive model --claim`` prints it).
    0 right (or right at leading order), 1 wrong."""
    from derive.checking.api import Verdict, check
    from derive.checking.api import model_verdict_text as report

    result = check(problem, args.quantity, args.claim, operators=operators, **judging(args))
    if result.verdict is Verdict.UNREADABLE:
        refuse_unreadable(args, result)
    rtol = parse_rtol(args.rtol)
    shown = report.model_claim_report(result, rtol)
    write_report(args, shown, lambda: report.judged_json(result, rtol), plain)
    return 1 if result.verdict is Verdict.INCORRECT else 0


def refuse_a_model_name(args: argparse.Namespace, operators: tuple[str, ...]) -> None:
    """An unknown operator that is a model's name: say which quantities a model has."""
    from derive.pipeline import model_names

    name = args.operator
    models = model_names(operators)
    if name is not None and name.lower() in {m.lower() for m in models}:
        raise ProblemError(
            f"derive check {name} --quantity {args.quantity}",
            f"{name} is a whole model; its quantities are {', '.join(MODEL_ASK_KEYS)}",
        )
