"""Normalisations: layernorm over the last axis.

FLOP convention for ``layernorm`` (y = (x − mean)·rsqrt(var + eps)·gamma + beta,
row-wise over D): 7 FLOPs per element of x[B,D], counted explicitly as

1. accumulate the row sum for the mean (1 add),
2. subtract the mean (1 subtract),
3. square the centred value (1 multiply),
4. accumulate the row sum of squares for the variance (1 add),
5. multiply by the row's rsqrt(var + eps) (1 multiply),
6. scale by gamma (1 multiply),
7. shift by beta (1 add),

giving 7BD. The per-row work (two divisions by D, adding eps, one rsqrt) is
O(B), not O(BD), and is dropped. Byte widths are not declared here: each tensor
gets a width symbol ``w_<name>`` bound later by a dtype.
"""

from derive import Operator, Tensor, dims

B, D = dims("B D")

layernorm = Operator(
    name="layernorm",
    flops=7 * B * D,
    reads=[Tensor("x", (B, D)), Tensor("gamma", (D,)), Tensor("beta", (D,))],
    writes=[Tensor("y", (B, D))],
    doc="y[B,D] = (x − mean)·rsqrt(var + eps)·gamma + beta per row; one FLOP per element for "
    "each of the mean's add, the subtract, the square, the variance's add, the rsqrt multiply, "
    "the gamma multiply and the beta add, the per-row divisions by D and rsqrt (O(B)) dropped; "
    "FLOPs 7BD.",
)
