"""A teacher's own operators: a fused RMSNorm with a one-byte scale fixed in the declaration."""

from derive import Operator, Tensor, dims

T, d = dims("T d")

rmsnorm_scaled = Operator(
    name="rmsnorm_scaled",
    flops=4 * T * d,
    reads=[Tensor("x", (T, d)), Tensor("scale", (d,), width=1)],
    writes=[Tensor("y", (T, d))],
    doc="RMSNorm of x[T,d] with a per-channel scale stored in one byte; FLOPs 4Td.",
)
