"""A model expanded into kernels, each with its tensors tagged by role.

The expansion is the model as a list of the operators derive already knows
(projections as matmuls, attention, norms, the embedding lookup), with shapes in
the model's own sizes (numbers, or the user's dims) and three roles:

- ``weight``: stored once, counted in the parameters;
- ``kv_cache``: the keys and values of ``S`` positions for ``B`` sequences;
- ``activation``: made and consumed per step, for ``T`` tokens in flight.

Kernels inside a block are repeated ``layers`` times (``per_layer``). The
parameter count of the worked solution is derived from per-block formulas; the
tests check it equals the plain sum over the weight tensors here. The step-time
derivation (decode, prefill) builds on these kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.declare.operator import dims
from derive.model.symbols import batch, context
from derive.model.transformer import Mlp, Norm, Transformer

(tokens,) = dims("T")


class Role(str, Enum):
    """What a tensor is, and the ``--dtype ROLE=…`` flag that sets its width."""

    WEIGHT = "weight"
    KV_CACHE = "kv_cache"
    ACTIVATION = "activation"

    @property
    def flag(self) -> str:
        """The key of ``--dtype KEY=DTYPE`` for this role."""
        return {"weight": "weights", "kv_cache": "kv", "activation": "activations"}[self.value]


class Block(str, Enum):
    """Where a kernel sits: a block's attention, MLP or norms, or the model's globals."""

    ATTENTION = "attention"
    MLP = "mlp"
    MLP_DENSE = "mlp_dense"  # the dense MLP of a MoE model's dense layers
    NORMS = "norms"
    GLOBALS = "globals"


class KernelOp(str, Enum):
    """What a kernel computes (the derive operator it corresponds to)."""

    MATMUL = "matmul"  # a projection: activations × a weight matrix
    MOE_MATMUL = "moe_matmul"  # the same for each token's top-k of E experts
    ATTENTION = "attention"  # scores and values over S positions of KV cache
    LAYERNORM = "layernorm"
    RMSNORM = "rmsnorm"
    EMBEDDING = "embedding"  # a table lookup: read, not multiplied


@dataclass(frozen=True)
class ModelTensor:
    """A tensor of the model: name, shape, role, and the elements one token uses.

    ``active`` differs from the element count only for expert weights: a token
    uses ``top_k`` of the ``experts`` copies.
    """

    name: str
    shape: tuple[sp.Expr, ...]
    role: Role
    active: sp.Expr

    @property
    def elements(self) -> sp.Expr:
        """The product of the shape."""
        return sp.Mul(*self.shape)


@dataclass(frozen=True)
class Kernel:
    """One operator of the model: what it is, where it sits, what it reads and writes.

    ``flops`` counts the forward FLOPs for ``T`` tokens at context ``S`` by the
    convention of the worked solution: 2 per weight element a token uses in a matmul (a
    multiply-accumulate; a bias counted alike), 4·h·d_h·S per token for attention's scores
    and values, 0 for the lookup; norms, softmax and other elementwise work are not counted.
    """

    name: str
    operator: KernelOp
    block: Block
    per_layer: bool
    reads: tuple[ModelTensor, ...]
    writes: tuple[ModelTensor, ...]
    flops: sp.Expr
    # for a kernel in only some blocks (windowed attention, a dense or a MoE MLP): how many
    layer_count: sp.Expr | None = None

    def copies(self, model: Transformer) -> sp.Expr:
        """How many times the kernel runs in a forward pass: its layers, or once (the globals)."""
        if self.layer_count is not None:
            return self.layer_count
        return model.layers if self.per_layer else sp.Integer(1)


@dataclass(frozen=True)
class Expansion:
    """A model's kernels in execution order (one block's kernels stand for all ``layers``)."""

    model: Transformer
    kernels: tuple[Kernel, ...]

    def weights(self) -> tuple[tuple[ModelTensor, sp.Expr], ...]:
        """Distinct weight tensors with their copies (layers), in order (a tied head reads the embedding)."""
        return self.tensors(Role.WEIGHT)

    def tensors(self, role: Role) -> tuple[tuple[ModelTensor, sp.Expr], ...]:
        """Distinct tensors of a role with their copies (the layers that hold one), in order."""
        seen: dict[str, tuple[ModelTensor, sp.Expr]] = {}
        for k in self.kernels:
            for t in k.reads + k.writes:
                if t.role is role:
                    seen.setdefault(t.name, (t, k.copies(self.model)))
        return tuple(seen.values())


def _w(name: str, *shape: sp.Expr, active: sp.Expr | None = None) -> ModelTensor:
    elements = sp.Mul(*shape)
    return ModelTensor(name, tuple(shape), Role.WEIGHT, elements if active is None else active)


def _a(name: str, *shape: sp.Expr) -> ModelTensor:
    return ModelTensor(name, (tokens, *shape), Role.ACTIVATION, sp.Mul(tokens, *shape))


def _weight_flops(reads: tuple[ModelTensor, ...] | list[ModelTensor]) -> sp.Expr:
    """2 FLOPs per weight element a token uses, for ``T`` tokens."""
    return 2 * tokens * sp.Add(*(t.active for t in reads if t.role is Role.WEIGHT))


def _linear(
    m: Transformer,
    name: str,
    block: Block,
    dims: tuple[sp.Expr, sp.Expr],
    flow: tuple[str, str],
    bias: str | None = None,
    layer_count: sp.Expr | None = None,
) -> Kernel:
    """A projection ``dims`` = (d_in, d_out) from activation ``flow[0]`` to ``flow[1]``;
    ``bias`` names the projection kind that decides its bias (:meth:`Transformer.biased`)."""
    d_in, d_out = dims
    reads = [_a(flow[0], d_in), _w(f"W_{name}", d_in, d_out)]
    if bias is not None and m.biased(bias):
        reads.append(_w(f"b_{name}", d_out))
    return _matmul(name, block, reads, _a(flow[1], d_out), layer_count)


def _matmul(
    name: str,
    block: Block,
    reads: tuple[ModelTensor, ...] | list[ModelTensor],
    out: ModelTensor,
    count: sp.Expr | None,
    op: KernelOp = KernelOp.MATMUL,
) -> Kernel:
    """A matmul of the weights it reads into ``out`` (2 FLOPs per weight element a token uses)."""
    return Kernel(name, op, block, True, tuple(reads), (out,), _weight_flops(reads), count)


def _norm(
    m: Transformer, name: str, block: Block, per_layer: bool, width: sp.Expr, rows: sp.Expr = 1
) -> tuple[Kernel, ...]:
    """A norm of ``width`` applied to ``rows`` vectors per token (a q/k norm: one per head)."""
    if m.norm_kind is Norm.NONE:
        return ()
    weights = [_w(f"gamma_{name}", width)]
    if m.norm_kind is Norm.LAYERNORM:
        weights.append(_w(f"beta_{name}", width))
    op = KernelOp.LAYERNORM if m.norm_kind is Norm.LAYERNORM else KernelOp.RMSNORM
    x = _a(f"x_{name}", rows * width)
    out = (_a(f"y_{name}", rows * width),)
    # elementwise: its scale (and shift) are not multiplied like a matmul's weights
    return (Kernel(name, op, block, per_layer, (x, *weights), out, sp.Integer(0)),)


def _attention_core(m: Transformer, width: sp.Expr, out: sp.Expr, cache: tuple) -> list[Kernel]:
    """Attention over the cache: full layers over S, windowed layers over min(S, window)."""
    at = Block.ATTENTION
    per_position = m.pair_flops()  # latent attention absorbed (over the cached latent)
    groups = [("attention", context, None)]
    if m.window is not None:
        full = m.layers - m.windowed_layers
        groups = [
            ("attention", context, full),
            ("attention_window", sp.Min(context, m.window), m.windowed_layers),
        ]
    kernels = []
    for name, positions, count in groups:
        suffix = "" if name == "attention" else "_window"
        tensors = tuple(
            ModelTensor(
                t + suffix,
                (batch, positions, *shape),
                Role.KV_CACHE,
                batch * positions * sp.Mul(*shape),
            )
            for t, shape in cache
        )
        kernels.append(
            Kernel(
                name,
                KernelOp.ATTENTION,
                at,
                True,
                (_a("q", width), *tensors),
                (_a("attn_out", out),),
                per_position * tokens * positions,
                count,
            )
        )
    return kernels


def _attention(m: Transformer) -> tuple[Kernel, ...]:
    if m.is_mla:
        return _latent_attention(m)
    d, h, kv, dh = m.d_model, m.heads, m.kv_heads, m.head_dim
    at, x = Block.ATTENTION, "y_attn_norm"
    kernels = [
        _linear(m, "q", at, (d, h * dh), (x, "q"), "q"),
        _linear(m, "k", at, (d, kv * dh), (x, "k_new"), "k"),
        _linear(m, "v", at, (d, kv * dh), (x, "v_new"), "v"),
    ]
    if m.qk_norm and m.qk_norm_full:
        kernels += _norm(m, "q_norm", Block.NORMS, True, h * dh)
        kernels += _norm(m, "k_norm", Block.NORMS, True, kv * dh)
    elif m.qk_norm:
        kernels += _norm(m, "q_norm", Block.NORMS, True, dh, h)
        kernels += _norm(m, "k_norm", Block.NORMS, True, dh, kv)
    cache = (("K_cache", (kv, dh)), ("V_cache", (kv, dh)))
    kernels += _attention_core(m, h * dh, h * dh, cache)
    kernels.append(_linear(m, "o", at, (h * dh, d), ("attn_out", "attn_res"), "o"))
    return tuple(kernels)


def _latent_attention(m: Transformer) -> tuple[Kernel, ...]:
    """MLA: q (through r_q), the latent and rope key (kv_a), kv_b per head, attention over the
    cached latent (absorbed form), o."""
    d, h = m.d_model, m.heads
    r_kv, rope, nope, dv = m.kv_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim
    at, x = Block.ATTENTION, "y_attn_norm"
    q_width = h * (nope + rope)
    kernels: list[Kernel] = []
    if m.q_lora_rank is None:
        kernels.append(_linear(m, "q", at, (d, q_width), (x, "q"), None))
    else:
        kernels.append(_linear(m, "q_a", at, (d, m.q_lora_rank), (x, "q_latent"), "q_a"))
        kernels += _norm(m, "q_a_norm", Block.NORMS, True, m.q_lora_rank)
        kernels.append(_linear(m, "q_b", at, (m.q_lora_rank, q_width), ("y_q_a_norm", "q"), None))
    kernels.append(_linear(m, "kv_a", at, (d, r_kv + rope), (x, "kv_latent"), "kv_a"))
    kernels += _norm(m, "kv_a_norm", Block.NORMS, True, r_kv)
    kernels.append(
        _linear(m, "kv_b", at, (r_kv, h * (nope + dv)), ("y_kv_a_norm", "kv_heads_out"), None)
    )
    kernels += _attention_core(m, h * (r_kv + rope), h * r_kv, (("KV_latent", (r_kv + rope,)),))
    kernels.append(_linear(m, "o", at, (h * dv, d), ("attn_out", "attn_res"), "o"))
    return tuple(kernels)


def _dense_mlp(
    m: Transformer, block: Block, width: sp.Expr, prefix: str = "", count: sp.Expr | None = None
) -> tuple[Kernel, ...]:
    d = m.d_model
    names = ("gate", "up", "down") if m.mlp_kind is Mlp.GATED else ("up", "down")
    return tuple(
        _linear(
            m,
            prefix + n,
            block,
            (width, d) if n == "down" else (d, width),
            ("y_mlp_norm", f"h_{prefix}{n}"),
            "mlp",
            count,
        )
        for n in names
    )


def _mlp(m: Transformer) -> tuple[Kernel, ...]:
    d, f, mb = m.d_model, m.d_ff, Block.MLP
    if not m.is_moe:
        return _dense_mlp(m, mb, f)
    e, k = m.experts, m.top_k
    count = None if m.dense_layers is None else m.moe_layers
    router_reads = [_a("y_mlp_norm", d), _w("W_router", d, e)]
    if m.router_bias:
        router_reads.append(_w("b_router", e))
    kernels = [_matmul("router", mb, router_reads, _a("router_logits", e), count)]
    names = ("gate", "up", "down") if m.mlp_kind is Mlp.GATED else ("up", "down")
    for n in names:
        d_in, d_out = (f, d) if n == "down" else (d, f)
        reads = [_a("y_mlp_norm", d_in), _w(f"W_{n}", e, d_in, d_out, active=k * d_in * d_out)]
        if m.biased("mlp"):
            reads.append(_w(f"b_{n}", e, d_out, active=k * d_out))
        out = _a(f"h_{n}", k, d_out)
        kernels.append(_matmul(f"experts_{n}", mb, reads, out, count, KernelOp.MOE_MATMUL))
    if m.shared_experts is not None:
        width = m.shared_experts * f if m.d_ff_shared is None else m.d_ff_shared
        kernels += _dense_mlp(m, mb, width, "shared_", count)
    if m.shared_gate:
        gate_reads = (_a("y_mlp_norm", d), _w("W_shared_expert_gate", d, 1))
        gate = _a("shared_expert_gate", 1)
        kernels.append(_matmul("shared_expert_gate", mb, gate_reads, gate, count))
    if m.dense_layers is not None:
        width = f if m.d_ff_dense is None else m.d_ff_dense
        kernels += _dense_mlp(m, Block.MLP_DENSE, width, "dense_", m.dense_layers)
    return tuple(kernels)


def _block_norms(m: Transformer, where: str) -> tuple[Kernel, ...]:
    """The norm before attention or the MLP, and with 4 norms a block, the one after it."""
    out = _norm(m, f"{where}_norm", Block.NORMS, True, m.d_model)
    if m.norms_per_block == 4:
        out += _norm(m, f"post_{where}_norm", Block.NORMS, True, m.d_model)
    return out


def expand(m: Transformer) -> Expansion:
    """The model's kernels: embedding, one block (norm, attention, norm, MLP), final norm, head."""
    d, v = m.d_model, m.vocab
    gl = Block.GLOBALS
    lookup = [_w("embedding", v, d)]
    if m.positions is not None:
        lookup.append(_w("positions", m.positions, d))
    kernels = [Kernel("embed", KernelOp.EMBEDDING, gl, False, tuple(lookup), (_a("x", d),), 0)]
    attn_norms = _block_norms(m, "attn")
    mlp_norms = _block_norms(m, "mlp")
    kernels += attn_norms[:1]
    kernels += _attention(m)
    kernels += attn_norms[1:]
    kernels += mlp_norms[:1]
    kernels += _mlp(m)
    kernels += mlp_norms[1:]
    kernels += _norm(m, "final_norm", gl, False, d)
    head = _w("embedding", v, d) if m.tied_embeddings else _w("W_head", d, v)
    kernels.append(
        Kernel(
            "head",
            KernelOp.MATMUL,
            gl,
            False,
            (_a("x_final", d), head),
            (_a("logits", v),),
            2 * tokens * d * v,
        )
    )
    return Expansion(m, tuple(kernels))
