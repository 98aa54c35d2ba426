"""The parallel dims of a training run placed on the axes of a mesh.

The mesh is :mod:`derive.problem.mesh` (``--mesh``; without it one axis of every device at
``--link-bandwidth`` or the chip's link, a one-way ring). A placement puts each parallel dim
(:data:`PARALLEL_DIMS`: tp, cp, ep, pp and dp, where ``dp`` is the data-parallel replicas
outside an expert group, ``dp/ep``) over one or more axes, or over a divisor of one:
``--place tp=gpu,dp=node``, ``dp=gpu*node`` for a dim over two axes. Dims not placed fill what
is left from the innermost axis out in the order of :data:`PARALLEL_DIMS`. Each dim's group is
then a tuple of :class:`~derive.analysis.network.Level` (g_i devices over an axis), innermost
first, timed by the one communication model, :mod:`derive.analysis.network`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.analysis.network import Level
from derive.errors import ProblemError
from derive.problem.mesh import Mesh

PARALLEL_DIMS = ("tp", "cp", "ep", "pp", "dp")
"""The parallel dims, in the order the default placement fills the axes from the innermost."""


@dataclass(frozen=True)
class Placement:
    """Each parallel dim's group as levels over the mesh, innermost first."""

    mesh: Mesh
    dims: tuple[tuple[str, tuple[Level, ...]], ...]

    def levels(self, *dims: str) -> tuple[Level, ...]:
        """The group spanned by ``dims`` together (one level per axis, innermost first)."""
        sizes = {a.name: 1 for a in self.mesh.axes}
        for dim, levels in self.dims:
            if dim in dims:
                for level in levels:
                    sizes[level.axis.name] *= level.size
        return tuple(Level(a, sizes[a.name]) for a in self.mesh.axes if sizes[a.name] > 1)

    def text(self) -> str:
        """``tp=gpu,dp=gpu:2*node``: each dim over its axes (``:g`` for part of an axis)."""

        def axis(lv: Level) -> str:
            return lv.axis.name + ("" if lv.size == lv.axis.size else f":{lv.size}")

        return ",".join(f"{dim}=" + "*".join(map(axis, lvs)) for dim, lvs in self.dims if lvs)


def _parse_place(text: str, mesh: Mesh, where: str) -> dict[str, list[tuple[str, int | None]]]:
    """``tp=gpu:4,dp=gpu:2*node`` → each dim's axes, innermost first, with a size or None."""
    names = [a.name for a in mesh.axes]
    out: dict[str, list[tuple[str, int | None]]] = {}
    for part in text.split(","):
        dim, eq, axes = part.partition("=")
        dim = dim.strip()
        if not eq or dim not in PARALLEL_DIMS:
            raise ProblemError(
                where,
                f"{part.strip()!r} is not dim=axis with dim one of {', '.join(PARALLEL_DIMS)}",
            )
        if dim in out:
            raise ProblemError(where, f"{dim} is placed twice")
        chosen: list[tuple[str, int | None]] = []
        for token in axes.split("*"):
            axis, colon, size = token.strip().partition(":")
            if axis not in names:
                raise ProblemError(
                    where, f"{dim} on {axis!r}: the mesh's axes are {', '.join(names)}"
                )
            if colon and not re.fullmatch(r"\s*\d{1,9}\s*", size):
                raise ProblemError(where, f"{dim} on {token.strip()!r}: axis:size, e.g. gpu:4")
            chosen.append((axis, int(size) if colon else None))
        if len({axis for axis, _ in chosen}) != len(chosen):
            raise ProblemError(where, f"{dim} names an axis twice")
        out[dim] = sorted(chosen, key=lambda item: names.index(item[0]))
    return out


def _take(
    dim: str,
    degree: int,
    axes: list[int],
    room: dict[str, int],
    mesh: Mesh,
    where: str,
    sizes: dict[int, int] | None = None,
) -> tuple[Level, ...]:
    """``degree`` devices of the axes (indices) from the inside out: a given size of an axis,
    else what divides both the degree left and the axis's room."""
    levels = []
    left = degree
    for i in axes:
        axis = mesh.axes[i]
        given = (sizes or {}).get(i)
        g = given if given is not None else int(sp.igcd(left, room[axis.name]))
        if given is not None and (left % g or room[axis.name] % g):
            raise ProblemError(
                where,
                f"{dim} on {axis.name}:{g}: {g} does not divide {dim}'s {left} left "
                f"or the axis's {room[axis.name]} devices left",
            )
        if g > 1:
            levels.append(Level(axis, g))
            room[axis.name] //= g
            left //= g
    if left != 1:
        free = (
            ", ".join(f"{a.name} {room[a.name]}" for a in mesh.axes if room[a.name] > 1) or "none"
        )
        raise ProblemError(
            where,
            f"{dim} = {degree} does not divide into what is left of its axes (devices left: {free})",
        )
    return tuple(levels)


def place(
    mesh: Mesh, degrees: dict[str, int], text: str | None, where: str = "--place"
) -> Placement:
    """Each dim of ``degrees`` (keys from :data:`PARALLEL_DIMS`) over the mesh's axes.

    Placed dims first, in :data:`PARALLEL_DIMS` order, each over its axes from the inside out;
    then the rest fill what is left from the innermost axis out. Refused: a dim placed twice,
    an axis not in the mesh, a degree that does not divide what is left of its axes.
    """
    chosen = _parse_place(text, mesh, where) if text else {}
    names = [a.name for a in mesh.axes]
    room = {a.name: a.size for a in mesh.axes}
    placed: dict[str, tuple[Level, ...]] = {}
    for dim in PARALLEL_DIMS:
        if dim in chosen:
            indices = [names.index(a) for a, _ in chosen[dim]]
            sizes = {names.index(a): n for a, n in chosen[dim] if n is not None}
            placed[dim] = _take(dim, degrees[dim], indices, room, mesh, where, sizes)
    for dim in PARALLEL_DIMS:
        if dim not in chosen:
            placed[dim] = _take(dim, degrees[dim], list(range(len(names))), room, mesh, where)
    for dim, levels in placed.items():
        if dim in chosen and len(levels) < len(chosen[dim]):
            unused = [a for a, _ in chosen[dim] if a not in {lv.axis.name for lv in levels}]
            raise ProblemError(where, f"{dim} = {degrees[dim]} does not reach axis {unused[0]!r}")
    return Placement(mesh, tuple((dim, placed[dim]) for dim in PARALLEL_DIMS))


def placements(mesh: Mesh, degrees: dict[str, int]) -> tuple[Placement, ...]:
    """Every placement of the dims from the innermost axis out, one per order of the dims with
    a degree above 1 (distinct placements only, in a fixed order): the layouts the mesh allows
    when each dim fills what is left from the inside."""
    import itertools

    names = list(range(len(mesh.axes)))
    moving = [d for d in PARALLEL_DIMS if degrees[d] > 1]
    seen: dict[str, Placement] = {}
    for order in itertools.permutations(moving):
        room = {a.name: a.size for a in mesh.axes}
        try:
            placed = {d: _take(d, degrees[d], names, room, mesh, "--place") for d in order}
        except ProblemError:
            continue
        result = Placement(mesh, tuple((d, placed.get(d, ())) for d in PARALLEL_DIMS))
        seen.setdefault(result.text(), result)
    return tuple(seen.values())
