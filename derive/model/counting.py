"""Derivation steps of what a model stores and computes: parameters, bytes, FLOPs per token."""

from __future__ import annotations

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.counts import block_parts, global_parts
from derive.model.records import Sheet, Unit
from derive.model.symbols import batch, context, sym
from derive.model.transformer import Norm, Transformer

__all__ = ["flops", "memory_of_weights_and_cache", "parameters"]


_BLOCKS = (
    ("P_attn", "attention"),
    ("P_mlp", "mlp"),
    ("P_norm", "norms"),
    ("P_mlp_dense", "mlp_dense"),
)


def _block_reason(p: ModelProblem) -> str:
    m = p.transformer
    attention = (
        "Latent attention has "
        + ("the q_a bottleneck and q_b, " if m.q_lora_rank is not None else "the q projection, ")
        + "kv_a (the latent and the rope key), kv_b (keys and values per head) and o"
        if m.is_mla
        else "Attention has the q, k, v and o projections"
    )
    mlp = (
        "; the MLP its "
        + ("gate, up and down" if m.mlp_kind.matrices == 3 else "up and down")
        + " matrices"
    )
    if m.is_moe:
        mlp += " for each of E routed experts, of which a token uses k"
        if m.shared_experts is not None:
            mlp += ", plus n_s shared experts every token uses (one MLP of width n_s·f)"
        mlp += ", and a d·E router" + (" with a bias" if m.router_bias else " (no bias)")
        if m.dense_layers is not None:
            mlp += "; the first L_dense blocks have a dense MLP instead (P_mlp,dense)"
    norms = "; each norm its scale" + (" and shift" if m.norm_kind.vectors == 2 else "")
    if m.qk_norm:
        norms += " (the q and k norms have width d_h)"
    return attention + mlp + norms + "."


def parameters(sheet: Sheet, p: ModelProblem) -> None:
    m = p.transformer
    parts = block_parts(m)
    by_block = {key: [pt for pt in parts if pt.block.value == block] for key, block in _BLOCKS}
    block_qs = [
        sheet.q(key, sp.Add(*(pt.formula for pt in ps)), Unit.PARAMS)
        for key, ps in by_block.items()
        if ps
    ]
    keys = [q.key for q in block_qs if q.key != "P_mlp_dense"]
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
    if m.dense_layers is not None:
        dense = [sym("P_mlp_dense" if k == "P_mlp" else k) for k in keys]
        block_qs.append(sheet.q("P_block_dense", sp.Add(*dense), Unit.PARAMS))
    sheet.step(
        "Parameters of one block",
        "a block's parameters are the elements of its weight tensors",
        _block_reason(p),
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
    glob = sp.Add(*(sym(k) for k in g_keys))
    block_active = sym("P_block_active" if m.is_moe else "P_block")
    if m.dense_layers is None:
        total, used = L * sym("P_block"), L * block_active
    else:
        L_d = sym("dense_layers")
        total = (L - L_d) * sym("P_block") + L_d * sym("P_block_dense")
        used = (L - L_d) * block_active + L_d * sym("P_block_dense")
    qs = [sheet.q("params", total + glob, Unit.PARAMS)]
    qs.append(sheet.q("params_active", used + glob, Unit.PARAMS))
    qs.append(sheet.q("params_embedding", sp.Add(*(sym(k) for k in lookup)), Unit.PARAMS))
    reason = (
        "Every block is the same, so the blocks contribute L times one block."
        if m.dense_layers is None
        else "L_dense blocks are dense and L − L_dense have the experts; each kind contributes its count times one block."
    )
    if m.is_moe:
        reason += " A token runs k of the E routed experts"
        reason += " and every shared expert" if m.shared_experts is not None else ""
        reason += ", so it uses fewer parameters than the model stores."
    sheet.step(
        "Parameters",
        (
            "P = L·P_block"
            if m.dense_layers is None
            else "P = (L − L_dense)·P_block + L_dense·P_block,dense"
        )
        + " + the globals; P_act counts what one token uses; P_lookup the tables read by lookup",
        reason,
        *qs,
    )


def _positions(m: Transformer) -> sp.Expr:
    """Σ over layers of the positions a layer attends to (and caches) at context S."""
    L = sym("layers")
    if m.window is None:
        return L * context
    L_win = sym("windowed_layers")
    return (L - L_win) * context + L_win * sp.Min(context, sym("window"))


def memory_of_weights_and_cache(sheet: Sheet, p: ModelProblem) -> None:
    m = p.transformer
    w = sheet.q("weights_bytes", sym("params") * sym("w_weights"), Unit.BYTES)
    sheet.step(
        "Weights in memory",
        "bytes = parameters × bytes per weight",
        "Every parameter is stored once at the weight width.",
        w,
    )
    L, kv, dh = sym("layers"), sym("kv_heads"), sym("head_dim")
    if m.is_mla:
        per_layer = (sym("kv_lora_rank") + sym("qk_rope_head_dim")) * sym("w_kv")
        rule = "(r_kv latent + d_R rope key) × L layers × bytes per element, per token"
        reason = (
            "Latent attention caches, per position and layer, one latent of rank r_kv (keys and "
            "values of every head are expanded from it) and one rope key of width d_R shared by the heads"
        )
    else:
        per_layer = 2 * kv * dh * sym("w_kv")
        rule = "2 (a key and a value) × L layers × h_kv heads × d_h per head × bytes per element, per token"
        reason = (
            "Each position of context keeps one key and one value vector per KV head in every layer"
        )
    per_token = sheet.q("kv_bytes_per_token", L * per_layer, Unit.BYTES_PER_TOKEN)
    if m.window is None:
        total = sheet.q("kv_bytes", sym("kv_bytes_per_token") * batch * context, Unit.BYTES)
        reason += "; B sequences of S positions keep B·S of them."
        notes: list[str] = []
    else:
        total = sheet.q("kv_bytes", per_layer * batch * _positions(m), Unit.BYTES)
        rule += "; a windowed layer keeps min(S, S_win) positions"
        reason += (
            "; B sequences keep S positions in each of the L − L_win full layers and "
            "min(S, S_win) in each of the L_win windowed layers."
        )
        notes = [
            "m_kv is the bytes per token while the context is within the window; beyond it only "
            "the full layers' cache grows."
        ]
    sheet.step("KV cache", rule, reason, per_token, total, notes=notes)


def _attention_note(m: Transformer) -> str:
    """What attention's FLOPs count, per layer and position of context."""
    if m.is_mla:
        text = (
            "Latent attention at context S adds, per layer, in its absorbed form (kv_b folded into "
            "the query and the output, as decode runs it): the scores over the latent and the rope "
            "key (2·h·(r_kv + d_R) per position) and the weighted sum of the latents (2·h·r_kv)."
        )
    else:
        text = (
            "Attention at context S adds, per layer, the scores q·k over S positions (2·h·d_h·S) "
            "and the weighted sum of the values (2·h·d_h·S)."
        )
    if m.window is not None:
        text += " A windowed layer attends to min(S, S_win) positions instead of S."
    return text


def flops(sheet: Sheet, p: ModelProblem) -> None:
    m = p.transformer
    d, V, L = sym("d_model"), sym("vocab"), sym("layers")
    matmul_params = sym("params_active") - sym("params_embedding")
    if m.norm_kind is not Norm.NONE:  # a norm's scale multiplies elementwise: not a matmul
        matmul_params = matmul_params - L * sym("P_norm") - sym("P_final")
    if m.tied_embeddings:
        matmul_params = matmul_params + d * V
    pm = sheet.q("P_matmul", matmul_params, Unit.PARAMS)
    fm = sheet.q("flops_matmuls", 2 * sym("P_matmul"), Unit.FLOPS_PER_TOKEN)
    h = sym("heads")
    if m.is_mla:  # scores over the latent and the rope key, values over the latent
        per_position = 2 * h * (2 * sym("kv_lora_rank") + sym("qk_rope_head_dim"))
    else:
        per_position = 4 * h * sym("head_dim")
    fa = sheet.q("flops_attention", per_position * _positions(m), Unit.FLOPS_PER_TOKEN)
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
        + ". "
        + _attention_note(m)
        + " Biases count 2 each like any weight; norms, softmax and other elementwise work are "
        "not counted.",
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
    if m.is_mla:
        attention_rule = "2·h·(2·r_kv + d_R)·Σ_layers positions"
    else:
        attention_rule = "4·h·d_h·Σ_layers positions" if m.window is not None else "4·L·h·d_h·S"
    sheet.step(
        "FLOPs per token",
        f"F_token = 2·P_matmul (matmuls) + {attention_rule} (attention); P_matmul leaves out lookups and norms",
        "The forward pass of one token at context S, in two named parts.",
        pm,
        fm,
        fa,
        ft,
        f2n,
        notes=notes,
    )
