"""Contractions: matmul (dense, per-example, grouped, mixture-of-experts, sharded), dot, matvec.

FLOP convention throughout: 2 FLOPs per multiply-accumulate (one multiply, one
add), so a [B,D]·[D,F] product is 2BDF; the exact count 2BDF − BF (the first
product of each output needs no add) is not used (Scaling Book, "All About
Rooflines"). The one exception is ``dot``, counted exactly as 2N − 1 (N
multiplies, N − 1 adds), matching the usual textbook count for a dot product.

``moe_matmul`` reads all E experts' weights: the worst case, where the batch's
top-k routing touches every expert. ``matmul_sharded`` is per chip: the
contraction D is split over P chips, and each chip sends its partial sum Z[B,F]
over the interconnect once (the Scaling Book's network roofline counts the bytes
of the partial result each chip sends; the reduce's adds are not counted).

Byte widths are not declared here: each tensor gets a width
symbol ``w_<name>`` bound later by a dtype.
"""

from derive import Operator, Tensor, dims

B, D, F, G, E, k, P = dims("B D F G E k P")
M, N = dims("M N")

matmul = Operator(
    name="matmul",
    flops=2 * B * D * F,
    reads=[Tensor("X", (B, D)), Tensor("Y", (D, F))],
    writes=[Tensor("Z", (B, F))],
    doc="Z[B,F] = X[B,D]·Y[D,F]; 2 FLOPs per multiply-accumulate (one multiply and one add), "
    "as the Scaling Book's “All About Rooflines” counts; FLOPs 2BDF, not the exact 2BDF − BF.",
)

matmul_per_example = Operator(
    name="matmul_per_example",
    flops=2 * B * D * F,
    reads=[Tensor("X", (B, D)), Tensor("Y", (B, D, F))],
    writes=[Tensor("Z", (B, F))],
    doc="Z[b,F] = X[b,D]·Y[b,D,F], a separate weight matrix per batch element; "
    "2 FLOPs per multiply-accumulate (Scaling Book, “All About Rooflines”); FLOPs 2BDF.",
)

matmul_grouped = Operator(
    name="matmul_grouped",
    flops=2 * B * D * F,
    reads=[Tensor("X", (B, D)), Tensor("Y", (G, D, F))],
    writes=[Tensor("Z", (B, F))],
    doc="Z[b,F] = X[b,D]·Y[g(b),D,F], G weight groups with each example using one group; "
    "all G groups are read; 2 FLOPs per multiply-accumulate (Scaling Book, “All About Rooflines”); "
    "FLOPs 2BDF.",
)

moe_matmul = Operator(
    name="moe_matmul",
    flops=2 * k * B * D * F,
    reads=[Tensor("X", (B, D)), Tensor("W", (E, D, F))],
    writes=[Tensor("Y", (B, k, F))],
    doc="Y[b,j,F] = X[b,D]·W[e_j(b),D,F] for each example's top-k of E experts; "
    "2 FLOPs per multiply-accumulate; FLOPs 2kBDF; "
    "bytes are the worst case where all E experts' weights are read.",
)

matmul_sharded = Operator(
    name="matmul_sharded",
    flops=2 * B * D * F / P,
    reads=[Tensor("X", (B, D / P)), Tensor("Y", (D / P, F))],
    writes=[Tensor("Z", (B, F))],
    comms=[Tensor("Z", (B, F))],
    doc="Per chip of P with the contraction D split: Z[B,F] partial = X[B,D/P]·Y[D/P,F]; "
    "2 FLOPs per multiply-accumulate; FLOPs 2BDF/P; "
    "comms one send of the partial Z per chip, as the Scaling Book network roofline counts it.",
)

dot = Operator(
    name="dot",
    flops=2 * N - 1,
    reads=[Tensor("x", (N,)), Tensor("y", (N,))],
    writes=[Tensor("z", ())],
    doc="z = x[N]·y[N], a scalar; counted exactly, one FLOP per multiply and one per add; "
    "FLOPs 2N − 1: N multiplies and N − 1 adds.",
)

matvec = Operator(
    name="matvec",
    flops=2 * M * N,
    reads=[Tensor("A", (M, N)), Tensor("x", (N,))],
    writes=[Tensor("y", (M,))],
    doc="y[M] = A[M,N]·x[N]; 2 FLOPs per multiply-accumulate (one multiply and one add), "
    "as the Scaling Book's “All About Rooflines” counts; FLOPs 2MN, not the exact 2MN − M.",
)
