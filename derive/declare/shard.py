"""One operator's sharding: a dim split over a group of devices (``--shard "F:8"``).

:func:`shard_operator` declares the operator one device of the group runs: every tensor
holding the dim holds ``dim/P`` of it, the FLOPs are the operator's with ``dim/P`` (so 2BDF/P
for a matmul split on F or on D), and the collective that rebuilds the result is a comms
tensor: an **all-gather** of the output when the dim is one of the output's (column
parallel: each device holds a slice of Z), an **all-reduce** of the output when it is
contracted away (row parallel: each device holds a partial sum of Z; a reduce-scatter when the
output may stay sharded). One output tensor is assumed (Megatron's column/row-parallel linear).

>>> from derive.declare.operator import dims
>>> B, D, F = dims("B D F")
>>> mm = Operator("mm", 2 * B * D * F, [Tensor("X", (B, D)), Tensor("Y", (D, F))], [Tensor("Z", (B, F))])
>>> op = shard_operator(mm, "F", 8)
>>> op.flops, [t.shape for t in op.reads], op.comms[0].kind.value
(B*D*F/4, [(B, D), (D, F/8)], 'all_gather')
>>> shard_operator(mm, "D", 8).comms[0].kind.value
'all_reduce'
"""

from __future__ import annotations

import re

import sympy as sp

from derive.declare.collective import Collective, CollectiveKind
from derive.declare.operator import Operator, Tensor
from derive.errors import ProblemError

_SHARD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(\d{1,6})\s*")


def parse_shard(text: str, flag: str = "--shard") -> tuple[str, int]:
    """``"F:8"`` → ``("F", 8)``.

    Raises:
        ProblemError: not DIM:P, or a group below 2.
    """
    found = _SHARD.fullmatch(str(text))
    if found is None:
        raise ProblemError(f"{flag} {text!r}", "write DIM:P, a dim and a group, e.g. F:8")
    group = int(found.group(2))
    if group < 2:
        raise ProblemError(f"{flag} {text!r}", "a group is at least 2 devices")
    return found.group(1), group


def _dim(op: Operator, name: str) -> sp.Symbol:
    dims = {str(d): d for d in op.dims}
    if name not in dims:
        raise ProblemError(
            f"--shard {name}", f"{op.name} has no dim {name!r} (its dims: {', '.join(dims)})"
        )
    return dims[name]


def collective_of(op: Operator, name: str) -> CollectiveKind:
    """All-gather when the dim is the output's, all-reduce when it is contracted away."""
    dim = _dim(op, name)
    (out,) = op.writes[:1] or (None,)
    if out is None or len(op.writes) != 1:
        raise ProblemError(f"--shard {name}", f"{op.name} does not write one output tensor")
    return (
        CollectiveKind.ALL_GATHER if dim in out.elements.free_symbols else CollectiveKind.ALL_REDUCE
    )


def _split(tensor: Tensor, dim: sp.Symbol, group: int) -> Tensor:
    shape = tuple(e.xreplace({dim: dim / group}) for e in tensor.shape)  # exprs once declared
    return Tensor(tensor.name, shape, tensor.doc, tensor.width)


def shard_operator(op: Operator, name: str, group: int) -> Operator:
    """The operator one device of a group of ``group`` runs with dim ``name`` split.

    Raises:
        ProblemError: an unknown dim, an operator without one output, or one that already
            communicates.
    """
    dim = _dim(op, name)
    kind = collective_of(op, name)
    if op.comms:
        raise ProblemError(f"--shard {name}:{group}", f"{op.name} already communicates")
    out = op.writes[0]
    rebuilt = Tensor(out.name, out.shape, out.doc, out.width)
    action = (
        "all-gather of the output slices"
        if kind is CollectiveKind.ALL_GATHER
        else ("all-reduce of the partial outputs")
    )
    return Operator(
        name=f"{op.name}_{name}{group}",
        flops=sp.expand(op.flops.xreplace({dim: dim / group})),
        reads=tuple(_split(t, dim, group) for t in op.reads),
        writes=tuple(_split(t, dim, group) for t in op.writes),
        comms=(Collective(kind, rebuilt, group),),
        doc=f"{op.name} with {name} split over {group} devices (one device's share), then an "
        f"{action} over the group. {op.doc}",
    )
