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

__all__ = ["Block", "Expansion", "Kernel", "KernelOp", "ModelTensor", "Role", "expand", "tokens"]

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


@dataclass(frozen=True)
class Expansion:
    """A model's kernels in execution order (one block's kernels stand for all ``layers``)."""

    model: Transformer
    kernels: tuple[Kernel, ...]

    def weights(self) -> tuple[tuple[ModelTensor, bool], ...]:
        """Distinct weight tensors with ``per_layer``, in order (a tied head reads the embedding)."""
        seen: dict[str, tuple[ModelTensor, bool]] = {}
        for k in self.kernels:
            for t in k.reads:
                if t.role is Role.WEIGHT:
                    seen.setdefault(t.name, (t, k.per_layer))
        return tuple(seen.values())

    def tensors(self, role: Role) -> tuple[tuple[ModelTensor, bool], ...]:
        """Distinct tensors of a role with ``per_layer``, in order."""
        seen: dict[str, tuple[ModelTensor, bool]] = {}
        for k in self.kernels:
            for t in k.reads + k.writes:
                if t.role is role:
                    seen.setdefault(t.name, (t, k.per_layer))
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
    m: Transformer, name: str, block: Block, d_in: sp.Expr, d_out: sp.Expr, x: str, y: str
) -> Kernel:
    reads = [_a(x, d_in), _w(f"W_{name}", d_in, d_out)]
    if m.bias:
        reads.append(_w(f"b_{name}", d_out))
    return Kernel(
        name, KernelOp.MATMUL, block, True, tuple(reads), (_a(y, d_out),), _weight_flops(reads)
    )


def _norm(m: Transformer, name: str, block: Block, per_layer: bool) -> tuple[Kernel, ...]:
    if m.norm_kind is Norm.NONE:
        return ()
    weights = [_w(f"gamma_{name}", m.d_model)]
    if m.norm_kind is Norm.LAYERNORM:
        weights.append(_w(f"beta_{name}", m.d_model))
    op = KernelOp.LAYERNORM if m.norm_kind is Norm.LAYERNORM else KernelOp.RMSNORM
    x = _a(f"x_{name}", m.d_model)
    out = (_a(f"y_{name}", m.d_model),)
    # elementwise: its scale (and shift) are not multiplied like a matmul's weights
    return (Kernel(name, op, block, per_layer, (x, *weights), out, sp.Integer(0)),)


def _attention(m: Transformer) -> tuple[Kernel, ...]:
    d, h, kv, dh = m.d_model, m.heads, m.kv_heads, m.head_dim
    at = Block.ATTENTION
    cache = (
        ModelTensor("K_cache", (batch, context, kv, dh), Role.KV_CACHE, batch * context * kv * dh),
        ModelTensor("V_cache", (batch, context, kv, dh), Role.KV_CACHE, batch * context * kv * dh),
    )
    core = Kernel(
        "attention",
        KernelOp.ATTENTION,
        at,
        True,
        (_a("q", h * dh), *cache),
        (_a("attn_out", h * dh),),
        4 * tokens * h * dh * context,
    )
    return (
        _linear(m, "q", at, d, h * dh, "y_attn_norm", "q"),
        _linear(m, "k", at, d, kv * dh, "y_attn_norm", "k_new"),
        _linear(m, "v", at, d, kv * dh, "y_attn_norm", "v_new"),
        core,
        _linear(m, "o", at, h * dh, d, "attn_out", "attn_res"),
    )


def _mlp(m: Transformer) -> tuple[Kernel, ...]:
    d, f, mb = m.d_model, m.d_ff, Block.MLP
    names = ("gate", "up", "down") if m.mlp_kind is Mlp.GATED else ("up", "down")
    if not m.is_moe:
        return tuple(
            _linear(
                m, n, mb, f if n == "down" else d, d if n == "down" else f, "y_mlp_norm", f"h_{n}"
            )
            for n in names
        )
    e, k = m.experts, m.top_k
    router = Kernel(
        "router",
        KernelOp.MATMUL,
        mb,
        True,
        (_a("y_mlp_norm", d), _w("W_router", d, e)),
        (_a("router_logits", e),),
        2 * tokens * d * e,
    )
    kernels = [router]
    for n in names:
        d_in, d_out = (f, d) if n == "down" else (d, f)
        reads = [_a("y_mlp_norm", d_in), _w(f"W_{n}", e, d_in, d_out, active=k * d_in * d_out)]
        if m.bias:
            reads.append(_w(f"b_{n}", e, d_out, active=k * d_out))
        kernels.append(
            Kernel(
                f"experts_{n}",
                KernelOp.MOE_MATMUL,
                mb,
                True,
                tuple(reads),
                (_a(f"h_{n}", k, d_out),),
                _weight_flops(reads),
            )
        )
    return tuple(kernels)


def expand(m: Transformer) -> Expansion:
    """The model's kernels: embedding, one block (norm, attention, norm, MLP), final norm, head."""
    d, v = m.d_model, m.vocab
    gl = Block.GLOBALS
    lookup = [_w("embedding", v, d)]
    if m.positions is not None:
        lookup.append(_w("positions", m.positions, d))
    kernels = [Kernel("embed", KernelOp.EMBEDDING, gl, False, tuple(lookup), (_a("x", d),), 0)]
    kernels += _norm(m, "attn_norm", Block.NORMS, True)
    kernels += _attention(m)
    kernels += _norm(m, "mlp_norm", Block.NORMS, True)
    kernels += _mlp(m)
    kernels += _norm(m, "final_norm", gl, False)
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
