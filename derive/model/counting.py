"""Derivation steps of what a model stores and computes: parameters, bytes, FLOPs per token."""

from __future__ import annotations

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.counts import block_parts, global_parts
from derive.model.records import Sheet, Unit
from derive.model.symbols import batch, context, sym
from derive.model.transformer import Norm

__all__ = ["flops", "memory_of_weights_and_cache", "parameters"]


def parameters(sheet: Sheet, p: ModelProblem) -> None:
    m = p.model
    parts = block_parts(m)
    by_block = {
        key: [pt for pt in parts if pt.block.value == block]
        for key, block in (("P_attn", "attention"), ("P_mlp", "mlp"), ("P_norm", "norms"))
    }
    block_qs = [
        sheet.q(key, sp.Add(*(pt.formula for pt in ps)), Unit.PARAMS)
        for key, ps in by_block.items()
        if ps
    ]
    keys = [q.key for q in block_qs]
    active_key = "P_mlp"
    if m.is_moe:
        block_qs.append(
            sheet.q("P_mlp_active", sp.Add(*(pt.active for pt in by_block["P_mlp"])), Unit.PARAMS)
        )
        active_key = "P_mlp_active"
    block_qs.append(sheet.q("P_block", sp.Add(*(sym(k) for k in keys)), Unit.PARAMS))
    if m.is_moe:
        active = [sym(active_key if k == "P_mlp" else k) for k in keys]
        block_qs.append(sheet.q("P_block_active", sp.Add(*active), Unit.PARAMS))
    sheet.step(
        "Parameters of one block",
        "a block's parameters are the elements of its weight tensors",
        "Attention has the q, k, v and o projections; the MLP its "
        + ("gate, up and down" if m.mlp_kind.matrices == 3 else "up and down")
        + " matrices"
        + (
            " for each of E experts, plus a d·E router (no bias), of which a token uses k experts"
            if m.is_moe
            else ""
        )
        + "; each norm its scale"
        + (" and shift" if m.norm_kind.vectors == 2 else "")
        + ".",
        *block_qs,
        parts=parts,
    )
    globals_ = global_parts(m)
    global_qs = [sheet.q(key, pt.formula, Unit.PARAMS) for key, pt in globals_]
    sheet.step(
        "Parameters outside the blocks",
        "the embedding table is V·d; a learned position table n_pos·d; an untied head d·V; the final norm",
        "The token embedding is a table of V rows of width d"
        + (
            "; the head is tied to it (it reads the same table, stored once)"
            if m.tied_embeddings
            else "; the output head is a separate d·V matrix (no bias)"
        )
        + ".",
        *global_qs,
    )
    g_keys = [k for k, _ in globals_]
    lookup = [k for k in g_keys if k in ("P_embed", "P_pos")]
    L = sym("layers")
    qs = [sheet.q("params", L * sym("P_block") + sp.Add(*(sym(k) for k in g_keys)), Unit.PARAMS)]
    block_active = sym("P_block_active" if m.is_moe else "P_block")
    qs.append(
        sheet.q("params_active", L * block_active + sp.Add(*(sym(k) for k in g_keys)), Unit.PARAMS)
    )
    qs.append(sheet.q("params_embedding", sp.Add(*(sym(k) for k in lookup)), Unit.PARAMS))
    sheet.step(
        "Parameters",
        "P = L·P_block + the globals; P_act counts what one token uses; P_lookup the tables read by lookup",
        "Every block is the same, so the blocks contribute L times one block."
        + (
            " A token runs k of the E experts, so it uses fewer parameters than the model stores."
            if m.is_moe
            else ""
        ),
        *qs,
    )


def memory_of_weights_and_cache(sheet: Sheet) -> None:
    w = sheet.q("weights_bytes", sym("params") * sym("w_weights"), Unit.BYTES)
    sheet.step(
        "Weights in memory",
        "bytes = parameters × bytes per weight",
        "Every parameter is stored once at the weight width.",
        w,
    )
    L, kv, dh = sym("layers"), sym("kv_heads"), sym("head_dim")
    per_token = sheet.q("kv_bytes_per_token", 2 * L * kv * dh * sym("w_kv"), Unit.BYTES_PER_TOKEN)
    total = sheet.q("kv_bytes", sym("kv_bytes_per_token") * batch * context, Unit.BYTES)
    sheet.step(
        "KV cache",
        "2 (a key and a value) × L layers × h_kv heads × d_h per head × bytes per element, per token",
        "Each position of context keeps one key and one value vector per KV head in every layer; "
        "B sequences of S positions keep B·S of them.",
        per_token,
        total,
    )


def flops(sheet: Sheet, p: ModelProblem) -> None:
    m = p.model
    d, V, L = sym("d_model"), sym("vocab"), sym("layers")
    matmul_params = sym("params_active") - sym("params_embedding")
    if m.norm_kind is not Norm.NONE:  # a norm's scale multiplies elementwise: not a matmul
        matmul_params = matmul_params - L * sym("P_norm") - sym("P_final")
    if m.tied_embeddings:
        matmul_params = matmul_params + d * V
    pm = sheet.q("P_matmul", matmul_params, Unit.PARAMS)
    fm = sheet.q("flops_matmuls", 2 * sym("P_matmul"), Unit.FLOPS_PER_TOKEN)
    fa = sheet.q(
        "flops_attention", 4 * L * sym("heads") * sym("head_dim") * context, Unit.FLOPS_PER_TOKEN
    )
    ft = sheet.q(
        "flops_per_token", sym("flops_matmuls") + sym("flops_attention"), Unit.FLOPS_PER_TOKEN
    )
    f2n = sheet.q("flops_2n", 2 * sym("params_active"), Unit.FLOPS_PER_TOKEN)
    notes = [
        "Convention: 2 FLOPs per multiply-accumulate. A token is multiplied by every weight it uses "
        "except the lookup tables (embedding, positions), which are read, not multiplied, and "
        "the norms' scales and shifts, applied elementwise"
        + (
            "; the tied head's d·V matmul happens although its weights are the embedding's"
            if m.tied_embeddings
            else ""
        )
        + ". Attention at context S adds, per layer, the scores q·k over S positions (2·h·d_h·S) "
        "and the weighted sum of the values (2·h·d_h·S). Biases count 2 each like any weight; "
        "norms, softmax and other elementwise work are not counted.",
    ]
    ratio = sheet.values[sym("flops_per_token")] / sheet.values[sym("flops_2n")]
    if ratio.is_number:
        notes.append(
            f"The common shortcut 2N (N the parameters a token uses) gives F_2N; this convention is "
            f"{float(ratio):.4g}× that ({float((ratio - 1) * 100):+.2f}%)."
        )
    else:
        notes.append(
            "The common shortcut 2N (N the parameters a token uses) gives F_2N; the ratio depends on the dims left free."
        )
    sheet.step(
        "FLOPs per token",
        "F_token = 2·P_matmul (matmuls) + 4·L·h·d_h·S (attention); P_matmul leaves out lookups and norms",
        "The forward pass of one token at context S, in two named parts.",
        pm,
        fm,
        fa,
        ft,
        f2n,
        notes=notes,
    )
