"""Composite layers built from the other operator files' declarations.

``transformer_block``: one pre-norm transformer block, per token batch B with
model width d (``d_model``), MLP width f (``d_ff``), T query and S key positions,
N query heads, K KV heads of size H: layernorm, QKV projections, fused attention,
output projection, layernorm, gated MLP (gate, up, down) and the residual adds.
The MLP's down projection reads the up projection's output; declared fused, that
intermediate stays on chip. ``decode_step_70b`` is one decode step of a
70B-class model's block (Llama-2-70B shapes: d = 8192, f = 28672, 64 heads of 128,
8 KV heads) with the KV cache of S positions read by attention.
"""

from pathlib import Path

from derive import Composite, dims
from derive.declare.registry import load_operator_file


def _load(name):
    return load_operator_file(
        Path(__file__).with_name(f"{name}.py")
    )  # the registry's own module when it is loading


_mm, _att, _norm, _ew = _load("matmul"), _load("attention"), _load("norms"), _load("elementwise")
_B, _D, _F = _mm.B, _mm.D, _mm.F
B, d_model, d_ff, T, S, N, K, H = dims("B d_model d_ff T S N K H")

transformer_block = Composite(
    name="transformer_block",
    parts=[
        (
            "norm1",
            _norm.layernorm,
            {_norm.layernorm.dims[0]: B * T, _norm.layernorm.dims[1]: d_model},
        ),
        ("q_proj", _mm.matmul, {_B: B * T, _D: d_model, _F: N * H}),
        ("kv_proj", _mm.matmul, {_B: B * T, _D: d_model, _F: 2 * K * H}),
        ("attn", _att.attention, {d: e for d, e in zip(_att.attention.dims, (B, T, N, H, S, K))}),
        ("o_proj", _mm.matmul, {_B: B * T, _D: N * H, _F: d_model}),
        ("residual1", _ew.vector_add, {_ew.vector_add.dims[0]: B * T * d_model}),
        (
            "norm2",
            _norm.layernorm,
            {_norm.layernorm.dims[0]: B * T, _norm.layernorm.dims[1]: d_model},
        ),
        ("gate", _mm.matmul, {_B: B * T, _D: d_model, _F: d_ff}),
        ("up", _mm.matmul, {_B: B * T, _D: d_model, _F: d_ff}),
        ("act", _ew.relu, {_ew.relu.dims[0]: B * T * d_ff}),
        ("down", _mm.matmul, {_B: B * T, _D: d_ff, _F: d_model}),
        ("residual2", _ew.vector_add, {_ew.vector_add.dims[0]: B * T * d_model}),
    ],
    fused=[("up", "act"), ("act", "down")],
    doc="Pre-norm transformer block, 12 parts: norms, Q/KV/O projections, fused attention, gated MLP, residual adds; "
    "up, activation and down fused (the activation's input and output stay on chip); each part keeps its own FLOP convention.",
)

decode_step_70b = Composite(
    name="decode_step_70b",
    parts=[
        ("norm1", _norm.layernorm, {_norm.layernorm.dims[0]: B, _norm.layernorm.dims[1]: 8192}),
        ("q_proj", _mm.matmul, {_B: B, _D: 8192, _F: 8192}),
        ("kv_proj", _mm.matmul, {_B: B, _D: 8192, _F: 2 * 8 * 128}),
        (
            "attn",
            _att.attention,
            {d: e for d, e in zip(_att.attention.dims, (B, 1, 64, 128, S, 8))},
        ),
        ("o_proj", _mm.matmul, {_B: B, _D: 8192, _F: 8192}),
        ("residual1", _ew.vector_add, {_ew.vector_add.dims[0]: B * 8192}),
        ("norm2", _norm.layernorm, {_norm.layernorm.dims[0]: B, _norm.layernorm.dims[1]: 8192}),
        ("gate", _mm.matmul, {_B: B, _D: 8192, _F: 28672}),
        ("up", _mm.matmul, {_B: B, _D: 8192, _F: 28672}),
        ("act", _ew.relu, {_ew.relu.dims[0]: B * 28672}),
        ("down", _mm.matmul, {_B: B, _D: 28672, _F: 8192}),
        ("residual2", _ew.vector_add, {_ew.vector_add.dims[0]: B * 8192}),
    ],
    fused=[("up", "act"), ("act", "down")],
    doc="One decode step (one new token per sequence) of one block of a 70B-class model (Llama-2-70B shapes: d_model 8192, "
    "d_ff 28672, 64 query heads and 8 KV heads of 128); B sequences, KV cache of S positions; up, activation and down fused.",
)
