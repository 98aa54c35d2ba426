"""The notation of a model's derivation: one table, symbol → LaTeX → meaning.

Formulas are written in these symbols (``2·L·h_kv·d_h·w_kv``) and shown that way;
numbers are substituted for them only when a line is evaluated. The architecture's
symbols are positive but not integer, so they never collide with a user's dims
(which are positive integers): a field declared as the dim ``L`` is substituted for
the symbol ``L`` like any number. ``B`` and ``S`` are the dims of the problem itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.catalogue import Quantity
from derive.catalogue import table as q
from derive.declare.operator import dims


@dataclass(frozen=True)
class Notation:
    """One symbol: its key, LaTeX name and meaning."""

    key: str
    latex: str
    meaning: str
    symbol: sp.Symbol


batch, context = dims("B S")


def _notation(row: Quantity) -> tuple[str, str, str]:
    """A quantity of the catalogue as a row of this table: its name, symbol and meaning."""
    return row.name, row.latex, row.meaning


_TABLE: tuple[tuple[str, str, str], ...] = (
    # the architecture (fields of Transformer)
    ("layers", "L", "blocks"),
    ("d_model", "d", "width of the residual stream"),
    ("heads", "h", "query heads"),
    ("kv_heads", r"h_{\mathrm{kv}}", "key/value heads"),
    ("head_dim", r"d_{h}", "width of a head"),
    ("d_ff", "f", "hidden width of the MLP (one expert)"),
    ("vocab", "V", "vocabulary"),
    ("positions", r"n_{\mathrm{pos}}", "rows of the learned position table"),
    ("experts", "E", "routed experts per MoE layer"),
    ("top_k", "k", "routed experts active per token"),
    ("shared_experts", r"n_{s}", "shared experts every token uses (one MLP of width n_s·f)"),
    ("dense_layers", r"L_{\mathrm{dense}}", "blocks with a dense MLP instead of experts"),
    ("d_ff_dense", r"f_{\mathrm{dense}}", "hidden width of the dense layers' MLP"),
    ("d_ff_shared", r"f_{s}", "hidden width of the shared expert's MLP"),
    ("q_lora_rank", r"r_{q}", "rank of the query bottleneck (latent attention)"),
    ("kv_lora_rank", r"r_{\mathrm{kv}}", "rank of the cached key/value latent"),
    ("qk_rope_head_dim", r"d_{R}", "width of the decoupled rope key (and its query part)"),
    ("qk_nope_head_dim", r"d_{\mathrm{nope}}", "width of a head's query/key without rope"),
    ("v_head_dim", r"d_{v}", "width of a value head"),
    ("window", r"S_{\mathrm{win}}", "positions a windowed layer attends to"),
    ("windowed_layers", r"L_{\mathrm{win}}", "layers with sliding-window attention"),
    # per-block and global parameter counts
    ("P_attn", r"P_{\mathrm{attn}}", "attention parameters of one block"),
    ("P_mlp", r"P_{\mathrm{mlp}}", "MLP parameters of one block (all experts and the router)"),
    ("P_mlp_active", r"P_{\mathrm{mlp,act}}", "MLP parameters one token uses in one block"),
    ("P_norm", r"P_{\mathrm{norm}}", "norm parameters of one block"),
    ("P_block", r"P_{\mathrm{block}}", "parameters of one block"),
    ("P_block_active", r"P_{\mathrm{block,act}}", "parameters one token uses in one block"),
    ("P_mlp_dense", r"P_{\mathrm{mlp,dense}}", "MLP parameters of one dense block"),
    ("P_block_dense", r"P_{\mathrm{block,dense}}", "parameters of one dense block"),
    ("P_embed", r"P_{\mathrm{emb}}", "token embedding table"),
    ("P_pos", r"P_{\mathrm{pos}}", "position table"),
    ("P_head", r"P_{\mathrm{head}}", "untied output head"),
    ("P_final", r"P_{\mathrm{final}}", "final norm"),
    # the derived quantities (JSON keys; their notation is the catalogue's)
    _notation(q.PARAMS),
    _notation(q.PARAMS_ACTIVE),
    _notation(q.PARAMS_EMBEDDING),
    ("P_matmul", r"P_{\mathrm{matmul}}", "weights a token is multiplied by"),
    _notation(q.WEIGHTS_BYTES),
    _notation(q.KV_BYTES_PER_TOKEN),
    _notation(q.KV_BYTES),
    ("flops_matmuls", r"F_{\mathrm{matmul}}", "matmul FLOPs per token"),
    ("flops_attention", r"F_{\mathrm{attn}}", "attention FLOPs per token (scores and values)"),
    _notation(q.FLOPS_PER_TOKEN),
    ("flops_2n", r"F_{2N}", "the 2N shortcut"),
    _notation(q.MEMORY_TOTAL),
    _notation(q.MEMORY_PER_DEVICE),
    _notation(q.FITS),
    _notation(q.HEADROOM_PER_DEVICE),
    _notation(q.MAX_BATCH),
    _notation(q.MAX_CONTEXT),
    _notation(q.MIN_DEVICES),
    _notation(q.TRAIN_STATE_BYTES),
    _notation(q.TRAIN_FLOPS),
    _notation(q.TRAIN_SECONDS),
    _notation(q.TRAIN_DAYS),
    _notation(q.MFU),
    _notation(q.COST_OF_RUN),
    _notation(q.ENERGY_OF_RUN),
    _notation(q.ENERGY_PER_TOKEN),
    _notation(q.COST_PER_MILLION_TOKENS),
    # hardware, dtypes and the run
    ("capacity", "C", "HBM capacity per device"),
    ("devices", "N", "devices"),
    ("tp", r"N_{\mathrm{tp}}", "devices of one tensor-parallel group (a data-parallel replica)"),
    (
        "kv_ways",
        r"N_{\mathrm{kv}}",
        "devices one copy of the KV cache is split over (a KV head each)",
    ),
    ("kv_copies", r"n_{\mathrm{kv}}", "copies of the KV cache over the devices, N/N_kv"),
    ("peak", r"\pi", "dense peak per device"),
    ("w_weights", r"w_{W}", "bytes per weight"),
    ("w_kv", r"w_{\mathrm{kv}}", "bytes per KV-cache element"),
    ("state_bytes", r"s", "training-state bytes per parameter"),
    (q.TOKENS.name, "D", "training tokens"),
    ("mfu_given", r"\eta", "model FLOPs utilisation assumed"),
    (q.TOKENS_PER_S.name, r"r", "measured tokens per second per device"),
    ("price", r"p_{\mathrm{h}}", "price per device-hour ($/h)"),
    ("power", r"W_{\mathrm{dev}}", "power per device (W)"),
)

NOTATION: dict[str, Notation] = {
    key: Notation(key, latex, meaning, sp.Symbol(key, positive=True))
    for key, latex, meaning in _TABLE
}


def sym(key: str | Quantity) -> sp.Symbol:
    """The symbol of a notation key or a catalogue row (``sym("layers")`` is shown as ``L``,
    ``sym(table.PARAMS)`` as ``P``)."""
    if isinstance(key, Quantity):
        key = key.name
    if key == "B":
        return batch
    if key == "S":
        return context
    return NOTATION[key].symbol


def tex_names() -> dict[sp.Symbol, str]:
    """Symbol → LaTeX name, for sympy's printer."""
    return {n.symbol: n.latex for n in NOTATION.values()}
