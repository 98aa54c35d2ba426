"""Elementwise vector operators: vector_add and relu.

FLOP convention: one FLOP per output element for each arithmetic operation or
comparison (an add is 1 FLOP, a max against zero is 1 FLOP). Byte widths are
not declared here: each tensor gets a width symbol ``w_<name>`` bound later by
a dtype.
"""

from derive import Operator, Tensor, dims

(N,) = dims("N")

vector_add = Operator(
    name="vector_add",
    flops=N,
    reads=[Tensor("x", (N,)), Tensor("y", (N,))],
    writes=[Tensor("z", (N,))],
    doc="z[N] = x[N] + y[N]; one FLOP per add; FLOPs N.",
)

relu = Operator(
    name="relu",
    flops=N,
    reads=[Tensor("x", (N,))],
    writes=[Tensor("y", (N,))],
    doc="y[N] = max(x[N], 0); the max against zero counted as one FLOP; FLOPs N.",
)
