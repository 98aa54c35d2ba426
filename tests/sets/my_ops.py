"""Operators for the unseen problem set: a gated MLP up-projection and a KV-cache read."""

from derive import Operator, Tensor, dims

T, d_model, d_ff, S, H = dims("T d_model d_ff S H")

gated_up = Operator(
    name="gated_up",
    flops=2 * 2 * T * d_model * d_ff,
    reads=[
        Tensor("x", (T, d_model)),
        Tensor("w_gate", (d_model, d_ff)),
        Tensor("w_up", (d_model, d_ff)),
    ],
    writes=[Tensor("h", (T, d_ff))],
    doc="Gate and up projections of a gated MLP, x[T,d_model] times two [d_model,d_ff] weights; FLOPs 2 per multiply-accumulate.",
)

kv_read = Operator(
    name="kv_read",
    flops=4 * T * S * H,
    reads=[Tensor("q", (T, H)), Tensor("kv", (2, S, H))],
    writes=[Tensor("o", (T, H))],
    doc="Decode attention over a KV cache of S positions for T query tokens; FLOPs 4TSH (softmax not counted).",
)
