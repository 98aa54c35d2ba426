"""Worked-solution steps of a training run's devices and memory: parameters held, state, activations, fit.

Reads :class:`~derive.training.analysis.TrainingAnalysis`; computes nothing but the printing.
The communication, time and critical-batch steps are in :mod:`derive.solution.training_steps`.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import decimal_line
from derive.training.analysis import TrainingAnalysis
from derive.training.binding import CONVENTIONS, Recompute, ZeroStage

GB = 10**9


def gigabytes(value: sp.Expr) -> str:
    return tex_decimal(value / GB) + r"\ \text{GB}"


def gb_line(lhs: str, *forms: str, value: sp.Expr) -> Line:
    """A line ending in a number of bytes: exact, then ``≈`` in GB."""
    return Line.of(lhs, *forms, tex(value), approx=gigabytes(value))


def number(value: sp.Expr) -> str:
    """A number inside a substituted form (parenthesised unless a non-negative integer)."""
    text = tex(value)
    return text if value.is_Integer and value >= 0 else rf"\left({text}\right)"


def _zero_words(zero: ZeroStage) -> str:
    return {
        ZeroStage.NONE: "no ZeRO: every DP rank holds the whole state of its shard of the model",
        ZeroStage.OPTIMIZER: "ZeRO-1: the optimizer state is sharded over the DP group",
        ZeroStage.GRADIENTS: "ZeRO-2: the optimizer state and the gradients are sharded over the DP group",
        ZeroStage.WEIGHTS: "ZeRO-3 (FSDP): optimizer state, gradients and weights are sharded over the DP group",
    }[zero]


def devices_step(a: TrainingAnalysis) -> Step:
    p = a.problem
    dims = ("dp", "tp", "pp", "cp")[: 3 + (p.cp > 1)]
    return Step(
        StepKind.PARALLELISM,
        "N = dp·tp·pp; each DP rank takes b_dp = T/dp tokens per step in M = T/(dp·b_μ·S) micro-batches of b_μ sequences",
        rich("A DP rank is one copy of the model, cut over tp·pp devices."),
        (
            Line.of(
                "N",
                r" \cdot ".join(dims),
                r" \cdot ".join(f"{getattr(p, d)}" for d in dims),
                str(p.devices),
            ),
            Line.of(
                r"b_{\text{dp}}",
                r"\frac{T}{dp}",
                rf"\frac{{{tex(p.batch_tokens)}}}{{{p.dp}}}",
                tex(a.tokens_per_device),
            ),
            Line.of(
                "M",
                r"\frac{T}{dp \cdot b_{\mu} \cdot S}",
                rf"\frac{{{tex(p.batch_tokens)}}}{{{p.dp} \cdot {p.micro_batch} \cdot {p.seq}}}",
                tex(p.microbatches),
            ),
        ),
        title="Devices and batch",
    )


def _split_line(a: TrainingAnalysis) -> Line:
    """P_split: one block's TP-split weights (per layer, on average when the blocks differ)."""
    p, pd = a.problem, a.params
    forms: tuple[str, ...]
    if p.arch("dense_layers") or p.arch("shared_experts"):  # blocks differ: an average
        forms = (r"\frac{P_{\text{blocks}} - P_{\text{routed}} - P_{\text{repl}}}{L \cdot tp}",)
    elif p.is_moe:
        forms = (r"\frac{P_{\mathrm{attn}}}{tp}", rf"\frac{{{tex(p.arch('P_attn'))}}}{{{p.tp}}}")
    else:
        forms = (
            r"\frac{P_{\mathrm{attn}} + P_{\mathrm{mlp}}}{tp}",
            rf"\frac{{{tex(p.arch('P_attn'))} + {tex(p.arch('P_mlp'))}}}{{{p.tp}}}",
        )
    return Line.of(r"P_{\text{split}}", *forms, tex(pd.block_split))


def params_step(a: TrainingAnalysis) -> Step:
    p, pd = a.problem, a.params
    model = p.transformer
    if model is None:  # known by its size alone: every parameter on the device (dp and ZeRO only)
        return Step(
            StepKind.MEMORY,
            "without an architecture the model is not split: each device holds every parameter",
            rich(
                "The model is known by its size alone, so it trains with data parallelism (and ZeRO) only."
            ),
            (Line.of(r"P_{\text{dev}}", "P", tex(a.params.total)),),
            title="Parameters per device",
            topic=q.MEMORY_PER_DEVICE.name,
        )
    two = r"2 \cdot " if pd.copies == 2 else ""  # DualPipe: stages i and pp − 1 − i
    lines = [
        Line.of(r"\frac{L}{pp}", rf"\frac{{{p.arch('layers')}}}{{{p.pp}}}", tex(pd.layers))
        if pd.stage is None
        else Line.of(
            r"L_{\text{chunk}}",
            rf"\frac{{L_{{{pd.stage + 1}}} + L_{{{p.pp - pd.stage}}}}}{{2}}",
            tex(pd.layers),
        )
        if two
        else Line.of(
            rf"L_{{{pd.stage + 1}}}",
            rf"\text{{layers of stage {pd.stage + 1} of }} ({', '.join(map(str, p.stage_layers))})",
            tex(pd.layers),
        ),
        _split_line(a),
        Line.of(
            r"P_{\text{repl}}",
            r"P_{\mathrm{norm}}" + (r" + d \cdot E" if model.is_moe else ""),
            tex(pd.block_replicated),
        ),
    ]
    if model.is_moe:
        lines.append(
            Line.of(
                r"P_{\text{experts}}",
                r"\frac{(L - L_{\text{dense}}) \cdot P_{\text{routed}}}{L \cdot tp \cdot ep}",
                tex(pd.block_experts),
            )
        )
    lines += [
        Line.of(r"P_{\text{ends}}", r"\text{globals of the heaviest stage}", tex(pd.ends)),
        decimal_line(
            r"P_{\text{dev}}",
            two
            + (r"\frac{L}{pp}" if pd.stage is None else r"L_{\text{chunk}}" if two else r"L_i")
            + r" \left(P_{\text{split}} + P_{\text{repl}}"
            + (r" + P_{\text{experts}}" if model.is_moe else "")
            + r"\right) + P_{\text{ends}}",
            rf"{two}{number(pd.layers)} \cdot \left({tex(pd.block_split)} + {tex(pd.block_replicated)}"
            + (rf" + {tex(pd.block_experts)}" if model.is_moe else "")
            + rf"\right) + {tex(pd.ends)}",
            value=pd.total,
        ),
    ]
    ends = (
        "One stage holds every block and all the globals: the token embedding and the output head split over TP by vocabulary, "
        "the final norm (and a position table) replicated."
        if p.pp == 1
        else "The first stage holds the token embedding (split over TP by vocabulary) and any position table; the last the head "
        "(split by vocabulary) and the final norm"
        + (", and a copy of the tied embedding" if model.tied_embeddings else "")
        + "; the heavier of the two is counted."
    )
    if two:
        ends = (
            "DualPipe (DeepSeek-V3 Technical Report §3.2.1; its example gives rank i the modules of stages i and "
            "pp − 1 − i) keeps two copies of the model's parameters: each device holds two stages, 2·L/pp blocks, "
            "and devices 1 and pp both ends, the token embedding and the head with the final norm"
            + (f" (stages {', '.join(map(str, p.stage_layers))}; device {pd.stage + 1}, with the most memory, is counted)" if pd.stage is not None else "")
            + ". Each copy keeps its own gradients and optimizer state, so the whole training state is twice 1F1B's "
            "per stage; the two copies' gradients are summed (traffic not counted here)."
        )  # fmt: skip
    elif pd.stage is not None:
        ends = (
            f"The stages hold {', '.join(map(str, p.stage_layers))} layers; the first also the token embedding, the last "
            f"the head and the final norm. Stage {pd.stage + 1}, with the most memory (its parameters and the "
            "micro-batches it keeps in flight), is counted."
        )
    return Step(
        StepKind.MEMORY,
        "TP splits each block's attention and MLP matrices (and their biases); norms are replicated; PP gives each stage L/pp blocks",
        rich(ends),
        tuple(lines),
        notes=(
            rich(
                "Megatron keeps the row-parallel biases (b_o, b_down) whole on every TP rank; they are counted here as split, "
                "a difference of at most 2·d parameters per block."
            ),
        )
        if model.bias and p.tp > 1
        else (),
        title="Parameters per device",
        topic=q.MEMORY_PER_DEVICE.name,
    )


def state_step(a: TrainingAnalysis) -> Step:
    p, m, st = a.problem, a.memory, a.problem.state
    mc, lines, held, count = m.megatron, [], r"P_{\text{dev}}", a.params.total
    if mc is not None:  # Megatron-LM's count (--convention megatron)
        held, count, d, v = r"P_{\text{Meg}}", mc.held, p.arch("d_model"), mc.vocab
        rule = r"\frac{P_{\text{block}}/pp + d \cdot V'}{tp}" + (r" + \frac{d \cdot V'}{tp}" if mc.output else "")  # fmt: skip
        numbers = rf"\frac{{{tex(mc.block)}/{p.pp} + {d} \cdot {v}}}{{{p.tp}}}" + (rf" + \frac{{{d} \cdot {v}}}{{{p.tp}}}" if mc.output else "")  # fmt: skip
        lines.append(decimal_line(held, rule, numbers, value=count))
    for key, label, width, value in (
        ("weights", r"M_{W}", st.weights, m.weights),
        ("grads", r"M_{G}", st.grads, m.grads),
        ("optimizer", r"M_{O}", st.optimizer, m.optimizer),
    ):
        sharded = key in p.zero.shards and not (p.keep_gathered and key != "optimizer")
        group, size = (r"dp", f"{p.dp}") if p.cp == 1 else (r"dp \cdot cp", f"{p.dp * p.cp}")
        over = rf"\frac{{{held}}}{{{group}}}" if sharded else held
        numbers = rf"\frac{{{tex(count)}}}{{{size}}}" if sharded else tex(count)
        if sharded and a.params.experts and mc is None:
            over = r"\left(\frac{P_{\text{dense}}}{dp} + \frac{P_{\text{experts}}}{dp/ep}\right)"
            numbers = ""
        lines.append(
            gb_line(
                label,
                rf"{tex(width)} \cdot {over}",
                rf"{tex(width)} \cdot {numbers}" if numbers else "",
                value=value,
            )
        )
    notes = [rich(st.note)] if st.note else []
    notes += [rich(mc.note)] if mc is not None else []
    if p.keep_gathered:
        notes.append(
            rich(
                "The gathered weights are kept across the step's micro-batches, and the gradients accumulate whole "
                "until the last backward: both are counted unsharded."
            )
        )
    if p.cp > 1:
        notes.append(
            rich("The context-parallel ranks hold the same weights: the DP group of ZeRO is dp·cp.")
        )
    return Step(
        StepKind.MEMORY,
        f"bytes per parameter × parameters held; {_zero_words(p.zero)}",
        rich(
            f"Mixed precision keeps {st.weights} bytes of weights, {st.grads} of gradients and {st.optimizer} of "
            "optimizer state (fp32 master weights, Adam's m and v for adam-mixed) per parameter."
        ),
        tuple(lines),
        notes=tuple(notes),
        title="Training state per device",
        topic=q.MEMORY_PER_DEVICE.name,
    )


def _in_flight_line(a: TrainingAnalysis) -> Line:
    """M_A: the micro-batches in flight on the counted stage times its layers' activations."""
    m, p = a.memory, a.problem
    flight = r"\min(M, pp)" if a.params.stage is None else r"\min(M, pp - i)"
    flight = r"\min(M, pp + 1)" if p.schedule == "dualpipe" else flight
    logits_rule, logits_numbers = (
        (r" + M_{\text{logits}}", rf" + {tex(m.logits)}") if m.logits else ("", "")
    )
    layers = (
        r"\frac{L}{pp}"
        if a.params.stage is None
        else r"L_{\text{chunk}}"
        if a.params.copies == 2
        else r"L_{i}"
    )
    factor, numbers = (
        (r" \cdot \left(1 + \frac{pp - 1}{pp \cdot v}\right)", rf" \cdot {tex(m.interleave)}")
        if m.interleave != 1
        else ("", "")
    )
    rule = rf"{flight} \cdot {layers} \cdot A_{{\text{{layer}}}}{factor}"
    values = rf"{m.in_flight} \cdot {number(a.params.layers)} \cdot {tex(m.activations_per_layer)}{numbers}"
    if m.ends:  # Megatron-LM's embedding and output-layer terms (--convention megatron)
        rule, values = rf"{rule} + A_{{\text{{ends}}}}", rf"{values} + {tex(m.ends)}"
    if m.overhead != 1:
        rule = rf"\left({rule}\right) \cdot {tex(m.overhead)}"
        values = rf"\left({values}\right) \cdot {tex(m.overhead)}"
    return gb_line(
        r"M_{A}", rf"{rule}{logits_rule}", rf"{values}{logits_numbers}", value=m.activations
    )


def activations_step(a: TrainingAnalysis) -> Step:
    p, m = a.problem, a.memory
    model = p.transformer
    if model is None:
        return Step(
            StepKind.ACTIVATIONS,
            "activations per layer and micro-batch need the model's width and layers",
            rich(
                "The model is known by its size alone: its activations are not counted (M_A = 0 below), "
                "so the memory per device is a lower bound."
            ),
            title="Activations",
            topic=q.ACTIVATIONS.name,
        )
    book = p.convention == "scaling-book" and p.recompute is not Recompute.FULL
    megatron = p.convention == "megatron" and p.recompute is Recompute.SELECTIVE
    table: list[tuple] = [
        (
            "tensor kept (one layer, one micro-batch)",
            "Scaling Book" if book else "Megatron-LM" if megatron else "Korthikanti et al.",
            "bytes per device",
        )
    ]
    for term, value in a.terms:
        table.append(
            (rich(term.name), rich(Math(term.paper.replace("²", "^2"))), rich(Math(tex(value))))
        )
    lines = (
        gb_line(r"A_{\text{layer}}", r"\sum \text{terms}", value=m.activations_per_layer),
        _in_flight_line(a),
    )
    reason = {
        Recompute.FULL: "Full recomputation keeps only each layer's input, S·b·d in bf16, and runs the layer's forward again in the backward pass.",
        Recompute.SELECTIVE: "Selective recomputation keeps every tensor but the attention core's (the softmax and its S² tensors), which it recomputes.",
        Recompute.NONE: "Without recomputation every tensor the backward pass reads is kept.",
    }[p.recompute]
    if p.checkpoint_tensors is not None:
        reason = (
            f"The checkpoint policy tensors={p.checkpoint_tensors} keeps {p.checkpoint_tensors} "
            "tensor(s) of S·b·d in bf16 per layer and runs the layer's forward again in the "
            "backward pass (FLOPs as full recomputation)."
        )
    if p.convention != "derive":
        reason += f" Convention {p.convention}: {CONVENTIONS[p.convention]}."
    book_note = (
        "The Scaling Book's count (Austin et al., “How to Scale Your Model”, Transformer math, "
        "“Gradient checkpointing”): about 20 saved intermediate nodes of B·T·d per layer without "
        "remat, about 7 when only the big matmuls' outputs are kept (selective here), 2 bytes "
        "each in bf16, split over tp · cp; the embedding, the logits and the loss are not counted."
    )
    megatron_note = (
        "Megatron-LM's megatron/training/theoretical_memory_usage.py as written (Korthikanti et al.'s Table 2 "
        "for GPT): with sequence parallelism s·b·h·(18 + 4f/h)/t, else s·b·h·(10 + 24/t), in bytes. It leaves out "
        "GQA's smaller K and V, a gated MLP's third f-wide tensor, a MoE token's k experts, f without sequence "
        "parallelism, and a model without dropout: each counted as GPT's."
    )
    notes = [
        rich(book_note)
        if book
        else rich(megatron_note)
        if megatron
        else rich(
            "Terms of Korthikanti et al. (2022), “Reducing Activation Recomputation in Large Transformer Models”, §4.1, for this "
            "model's layer: h query and h_kv KV heads of d_h, an MLP of width f"
            + (
                " (gated: gate, up, act(gate) and their product"
                if model.mlp_kind.value == "gated"
                else " (the activation's input and output"
            )
            + ("; a token's k experts each)" if model.is_moe else ")")
            + "; bf16, 2 bytes. "
            + (
                "Sequence parallelism splits the norms' and the projections' inputs over the TP group too. "
                if p.sequence_parallel
                else "Without sequence parallelism the norms' and the projections' inputs are whole on every TP rank. "
            )
            + "The model trains without dropout, so the paper's dropout masks and output are not counted; "
            + (
                "the embedding, the final norm and the loss are outside the layers and not counted; the logits are "
                "(M_logits)."
                if m.logits
                else "the embedding, the final norm, the logits and the loss are outside the layers and not counted."
            )
        ),
        rich(
            "DualPipe keeps pp + 1 micro-batches' chunks in flight on a device, against 1F1B's pp (DeepSeek-V3 Technical "
            "Report, Table 2), each through one of its stages (L_chunk layers, the mean of its two)."
            if p.schedule == "dualpipe"
            else "The 1F1B pipeline schedule keeps pp − i micro-batches in flight on stage i (counted from 0), each through "
            "its L_i layers."
            if a.params.stage is not None
            else "The 1F1B pipeline schedule keeps pp micro-batches in flight on the first stage, each through L/pp layers."
            if p.pp > 1
            else "Micro-batches run one after another (gradient accumulation): one is in flight."
        ),
    ]
    notes += [
        rich(text)
        for shown, text in (
            (
                m.logits,
                "M_logits: the last stage keeps one micro-batch's logits for the loss's backward, S/cp·b tokens of V/tp "
                "bf16 values (counted with --count-logits).",
            ),
            (
                p.cp > 1,
                f"Context parallelism splits the sequence over cp = {p.cp} ranks: each keeps S/cp tokens (its queries against "
                "all S keys), so every term is 1/cp of the whole sequence's.",
            ),
            (
                m.interleave != 1,
                f"Interleaved 1F1B with v = {p.virtual_stages} model chunks per stage keeps 1 + (pp − 1)/(pp·v) times as "
                "much in flight (Korthikanti et al. §4.2.3).",
            ),
            (
                p.recompute is Recompute.FULL,
                "While a layer is recomputed its own full activations exist for a moment too; that one layer is not counted.",
            ),
        )
        if shown
    ]
    return Step(
        StepKind.ACTIVATIONS,
        "activations per layer and micro-batch, summed over the tensors the backward pass reads",
        rich(reason),
        lines,
        notes=tuple(notes),
        table=tuple(table),
        title="Activations",
        topic=q.ACTIVATIONS.name,
    )


def fit_step(a: TrainingAnalysis) -> Step:
    p, m = a.problem, a.memory
    lines = [
        gb_line(
            r"M_{\text{dev}}",
            r"M_{W} + M_{G} + M_{O} + M_{A}",
            " + ".join(tex(v) for v in (m.weights, m.grads, m.optimizer, m.activations)),
            value=m.total,
        )
    ]
    notes: list[Rich] = []
    if p.capacity is not None and a.headroom is not None:
        lines.append(
            gb_line(
                r"H",
                r"C - M_{\text{dev}}",
                rf"{tex(p.capacity)} - {tex(m.total)}",
                value=a.headroom,
            )
        )
        notes.append(rich("It fits." if a.fits else "It does not fit."))
        notes.append(
            rich(f"The smallest dp that fits at this ZeRO stage, tp and pp: {a.smallest_dp}.")
            if a.smallest_dp is not None
            else rich(f"No dp fits at this ZeRO stage: {a.no_dp_reason}.")
        )
        notes.append(
            rich(f"The smallest ZeRO stage that fits at dp = {p.dp}: {int(a.smallest_zero)}.")
            if a.smallest_zero is not None
            else rich(f"No ZeRO stage fits at dp = {p.dp}.")
        )
    return Step(
        StepKind.MEMORY,
        "M_dev = weights + gradients + optimizer state + activations; it fits when M_dev ≤ C",
        rich(
            "Framework buffers, the collectives' staging memory and fragmentation are not counted."
        ),
        tuple(lines),
        notes=tuple(notes),
        title="Memory per device and fit",
        topic=q.FIT.name,
    )
