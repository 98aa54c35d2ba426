"""What a model stores and computes, quantity by quantity: parameters, bytes, FLOPs per token.

Each function derives its quantities on the sheet of :func:`~derive.model.analysis.analyse_model`;
the worked solution's steps that show them, and say why, are :mod:`derive.solution.model_steps`.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.model.binding import ModelProblem
from derive.model.counts import block_parts, global_parts
from derive.model.records import Sheet
from derive.model.symbols import batch, context, sym
from derive.model.transformer import Norm, Transformer

_BLOCKS = (
    ("P_attn", "attention"),
    ("P_mlp", "mlp"),
    ("P_norm", "norms"),
    ("P_mlp_dense", "mlp_dense"),
)


def parameters(sheet: Sheet, p: ModelProblem) -> None:
    m = p.transformer
    parts = block_parts(m)
    by_block = {key: [pt for pt in parts if pt.block.value == block] for key, block in _BLOCKS}
    block_qs = [
        sheet.part(key, sp.Add(*(pt.formula for pt in ps)), of=q.PARAMS)
        for key, ps in by_block.items()
        if ps
    ]
    keys = [b.key for b in block_qs if b.key != "P_mlp_dense"]
    active_key = "P_mlp"
    if m.is_moe:
        block_qs.append(
            sheet.part(
                "P_mlp_active", sp.Add(*(pt.active for pt in by_block["P_mlp"])), of=q.PARAMS
            )
        )
        active_key = "P_mlp_active"
    block_qs.append(sheet.part("P_block", sp.Add(*(sym(k) for k in keys)), of=q.PARAMS))
    if m.is_moe:
        active = [sym(active_key if k == "P_mlp" else k) for k in keys]
        block_qs.append(sheet.part("P_block_active", sp.Add(*active), of=q.PARAMS))
    if m.dense_layers is not None:
        dense = [sym("P_mlp_dense" if k == "P_mlp" else k) for k in keys]
        block_qs.append(sheet.part("P_block_dense", sp.Add(*dense), of=q.PARAMS))
    globals_ = global_parts(m)
    for key, pt in globals_:
        sheet.part(key, pt.formula, of=q.PARAMS)
    g_keys = [k for k, _ in globals_]
    lookup = [k for k in g_keys if k in ("P_embed", "P_pos")]
    L = sym("layers")
    glob = sp.Add(*(sym(k) for k in g_keys))
    block_active = sym("P_block_active" if m.is_moe else "P_block")
    if m.dense_layers is None:
        total, used = L * sym("P_block"), L * block_active
    else:
        L_d = sym("dense_layers")
        total = (L - L_d) * sym("P_block") + L_d * sym("P_block_dense")
        used = (L - L_d) * block_active + L_d * sym("P_block_dense")
    sheet.q(q.PARAMS, total + glob)
    sheet.q(q.PARAMS_ACTIVE, used + glob)
    sheet.q(q.PARAMS_EMBEDDING, sp.Add(*(sym(k) for k in lookup)))


def _positions(m: Transformer) -> sp.Expr:
    """Σ over layers of the positions a layer attends to (and caches) at context S."""
    return sp.Add(
        *(n * (context if w is None else sp.Min(context, w)) for n, w in m.attention_layers(sym))
    )


def memory_of_weights_and_cache(sheet: Sheet, p: ModelProblem) -> None:
    """The weights' bytes, and the KV cache's per token and for B sequences at context S."""
    m = p.transformer
    sheet.q(q.WEIGHTS_BYTES, sym(q.PARAMS) * sym("w_weights"))
    L, kv, dh = sym("layers"), sym("kv_heads"), sym("head_dim")
    if m.is_mla:
        per_layer = (sym("kv_lora_rank") + sym("qk_rope_head_dim")) * sym("w_kv")
    else:
        per_layer = 2 * kv * dh * sym("w_kv")
    sheet.q(q.KV_BYTES_PER_TOKEN, L * per_layer)
    if m.window is None:
        sheet.q(q.KV_BYTES, sym(q.KV_BYTES_PER_TOKEN) * batch * context)
    else:
        sheet.q(q.KV_BYTES, per_layer * batch * _positions(m))


def flops(sheet: Sheet, p: ModelProblem) -> None:
    m = p.transformer
    d, V, L = sym("d_model"), sym("vocab"), sym("layers")
    matmul_params = sym(q.PARAMS_ACTIVE) - sym(q.PARAMS_EMBEDDING)
    if m.norm_kind is not Norm.NONE:  # a norm's scale multiplies elementwise: not a matmul
        matmul_params = matmul_params - L * sym("P_norm") - sym("P_final")
    if m.tied_embeddings:
        matmul_params = matmul_params + d * V
    sheet.part("P_matmul", matmul_params, of=q.PARAMS)
    sheet.part("flops_matmuls", 2 * sym("P_matmul"), of=q.FLOPS_PER_TOKEN)
    sheet.part("flops_attention", m.pair_flops(sym) * _positions(m), of=q.FLOPS_PER_TOKEN)
    sheet.q(q.FLOPS_PER_TOKEN, sym("flops_matmuls") + sym("flops_attention"))
    sheet.part("flops_2n", 2 * sym(q.PARAMS_ACTIVE), of=q.FLOPS_PER_TOKEN)
