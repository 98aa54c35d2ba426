"""What a model stores and computes, quantity by quantity: parameters, bytes, FLOPs per token.

Each function derives its quantities on the sheet of :func:`~derive.model.analysis.analyse_model`
(a formula in the notation's symbols and its exact value); the worked solution's steps that
show them are :mod:`derive.solution.model_steps`.
"""

from __future__ import annotations

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.counts import block_parts, global_parts
from derive.model.records import Sheet, Unit
from derive.model.symbols import batch, context, sym

__all__ = ["flops", "memory_of_weights_and_cache", "parameters"]


def parameters(sheet: Sheet, p: ModelProblem) -> None:
    """One block's parameters by part, the globals, the total, the active and the lookup tables."""
    m = p.model
    parts = block_parts(m)
    by_block = {
        key: [pt for pt in parts if pt.block.value == block]
        for key, block in (("P_attn", "attention"), ("P_mlp", "mlp"), ("P_norm", "norms"))
    }
    keys = [key for key, ps in by_block.items() if ps]
    for key in keys:
        sheet.q(key, sp.Add(*(pt.formula for pt in by_block[key])), Unit.PARAMS)
    active_key = "P_mlp"
    if m.is_moe:
        sheet.q("P_mlp_active", sp.Add(*(pt.active for pt in by_block["P_mlp"])), Unit.PARAMS)
        active_key = "P_mlp_active"
    sheet.q("P_block", sp.Add(*(sym(k) for k in keys)), Unit.PARAMS)
    if m.is_moe:
        active = [sym(active_key if k == "P_mlp" else k) for k in keys]
        sheet.q("P_block_active", sp.Add(*active), Unit.PARAMS)
    globals_ = global_parts(m)
    for key, pt in globals_:
        sheet.q(key, pt.formula, Unit.PARAMS)
    g_keys = [k for k, _ in globals_]
    lookup = [k for k in g_keys if k in ("P_embed", "P_pos")]
    L = sym("layers")
    sheet.q("params", L * sym("P_block") + sp.Add(*(sym(k) for k in g_keys)), Unit.PARAMS)
    block_active = sym("P_block_active" if m.is_moe else "P_block")
    sheet.q("params_active", L * block_active + sp.Add(*(sym(k) for k in g_keys)), Unit.PARAMS)
    sheet.q("params_embedding", sp.Add(*(sym(k) for k in lookup)), Unit.PARAMS)


def memory_of_weights_and_cache(sheet: Sheet) -> None:
    """The weights' bytes, and the KV cache's per token and for B sequences of S positions."""
    sheet.q("weights_bytes", sym("params") * sym("w_weights"), Unit.BYTES)
    L, kv, dh = sym("layers"), sym("kv_heads"), sym("head_dim")
    sheet.q("kv_bytes_per_token", 2 * L * kv * dh * sym("w_kv"), Unit.BYTES_PER_TOKEN)
    sheet.q("kv_bytes", sym("kv_bytes_per_token") * batch * context, Unit.BYTES)


def flops(sheet: Sheet, p: ModelProblem) -> None:
    """FLOPs per token: the matmuls (2 per multiplied weight), attention at S, the 2N shortcut."""
    m = p.model
    d, V, L = sym("d_model"), sym("vocab"), sym("layers")
    matmul_params = sym("params_active") - sym("params_embedding")
    if m.tied_embeddings:
        matmul_params = matmul_params + d * V
    sheet.q("P_matmul", matmul_params, Unit.PARAMS)
    sheet.q("flops_matmuls", 2 * sym("P_matmul"), Unit.FLOPS_PER_TOKEN)
    sheet.q(
        "flops_attention", 4 * L * sym("heads") * sym("head_dim") * context, Unit.FLOPS_PER_TOKEN
    )
    sheet.q("flops_per_token", sym("flops_matmuls") + sym("flops_attention"), Unit.FLOPS_PER_TOKEN)
    sheet.q("flops_2n", 2 * sym("params_active"), Unit.FLOPS_PER_TOKEN)
