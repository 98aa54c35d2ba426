"""Worked-solution steps of a training step on a cluster: comms, times, critical batch, strategies.

The devices and memory steps come from :mod:`derive.solution.training_memory_steps`.

Reads :class:`~derive.training.analysis.TrainingAnalysis` (and the strategies compared);
computes nothing but the printing. Each step's ``topic`` is the problem-set ``ask`` key it
answers, so a problem's ``ask`` keeps only the steps it needs.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from derive.catalogue import table as q
from derive.formula.decimals import counted, fmt_decimal, fmt_ending_decimal
from derive.formula.durations import time_tex, time_text
from derive.model.symbols import tex_names
from derive.solution.cost_steps import cost_step
from derive.solution.notation import tex, tex_text_number
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.training_memory_steps import (
    GB,
    activations_step,
    devices_step,
    fit_step,
    gb_line,
    number,
    params_step,
    state_step,
)
from derive.solution.training_mesh_steps import mesh_step
from derive.solution.value_display import decimal_line, time_line
from derive.training.analysis import Critical, StrategyRow, TrainingAnalysis
from derive.training.binding import Recompute, TrainingProblem, ZeroStage
from derive.training.comms import RERUN, layer_calls


def training_given(a: TrainingAnalysis) -> Rich:
    """The run in one sentence: model, devices, parallelism, batch, ceilings."""
    p = a.problem
    m = p.model.problem
    chip, capacity = m.chip, m.capacity.overrides if m.capacity is not None else ""
    where = f"on {chip.title} " if chip is not None else ""
    peak = (m.peak or chip.peak(m.compute_dtype)).overrides if chip is not None else ""
    return rich(
        f"{p.model_name} trained {where}with dp = {p.dp}, tp = {p.tp}, pp = {p.pp}"
        + (f", ep = {p.ep}" if p.ep > 1 else "")
        + f" (N = {p.devices} devices)"
        + (", sequence parallel" if p.sequence_parallel else "")
        + f", ZeRO stage {int(p.zero)}, recomputation {p.recompute_text}; "
        f"{p.batch_tokens} tokens per step in sequences of S = {p.seq}, micro-batches of "
        f"{counted(p.micro_batch, 'sequence')}; π = {p.peak_text} FLOP/s per device{peak}, "
        + (
            f"the mesh {p.placement.mesh.text()} ({p.placement.text()})"
            if p.placement is not None and p.placement.mesh.given
            else f"β_link = {p.link_text} B/s ({p.link_name}, one way)"
        )
        + (f", C = {fmt_decimal(p.capacity / GB)} GB of HBM{capacity}" if p.capacity else "")
        + f"; state {p.state.name} ({p.state.weights} + {p.state.grads} + {p.state.optimizer} bytes per parameter)"
        + (f"; measured step {time_text(p.measured_time)}" if p.measured_time is not None else "")
        + "."
    )


def _dp_factor(p: TrainingProblem) -> tuple[str, str]:
    """DP's collectives of the weights per step: (symbolic factor, with the numbers)."""
    m = p.microbatches
    if p.zero is ZeroStage.WEIGHTS and not p.keep_gathered:
        return ("3", "3") if p.convention == "scaling-book" else ("3 M", rf"3 \cdot {m}")
    if p.zero is ZeroStage.GRADIENTS:
        return "(M + 1)", f"({m} + 1)"
    return "2", "2"


_DP_WORDS = {
    ZeroStage.NONE: "the gradients are all-reduced once per step in the backward pass.",
    ZeroStage.OPTIMIZER: "the gradients are all-reduced once per step in the backward pass (ZeRO-1 as a "
    "reduce-scatter and an all-gather: the same bytes).",
    ZeroStage.GRADIENTS: "ZeRO-2 shards the gradients, so each micro-batch's are reduce-scattered as its backward "
    "ends (M times), and the updated weights are all-gathered once per step (DeepSpeed's stage 2).",
    ZeroStage.WEIGHTS: "ZeRO-3 all-gathers the weights for every micro-batch's forward, again for its backward, and "
    "reduce-scatters its gradients: 3·M collectives of the weights per step (DeepSpeed's stage 3, PyTorch FSDP "
    "without no_sync); --keep-gathered-weights gathers once per step instead.",
}


def _dp_words(p: TrainingProblem) -> str:
    if p.keep_gathered:
        return (
            "ZeRO-3 keeping its gathered weights: one all-gather in the step's first forward, the weights and the "
            "whole gradients kept until the last backward, one reduce-scatter (FSDP with reshard_after_forward off "
            "and no_sync)."
        )
    words = _DP_WORDS[p.zero]
    if p.zero is ZeroStage.WEIGHTS and p.convention == "scaling-book":  # Training, FSDP
        words = "As the Scaling Book's FSDP: the weights gathered for the forward and the backward, the "
        words += "gradients reduce-scattered, once per step."
    if p.zero in (ZeroStage.NONE, ZeroStage.OPTIMIZER):
        words += " Gradients accumulate over the M micro-batches and are reduced once per step."
    return words


def _one_link(p: TrainingProblem) -> bool:
    """Every byte over one link at β_link (no mesh, not timed as the Scaling Book times it)."""
    return p.placement is None and p.convention != "scaling-book"


def _calls(p: TrainingProblem, dim: str) -> str:
    """A dim's exchanges per layer and micro-batch, forward plus backward: ``(2 + 4)``."""
    return "({} + {})".format(*layer_calls(p, dim))


_RERUNS = {
    Recompute.FULL: "each layer's forward",
    Recompute.SELECTIVE: "the attention core's forward",
}


def _comms(a: TrainingAnalysis) -> Step:
    p, c = a.problem, a.comms
    frac = tex(c.dp_fraction)
    factor, factor_numbers = _dp_factor(p)
    flat = p.placement is None
    volumes = (  # per dim: shown, its rule, its numbers (one link only)
        (
            True,
            "dp",
            rf"{factor} \cdot \frac{{X - 1}}{{X}} \cdot 2 \cdot P_{{\text{{dev}}}}",
            rf"{factor_numbers} \cdot {number(c.dp_fraction)} \cdot 2 \cdot {tex(a.params.total)}"
            if not a.params.experts and flat
            else "",
        ),
        (
            True,
            "tp",
            r"(n_{f} + n_{b}) \cdot M \cdot \frac{L}{pp} \cdot \frac{2(t - 1)}{t} \cdot 2 S b_{\mu} d",
            rf"({c.tp_forward_count} + {c.tp_backward_count}) \cdot {number(c.layer_visits)} \cdot {number(c.tp_fraction)} \cdot {tex(c.activation_bytes)}"
            if flat
            else "",
        ),
        (True, "pp", r"M \cdot \frac{2 S b_{\mu} d}{tp} \cdot (\text{1 or 2 directions})", ""),
        (
            p.is_moe,
            "ep",
            _calls(p, "ep")
            + r" \cdot M \cdot \frac{L}{pp} \cdot \frac{ep - 1}{ep} \cdot \frac{2 k S b_{\mu} d}{tp}",
            "",
        ),
        (
            p.cp > 1,
            "cp",
            _calls(p, "cp")
            + r" \cdot M \cdot \frac{L}{pp} \cdot (cp - 1) \cdot \frac{2 \cdot 2 \cdot \frac{S}{cp} b_{\mu} h_{kv} d_{h}}{tp}",
            "",
        ),
    )
    lines = [
        gb_line(rf"V_{{\text{{{dim}}}}}", rule, numbers, value=c.of(dim))
        for shown, dim, rule, numbers in volumes
        if shown
    ]
    lines.append(
        gb_line(
            r"V",
            r"V_{\text{dp}} + V_{\text{tp}} + V_{\text{pp}} + V_{\text{ep}}"
            + (r" + V_{\text{cp}}" if p.cp > 1 else ""),
            value=c.total,
        )
    )
    notes: tuple[Rich, ...] = (
        rich(
            "Ring collectives in bf16, bytes one device sends: an all-reduce 2(X−1)/X of the tensor, an all-gather or a "
            + (
                f"reduce-scatter (X−1)/X; over the DP group X = dp = {p.dp}, (X−1)/X = "
                if p.cp == 1
                else f"reduce-scatter (X−1)/X; over the DP group X = dp·cp = {p.dp * p.cp}, (X−1)/X = "
            ),
            Math(frac),
            ".",
        ),
        rich("DP: " + _dp_words(p)),
        rich(
            "TP (Megatron): two all-reduces of a micro-batch's activations per layer forward (after attention and after the MLP), "
            "two backward"
            + (
                " (with sequence parallelism each is an all-gather and a reduce-scatter: the same bytes)"
                if p.sequence_parallel
                else ""
            )
            + ". PP: each micro-batch's activations forward and gradients backward, 1/tp per TP rank"
            + (" (with pp = 2 the first stage sends only forward, shown)" if p.pp == 2 else "")
            + "."
        ),
    )
    if p.cp > 1:
        notes += (
            rich(
                f"CP (ring attention): each layer's forward passes its K and V blocks of S/cp tokens around the ring of "
                f"cp = {p.cp}, cp − 1 sends; the backward pass sends K, V and their gradients (twice that)"
                + ". Every activation exchanged elsewhere is S/cp tokens long."
            ),
        )
    rerun = [dim.upper() for dim in RERUN[p.recompute] if c.of(dim)]
    if rerun:
        notes += (
            rich(
                f"{p.recompute.value.capitalize()} recomputation runs {_RERUNS[p.recompute]} again in the backward "
                f"pass, and with it the forward's {', '.join(rerun)} traffic: each exchange once more."
            ),
        )
    if not flat:
        notes += (
            rich(
                "Over the mesh a collective's bytes add up level by level (the formulas above are its one-axis form); "
                "the next step times each level over its own axis."
            ),
        )
    if p.mesh_default:  # --mesh default: the chip's node, or why one axis
        notes += (rich(p.mesh_default + "."),)
    return Step(
        StepKind.COMMUNICATION,
        "bytes sent per device per step, ring collectives of bf16 tensors",
        rich(
            "Each parallelism exchanges its own tensors: DP the gradients (and weights with ZeRO-3), TP activations, PP a stage's outputs."
        ),
        tuple(lines),
        notes=notes,
        title="Communication per step",
        topic=q.COMMS_BYTES_PER_DEVICE.name,
    )


def _times(a: TrainingAnalysis) -> Step:
    p = a.problem
    n_peak = rf"{p.devices} \cdot {tex_text_number(p.peak_text)}"
    lines = [
        Line.of(
            r"F_{\text{params}}",
            r"6 \cdot P_{\mathrm{act}} \cdot T",
            rf"6 \cdot {tex(a.params_active)} \cdot {tex(p.batch_tokens)}",
            tex(a.flops_params),
        ),
    ]
    counted = a.attention_pairs != 0
    if counted:
        names = tex_names()
        pairs, f = (tex(rule, names) for rule in a.attention_rule)
        numbers = rf"\frac{{{tex(p.batch_tokens)}}}{{{tex(p.seq)}}} \cdot {tex(a.attention_pairs)} \cdot {tex(a.pair_flops)}"
        lines += [
            Line.of(r"n_{\text{pairs}}", pairs, tex(a.attention_pairs)),
            Line.of(r"F_{\text{attn}}", rf"3 \cdot \frac{{T}}{{S}} \cdot n_{{\text{{pairs}}}} \cdot {f}", rf"3 \cdot {numbers}", tex(a.flops_attention)),
            Line.of(r"F_{\text{model}}", r"F_{\text{params}} + F_{\text{attn}}", tex(a.flops_model)),
        ]  # fmt: skip
    fwd = r" + \frac{F_{\text{attn}}}{3}" if counted else ""
    recompute_rule = {
        Recompute.FULL: r"2 \cdot P_{\mathrm{act}} \cdot T" + fwd,
        Recompute.SELECTIVE: fwd[3:] or "0",
        Recompute.NONE: "0",
    }[p.recompute]
    lines.append(Line.of(r"F_{\text{recompute}}", recompute_rule, tex(a.flops_recompute)))
    comms_forms = (
        (
            r"\frac{V}{\beta_{\text{link}}}",
            rf"\frac{{{tex(a.comms.total)}}}{{{tex_text_number(p.link_text)}}}",
        )
        if _one_link(p)
        else (r"\sum_{\text{passes}} \max_{\text{dims}} t_{\text{dim}}",)
        if p.convention == "scaling-book"
        else (r"\sum_{\text{dims}} t_{\text{dim}}",)
    )
    lines += [
        time_line(
            r"T_{\text{math}}",
            (r"\frac{F_{\text{model}}" if counted else r"\frac{F_{\text{params}}")
            + r" + F_{\text{recompute}}}{N \cdot \pi}",
            rf"\frac{{{tex(a.flops_model + a.flops_recompute)}}}{{{n_peak}}}",
            seconds=a.t_math,
        ),
        time_line(r"T_{\text{comms}}", *comms_forms, seconds=a.t_comms),
    ]
    return Step(
        StepKind.TIMES,
        "T_math = hardware FLOPs / (N·π); T_comms = bytes sent / β_link",
        rich(
            "6 = 2 (forward) + 4 (backward: the gradients of the activations and of the weights, 2 each) FLOPs per parameter "
            "a token uses and per token. "
            + _ATTENTION_RULE * counted
            + {
                Recompute.FULL: f"Full recomputation runs the forward again, {_FULL_AGAIN[counted]}: hardware FLOPs, not model FLOPs.",
                Recompute.SELECTIVE: f"Selective recomputation runs the attention core's forward again ({_CORE_AGAIN[counted]}): hardware FLOPs, not model FLOPs.",
                Recompute.NONE: "Nothing is recomputed.",
            }[p.recompute]
        ),
        tuple(lines),
        notes=_attention_notes(a),
        title="FLOPs and times of the step",
        topic=q.T_MATH.name,
    )


_ATTENTION_RULE = (
    "Attention's scores and values take f FLOPs per (query, key) pair and layer in the forward (2 per multiply-add of q·k "
    "and of p·v, every head), twice that in the backward (the gradients of both factors of both products), so F_attn "
    "is 3 × the forward's. "
)
_FULL_AGAIN = ("2·P_act·T", "its attention too (4 × the forward's attention in all)")
_CORE_AGAIN = ("its scores and values: none counted here", "its scores and values, F_attn/3")
_CAUSAL = (
    "Causal mask, its pairs counted exactly: query i attends keys j ≤ i, S(S+1)/2 pairs a layer"
)
_MASKS = {
    (True, False): _CAUSAL + ".",
    (True, True): _CAUSAL + ", and a window's last W of them, Σ_i min(i, W).",
    (False, False): "No mask (--attention-mask none): every query attends all S keys.",
    (False, True): "No mask (--attention-mask none): every query attends min(S, W) keys, its window kept inside the sequence.",
}  # fmt: skip


def _attention_notes(a: TrainingAnalysis) -> tuple[Rich, ...]:
    """How attention's FLOPs were counted: the mask, latent attention, CP's share; or why not."""
    p, m = a.problem, a.problem.transformer
    if p.convention == "scaling-book" or m is None:
        why = "Convention scaling-book: attention's FLOPs are not counted (the book's 6ND)."
        return (rich(why if m else "Attention's FLOPs are left out: they need an architecture."),)
    notes = [_MASKS[p.causal, m.window is not None]]
    if m.is_mla:
        notes.append("Latent attention trains per head: scores over d_nope + d_R, values over d_v (kv_b's expansion of the latent is a matmul, in 6·P_act·T).")  # fmt: skip
    if p.cp > 1:
        even = not p.causal or (m.window is None and p.seq % (2 * p.cp) == 0)
        notes.append(
            f"Context parallelism: each of the cp = {p.cp} ranks attends its S/cp queries; the load-balanced split (2·cp "
            "chunks, rank r holding chunks r and 2·cp − 1 − r, as Megatron-LM cuts it) gives each rank 1/cp of a causal "
            "sequence's pairs, so a device's share is F/N like every other FLOP"
            + ("." if even else " (here the ranks' shares differ a little: a window's first queries attend fewer keys, or "
               "2·cp does not divide S; the even share is taken, which the slowest rank's exceeds).")
        )  # fmt: skip
    notes.append("FlashAttention's backward recomputes the scores inside its kernel: not counted.")
    return tuple(rich(n) for n in notes)


def _pass_comms_rule(a: TrainingAnalysis, name: str) -> str:
    """A pass's comms time: its bytes over β_link, or its transfers' times over the mesh."""
    if _one_link(a.problem):
        return rf"\frac{{V_{{\text{{{name}}}}}}}{{\beta_{{\text{{link}}}}}}"
    if a.problem.convention == "scaling-book":  # its dims overlap: the slowest sets the pass
        return rf"\max_{{\text{{dim}}}} \sum_{{\text{{{name}}}}} t_{{\text{{dim}},j}}"
    return rf"\sum_{{\text{{{name}}}}} t_{{\text{{dim}},j}}"


def _stretch_rule(p: TrainingProblem) -> str:
    """The pipeline's stretch of the compute: (M + pp − 1)/M, interleaved and uneven forms,
    or 1 + t_bubble/(M(F + B)) for a schedule that splits the backward."""
    slots = "M" if p.virtual_stages == 1 else "v M"
    rule = rf"\frac{{{slots} + pp - 1}}{{{slots}}}"
    if p.schedule != "1f1b":
        rule = r"\left(1 + \frac{t_{\text{bubble}}}{M (F + B)}\right)"
    if p.imbalance != 1:
        chunk = r"\max_i L_i" if p.virtual_stages == 1 else r"v \cdot \lceil \max_i L_i / v \rceil"
        rule += rf" \cdot \frac{{pp \cdot {chunk}}}{{L}}"
    return rule


BUBBLE_RULES = {
    "zb1p": (r"(pp - 1)(F + B - 2 W)", "({pp} - 1)({f} + {b} - 2 \\cdot {w})"),
    "dualpipe": (
        r"\left(\frac{pp}{2} - 1\right)(F\&B + B - 3 W), \quad F\&B = F + B",
        r"\left(\frac{{{pp}}}{{2}} - 1\right)(({f} + {b}) + {b} - 3 \cdot {w})",
    ),
}
"""The bubble of a schedule that splits the backward (DeepSeek-V3 Technical Report, Table 2)."""


def _chunk_lines(a: TrainingAnalysis) -> list[Line]:
    """F, B, W of one micro-batch on one stage, the schedule's bubble in them, and its fractions."""
    p, (f, b, w) = a.problem, a.chunk
    attn = (
        (r" + \frac{F_{\text{attn}}}{3}", r" + \frac{2 F_{\text{attn}}}{3}")
        if a.attention_pairs
        else ("", "")
    )
    rule, numbers = BUBBLE_RULES[p.schedule]
    show = {k: number(v) for k, v in (("f", f), ("b", b), ("w", w))}
    ideal = r"M (F + B) + t_{\text{bubble}}"
    return [
        time_line("F", rf"\frac{{2 P_{{\mathrm{{act}}}} T{attn[0]}}}{{N \pi M}}", seconds=f),
        time_line("B", rf"\frac{{4 P_{{\mathrm{{act}}}} T{attn[1]} + F_{{\text{{recompute}}}}}}{{N \pi M}}", seconds=b),
        time_line("W", r"\frac{2 P_{\mathrm{act}} T}{N \pi M}", seconds=w),
        time_line(r"t_{\text{bubble}}", rule, numbers.format(pp=p.pp, **show), seconds=a.bubble),
        Line.of(r"\text{bubble}", rf"\frac{{t_{{\text{{bubble}}}}}}{{{ideal}}}", tex(a.bubble_fraction)),
        Line.of(r"\text{bubble}_{\text{ideal}}", r"\frac{t_{\text{bubble}}}{M (F + B)}", tex(a.bubble_over_ideal)),
    ]  # fmt: skip


def _bubble_lines(a: TrainingAnalysis) -> list[Line]:
    """GPipe's bubble (of the total time) and, with a pipeline, Narayanan et al.'s (of the ideal)."""
    p = a.problem
    if p.schedule != "1f1b":
        return _chunk_lines(a)
    v, m = p.virtual_stages, p.microbatches
    slots, slots_numbers = ("M", f"{m}") if v == 1 else ("v M", rf"{v} \cdot {m}")
    lines = [
        Line.of(
            r"\text{bubble}",
            rf"\frac{{pp - 1}}{{{slots} + pp - 1}}",
            rf"\frac{{{p.pp - 1}}}{{{slots_numbers} + {p.pp - 1}}}",
            tex(a.bubble_fraction),
        )
    ]
    if p.pp > 1:
        lines.append(
            Line.of(
                r"\text{bubble}_{\text{ideal}}",
                rf"\frac{{pp - 1}}{{{slots}}}",
                rf"\frac{{{p.pp - 1}}}{{{slots_numbers}}}",
                tex(a.bubble_over_ideal),
            )
        )
    return lines


def _bounds(a: TrainingAnalysis) -> Step:
    p, f, b = a.problem, a.forward, a.backward
    exposed = bool(f.exposed or b.exposed)  # E: TP's traffic, which no compute hides
    e_fwd, e_bwd = (rf" + E_{{\text{{{n}}}}}" if exposed else "" for n in ("fwd", "bwd"))
    shown = ((r"E_{\text{fwd}}", f.exposed), (r"E_{\text{bwd}}", b.exposed)) if exposed else ()
    stretch = _stretch_rule(p)
    fwd, bwd = (
        rf" + \frac{{{k}F_{{\text{{attn}}}}}}{{3}}" if a.attention_pairs else "" for k in ("", "2 ")
    )
    lines = [
        *_bubble_lines(a),
        *(
            time_line(label, rule, seconds=value)
            for label, rule, value in (
                (
                    r"T_{\text{fwd}}",
                    rf"{stretch} \cdot \frac{{2 P_{{\mathrm{{act}}}} T{fwd}}}{{N \pi}}",
                    f.compute,
                ),
                (
                    r"T_{\text{bwd}}",
                    rf"{stretch} \cdot \frac{{4 P_{{\mathrm{{act}}}} T{bwd} + F_{{\text{{recompute}}}}}}{{N \pi}}",
                    b.compute,
                ),
                (r"C_{\text{fwd}}", _pass_comms_rule(a, "fwd"), f.comms),
                (r"C_{\text{bwd}}", _pass_comms_rule(a, "bwd"), b.comms),
                *((n, r"C_{\text{TP}}", v) for n, v in shown),
                (
                    r"T_{\text{lower}}",
                    rf"\max(T_{{\text{{fwd}}}} + T_{{\text{{bwd}}}}{e_fwd}{e_bwd}, C_{{\text{{fwd}}}} + C_{{\text{{bwd}}}})"
                    if p.schedule == "dualpipe"
                    else rf"\max(T_{{\text{{fwd}}}}{e_fwd}, C_{{\text{{fwd}}}}) + \max(T_{{\text{{bwd}}}}{e_bwd}, C_{{\text{{bwd}}}})",
                    a.t_lower,
                ),
                (
                    r"T_{\text{upper}}",
                    r"T_{\text{fwd}} + T_{\text{bwd}} + C_{\text{fwd}} + C_{\text{bwd}}",
                    a.t_upper,
                ),
            )
        ),
    ]
    return Step(
        StepKind.BOUNDS,
        "a pass's communication overlaps only that pass's compute, TP's not at all (without --overlap-tp): "
        "T_lower = Σ_passes max(compute + exposed, comms), T_upper the serial sum",
        rich(
            "DP's gradient reduction overlaps the backward pass; ZeRO-3's weight gather the forward pass, its re-gather and "
            "gradient reduce-scatter the backward pass; PP's sends the next micro-batch's compute. TP's all-reduces sit between "
            "a layer's matmuls, each waiting on the one before: without --overlap-tp they are exposed (E), added to the compute, "
            "while the pass still takes at least all its traffic. "
            + _SCHEDULE_WORDS.get(
                p.schedule,
                "The pipeline's 1F1B schedule idles each stage for pp − 1 of M + pp − 1 "
                "micro-batch slots, stretching the compute by (M + pp − 1)/M.",
            )
        ),
        tuple(lines),
        notes=_pipeline_notes(p),
        title="Bounds on the step",
        topic=q.T_LOWER.name,
    )


_SCHEDULE_WORDS = {
    "zb1p": "ZB-1P (Qi et al. 2023, Zero Bubble Pipeline Parallelism) splits each backward chunk B into its input "
    "gradients and its weight gradients W and fills the pipeline's idle slots with the W, so the bubble is "
    "(pp − 1)(F + B − 2W) (DeepSeek-V3 Technical Report, Table 2), the compute stretched by 1 + t_bubble/(M(F + B)).",
    "dualpipe": "DualPipe (DeepSeek-V3 Technical Report §3.2.1, Table 2; github.com/deepseek-ai/DualPipe) feeds M/2 "
    "micro-batches from each end of the pipeline, device i holding stages i and pp − 1 − i, and overlaps a forward "
    "chunk's computation and communication with a backward chunk's: both the all-to-all and PP communication can be "
    "fully hidden (the report's claim), so the step's traffic hides behind the step's compute, T_lower = "
    "max(T_fwd + T_bwd, C_fwd + C_bwd). Its bubble is (pp/2 − 1)(F&B + B − 3W), F&B a forward and a backward chunk "
    "overlapped, here their compute F + B; the compute is stretched by 1 + t_bubble/(M(F + B)).",
}
"""What a schedule other than 1F1B does, with its source (the bounds step's reason)."""


def _pipeline_notes(p: TrainingProblem) -> tuple[Rich, ...]:
    if p.pp == 1:
        return ()
    notes = [
        rich(
            "Two conventions for the bubble: GPipe's (Huang et al. 2019), its share of the total time, (pp − 1)/(M + pp − 1); "
            "Narayanan et al. (2021), its size against the ideal time, (pp − 1)/M."
            if p.schedule == "1f1b"
            else "F, B and W are one micro-batch's forward, whole backward and weight-gradient compute on one stage, "
            "from the run's own FLOPs: of the backward's 4·P_act FLOPs a token, the weight gradients are 2·P_act (W) and "
            "the input gradients the other 2·P_act, with attention's and the recomputation's FLOPs (which have no weights); "
            "the bubble's two conventions are its share of the total time and its size against the ideal M(F + B)."
        )
    ]
    if p.virtual_stages > 1:
        notes.append(
            rich(
                f"Interleaved 1F1B (Narayanan et al. 2021): each device runs v = {p.virtual_stages} model chunks, so the "
                "bubble shrinks v-fold, (pp − 1)/(v·M) of the ideal, and each micro-batch crosses v times as many stage "
                "boundaries."
            )
        )
    if p.imbalance != 1 and p.schedule != "1f1b":
        notes.append(
            rich(
                f"Unequal stages ({', '.join(map(str, p.stage_layers))} layers a stage, as even as possible): every chunk lasts "
                "as long as the largest stage's, max L_i layers, so the compute stretches by pp·max L_i / L too."
            )
        )
    elif p.imbalance != 1:
        notes.append(
            rich(
                f"Unequal {'stages' if p.virtual_stages == 1 else 'chunks'} ({', '.join(map(str, p.stage_layers)) or 'L/pp'} layers a stage, v = {p.virtual_stages} chunks "
                "each, as even as possible): each of the v·M + pp − 1 slots lasts as long as the largest chunk, ⌈max L_i / v⌉ "
                "layers, so the compute stretches by pp·v·⌈max L_i / v⌉ / L too; the embedding's and the head's FLOPs are spread over the step as 6·P_act·T counts them."
            )
        )
    return tuple(notes)


def _pass_line(c: Critical) -> Line:
    lhs = rf"b^{{*}}_{{\text{{{c.name}}}}}"
    if c.tokens is None:
        return Line.of(lhs, r"\text{never}")
    return decimal_line(
        lhs,
        r"\frac{D}{c - K}",
        rf"\frac{{{tex(c.comms_fixed)}}}{{{tex(c.compute_per_token)} - {number(c.comms_per_token)}}}"
        if c.comms_fixed
        else "",
        value=c.tokens,
    )


def _dp_beta(a: TrainingAnalysis) -> tuple[sp.Rational, str, str]:
    """β of the DP group: (value, its symbol, its numbers) — β_link, or the mesh's level mix."""
    p = a.problem
    if _one_link(p):
        return p.link, r"\beta_{\text{link}}", tex_text_number(p.link_text)
    beta = a.comms.bandwidth("dp")
    return beta, r"\beta_{\text{dp}}", tex(beta)


def _dp_balance(a: TrainingAnalysis) -> list[Line]:
    """DP's critical batch in closed form, for the DP traffic the ZeRO stage sends."""
    p = a.problem
    book = p.convention == "scaling-book"  # its own balance is in its note (_book_words)
    if book or p.dp * p.cp == 1 or not any(t.dim == "dp" for t in a.comms.transfers):
        return []
    beta, symbol, numbers = _dp_beta(a)
    frac = a.comms.dp_fraction
    once = p.zero in (ZeroStage.NONE, ZeroStage.OPTIMIZER)
    if once or p.keep_gathered:
        k, twice = ("4", r"2 \cdot ") if once else ("2", "")
        lhs, label = rf"\frac{{{k} P b}}{{\pi}}", r"b^{*}_{\text{DP}}"
    elif p.zero is ZeroStage.WEIGHTS:
        twice, lhs, label = "", r"\frac{2 P S b_{\mu}}{\pi}", r"(S b_{\mu})^{*}_{\text{DP}}"
    else:
        return []
    return [
        Line.of(lhs, rf"\frac{{{twice}\frac{{X - 1}}{{X}} \cdot 2 P}}{{{symbol}}}", relation="="),
        decimal_line(
            label,
            rf"\frac{{X - 1}}{{X}} \cdot \frac{{\pi}}{{{symbol}}}",
            rf"{number(frac)} \cdot \frac{{{tex_text_number(p.peak_text)}}}{{{numbers}}}",
            value=frac * p.peak / beta,
        ),
    ]


def _critical(a: TrainingAnalysis) -> Step:
    p = a.problem
    lines = _dp_balance(a)
    lines += [_pass_line(c) for c in a.critical]
    star = a.critical_tokens_per_device
    lines.append(
        decimal_line(r"b^{*}", r"\max(b^{*}_{\text{fwd}}, b^{*}_{\text{bwd}})", value=star)
        if star is not None
        else Line.of(r"b^{*}", r"\text{never}")
    )
    lines += _critical_scales(a)
    notes: list[Rich] = [
        rich(
            "The critical batch three ways: b* per DP rank (a replica of tp·pp·cp chips), b*_chip per chip (comparable "
            "across layouts), B* for the whole step (b*·dp). The largest TP degree before TP's all-reduces outrun a "
            "layer's compute: derive's per-layer form tp_max (from P_layer/(4·d·tp) ≥ (tp−1)/tp·π/β), and the Scaling "
            "Book's F/Y > C/W read as Y < f·β/π (whether the degree splits the heads is not asked)."
        ),
        rich(
            "Per pass, in tokens per DP rank b: compute c·b (c = FLOPs per token / (tp·pp·π), plus TP's seconds per token when its all-reduces are exposed, without --overlap-tp: on the compute's critical path, as in T_lower), comms D + K·b (D: DP's bytes, "
            "which do not grow with the batch; K·b: TP's, PP's and EP's, which do) over β_link; the pass is compute-bound from "
            "b = D/(c − K). The exact per-pass values count the model's own P_dev (norms replicated, the heavier end stage), "
            "attention's FLOPs (the closed form's 4·P·b leaves them out) and the recomputation's; the pipeline bubble "
            "is left out."
        ),
        rich(
            "The Scaling Book writes the DP condition as B/X > C/W: the same balance without the ring's (X−1)/X (→ 1 for "
            "large X) and with W the bandwidth of all the links a chip uses for the collective (both directions of several "
            "ICI links), where derive takes one link's one-way β_link."
        ),
    ]
    if p.convention == "scaling-book":
        notes.append(rich(_book_words(a)))
    elif p.zero is ZeroStage.WEIGHTS and not p.keep_gathered and p.dp * p.cp > 1:
        notes.append(
            rich(
                "ZeRO-3 gathering per micro-batch sends weights in proportion to the batch, so its balance is per "
                "micro-batch: each micro-batch of S·b_μ tokens hides its own gathers from (S·b_μ)* on, whatever the "
                "number of micro-batches (b* is then 0, or never)."
            )
        )
    word = "compute-bound" if a.compute_bound else "communication-bound"
    if star is not None:
        stretched = a.compute_bound != bool(a.tokens_per_device >= star)
        note = (
            f"At b = {fmt_decimal(a.tokens_per_device)} tokens per DP rank the step is {word} (b* ≈ {fmt_decimal(star)})"
            + (
                ": the pipeline's bubble stretches the compute, which b* leaves out."
                if stretched
                else "."
            )
        )
    elif a.compute_bound:
        note = (
            f"No batch size alone makes every pass compute-bound, but at b = {fmt_decimal(a.tokens_per_device)} "
            "the pipeline's bubble stretches the compute past the communication: the step is compute-bound."
        )
    else:
        note = "No batch makes every pass compute-bound: a pass's per-token comms (TP, PP, EP) outrun its compute."
    notes.append(rich(note))
    if a.tp_width is not None and a.tp_critical_width is not None:
        lines += [
            decimal_line(
                r"w_{\text{tp}}",
                r"\frac{P_{\text{layer}}}{4 d \cdot tp}",
                rf"\frac{{{tex(a.tp_layer_params)}}}{{4 \cdot {p.arch('d_model')} \cdot {p.tp}}}",
                value=a.tp_width,
            ),
            decimal_line(
                r"w^{*}_{\text{tp}}",
                r"\frac{tp - 1}{tp} \cdot \frac{\pi}{\beta_{\text{link}}}"
                if _one_link(p)
                else r"\frac{tp - 1}{tp} \cdot \frac{\pi}{\beta_{\text{tp}}}",
                value=a.tp_critical_width,
            ),
        ]
        layer_bound = a.tp_width >= a.tp_critical_width
        per_layer = "compute-bound" if layer_bound else "communication-bound"
        notes.append(
            rich(
                "TP's analogue: a layer's forward compute 2·P_layer·S·b/(tp·π) against its two all-reduces 2·2(tp−1)/tp·2·S·b·d/β_link "
                f"is independent of the batch; it stays compute-bound while the width per TP rank P_layer/(4·d·tp) ≥ (tp−1)/tp·π/β_link "
                f"(the Scaling Book's F/Y > C/W). Here, per layer, it is {per_layer}"
                + _tp_granularity(a, layer_bound)
            )
        )
    return Step(
        StepKind.CRITICAL_BATCH,
        "the tokens per DP rank where a pass's compute equals its communication",
        rich("Above the critical batch every pass's communication hides under its compute."),
        tuple(lines),
        notes=tuple(notes),
        title="Critical batch",
        topic=q.CRITICAL_TOKENS_PER_DEVICE.name,
    )


def _critical_scales(a: TrainingAnalysis) -> list[Line]:
    """The critical batch per chip and for the whole step; the largest TP degree, two ways."""
    p, star = a.problem, a.critical_tokens_per_device
    out = []
    if star:
        chip, step = a.critical_tokens_per_chip, a.critical_batch_tokens
        out += [
            decimal_line(r"b^{*}_{\text{chip}}", r"\frac{b^{*}}{tp \cdot pp \cdot cp}", value=chip),
            decimal_line(r"B^{*}", r"b^{*} \cdot dp", value=step),
        ]
    book, exact = a.tp_max_scaling_book, a.tp_max_exact
    if book is not None and exact is not None:
        beta = r"\beta_{\text{link}}" if _one_link(p) else r"\beta_{\text{tp}}"
        out += [
            Line.of(
                r"tp_{\max}",
                rf"1 + \left\lfloor \frac{{P_{{\text{{layer}}}} \, {beta}}}{{4 d \pi}} \right\rfloor",
                str(exact),
            ),
            decimal_line(
                r"Y_{\max}^{\text{book}}",
                r"\frac{F \, W_{\text{tp}}}{C}"
                if p.convention == "scaling-book"
                else rf"\frac{{f \, {beta}}}{{\pi}}",
                value=book,
            ),
        ]
    return out


def _book_words(a: TrainingAnalysis) -> str:
    """How the book's rules were applied, and where derive's own convention differs."""
    p, w, few = a.problem, a.book_bandwidth("dp"), ""
    if (small := a.dp_small_x_scaling_book) is not None:
        few = f"; over few nodes the book's B/N > α·(X−1)/X, the slowest scale-out level's (D−1)/D (GPUs, “What happens when X is small?”): {fmt_decimal(small)} a chip"
    diff = "; ".join(
        f"{key} {'never' if theirs is None else fmt_decimal(theirs)}"
        + (f" ({fmt_decimal(mine / theirs)}× here)" if mine and theirs else "")
        for key, mine, theirs in a.differences()
    )
    return (
        "Convention scaling-book (Training, “Data Parallelism”, “FSDP”, “Tensor Parallelism”, “Combining "
        "FSDP and Tensor Parallelism”, “Scaling Across Pods”; GPUs, “Rooflines for LLM Scaling on GPUs”): "
        f"compute-bound from B/X = C/W = {p.peak_text} / {fmt_decimal(w / 10**9)} GB/s = {fmt_decimal(p.peak / w)} a chip "
        f"(W: DP's{'; an MoE E/k times it, the book counting the DP traffic of the MLPs alone, E/k of the active weights, not P/P_act (GPUs, “MoE models”)' if p.is_moe else ''}); a pass's dims overlap, its slowest sets its comms, so each dim is balanced against the "
        f"pass's compute and the binding one shown{few}. derive's own convention (the ring's (X−1)/X on one-way "
        f"links, the dims' times added, ZeRO-3 gathering every micro-batch) gives: {diff or 'the same'}."
    )


def _tp_granularity(a: TrainingAnalysis, layer_bound: bool) -> str:
    """How the per-layer TP verdict meets the step's, which overlaps traffic per pass."""
    if layer_bound or not a.compute_bound or not a.problem.overlap_tp:
        return "."
    return (
        "; with --overlap-tp the step's bound overlaps each pass's traffic with the whole pass's compute (per pass, not per layer), "
        "which counts every FLOP of 6·P_act·T (the embedding and the head too) and covers it: per pass the step is "
        "compute-bound. A schedule that cannot overlap one layer's all-reduces with the next layers' compute is TP-bound."
    )


def _measured(a: TrainingAnalysis) -> Step | None:
    p = a.problem
    if p.measured_time is None or a.mfu is None:
        return None
    lines = (
        decimal_line(
            r"\mathrm{MFU}",
            r"\frac{F_{\text{model}}}{N \cdot \pi \cdot T_{\text{step}}}",
            rf"\frac{{{tex(a.flops_model)}}}{{{p.devices} \cdot {tex_text_number(p.peak_text)} \cdot {tex(p.measured_time)}}}",
            value=a.mfu,
        ),
    )
    verdict = (
        "IMPOSSIBLE: the measured step is faster than the lower bound T_lower (or its MFU exceeds 1): check the timing, the batch and the convention."
        if a.impossible
        else "Possible: the measured step is no faster than the lower bound T_lower."
    )
    return Step(
        StepKind.MEASURED,
        "MFU = model FLOPs / (N · π · T_step); recomputation's FLOPs are hardware FLOPs, not counted",
        rich("The fraction of the devices' peak the step's model FLOPs reach."),
        lines,
        notes=(rich(verdict),),
        title="Measured step",
        topic=q.MFU.name,
    )


def _predicted(a: TrainingAnalysis) -> Step:
    p, r = a.problem, a.predicted
    assert r is not None and a.t_predicted is not None and a.mfu_predicted is not None
    rest = "every axis" if len(p.link_efficiency) == 1 else "the other axes"
    links = ", ".join(f"{n or rest} {fmt_ending_decimal(e)}" for n, e in p.link_efficiency) or "1"
    passes = " + ".join(rf"\max({time_tex(x.compute)} + {time_tex(x.exposed)}, {time_tex(x.comms)})"
                        for x in (r.forward, r.backward))  # fmt: skip
    mfu = r"\frac{F_{\text{model}}}{N \cdot \pi \cdot T_{\text{pred}}}"
    return Step(
        StepKind.BOUNDS,
        "T_pred = T_lower at π·E_matmul and each axis at β·E_link: what the schedule overlaps "
        "stays overlapped, the exposed traffic is added",
        rich(f"The matmuls reach E_matmul = {fmt_ending_decimal(p.matmul_efficiency or 1)} of π; the links E_link = {links} of β."),
        (time_line(r"T_{\text{pred}}", passes, seconds=a.t_predicted),
         decimal_line(r"\mathrm{MFU}_{\text{pred}}", mfu, value=a.mfu_predicted)),
        title="Predicted step", topic=q.T_PREDICTED.name,
    )  # fmt: skip


def _winner_words(rows: tuple[StrategyRow, ...], winner: StrategyRow) -> str:
    """The winner, or the tie it is in: rows that fit with exactly its T_lower."""
    best = winner.analysis
    assert best is not None  # a winner was derived
    tied = [
        r.name
        for r in rows
        if r is not winner
        and r.analysis is not None
        and r.analysis.fits is not False
        and r.analysis.t_lower == best.t_lower
    ]
    if not tied:
        return (
            f"At this batch {winner.name} wins: the smallest T_lower among the strategies that fit."
        )
    names = ", ".join([winner.name, *tied])
    return (
        f"At this batch {names} tie on T_lower exactly; {winner.name} is listed first as the one with the "
        "smallest T_upper (it waits least on its traffic when nothing overlaps)."
    )


def _strategies(rows: tuple[StrategyRow, ...], winner: StrategyRow | None) -> Step:
    table: list[tuple] = [
        (
            q.STRATEGY.name,
            "dp·tp·pp, ZeRO",
            "memory per device",
            "comms per step",
            "critical batch per chip",
            "T_lower",
        )
    ]
    for row in rows:
        a = row.analysis
        searched = (
            f", {row.recompute.value}" + (f", {row.placement}" if row.placement else "")
            if row.recompute is not None
            else ""
        )
        degrees = (
            rich(f"{row.dp}·{row.tp}·{row.pp}, {int(row.zero)}{searched}") if row.tp else rich("—")
        )
        if a is None:
            table.append(
                (rich(row.name), degrees, rich(row.why_not), rich("—"), rich("—"), rich("—"))
            )
            continue
        fit = "" if a.fits is None else (" (fits)" if a.fits else " (does not fit)")
        star = a.critical_tokens_per_chip
        table.append(
            (
                rich(row.name),
                degrees,
                rich(f"{fmt_decimal(a.memory.total / GB)} GB{fit}"),
                rich(f"{fmt_decimal(a.comms.total / GB)} GB"),
                rich(
                    "never"
                    if star is None
                    else "any batch"
                    if star == 0
                    else f"{fmt_decimal(star)} tokens"
                ),
                rich(time_text(a.t_lower)),
            )
        )
    note = (
        _winner_words(rows, winner)
        if winner is not None
        else "No strategy fits in memory at this batch."
    )
    return Step(
        StepKind.STRATEGIES,
        "each strategy on the same N devices and batch, derived as above",
        rich(
            "DP replicates the state; FSDP shards it (ZeRO-3); TP splits each layer; FSDP+TP both; PP splits the layers into stages. "
            "Then the ten fastest layouts of a search over every dp·tp·pp·ep·cp = N that splits the model and the batch, every "
            "placement on the mesh, each recomputation at the smallest ZeRO stage that fits (named dp·tp·pp, with ·cpN, ·epN; "
            "their cells add the recomputation and the placement)."
        ),
        notes=(rich(note),),
        table=tuple(table),
        title="Strategies compared",
        topic=q.COMPARE_STRATEGIES.name,
    )


def training_steps(
    a: TrainingAnalysis, rows: tuple[StrategyRow, ...] = (), winner: StrategyRow | None = None
) -> tuple[Step, ...]:
    """The worked solution of a training step, in order."""
    steps = [
        devices_step(a),
        params_step(a),
        state_step(a),
        activations_step(a),
        fit_step(a),
        _comms(a),
        *((mesh,) if (mesh := mesh_step(a)) is not None else ()),
        _times(a),
        _bounds(a),
        *((_predicted(a),) if a.predicted is not None else ()),
        _critical(a),
    ]
    measured = _measured(a)
    if measured is not None:
        steps.append(measured)
    if a.cost is not None:
        when = (
            "the measured step" if a.problem.measured_time is not None else "the step's lower bound"
        )
        what = f"t {when}, T the tokens of one step (every DP rank's)"
        steps.append(replace(cost_step(a.cost, what), topic=q.COST_OF_RUN.name))
    if rows:
        steps.append(_strategies(rows, winner))
    return tuple(steps)


def training_verdict(a: TrainingAnalysis) -> tuple[Rich, ...]:
    """One or two bold sentences: the fit and the bound of the step."""
    out = []
    if a.fits is not None:
        out.append(
            rich(
                f"{'Fits' if a.fits else 'Does not fit'}: {fmt_decimal(a.memory.total / GB)} GB per device."
            )
        )
    star = a.critical_tokens_per_device
    bound = "compute-bound" if a.compute_bound else "communication-bound"
    where = (
        ", no critical batch"
        if star is None
        else ", at any batch (critical batch 0)"
        if star == 0
        else f", critical batch ≈ {fmt_decimal(star)} tokens per DP rank"
    )
    out.append(rich(f"Step at least {time_text(a.t_lower)}, {bound}{where}."))
    if a.t_predicted is not None and a.mfu_predicted is not None:
        mfu = fmt_decimal(a.mfu_predicted, 3)
        out.append(rich(f"Predicted step {time_text(a.t_predicted)}, MFU {mfu}."))
    if a.impossible:
        out.append(rich("The measured step is impossible: faster than the lower bound."))
    return tuple(out)
