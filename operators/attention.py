"""Attention with grouped KV heads: fused (flash-style) and materialized.

Shapes: queries q[B,T,N,H], keys and values k, v[B,S,K,H] with K KV heads
shared by the N query heads (N a multiple of K; K = N is multi-head, K = 1 is
multi-query), output o[B,T,N,H].

FLOP convention: 4BTSNH, the two contractions only: scores QKᵀ (2BTSNH) and
probabilities·V (2BTSNH), 2 FLOPs per multiply-accumulate. Softmax FLOPs (max,
subtract, exp, sum, divide: O(BNTS), a factor ~H smaller) are not counted in
either operator, so the two differ only in memory traffic.

``attention`` is fused: scores and probabilities stay on chip, so it reads
q, k, v and writes o. ``attention_materialized`` writes the scores s[B,N,T,S]
to memory and reads them back for the softmax, then writes the probabilities
p[B,N,T,S] and reads them back for the PV product. Byte widths are not
declared here: each tensor gets a width symbol ``w_<name>`` bound later by a
dtype.
"""

from derive import Operator, Tensor, dims

B, T, S, N, K, H = dims("B T S N K H")

attention = Operator(
    name="attention",
    flops=4 * B * T * S * N * H,
    reads=[Tensor("q", (B, T, N, H)), Tensor("k", (B, S, K, H)), Tensor("v", (B, S, K, H))],
    writes=[Tensor("o", (B, T, N, H))],
    doc="Fused (flash-style) o = softmax(q·kᵀ)·v with K grouped KV heads, scores kept on chip; "
    "2 FLOPs per multiply-accumulate in QKᵀ and PV, softmax not counted; "
    "FLOPs 4BTSNH: QKᵀ 2BTSNH + PV 2BTSNH.",
)

attention_materialized = Operator(
    name="attention_materialized",
    flops=4 * B * T * S * N * H,
    reads=[
        Tensor("q", (B, T, N, H)),
        Tensor("k", (B, S, K, H)),
        Tensor("v", (B, S, K, H)),
        Tensor("s", (B, N, T, S)),
        Tensor("p", (B, N, T, S)),
    ],
    writes=[Tensor("s", (B, N, T, S)), Tensor("p", (B, N, T, S)), Tensor("o", (B, T, N, H))],
    doc="Unfused o = softmax(q·kᵀ)·v with K grouped KV heads, scores s and probabilities p[B,N,T,S] each written "
    "and read back; 2 FLOPs per multiply-accumulate in QKᵀ and PV, softmax not counted "
    "(as in attention); FLOPs 4BTSNH: QKᵀ 2BTSNH + PV 2BTSNH.",
)
