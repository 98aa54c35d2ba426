"""Memory per device of a training run: parameters held, the state's three parts, activations.

Parameters per device (before ZeRO). TP (Megatron) splits every block's attention and MLP
matrices (with their biases) over ``tp``; each block's norms are replicated. PP gives each
stage ``L/pp`` blocks. The token embedding sits on the first stage and the output head and
final norm on the last, both split over ``tp`` by vocabulary (a learned position table is
replicated); with ``pp = 1`` one stage holds all of them, with ``pp > 1`` the heavier end
stage is counted (a tied head keeps its copy of the embedding on the last stage). A MoE's
expert matrices are split over ``tp · ep``; its router is replicated like the norms.

ZeRO shards, over the DP group (``dp``; ``dp/ep`` for expert weights), the optimizer state
(stage 1), the gradients too (2) and the weights too (3, FSDP).

Activations of one micro-batch and one layer follow Korthikanti et al. (2022), "Reducing
Activation Recomputation in Large Transformer Models", §4.1, term by term for the model's
own layer (width ``d``, ``h`` query and ``h_kv`` KV heads of ``d_h``, MLP width ``f``, gated
or plain, ``k`` experts per token), bf16 (2 bytes), masks 1 byte: :data:`TERMS`. With GPT's
choices (``f = 4d``, plain MLP, MHA, dropout) they sum to the paper's
``S·b·d·(10 + 24/t + 5·h·S/(d·t))``; with sequence parallelism the replicated terms are split
over the TP group too (``S·b·d·(34/t + 5·h·S/(d·t))``). The 1F1B pipeline schedule keeps ``pp`` micro-batches in
flight on the first stage, each of ``L/pp`` layers: ``L`` layers' worth in all. DualPipe
(``--schedule dualpipe``) gives device i stages i and pp − 1 − i, twice the blocks (and both
ends on devices 0 and pp − 1), and keeps pp + 1 chunks in flight (DeepSeek-V3's Table 2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import sympy as sp

from derive.catalogue import table as q
from derive.model.transformer import Mlp, Norm
from derive.training.binding import Recompute, TrainingProblem

ACTIVATION_BYTES = sp.Integer(2)  # bf16
MASK_BYTES = sp.Integer(1)


class Where(Enum):
    """How an activation tensor sits on a TP group."""

    REPLICATED = "replicated on every TP rank"
    SPLIT = "split over the TP group"


@dataclass(frozen=True)
class ActivationTerm:
    """One tensor the backward pass reads, per layer and micro-batch.

    ``per_token`` is its elements per token (S·b tokens) before the TP split, as a tuple of
    the notation's keys and a factor; ``core`` marks the attention core's S² tensors (dropped
    by selective recomputation); ``dropout`` the terms only a model with dropout has.
    """

    name: str
    paper: str
    width: sp.Integer
    where: Where
    core: bool = False
    dropout: bool = False


# Korthikanti et al. (2022) §4.1, in the paper's order; ``paper`` is its term for GPT.
TERMS: tuple[ActivationTerm, ...] = (
    ActivationTerm("attention norm input", "2sbh", ACTIVATION_BYTES, Where.REPLICATED),
    ActivationTerm("QKV projection input", "2sbh", ACTIVATION_BYTES, Where.REPLICATED),
    ActivationTerm("Q and K (for the scores)", "4sbh", ACTIVATION_BYTES, Where.SPLIT),
    ActivationTerm("softmax output", "2as²b", ACTIVATION_BYTES, Where.SPLIT, core=True),
    ActivationTerm(
        "softmax dropout mask", "as²b", MASK_BYTES, Where.SPLIT, core=True, dropout=True
    ),
    ActivationTerm(
        "softmax dropout output", "2as²b", ACTIVATION_BYTES, Where.SPLIT, core=True, dropout=True
    ),
    ActivationTerm("V", "2sbh", ACTIVATION_BYTES, Where.SPLIT),
    ActivationTerm("output projection input", "2sbh", ACTIVATION_BYTES, Where.SPLIT),
    ActivationTerm("attention dropout mask", "sbh", MASK_BYTES, Where.REPLICATED, dropout=True),
    ActivationTerm("MLP norm input", "2sbh", ACTIVATION_BYTES, Where.REPLICATED),
    ActivationTerm("MLP input", "2sbh", ACTIVATION_BYTES, Where.REPLICATED),
    ActivationTerm("MLP hidden tensors", "16sbh", ACTIVATION_BYTES, Where.SPLIT),
    ActivationTerm("MLP dropout mask", "sbh", MASK_BYTES, Where.REPLICATED, dropout=True),
)


def _elements_per_token(p: TrainingProblem) -> dict[str, sp.Expr]:
    """Elements per token of each term for this model, by name (the attention core's scale
    with S; a term not named has d)."""
    d, h, kv, dh, f = (p.arch(k) for k in ("d_model", "heads", "kv_heads", "head_dim", "d_ff"))
    kv = kv or h  # latent attention expands its latent into keys and values for every head
    model = p.transformer
    assert model is not None  # terms are only counted for a model with an architecture
    hidden = (4 if model.mlp_kind is Mlp.GATED else 2) * f  # gate, up, act(gate), product | in, out
    if model.is_moe:
        hidden = hidden * p.arch("top_k")  # each token's k experts keep theirs
    table = {
        "Q and K (for the scores)": (h + kv) * dh,
        "softmax output": h * p.seq,
        "softmax dropout mask": h * p.seq,
        "softmax dropout output": h * p.seq,
        "V": kv * dh,
        "output projection input": h * dh,
        "MLP hidden tensors": hidden,
    }
    return {term.name: table.get(term.name, d) for term in TERMS}


def activation_terms(p: TrainingProblem) -> tuple[tuple[ActivationTerm, sp.Expr], ...]:
    """The terms this run keeps, each with its bytes per layer and micro-batch on one device."""
    if p.transformer is None:  # a model known by its size alone: no width, no layers
        return ()
    tp = sp.Integer(p.tp)
    if p.recompute is Recompute.FULL:
        where = Where.SPLIT if p.sequence_parallel else Where.REPLICATED
        kept = p.checkpoint_tensors or 1
        name = "layer input (full recomputation)"
        if p.checkpoint_tensors is not None:
            name = f"{kept} checkpointed tensor(s) (tensors={kept})"
        full = ActivationTerm(name, f"{2 * kept}sbh", ACTIVATION_BYTES, where)
        share = (tp if p.sequence_parallel else sp.Integer(1)) * p.cp
        per = ACTIVATION_BYTES * p.seq * p.micro_batch * p.arch("d_model") / share
        return ((full, kept * per),)
    if p.convention == "scaling-book":
        return (_book_term(p),)
    if p.convention == "megatron" and p.recompute is Recompute.SELECTIVE:
        return (_megatron_layer(p),)
    out = []
    elements = _elements_per_token(p)
    for term in TERMS:
        if term.dropout and not p.dropout:
            continue
        if term.core and p.recompute is Recompute.SELECTIVE:
            continue
        split = tp if term.where is Where.SPLIT or p.sequence_parallel else sp.Integer(1)
        split *= p.cp  # context parallelism: S/cp tokens per rank (queries against all S keys)
        out.append((term, term.width * p.seq * p.micro_batch * elements[term.name] / split))
    return tuple(out)


BOOK_NODES = {"none": 20, "selective": 7}
"""The Scaling Book's activation count per layer (Austin et al., "How to Scale Your Model",
Transformer math, "Gradient checkpointing"): about 20 saved intermediate nodes of B·T·D per
layer without remat, about 7 when only the big matmuls' outputs are saved (derive's
``selective``); block remat (``full``) keeps the layer input, as derive's own count does."""


def _megatron_layer(p: TrainingProblem) -> tuple[ActivationTerm, sp.Expr]:
    """``--convention megatron``, selective recomputation: Megatron-LM's per-layer bytes as
    megatron/training/theoretical_memory_usage.py writes them (Korthikanti et al.'s Table 2,
    GPT's shapes): with sequence parallelism s·b·h·(18 + 4·f/h)/t (compute_activation_memory),
    else s·b·h·(10 + 24/t) (compute_activation_memory_without_sp). Left out, as there: GQA's
    smaller K and V (every head's counted), a gated MLP's third f-wide tensor, a MoE token's
    k experts (one MLP of ffn_hidden_size), the width f without sequence parallelism (GPT's 4h),
    and a model without dropout (its masks counted); CP splits s as in :func:`megatron_ends`."""
    s, h, f = p.seq / p.cp * p.micro_batch, p.arch("d_model"), p.arch("d_ff")
    if p.sequence_parallel:
        term = ActivationTerm("Megatron-LM's layer", "(18 + 4f/h)sbh/t", sp.Integer(1), Where.SPLIT)
        return term, s * h * (18 + 4 * f / h) / p.tp
    term = ActivationTerm("Megatron-LM's layer", "(10 + 24/t)sbh", sp.Integer(1), Where.SPLIT)
    return term, s * h * (10 + sp.Rational(24, p.tp))


def _book_term(p: TrainingProblem) -> tuple[ActivationTerm, sp.Expr]:
    """``--convention scaling-book``: k·(2 bytes)·S·b·d per layer and micro-batch (k = 20, or
    7 with selective recomputation), over the ranks that split the tokens and the width
    (tp · cp): the book counts nodes, not tensors, so no per-term split is kept."""
    assert p.recompute is not Recompute.FULL
    nodes = BOOK_NODES[p.recompute.value]
    name = f"the Scaling Book's {nodes} nodes of B·T·D per layer"
    term = ActivationTerm(name, f"{2 * nodes}sbh", ACTIVATION_BYTES, Where.SPLIT)
    width = ACTIVATION_BYTES * nodes * p.seq * p.micro_batch * p.arch("d_model")
    return term, width / (sp.Integer(p.tp) * p.cp)


@dataclass(frozen=True)
class ParamsPerDevice:
    """Parameters one device holds before ZeRO: the blocks of its stage and the globals.

    Attributes:
        layers: L/pp blocks per stage.
        block_split: one block's parameters split over TP (attention and dense MLP), per device.
        block_replicated: one block's norms (and a MoE router), on every TP rank.
        block_experts: one block's expert matrices per device, split over tp · ep.
        ends: the globals on the heaviest stage (embedding, positions, head, final norm).
        dense: parameters sharded by ZeRO over dp; experts: over dp/ep.
    """

    layers: sp.Rational
    block_split: sp.Rational
    block_replicated: sp.Rational
    block_experts: sp.Rational
    ends: sp.Rational
    dense: sp.Rational
    experts: sp.Rational
    stage: int | None = None  # the stage counted when the stages differ (None: equal stages)
    copies: int = 1  # stages a device holds: 2 under DualPipe (i and pp − 1 − i), L/pp·2 blocks

    @property
    def total(self) -> sp.Rational:
        """Every parameter on the device."""
        return self.dense + self.experts


def _routed_experts(p: TrainingProblem) -> tuple[sp.Expr, sp.Expr]:
    """(one block's routed expert matrices, its router): the experts a token may be sent to.

    One expert is (P_mlp − P_mlp,act)/(E − k): the stored MLP less the one a token uses, over
    the experts it does not use (shared experts and the router are in both and cancel).
    """
    if not p.is_moe:
        return sp.Integer(0), sp.Integer(0)
    experts, top_k = p.arch("experts"), p.arch("top_k")
    router = p.arch("d_model") * experts
    mlp, active = p.arch("P_mlp"), p.arch("P_mlp_active")
    one = (mlp - active) / (experts - top_k) if experts != top_k else (mlp - router) / experts
    return experts * one, router


def params_per_device(p: TrainingProblem, stage: int | None = None) -> ParamsPerDevice:
    """The parameters one device holds, by the placement the module docstring states.

    The blocks are counted from the model's total (its parameters less the globals), so
    blocks that differ (dense first layers) are spread evenly over the stages. Unequal
    stages count ``stage`` (by default the one whose memory is the largest:
    :func:`heaviest_stage`) with its own layers and ends.
    """
    if stage is None and p.stage_layers:  # given only when the stages differ
        stage = heaviest_stage(p)
    tp, pp = sp.Integer(p.tp), sp.Integer(p.pp)
    model = p.transformer
    if model is None:  # known by its size alone: every parameter on the device (dp only)
        total, zero = p.arch(q.PARAMS.name), sp.Integer(0)
        return ParamsPerDevice(zero, zero, zero, zero, total, total, zero)
    embed, pos, head, final = (p.arch(k) for k in ("P_embed", "P_pos", "P_head", "P_final"))
    layers = p.arch("layers")
    expert_layers = layers - p.arch("dense_layers")
    routed, router = _routed_experts(p)
    blocks = p.arch(q.PARAMS.name) - (embed + pos + head + final)
    experts_total = expert_layers * routed
    replicated_total = layers * p.arch("P_norm") + expert_layers * router
    split_total = blocks - experts_total - replicated_total
    block_split = split_total / (layers * tp)
    copies = 2 if p.schedule == "dualpipe" else 1  # device i: stages i and pp − 1 − i
    even = p.convention == "scaling-book" and copies == 1  # the book splits all tp·pp ways
    block_replicated = replicated_total / (layers * (tp if even else 1))
    block_experts = experts_total / (layers * tp * p.ep)
    first = embed / tp + pos
    last = head / tp + final + (embed / tp if model.tied_embeddings else 0)
    both = first + head / tp + final  # one device holding both ends (pp = 1, DualPipe's ends)
    ends = both if p.pp == 1 or copies == 2 else max(first, last)  # exact numbers
    ends = (embed + pos + head + final) / (tp * pp) if even else ends
    per_stage = layers / pp
    if stage is not None and copies == 2:  # a chunk: the mean of the device's two stages
        ends = both if stage == 0 else sp.Integer(0)
        per_stage = sp.Rational(p.stage_layers[stage] + p.stage_layers[p.pp - 1 - stage], 2)
    elif stage is not None:
        ends = (first, sp.Integer(0), last)[min(stage, 1) + (stage == p.pp - 1)]
        per_stage = sp.Integer(p.stage_layers[stage])
    return ParamsPerDevice(
        layers=per_stage,
        block_split=block_split,
        block_replicated=block_replicated,
        block_experts=block_experts,
        ends=ends,
        dense=copies * per_stage * (block_split + block_replicated) + ends,
        experts=copies * per_stage * block_experts,
        stage=stage,
        copies=copies,
    )


def heaviest_stage(p: TrainingProblem) -> int:
    """The stage whose memory per device is the largest (the first of equals): its parameters
    and the micro-batches it keeps in flight (1F1B: pp − i on stage i)."""
    devices = range(p.pp // 2 if p.schedule == "dualpipe" else p.pp)  # DualPipe's mirror
    totals = [memory_of(p, params_per_device(p, i)).total for i in devices]
    return max(devices, key=lambda i: (totals[i], -i))


@dataclass(frozen=True)
class Memory:
    """Bytes per device: the state's three parts, activations, their total."""

    weights: sp.Rational
    grads: sp.Rational
    optimizer: sp.Rational
    activations: sp.Rational
    activations_per_layer: sp.Rational
    in_flight: sp.Integer
    activations_counted: bool = True  # False for a model known by its size alone
    interleave: sp.Rational = sp.S.One  # interleaved 1F1B keeps 1 + (pp − 1)/(pp·v) as much
    logits: sp.Rational = sp.S.Zero  # the logits the loss keeps, when counted (in activations)
    ends: sp.Rational = sp.S.Zero  # Megatron-LM's embedding and output-layer terms (megatron)
    overhead: sp.Rational = sp.S.One  # Megatron-LM's 5% temporaries without SP (megatron)
    megatron: MegatronCount | None = None  # the parameters the state counts (megatron)

    @property
    def total(self) -> sp.Rational:
        """weights + grads + optimizer + activations."""
        return self.weights + self.grads + self.optimizer + self.activations


def shrinks_with_dp(part: str, p: TrainingProblem) -> bool:
    """Whether a state part is sharded over the DP group, so that a larger dp holds less of it:
    the ZeRO stage shards it, and neither ZeRO-3's kept gathered weights and gradients nor
    DeepSpeed's ZeRO-3 gradients (one gathered layer's) hold it whole."""
    if part not in p.zero.shards or (p.keep_gathered and part in ("weights", "grads")):
        return False
    return not (p.convention == "deepspeed" and part == "grads" and p.zero == 3)


def _sharded(part: str, p: TrainingProblem, params: ParamsPerDevice) -> sp.Rational:
    """Parameters' worth of one state part on a device: the sharded part over its DP group
    (dp · cp; dp/ep · cp for expert weights), else the whole part."""
    if shrinks_with_dp(part, p):
        return params.dense / (p.dp * p.cp) + params.experts / sp.Rational(p.dp * p.cp, p.ep)
    if p.convention == "deepspeed" and part == "grads" and p.zero == 3:
        return largest_layer(p) * 2  # one layer's bf16 weights and gradients (4 B), no 2P/N
    return params.total


def largest_layer(p: TrainingProblem) -> sp.Expr:
    """DeepSpeed's ``largest_layer_params`` (its ``model_to_params``: the most parameters one
    module holds itself) on one device: the token embedding, the head, an MLP matrix (d·f) or
    the query projection (d·h·d_h), over the TP group; a model known by its size alone has no
    layer, so 0."""
    if p.transformer is None:
        return sp.Integer(0)
    d = p.arch("d_model")
    mats = (
        p.arch("P_embed"),
        p.arch("P_head"),
        d * p.arch("d_ff"),
        d * p.arch("heads") * p.arch("head_dim"),
    )
    return max(mats) / p.tp  # exact numbers: the comparison is exact


def memory_of(
    p: TrainingProblem,
    params: ParamsPerDevice,
    terms: tuple[tuple[ActivationTerm, sp.Expr], ...] | None = None,
) -> Memory:
    """Memory per device: weights, gradients, optimizer state and the activations in flight
    (``terms``: the run's :func:`activation_terms`, when the caller has them)."""
    per_layer = sp.Add(*(b for _, b in (activation_terms(p) if terms is None else terms)))
    flight = (
        p.pp + 1 if p.schedule == "dualpipe" else p.pp - (params.stage or 0)
    )  # Table 2's PP + 1
    in_flight = sp.Integer(min(flight, int(p.microbatches)))
    v = p.virtual_stages
    interleave = 1 + sp.Rational(p.pp - 1, p.pp * v) if v > 1 else sp.Integer(1)
    st = p.state
    last = (None, p.pp - 1) if params.copies == 1 else (None, 0)  # DualPipe's device 0 holds it
    logits = logits_bytes(p) if params.stage in last else sp.Integer(0)
    ends, overhead = megatron_ends(p, params)
    layers = in_flight * params.layers * per_layer * interleave
    megatron = _megatron_count(p, params)
    if megatron is not None:  # Megatron-LM's count, every parameter sharded over dp alike
        params = replace(params, dense=megatron.held, experts=sp.Integer(0))
    return Memory(
        weights=st.weights * _sharded("weights", p, params),
        grads=st.grads * _sharded("grads", p, params),
        optimizer=st.optimizer * _sharded("optimizer", p, params),
        activations=(layers + ends) * overhead + logits,
        activations_per_layer=per_layer,
        in_flight=in_flight,
        activations_counted=p.transformer is not None,
        interleave=interleave,
        logits=logits,
        ends=ends,
        overhead=overhead,
        megatron=megatron,
    )


def megatron_ends(p: TrainingProblem, params: ParamsPerDevice) -> tuple[sp.Rational, sp.Rational]:
    """Megatron-LM's whole-model activation terms beyond the layers (``--convention megatron``;
    (0, 1) otherwise): megatron/training/theoretical_memory_usage.py, which counts the first
    stage. With sequence parallelism and selective recomputation (compute_activation_memory):
    the input ids 8·s·b·pp, the embedding's dropout s·b·h·pp (both scaled like the layers by
    the schedule: (1 + (pp − 1)/(pp·v)) interleaved, min(1, M/pp) otherwise) and, with pp = 1,
    the output layer and the loss 4·s·b·h·(1 + V/h), all over tp (V padded to a multiple of
    128·tp, as Megatron-LM pads it). Otherwise
    (compute_activation_memory_without_sp): the same embedding terms, not split, and with
    pp = 1 the logits 2·(s·b·V/tp + s·b·h); the whole total then times 1.05 (temporaries).
    Returns (bytes added to the layers' activations, the factor on their sum)."""
    if p.convention != "megatron" or p.transformer is None:
        return sp.Integer(0), sp.Integer(1)
    s, b, pp = p.seq / p.cp, p.micro_batch, p.pp
    h, vocab = p.arch("d_model"), megatron_vocab(p)
    if p.virtual_stages > 1:
        schedule = 1 + sp.Rational(pp - 1, pp * p.virtual_stages)
    else:
        schedule = sp.Min(1, sp.Rational(p.microbatches, pp))
    embedding = (8 * s * b * pp + s * b * h * pp) * schedule if params.stage in (None, 0) else 0
    with_sp = p.sequence_parallel and p.recompute is Recompute.SELECTIVE
    if with_sp:
        head = 4 * s * b * h * (1 + vocab / h) if pp == 1 else 0
        return (embedding + head) / p.tp, sp.Integer(1)
    head = 2 * (s * b * vocab / p.tp + s * b * h) if pp == 1 else 0
    return embedding + head, sp.Rational(21, 20)


def megatron_vocab(p: TrainingProblem) -> sp.Integer:
    """Megatron-LM's padded_vocab_size: V up to a multiple of 128·tp (_vocab_size_with_padding)."""
    return sp.ceiling(p.arch("vocab") / (128 * p.tp)) * 128 * p.tp


@dataclass(frozen=True)
class MegatronCount:
    """compute_weight_and_optimizer_memory's parameters (``--convention megatron``): its
    transformer block (layers and final norm), padded vocabulary, most loaded shard, and in
    words what it counts otherwise than derive, each with its size."""

    block: sp.Rational
    vocab: sp.Integer
    output: sp.Rational  # the untied output layer's h·V/tp with pp = 1, else 0
    held: sp.Rational
    note: str


def _megatron_count(p: TrainingProblem, params: ParamsPerDevice) -> MegatronCount | None:
    """Megatron-LM's most loaded shard (megatron/training/theoretical_memory_usage.py):
    (block/pp + h·V)/tp, plus the output layer's h·V/tp untied with pp = 1. A layer is
    2h·(f·(3/2 gated) + norm) + attention, 2h²·(1 + g/a)·(q/h) (or latent attention's
    terms); a MoE layer's f is every expert's and the shared experts' width; the norm is h
    with RMSNorm, else 2h; V is padded (:func:`megatron_vocab`). It leaves out biases, routers,
    position tables and q/k norms, and splits the norms and experts over tp alone. None for
    another convention or a model known by its size alone (the formula needs the layers)."""
    model, a = p.transformer, p.arch
    if p.convention != "megatron" or model is None:
        return None
    h, heads, layers, tp = a("d_model"), a("heads"), a("layers"), p.tp
    norm = 1 if model.norm_kind is Norm.RMS else 2
    gated = sp.Rational(3, 2) if model.mlp_kind is Mlp.GATED else 1
    if model.is_mla:
        nope, rope, v_dim = a("qk_nope_head_dim"), a("qk_rope_head_dim"), a("v_head_dim")
        rank = a("q_lora_rank")
        query = rank * (h + heads * (nope + rope) + norm) if rank else h * heads * (nope + rope)
        kv = a("kv_lora_rank") * (h + heads * (nope + v_dim) + norm) + h * rope
        attention = query + kv + heads * v_dim * h
    else:
        attention = 2 * h * h * (1 + a("kv_heads") / heads) * heads * a("head_dim") / h
    moe = layers - a("dense_layers") if model.is_moe else 0
    shared = a("d_ff_shared") or a("shared_experts") * a("d_ff")
    widths = (
        (layers - moe, a("d_ff_dense") or a("d_ff")),
        (moe, a("experts") * a("d_ff") + shared),
    )
    block = sum(n * (2 * h * (f * gated + norm) + attention) for n, f in widths) + norm * h  # fmt: skip
    vocab, ties = megatron_vocab(p), 1 if model.tied_embeddings else 2
    output = h * vocab / tp if ties == 2 and p.pp == 1 else sp.Integer(0)
    held = (block / p.pp + h * vocab) / tp + output
    routers, pos = moe * _routed_experts(p)[1], a("P_pos")
    rest = a(q.PARAMS.name) - pos - routers - block - ties * h * a("vocab")
    said = [f"pads the vocabulary {a('vocab')} to {vocab} (+{_count(ties * h * (vocab - a('vocab')))} parameters)"]  # fmt: skip
    said += [f"leaves out the routers' {_count(routers)} weights"] if routers else []
    said += [f"leaves out the position table's {_count(pos)}"] if pos else []
    said += [f"leaves out {_count(rest)} more (biases, q/k and extra norms)"] if rest > 0 else []
    said += [f"counts {_count(-rest)} more (norms it takes for LayerNorm)"] if rest < 0 else []
    said += ["splits the norms over tp"] * (tp > 1) + [
        f"splits the experts over tp alone (ep = {p.ep} ignored)"
    ] * (p.ep > 1)
    said += ["counts the first stage's block/pp and embedding (the final norm in the block)"] * (p.pp > 1)  # fmt: skip
    change, sign = held - params.total, "−" if held < params.total else "+"
    note = (f"Megatron-LM's formula {'; '.join(said)}: {_count(held)} parameters on the device, "
            f"{sign}{_count(abs(change))} ({sign}{float(abs(change) / params.total):.3%}) on derive's count")  # fmt: skip
    return MegatronCount(block, vocab, output, held, note)


def _count(x: sp.Expr) -> str:
    """A count in words: 1,048,576 (a fraction to two places)."""
    return f"{int(x):,}" if x.is_integer else f"{float(x):,.2f}"


def logits_bytes(p: TrainingProblem) -> sp.Rational:
    """One micro-batch's logits on the last stage, kept for the loss's backward: S/cp·b
    tokens of V/tp bf16 values (0 unless counted: ``--count-logits``)."""
    if not p.count_logits or p.transformer is None:
        return sp.Integer(0)
    return ACTIVATION_BYTES * p.seq / p.cp * p.micro_batch * p.arch("vocab") / p.tp
