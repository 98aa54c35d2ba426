"""``derive train MODEL``: a training step on a cluster, per parallelism strategy, exactly.

    derive train llama-3-8b --chip h100 --dp 8 --zero 1 --recompute full \\
        --batch-tokens 4194304 --seq 4096 --micro-batch-size 1
    derive train llama-3-8b --chip h100 --link-bandwidth 5e10 --dp 8 --zero 3 \\
        --batch-tokens 4194304 --seq 4096 --measured-step-time 20s --format json
    derive train llama-3-70b --chip h100 --dp 4 --tp 8 --pp 2 --batch-tokens 4194304 \\
        --seq 4096 --compare-strategies
    derive train path/to/config.json --chip h100 --dp 8 --zero 3 --batch-tokens 4194304 --seq 4096
    derive train --params 70e9 --chip h100 --dp 64 --zero 3 --batch-tokens 4194304 --seq 4096

The flags and the JSON keys are a contract (issue 25). The command parses the flags, calls
:func:`derive.pipeline.derive_training` and hands the result to :mod:`derive.present`.
Exit codes: 0, or 2 for bad input (one line naming the flag).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from derive.commands.options import (
    REPORT_FORMATS,
    add_convention_flag,
    add_format_flag,
    add_money_flags,
    add_operators_flag,
    add_question_flags,
    dest,
    question_spec_from_args,
)

_RUN_FLAGS = (
    ("--dp", "N", "data-parallel degree (default 1)"),
    ("--tp", "N", "tensor-parallel degree (default 1); divides the heads, KV heads and MLP width"),
    ("--pp", "N", "pipeline-parallel degree (default 1); divides the layers"),
    ("--ep", "N", "expert-parallel degree of a MoE over the DP group (default 1)"),
    ("--zero", "STAGE", "ZeRO stage over the DP group: 0 (default), 1, 2 or 3 (FSDP)"),
    (
        "--recompute",
        "MODE",
        "activation recomputation: full (default), selective, none, or a checkpoint policy "
        "tensors=K (K bf16 tensors of S·b·d kept per layer)",
    ),
    ("--batch-tokens", "T", "tokens per optimizer step, all DP ranks together, e.g. 4194304"),
    ("--seq", "S", "sequence length, e.g. 4096"),
    ("--micro-batch-size", "B", "sequences per micro-batch (default 1)"),
    ("--microbatches", "M", "micro-batches per DP rank per step (checked: T/(dp·b·S))"),
    ("--link-bandwidth", "BYTES_PER_S", "link bandwidth per device, one way (default the chip's)"),
    ("--measured-step-time", "TIME", "a measured step time, e.g. 20s (gives the MFU)"),
    ("--attention-mask", "MASK", "causal (default: query i attends keys j <= i) or none"),
    ("--matmul-efficiency", "E", "the fraction of the peak the matmuls reach: gives t_predicted"),
    ("--link-efficiency", "E", "of each axis's bandwidth: 0.8, or per axis gpu=0.8,node=0.7"),
)
_CLUSTER_FLAGS = (
    ("--cp", "N", "context-parallel degree: the sequence split over N ranks (ring attention)"),
    (
        "--mesh",
        "AXES",
        "the cluster's links from the innermost out, name=size@bytes/s[+latency], "
        'e.g. "gpu=8@450GB/s,node=16@50GB/s"; the sizes multiply to dp·tp·pp·cp; "default": '
        "the chip's node from chips.toml (H100, A100: 8 GPUs on NVLink, InfiniBand between nodes)",
    ),
    ("--place", "DIM=AXIS,…", "dims on mesh axes, e.g. tp=gpu,dp=node (dp=gpu*node for two axes)"),
    (
        "--stage-layers",
        "L1,L2,…",
        "layers per pipeline stage, e.g. 6,7,7,6,6 (default as even as possible)",
    ),
    ("--virtual-stages", "V", "interleaved 1F1B: V model chunks per pipeline stage (default 1)"),
    (
        "--schedule",
        "NAME",
        "the pipeline schedule: 1f1b (default; interleaved with --virtual-stages), zb1p "
        "(Zero Bubble's ZB-1P) or dualpipe (DeepSeek-V3's: pp and M even, M >= 2·pp)",
    ),
)

_SWITCHES = (
    (
        "--count-logits",
        "count the logits the loss keeps (one micro-batch's, bf16, V/tp per token) in the activations",
    ),
    (
        "--dropout",
        "count the dropout masks and outputs in the activations (Korthikanti et al.'s GPT; on with --convention megatron)",
    ),
    (
        "--keep-gathered-weights",
        "ZeRO-3: gather the weights once per step and keep them (and whole gradients) over the micro-batches",
    ),
    (
        "--overlap-tp",
        "a schedule that overlaps TP's all-reduces with compute (otherwise they sit on the critical path)",
    ),
    (
        "--sequence-parallel",
        "Megatron's sequence parallelism: norms' activations split over TP too; all-reduces as all-gather + reduce-scatter",
    ),
)
"""The run's switches, each on when given (its field of the run reads ``"true"``)."""


def add_train_parser(sub: Any) -> None:
    """The ``train`` subcommand and its flags."""
    p = sub.add_parser(
        "train",
        help="a model trained on a cluster: memory, communication, step time, critical batch",
        description="Derive a training step of a model on dp·tp·pp devices: memory per device "
        "(ZeRO, activations), bytes sent per step, step-time bounds, the critical batch, exactly.",
    )
    p.add_argument(
        "model",
        nargs="?",
        default="",
        help="a model as 'derive model' takes it: a name, a config.json (or its folder); or give --params",
    )
    p.add_argument(
        "--params",
        metavar="P",
        help="a model by its size alone, e.g. 70e9 (no architecture: dp and ZeRO only, activations not counted)",
    )
    p.add_argument(
        "--params-active",
        metavar="P_ACT",
        help="with --params: the parameters a token uses (a mixture of experts), e.g. 37e9",
    )
    add_operators_flag(p, "a Python file declaring Transformer models; repeatable")
    p.add_argument("--chip", metavar="NAME", help="a chip (see 'derive chips')")
    p.add_argument("--peak", metavar="FLOP_PER_S", help="compute peak (or overriding a chip's)")
    p.add_argument(
        "--capacity", metavar="BYTES", help="HBM bytes per device (overrides the chip's)"
    )
    p.add_argument(
        "--dtype",
        action="append",
        default=[],
        metavar="ROLE=DTYPE",
        help="as for 'derive model' (the peak follows the activations' dtype)",
    )
    p.add_argument("--set", action="append", default=[], metavar="DIM=INT", help="bind a model dim")
    p.add_argument(
        "--state-bytes",
        metavar="BYTES|RECIPE",
        help="training-state bytes per parameter or a recipe: adam-mixed (2+2+12, default), adam-fp32, sgd-mixed, megatron (2+4+12), deepspeed (2+2+16), scaling-book (2+0+8)",
    )
    for flag, metavar, helptext in _RUN_FLAGS + _CLUSTER_FLAGS:
        p.add_argument(flag, metavar=metavar, help=helptext)
    add_convention_flag(p)
    for flag, helptext in _SWITCHES:
        p.add_argument(flag, action="store_true", help=helptext)
    p.add_argument(
        "--compare-strategies",
        action="store_true",
        help="add DP, FSDP, TP, FSDP+TP and PP side by side on the same devices, then the ten best layouts of a search",
    )
    p.add_argument(
        "--train-tokens",
        metavar="D",
        help="tokens of the whole run, e.g. 15e12 (with --price-per-hour or --power: the run's "
        "cost and energy over D / --batch-tokens steps)",
    )
    add_money_flags(p)
    add_format_flag(p, REPORT_FORMATS)
    add_question_flags(p)  # over the run's quantities: t_lower, bubble_fraction, mfu, dp, …
    p.set_defaults(handler=run_train)


def run_train(args: argparse.Namespace) -> int:
    """``derive train``: the worked solution (Markdown or LaTeX) or the JSON report."""
    from derive.pipeline import derive_training
    from derive.present.formats import render
    from derive.problem.model_spec import ModelSpec
    from derive.problem.train_spec import TrainSpec

    model = ModelSpec(
        model=args.model,
        chip=args.chip,
        peak=args.peak,
        capacity=args.capacity,
        dtypes=tuple(args.dtype),
        sets=tuple(args.set),
        state_bytes=args.state_bytes,
        params=args.params,
        params_active=args.params_active,
        train_tokens=args.train_tokens,
        price_per_hour=args.price_per_hour,
        power=args.power,
    )
    switches: dict[str, Any] = {
        dest(f): "true" if getattr(args, dest(f)) else None for f, _ in _SWITCHES
    }
    run = TrainSpec(
        **{dest(flag): getattr(args, dest(flag)) for flag, _, _ in _RUN_FLAGS + _CLUSTER_FLAGS},
        **switches,
        convention=args.convention,
    )
    questions = question_spec_from_args(args)
    answered = None
    if questions is None:
        d = derive_training(model, run, tuple(args.operators), args.compare_strategies)
    else:  # an unknown dp (tp, pp, ep) is solved by deriving the run; the run shown is at it
        from derive.pipeline.training_questions import train_with_questions

        d, answered = train_with_questions(
            model,
            run,
            questions,  # type: ignore[arg-type]
            tuple(args.operators),
            args.compare_strategies,
        )
    from derive.present.questions_view import with_questions

    sys.stdout.write(render(with_questions(d.document(), answered), args.format))
    return 0
