"""``derive model MODEL``: a whole model's parameters, KV cache, memory fit and training totals.

    derive model llama-3-70b --chip tpu-v5e --devices 16 --set B=32 --set S=8192
    derive model mixtral-8x7b --peak 9.89e14 --bandwidth 3.35e12 --capacity 80e9 --format json
    derive model gpt2-small --chip a100 --train-tokens 3e11 --mfu 0.4 --devices 8
    derive model gpt2-small --quantity params --claim 124e6 --rtol 0.01
    derive model path/to/config.json --chip h100 --devices 8 --set B=8 --set S=4096
    derive model --params 70e9 --chip h100 --devices 8 --train-tokens 2e12 --mfu 0.4

Exit codes: 0 (a judged claim is right), 1 a judged claim is wrong, 2 bad input.

Every number is parsed exactly (:mod:`derive.formula.decimals`); nothing typed is evaluated.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from derive.commands.options import (
    REPORT_FORMATS,
    add_hardware_flags,
    add_model_flags,
    add_operators_flag,
    add_question_flags,
    add_serving_timing_flags,
    add_tolerance_flag,
    add_what_if_flags,
    question_spec_from_args,
    serving_of,
)
from derive.errors import ProblemError

if TYPE_CHECKING:
    from derive.present.questions_view import Questions
    from derive.problem.model_spec import ModelSpec


def add_model_parser(sub: Any) -> None:
    """The ``model`` subcommand and its flags."""
    from derive.commands.cli import add_format_flag

    p = sub.add_parser(
        "model",
        help="a whole model: parameters, KV cache, memory fit, training totals",
        description="Derive a whole model's parameters, KV cache, memory on N devices and training totals, exactly.",
    )
    p.add_argument(
        "model",
        nargs="?",
        default="",
        help="model name (built-ins: gpt2-small, llama-3-8b, llama-3-70b, llama-2-70b, "
        "mixtral-8x7b), a Hugging Face config.json, or a folder holding one; or give --params",
    )
    p.add_argument(
        "--params",
        metavar="P",
        help="a model by its size alone, e.g. 70e9 parameters (no architecture: weights, fit, training)",
    )
    p.add_argument(
        "--params-active",
        metavar="P_ACT",
        help="with --params: the parameters a token uses (a mixture of experts), e.g. 37e9",
    )
    p.add_argument(
        "--kv-bytes-per-token",
        metavar="BYTES",
        help="with --params: the KV cache's bytes per token of context, every layer "
        "(e.g. 327680); a serving step (--phase) reads B·S of them",
    )
    p.add_argument(
        "--attention-flops-per-token",
        metavar="FLOPS",
        help="with --params and --phase: attention's FLOPs per token at the step's context "
        "(left out without it: they need an architecture)",
    )
    add_operators_flag(p, "a Python file declaring Transformer models (and operators); repeatable")
    add_hardware_flags(p, link=False)
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
    add_model_flags(p)
    add_serving_timing_flags(p)
    p.add_argument(
        "--quantity",
        metavar="Q",
        help="print these quantities (params,kv_bytes_per_token,max_batch,…; comma list), "
        "or with --claim the quantity claimed",
    )
    p.add_argument("--claim", metavar="TEXT", help="a claimed value or formula to judge exactly")
    add_tolerance_flag(p)
    add_format_flag(p, REPORT_FORMATS)
    add_question_flags(p)
    p.add_argument(
        "--target-params",
        metavar="P",
        help="a parameter count to reach, e.g. 10.6e6: shorthand for --equation 'params = P', "
        "with the dim to solve for as --unknown (a declared model's width)",
    )
    add_what_if_flags(p)
    p.set_defaults(handler=run_model)


def model_spec(args: argparse.Namespace, model: str | None = None) -> ModelSpec:
    """The model problem the flags describe, as typed (``derive model`` and ``derive check MODEL``).

    ``model`` names the model when the command's positional is not ``args.model``. With
    ``--phase``, ``--measured-tokens-per-s`` is the serving step's measured rate (it goes to
    the phase's timing, :func:`derive.present.serving_step.phase_timing`), not a training rate.
    """
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import prompt_as_context

    serving = getattr(args, "phase", None) is not None

    return ModelSpec(
        model=model if model is not None else args.model,
        chip=args.chip,
        peak=args.peak,
        bandwidth=args.bandwidth,
        capacity=args.capacity,
        devices=args.devices,
        dtypes=tuple(args.dtype),
        sets=prompt_as_context(tuple(args.set), getattr(args, "phase", None), "--set"),
        train_tokens=args.train_tokens,
        mfu=args.mfu,
        measured_tokens_per_s=None if serving else args.measured_tokens_per_s,
        state_bytes=args.state_bytes,
        tp=getattr(args, "tp", None),
        params=getattr(args, "params", None),
        params_active=getattr(args, "params_active", None),
        kv_bytes_per_token=getattr(args, "kv_bytes_per_token", None),
        attention_flops_per_token=getattr(args, "attention_flops_per_token", None),
        price_per_hour=getattr(args, "price_per_hour", None),
        power=getattr(args, "power", None),
    )


def _judge(args: argparse.Namespace) -> int:
    """``--quantity Q --claim TEXT``: judged and printed as ``derive check MODEL`` does (one format)."""
    from derive.commands.check_model import model_claim, with_serving_step

    problem = with_serving_step(args, model_spec(args), args.model)
    return model_claim(args, problem, tuple(args.operators), plain=True)  # text unless JSON


def _questions(args: argparse.Namespace, model: object, step: object) -> Questions | None:
    """``--given/--define/--equation/--unknown`` answered over the model's (and step's)
    quantities, under the time budget as ``derive solve`` is (None without those flags)."""
    spec = question_spec_from_args(args)
    if spec is None:
        return None
    from derive.deadline import run_with_deadline, time_limit
    from derive.pipeline import answer_for
    from derive.problem.question_spec import QuestionSpec

    assert isinstance(spec, QuestionSpec)
    analysis = getattr(model, "analysis", None)
    phase = getattr(step, "phase", None)
    return run_with_deadline(
        answer_for, spec, analysis, phase, seconds=time_limit(), what=f"derive model {args.model}"
    )


def _values(args: argparse.Namespace) -> int:
    """``--quantity Q[,Q…]`` without ``--claim``: each quantity asked, one line (JSON: exact text)."""
    from derive.checking.api import model_values
    from derive.commands.check_model import with_serving_step
    from derive.present.formats import Document, render

    names = [name.strip() for name in args.quantity.split(",") if name.strip()]
    if not names:
        raise ProblemError(
            f"--quantity {args.quantity!r}", "name a quantity (params, max_batch, …)"
        )
    problem = with_serving_step(args, model_spec(args), args.model)
    values = model_values(problem, names, tuple(args.operators))
    document = Document(
        data=lambda: {name: exact for name, exact, _ in values},
        verbatim=lambda: "".join(f"{name}: {shown}\n" for name, _, shown in values),
    )
    sys.stdout.write(render(document, args.format))
    return 0


def run_model(args: argparse.Namespace) -> int:
    """``derive model``: the worked solution (Markdown or LaTeX), the JSON report, the
    quantities asked (``--quantity``), or a judged claim (``--quantity`` and ``--claim``)."""
    if args.target_params is not None:  # --equation 'params = P', the same reader
        if not args.unknown:
            raise ProblemError(
                "--target-params", "name the dim to solve for, e.g. --unknown d (a declared width)"
            )
        args.equation = [*args.equation, f"params = {args.target_params}"]
    if args.claim is not None and args.quantity is None:
        raise ProblemError("--claim", "name the quantity claimed with --quantity Q")
    if args.claim is not None:
        return _judge(args)
    if args.quantity is not None:
        return _values(args)
    from derive.commands.sections import with_sections
    from derive.pipeline import derive_model, derive_serving_step
    from derive.present.formats import render

    spec = model_spec(args)
    serving = serving_of(args)
    questions: Questions | None = None
    if serving is not None:  # --unknown B: the step at the batch the equation asks for
        from derive.pipeline.serving_questions import asks_for_batch, serve_with_questions
        from derive.problem.question_spec import QuestionSpec

        asked = question_spec_from_args(args)
        if asks_for_batch(spec, asked):  # type: ignore[arg-type]
            assert isinstance(asked, QuestionSpec)
            spec, questions = serve_with_questions(spec, serving, asked, args.operators)
    model = derive_model(spec, args.operators)
    step = None if serving is None else derive_serving_step(spec, serving, args.operators)
    if questions is None:
        questions = _questions(args, model, step)
    from derive.present.questions_view import with_questions

    sections = () if step is None else (("serving", step.document()),)
    document = replace(model.document(level=1), sections=sections)
    document = with_sections(document, args, "tokens/s", "--measured-tokens-per-s")
    sys.stdout.write(render(with_questions(document, questions), args.format))
    return 0
