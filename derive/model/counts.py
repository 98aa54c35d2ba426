"""Parameter counts of a model, as formulas in the notation's symbols, part by part.

Each :class:`Part` is one weight tensor group of a block or of the globals, with its
formula (``d·h_kv·d_h`` for a K projection) and its value for the model. These are
the per-block formulas the worked solution shows; :mod:`derive.model.expand` gives
the same model as tensors, and the tests check the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.model.expand import Block
from derive.model.symbols import sym
from derive.model.transformer import Mlp, Norm, Transformer

L, d, h, kv, dh, f, V = (
    sym(k) for k in ("layers", "d_model", "heads", "kv_heads", "head_dim", "d_ff", "vocab")
)
n_pos, E, k = sym("positions"), sym("experts"), sym("top_k")
n_s, L_d, f_d = sym("shared_experts"), sym("dense_layers"), sym("d_ff_dense")
f_s = sym("d_ff_shared")
r_q, r_kv, d_rope, d_nope, d_v = (
    sym(key)
    for key in ("q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim")
)
win, L_win = sym("window"), sym("windowed_layers")

# field → symbol, for the optional fields a model may leave None
_OPTIONAL = (
    ("positions", n_pos),
    ("experts", E),
    ("top_k", k),
    ("shared_experts", n_s),
    ("dense_layers", L_d),
    ("d_ff_dense", f_d),
    ("d_ff_shared", f_s),
    ("q_lora_rank", r_q),
    ("kv_lora_rank", r_kv),
    ("qk_rope_head_dim", d_rope),
    ("qk_nope_head_dim", d_nope),
    ("v_head_dim", d_v),
    ("window", win),
    ("windowed_layers", L_win),
)


@dataclass(frozen=True)
class Part:
    """A group of weights: where it sits, its name, its count and the count one token uses.

    ``active`` differs from ``formula`` only for expert weights (``k`` of ``E`` copies).
    """

    block: Block
    name: str
    formula: sp.Expr
    active: sp.Expr


def _part(block: Block, name: str, formula: sp.Expr, active: sp.Expr | None = None) -> Part:
    return Part(block, name, formula, formula if active is None else active)


def substitutions(m: Transformer) -> dict[sp.Symbol, sp.Expr]:
    """The architecture's symbols → the model's values (numbers or the user's dims)."""
    out = {L: m.layers, d: m.d_model, h: m.heads, dh: m.head_dim, f: m.d_ff, V: m.vocab}
    if not m.is_mla:  # latent attention caches a latent, not keys and values per KV head
        out[kv] = m.kv_heads
    for field, symbol in _OPTIONAL:
        value = getattr(m, field)
        if value is not None:
            out[symbol] = value
    return out


def _bias(m: Transformer, projection: str, width: sp.Expr) -> sp.Expr:
    """``width`` when the projection has a bias, else 0."""
    return width if m.biased(projection) else sp.Integer(0)


def _label(m: Transformer, name: str, projection: str) -> str:
    return f"W_{name}" + (f", b_{name}" if m.biased(projection) else "")


def _attention(m: Transformer) -> list[Part]:
    at = Block.ATTENTION
    if m.is_mla:
        return _latent_attention(m)
    return [
        _part(at, _label(m, "q", "q"), d * h * dh + _bias(m, "q", h * dh)),
        _part(at, _label(m, "k", "k"), d * kv * dh + _bias(m, "k", kv * dh)),
        _part(at, _label(m, "v", "v"), d * kv * dh + _bias(m, "v", kv * dh)),
        _part(at, _label(m, "o", "o"), h * dh * d + _bias(m, "o", d)),
    ]


def _latent_attention(m: Transformer) -> list[Part]:
    """MLA: q through a rank-r_q bottleneck (or one projection), k and v through a latent of
    rank r_kv projected with the decoupled rope key (d_rope), expanded per head, then o."""
    at = Block.ATTENTION
    q_width = h * dh  # a head's query is d_nope + d_R = d_h wide
    if m.q_lora_rank is None:
        parts = [_part(at, "W_q", d * q_width)]
    else:
        parts = [
            _part(at, _label(m, "q_a", "q_a"), d * r_q + _bias(m, "q_a", r_q)),
            _part(at, "W_q_b", r_q * q_width),
        ]
    return parts + [
        _part(at, _label(m, "kv_a", "kv_a"), d * (r_kv + d_rope) + _bias(m, "kv_a", r_kv + d_rope)),
        # keys and values per head from the latent (a sum: it breaks across lines in print)
        _part(at, "W_kv_b", r_kv * h * d_nope + r_kv * h * d_v),
        _part(at, _label(m, "o", "o"), h * d_v * d + _bias(m, "o", d)),
    ]


def _matrices(m: Transformer) -> tuple[str, ...]:
    return ("gate", "up", "down") if m.mlp_kind is Mlp.GATED else ("up", "down")


def _one_mlp(m: Transformer, n: str, width: sp.Expr) -> sp.Expr:
    """One projection of an MLP of hidden width ``width``, with its bias."""
    return d * width + _bias(m, "mlp", d if n == "down" else width)


def _mlp_dense(m: Transformer, block: Block, width: sp.Expr) -> list[Part]:
    return [_part(block, _label(m, n, "mlp"), _one_mlp(m, n, width)) for n in _matrices(m)]


def _mlp(m: Transformer) -> list[Part]:
    if not m.is_moe:
        return _mlp_dense(m, Block.MLP, f)
    parts = []
    for n in _matrices(m):
        one = _one_mlp(m, n, f)
        parts.append(_part(Block.MLP, f"{_label(m, n, 'mlp')} (E experts)", E * one, k * one))
    if m.shared_experts is not None:
        width, said = (n_s * f, "n_s·f") if m.d_ff_shared is None else (f_s, "f_s")
        for n in _matrices(m):
            label = f"{_label(m, n, 'mlp')} (shared, width {said})"
            parts.append(_part(Block.MLP, label, _one_mlp(m, n, width)))
        if m.shared_gate:
            parts.append(_part(Block.MLP, "W_shared_expert_gate (d → 1)", d))
    router = d * E + (E if m.router_bias else 0)
    parts.append(_part(Block.MLP, "W_router" + (", b_router" if m.router_bias else ""), router))
    if m.dense_layers is not None:
        parts += _mlp_dense(m, Block.MLP_DENSE, f if m.d_ff_dense is None else f_d)
    return parts


def _norms(m: Transformer) -> list[Part]:
    if m.norm_kind is Norm.NONE:
        return []
    label = "γ" if m.norm_kind is Norm.RMS else "γ, β"
    vectors = m.norm_kind.vectors
    names = ["attention norm", "MLP norm"]
    if m.norms_per_block == 4:
        names += ["post-attention norm", "post-MLP norm"]
    parts = [_part(Block.NORMS, f"{n} {label}", vectors * d) for n in names]
    if m.qk_norm and m.qk_norm_full:
        parts += [
            _part(Block.NORMS, f"q norm {label} (width h·d_h, every head)", vectors * h * dh),
            _part(Block.NORMS, f"k norm {label} (width h_kv·d_h, every head)", vectors * kv * dh),
        ]
    elif m.qk_norm:
        parts += [
            _part(Block.NORMS, f"q norm {label} (width d_h, shared by the heads)", vectors * dh),
            _part(Block.NORMS, f"k norm {label} (width d_h, shared by the heads)", vectors * dh),
        ]
    if m.is_mla and m.q_lora_rank is not None:
        parts.append(_part(Block.NORMS, f"q latent norm {label}", vectors * r_q))
    if m.is_mla:
        parts.append(_part(Block.NORMS, f"kv latent norm {label}", vectors * r_kv))
    return parts


def block_parts(m: Transformer) -> tuple[Part, ...]:
    """The weights of one block: attention, MLP (or experts, shared experts, router; and the
    dense layers' MLP, block ``mlp_dense``), norms."""
    return tuple(_attention(m) + _mlp(m) + _norms(m))


def global_parts(m: Transformer) -> tuple[tuple[str, Part], ...]:
    """The weights outside the blocks, each with its notation key (``P_embed``…)."""
    gl = Block.GLOBALS
    out = [("P_embed", _part(gl, "token embedding", V * d))]
    if m.positions is not None:
        out.append(("P_pos", _part(gl, "position table", n_pos * d)))
    if not m.tied_embeddings:
        out.append(("P_head", _part(gl, "output head", d * V)))
    if m.norm_kind is not Norm.NONE:
        out.append(("P_final", _part(gl, "final norm", m.norm_kind.vectors * d)))
    return tuple(out)
