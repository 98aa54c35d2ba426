"""A collective in the Scaling Book's notation, read into an operator that only communicates.

``AllGather_y(A[E_y, F])``, ``ReduceScatter_x(A[B, F]{U_x})``, ``AllReduce_z(A[B_x, D_y]{U_z})``,
``AllToAll_x(A[B_x, N] -> A[B, N_x])``: the kind, the mesh axes it runs over (a subscript of
one or more axes, ``_xy`` or ``_{xy}``), the tensor with each dim's sharding, ``{U_x}`` a sum
still unreduced over x. The :class:`~derive.declare.collective.Collective` is over the tensor
one device holds along the collective's axes (each dim divided by its other axes' sizes), as
derive declares one: gathered, before a reduction, or whole for an all-to-all.
"""

from __future__ import annotations

import re

import sympy as sp

from derive.declare.collective import Collective, CollectiveKind
from derive.declare.operator import Operator, Tensor, dims
from derive.errors import ProblemError
from derive.problem.mesh import Mesh

__all__ = ["parse_collective"]

_KINDS = {
    "AllGather": CollectiveKind.ALL_GATHER,
    "ReduceScatter": CollectiveKind.REDUCE_SCATTER,
    "AllReduce": CollectiveKind.ALL_REDUCE,
    "AllToAll": CollectiveKind.ALL_TO_ALL,
}
_SUB = r"_(?:\{(\w+)\}|(\w+))"
_CALL = re.compile(
    rf"\s*(\w+?){_SUB}\s*\(\s*([A-Za-z]\w*)\s*\[([^\]]*)\]\s*(\{{[^}}]*\}})?\s*(->[^)]*)?\)\s*"
)
_DIM = re.compile(rf"\s*([A-Za-z][A-Za-z0-9]*?)(?:{_SUB})?\s*")
_WHERE = "--collective"


def _axes(text: str, mesh: Mesh) -> tuple[str, ...]:
    """``xy`` → (x, y): one axis by its name, else one letter per axis."""
    names = [a.name for a in mesh.axes]
    chosen = (text,) if text in names else tuple(text)
    missing = [a for a in chosen if a not in names]
    if missing:
        raise ProblemError(_WHERE, f"axis {missing[0]!r} is not the mesh's ({', '.join(names)})")
    return chosen


def parse_collective(text: str, mesh: Mesh | None) -> Operator:
    """The operator of one collective in the book's notation, on ``mesh``.

    >>> from derive.problem.mesh import parse_mesh
    >>> op = parse_collective("AllGather_y(A[E_y, F])", parse_mesh("x=2@1e9,y=4@1e9"))
    >>> c = op.comms[0]
    >>> c.kind.value, c.shape, c.group, c.axes
    ('all_gather', (E, F), 4, ('y',))
    """
    match = _CALL.fullmatch(text)
    if mesh is None:
        raise ProblemError(_WHERE, "its axes are a mesh's: give --mesh")
    if match is None or match.group(1) not in _KINDS:
        raise ProblemError(
            _WHERE,
            f"{text!r} is not Kind_axes(A[dims]) with Kind one of {', '.join(_KINDS)}, "
            "e.g. AllGather_y(A[E_y, F])",
        )
    kind_text, braced, bare, name, dims_text, unreduced, _ = match.groups()
    kind, axes = _KINDS[kind_text], _axes(braced or bare, mesh)
    sizes = {a.name: a.size for a in mesh.axes}
    shape: list[sp.Expr] = []
    sharded: set[str] = set()
    for part in dims_text.split(","):
        dim = _DIM.fullmatch(part)
        if dim is None:
            raise ProblemError(_WHERE, f"dim {part.strip()!r} is not a name with axes, e.g. E_y")
        on = _axes(dim.group(2) or dim.group(3), mesh) if dim.group(2) or dim.group(3) else ()
        sharded.update(on)
        divisor = sp.Mul(*(sizes[a] for a in on if a not in axes))
        shape.append(dims(dim.group(1))[0] / divisor)
    wants_sum = kind in (CollectiveKind.REDUCE_SCATTER, CollectiveKind.ALL_REDUCE)
    if wants_sum and (
        unreduced is None or set(_axes(unreduced.strip("{}")[2:].strip("{}"), mesh)) != set(axes)
    ):
        raise ProblemError(
            _WHERE, f"{kind_text} sums over {''.join(axes)}: mark it {{U_{''.join(axes)}}}"
        )
    if not wants_sum and not set(axes) <= sharded:
        raise ProblemError(
            _WHERE, f"{kind_text}_{''.join(axes)} needs a dim sharded on {''.join(axes)}"
        )
    group = sp.Mul(*(sizes[a] for a in axes))
    collective = Collective(kind, Tensor(name, tuple(shape)), int(group), axes=axes)
    return Operator(name="collective", flops=0, comms=(collective,))
