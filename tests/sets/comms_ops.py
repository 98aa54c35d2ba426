"""Operators for the comms set: a tensor-parallel all-reduce alone, and an all-gather then a
reduce-scatter (sequence parallelism), both over a group of P devices and no compute."""

from derive import Collective, Operator, Tensor, dims

B, F, P = dims("B F P")

tp_all_reduce = Operator(
    name="tp_all_reduce",
    flops=0,
    comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=P)],
    doc="The all-reduce of a tensor-parallel matmul's partial output Y[B,F] over P devices.",
)

sp_gather_scatter = Operator(
    name="sp_gather_scatter",
    flops=0,
    comms=[
        Collective("all_gather", Tensor("X", (B, F)), group=P),
        Collective("reduce_scatter", Tensor("Z", (B, F)), group=P),
    ],
    doc="Sequence parallelism: all-gather X[B,F] before a block, reduce-scatter Z[B,F] after it.",
)
