"""``derive model MODEL``: a whole model's parameters, KV cache, memory fit and training totals.

    derive model llama-3-70b --chip tpu-v5e --devices 16 --set B=32 --set S=8192
    derive model mixtral-8x7b --peak 9.89e14 --bandwidth 3.35e12 --capacity 80e9 --format json
    derive model gpt2-small --chip a100 --train-tokens 3e11 --mfu 0.4 --devices 8
    derive model gpt2-small --quantity params --claim 124e6 --rtol 0.01

Exit codes: 0 (a judged claim is right), 1 a judged claim is wrong, 2 bad input.

Every number is parsed exactly (:mod:`derive.formula.decimals`); nothing typed is evaluated.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from derive.commands.model_phase import add_phase_flags, phase_document, phase_of
from derive.errors import DeriveError, ParseError, ProblemError

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.problem.model_spec import ModelSpec

__all__ = ["add_model_parser", "model_analysis", "model_spec", "run_model"]


def add_model_parser(sub: Any, add_problem_flags: object = None) -> None:
    """The ``model`` subcommand and its flags (``add_problem_flags`` is not used: the flags differ)."""
    from derive.commands.cli import add_format_flag

    p = sub.add_parser(
        "model",
        help="a whole model: parameters, KV cache, memory fit, training totals",
        description="Derive a whole model's parameters, KV cache, memory on N devices and training totals, exactly.",
    )
    p.add_argument(
        "model",
        help="model name (built-ins: gpt2-small, llama-3-8b, llama-3-70b, llama-2-70b, mixtral-8x7b)",
    )
    p.add_argument(
        "--operators",
        action="append",
        default=[],
        metavar="PATH",
        help="a Python file declaring Transformer models (and operators); repeatable",
    )
    p.add_argument("--chip", metavar="NAME", help="a chip (see 'derive chips')")
    p.add_argument(
        "--peak", metavar="FLOP_PER_S", help="compute peak instead of a chip, e.g. 9.89e14"
    )
    p.add_argument("--bandwidth", metavar="BYTES_PER_S", help="HBM bandwidth instead of a chip")
    p.add_argument(
        "--capacity", metavar="BYTES", help="HBM bytes per device (overrides the chip's), e.g. 80e9"
    )
    p.add_argument("--devices", metavar="N", help="devices holding the model (default 1)")
    p.add_argument(
        "--dtype",
        action="append",
        default=[],
        metavar="ROLE=DTYPE",
        help="weights=, kv= or activations= a dtype (default bf16; a bare dtype sets all three)",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="DIM=INT", help="bind B, S or a model dim"
    )
    p.add_argument("--train-tokens", metavar="D", help="training tokens, e.g. 15e12")
    p.add_argument("--mfu", metavar="ETA", help="model FLOPs utilisation in (0, 1], e.g. 0.4")
    p.add_argument(
        "--measured-tokens-per-s",
        metavar="R",
        help="measured tokens per second: without --phase, the training rate per device; with "
        "--phase, the serving rate of the whole cluster (every replica), as derive's own tokens_per_s "
        "(decode) or prefill_tokens_per_s (prefill)",
    )
    p.add_argument(
        "--state-bytes",
        metavar="BYTES|RECIPE",
        help="training-state bytes per parameter, or a recipe: adam-mixed (2+2+12), adam-fp32, sgd-mixed",
    )
    p.add_argument(
        "--quantity",
        metavar="Q",
        help="with --claim: the quantity claimed (params, kv_bytes_per_token, max_batch, …)",
    )
    p.add_argument("--claim", metavar="TEXT", help="a claimed value or formula to judge exactly")
    p.add_argument(
        "--rtol", default="0.01", metavar="R", help="relative tolerance for numbers (default 0.01)"
    )
    add_format_flag(p)
    add_phase_flags(p)
    p.set_defaults(handler=run_model)


def model_spec(args: argparse.Namespace, model: str | None = None) -> ModelSpec:
    """The model problem the flags describe, as typed (``derive model`` and ``derive check MODEL``).

    ``model`` names the model when the command's positional is not ``args.model``. With
    ``--phase``, ``--measured-tokens-per-s`` is the serving step's measured rate (it goes to
    the phase's timing, :func:`derive.commands.model_phase.phase_timing`), not a training rate.
    """
    from derive.problem.model_spec import ModelSpec

    serving = getattr(args, "phase", None) is not None

    return ModelSpec(
        model=model if model is not None else args.model,
        chip=args.chip,
        peak=args.peak,
        bandwidth=args.bandwidth,
        capacity=args.capacity,
        devices=args.devices,
        dtypes=tuple(args.dtype),
        sets=tuple(args.set),
        train_tokens=args.train_tokens,
        mfu=args.mfu,
        measured_tokens_per_s=None if serving else args.measured_tokens_per_s,
        state_bytes=args.state_bytes,
        tp=getattr(args, "tp", None),
    )


def model_analysis(args: argparse.Namespace) -> ModelAnalysis:
    """Load, bind and analyse the model the flags name."""
    from derive.checking.api import model_analysis_for

    return model_analysis_for(model_spec(args), tuple(args.operators))


def _judge(args: argparse.Namespace) -> int:
    """``--quantity Q --claim TEXT``: 0 right, 1 wrong (the verdict on stdout); judged by :func:`derive.check`."""
    from derive.checking.api import check
    from derive.checking.verdict import Verdict
    from derive.commands.check_model import with_serving_step

    problem = with_serving_step(args, model_spec(args), args.model)
    result = check(problem, args.quantity, args.claim, rtol=args.rtol, operators=args.operators)
    if result.verdict is Verdict.UNREADABLE:
        error = result.detail
        raise error if isinstance(error, DeriveError) else ParseError("claim", result.reason or "")
    sentence = "; ".join(result.diagnosis)
    if args.format == "json":
        exact = getattr(getattr(result.detail, "judgement", None), "exact", None)
        verdict = {
            "quantity": result.quantity,
            "claim": result.claim,
            "verdict": result.verdict.value,
            "exact": exact,
            "explanation": sentence,
            "read_as": result.read_as,
            "expected": result.expected,
            "relative_error": result.relative_error,
        }
        sys.stdout.write(json.dumps(verdict, indent=2, ensure_ascii=False) + "\n")
    else:
        word = "Correct" if result.verdict is Verdict.CORRECT else "Incorrect"
        sys.stdout.write(f"{word}: {sentence}.\n")
    return 0 if result.verdict is Verdict.CORRECT else 1


def run_model(args: argparse.Namespace) -> int:
    """``derive model``: the worked solution (Markdown or LaTeX) or the JSON report."""
    from derive.present.formats import render
    from derive.present.model_view import model_document

    if (args.quantity is None) != (args.claim is None):
        raise ProblemError("--quantity / --claim", "give both, to judge a claimed quantity")
    if args.claim is not None:
        return _judge(args)
    analysis = model_analysis(args)
    phase = phase_of(args, analysis)
    serving = () if phase is None else (("serving", phase_document(phase, analysis)),)
    sys.stdout.write(render(model_document(analysis, sections=serving), args.format))
    return 0
