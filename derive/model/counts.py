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

__all__ = ["Part", "block_parts", "global_parts", "substitutions"]

L, d, h, kv, dh, f, V = (
    sym(k) for k in ("layers", "d_model", "heads", "kv_heads", "head_dim", "d_ff", "vocab")
)
n_pos, E, k = sym("positions"), sym("experts"), sym("top_k")


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
    out = {
        L: m.layers,
        d: m.d_model,
        h: m.heads,
        kv: m.kv_heads,
        dh: m.head_dim,
        f: m.d_ff,
        V: m.vocab,
    }
    if m.positions is not None:
        out[n_pos] = m.positions
    if m.is_moe:
        out[E], out[k] = m.experts, m.top_k
    return out


def _attention(m: Transformer) -> list[Part]:
    b = 1 if m.bias else 0
    at = Block.ATTENTION
    return [
        _part(at, "W_q" + (", b_q" if b else ""), d * h * dh + b * h * dh),
        _part(at, "W_k" + (", b_k" if b else ""), d * kv * dh + b * kv * dh),
        _part(at, "W_v" + (", b_v" if b else ""), d * kv * dh + b * kv * dh),
        _part(at, "W_o" + (", b_o" if b else ""), h * dh * d + b * d),
    ]


def _mlp(m: Transformer) -> list[Part]:
    b = 1 if m.bias else 0
    names = ("gate", "up", "down") if m.mlp_kind is Mlp.GATED else ("up", "down")
    parts = []
    for n in names:
        one = d * f + b * (d if n == "down" else f)
        label = f"W_{n}" + (f", b_{n}" if b else "")
        if m.is_moe:
            parts.append(_part(Block.MLP, f"{label} (E experts)", E * one, k * one))
        else:
            parts.append(_part(Block.MLP, label, one))
    if m.is_moe:
        parts.append(_part(Block.MLP, "W_router", d * E))
    return parts


def _norms(m: Transformer) -> list[Part]:
    if m.norm_kind is Norm.NONE:
        return []
    label = "γ" if m.norm_kind is Norm.RMS else "γ, β"
    return [
        _part(Block.NORMS, f"attention norm {label}", m.norm_kind.vectors * d),
        _part(Block.NORMS, f"MLP norm {label}", m.norm_kind.vectors * d),
    ]


def block_parts(m: Transformer) -> tuple[Part, ...]:
    """The weights of one block: attention (q, k, v, o), MLP (or experts and router), norms."""
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
