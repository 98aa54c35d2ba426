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
from dataclasses import dataclass

import sympy as sp

from derive.declare.collective import Collective, CollectiveKind
from derive.declare.operator import Operator, Tensor, dims
from derive.errors import ProblemError
from derive.problem.mesh import Mesh

_KINDS = {
    "AllGather": CollectiveKind.ALL_GATHER,
    "ReduceScatter": CollectiveKind.REDUCE_SCATTER,
    "AllReduce": CollectiveKind.ALL_REDUCE,
    "AllToAll": CollectiveKind.ALL_TO_ALL,
}
_SUB = r"_(?:\{(\w+)\}|(\w+))"
_CALL = re.compile(rf"\s*(\w+?){_SUB}\s*\(([^\]]*\][^-)]*)(->[^)]*)?\)\s*")
_TENSOR = re.compile(r"\s*([A-Za-z]\w*)\s*\[([^\]]*)\]\s*(\{[^}]*\})?\s*")
_DIM = re.compile(rf"\s*([A-Za-z][A-Za-z0-9]*?)(?:{_SUB})?\s*")
_WHERE = "--collective"
_SEND = re.compile(
    rf"\s*Send(?:{_SUB})?\s*\(([^\]]*\][^,)]*)(?:,\s*hops\s*=\s*(\d{{1,6}}))?\s*\)\s*"
)


@dataclass(frozen=True)
class TensorSpec:
    """A tensor in the book's notation: each dim with the mesh axes it is sharded on, and the
    axes a sum is still unreduced over (``A[B_x, D_y]{U_z}``)."""

    name: str
    dims: tuple[tuple[str, tuple[str, ...]], ...]
    unreduced: tuple[str, ...] = ()

    def local(self, mesh: Mesh, but: tuple[str, ...] = ()) -> tuple[sp.Expr, ...]:
        """Its shape on one device: each dim over the sizes of its axes (but ``but``'s)."""
        size = {a.name: a.size for a in mesh.axes}
        return tuple(
            dims(d)[0] / sp.Mul(*(size[a] for a in on if a not in but)) for d, on in self.dims
        )

    def text(self) -> str:
        """``A[B_x, D]``, as the book writes it."""
        return f"{self.name}[{', '.join(d + _sub(on) for d, on in self.dims)}]"


def _sub(axes: tuple[str, ...]) -> str:
    """``_x``, ``_{xy}``, or nothing for no axes."""
    return f"_{{{''.join(axes)}}}" if len(axes) > 1 else f"_{axes[0]}" if axes else ""


def _axes(text: str, mesh: Mesh, where: str = _WHERE) -> tuple[str, ...]:
    """``xy`` → (x, y): one axis by its name, else one letter per axis."""
    names = [a.name for a in mesh.axes]
    chosen = (text,) if text in names else tuple(text)
    missing = [a for a in chosen if a not in names]
    if missing:
        raise ProblemError(where, f"axis {missing[0]!r} is not the mesh's ({', '.join(names)})")
    return chosen


def parse_tensor(text: str, mesh: Mesh | None, where: str = _WHERE) -> TensorSpec:
    """``A[B_x, D_{yz}]{U_w}`` read on ``mesh``.

    >>> from derive.problem.mesh import parse_mesh
    >>> parse_tensor("X[B_x, D]", parse_mesh("x=2@1e9")).dims
    (('B', ('x',)), ('D', ()))
    """
    match = _TENSOR.fullmatch(text)
    if mesh is None:
        raise ProblemError(where, "its axes are a mesh's: give --mesh")
    if match is None:
        raise ProblemError(where, f"{text.strip()!r} is not a tensor A[dims], e.g. A[B_x, D]")
    name, dims_text, unreduced = match.groups()
    shards: list[tuple[str, tuple[str, ...]]] = []
    for part in dims_text.split(","):
        dim = _DIM.fullmatch(part)
        if dim is None:
            raise ProblemError(where, f"dim {part.strip()!r} is not a name with axes, e.g. E_y")
        on = dim.group(2) or dim.group(3)
        shards.append((dim.group(1), _axes(on, mesh, where) if on else ()))
    sums = _axes(unreduced.strip("{}")[2:].strip("{}"), mesh, where) if unreduced else ()
    return TensorSpec(name, tuple(shards), sums)


def collective(
    kind: CollectiveKind,
    spec: TensorSpec,
    axes: tuple[str, ...],
    mesh: Mesh,
    overlap: bool = False,
) -> Collective:
    """The collective over ``axes`` of ``spec`` as one device holds it along them: the one
    declaration both notations (``--collective``, a sharded operator's, which overlaps its
    compute as the book's strategies do) are timed by."""
    group = sp.Mul(*(a.size for a in mesh.axes if a.name in axes))
    local = Tensor(spec.name, spec.local(mesh, axes))
    return Collective(kind, local, int(group), axes=axes, overlap=overlap)


def book_text(kind: CollectiveKind, spec: TensorSpec, axes: tuple[str, ...]) -> str:
    """``AllReduce_x(Z[B, F]{U_x})``: a collective as the book writes it."""
    sums = f"{{U{_sub(spec.unreduced)}}}" if spec.unreduced else ""
    return f"{next(k for k, v in _KINDS.items() if v is kind)}{_sub(axes)}({spec.text()}{sums})"


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
    if (send := _SEND.fullmatch(text)) is not None:  # Send[_x](A[E, F], hops=6): point to point
        braced, bare, tensor, hops = send.groups()
        axes = _axes(braced or bare, mesh) if braced or bare else (mesh.axes[-1].name,)
        if hops is not None and int(hops) < 1:
            raise ProblemError(_WHERE, f"{text.strip()!r}: hops is at least 1")
        spec = parse_tensor(tensor, mesh)
        sent = Collective(CollectiveKind.SEND, Tensor(spec.name, spec.local(mesh)), 2, axes=axes,
                          hops=int(hops or 1))  # fmt: skip
        return Operator(f"send_{spec.name}", sp.Integer(0), (), (), (sent,), text.strip())
    if match is None or match.group(1) not in _KINDS:
        raise ProblemError(
            _WHERE,
            f"{text!r} is not Kind_axes(A[dims]) with Kind one of {', '.join(_KINDS)}, "
            "e.g. AllGather_y(A[E_y, F]), or Send(A[dims], hops=N)",
        )
    kind_text, braced, bare, tensor, _ = match.groups()
    kind, axes = _KINDS[kind_text], _axes(braced or bare, mesh)
    spec = parse_tensor(tensor, mesh)
    wants_sum = kind in (CollectiveKind.REDUCE_SCATTER, CollectiveKind.ALL_REDUCE)
    if wants_sum and set(spec.unreduced) != set(axes):
        raise ProblemError(
            _WHERE, f"{kind_text} sums over {''.join(axes)}: mark it {{U_{''.join(axes)}}}"
        )
    if not wants_sum and not set(axes) <= {a for _, on in spec.dims for a in on}:
        raise ProblemError(
            _WHERE, f"{kind_text}_{''.join(axes)} needs a dim sharded on {''.join(axes)}"
        )
    return Operator(name="collective", flops=0, comms=(collective(kind, spec, axes, mesh),))
