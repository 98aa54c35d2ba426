"""A cluster as a mesh of links, the parallel dims placed on its axes, and collectives over them.

A mesh is a list of named axes from the innermost out, each ``name=size@bandwidth`` with an
optional ``+latency`` (``--mesh "gpu=8@450GB/s,node=16@50e9+5us"``): ``size`` devices along
the axis, ``bandwidth`` bytes/s per device one way over the axis's links, ``latency`` the time
of one hop. The product of the sizes is the device count. Without ``--mesh`` the cluster is
one axis of every device at ``--link-bandwidth`` (or the chip's link), as before.

A placement puts each parallel dim (:data:`PARALLEL_DIMS`: tp, cp, ep, pp and dp, where ``dp``
is the data-parallel replicas outside an expert group, ``dp/ep``) over one or more axes, or
over a divisor of one: ``--place tp=gpu,dp=node``, ``dp=gpu*node`` for a dim over two axes.
Dims not placed fill what is left from the innermost axis out in the order of
:data:`PARALLEL_DIMS`. Each dim's group is then a tuple of :class:`Level` (g_i devices over an
axis of bandwidth β_i), innermost first.

A collective over levels (g₁, β₁) … (g_k, β_k) is hierarchical, level by level from the
inside out (:func:`time_per_byte`): an all-reduce of V bytes per device takes
``Σᵢ 2(gᵢ−1)/gᵢ · V/(g₁⋯gᵢ₋₁ · βᵢ)`` (a reduce-scatter inside, the rest over the next axis
on 1/g of the data, the all-gather back); a reduce-scatter or an all-gather half of that;
an all-to-all ``(g_i − 1)·G_i/(2·G_k)`` of V over level i (V/G_k to each peer first reached
there, crossing as many of the axis's links as its distance: the ring's rule of
:class:`~derive.declare.collective.CollectiveKind`, as every collective here);
a point-to-point send of V (a pipeline stage's boundary, a ring attention step) ``V/β`` over
the slowest (outermost) axis the group spans. Over one level these are the ring formulas.
Latency adds ``2(gᵢ−1)·αᵢ`` per all-reduce call and level, ``(gᵢ−1)·αᵢ`` for the others, α of
the outermost axis per send.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import sympy as sp

from derive.declare.collective import CollectiveKind
from derive.errors import ProblemError
from derive.formula.decimals import parse_decimal
from derive.formula.units import Dimension, parse_unit
from derive.problem.timing import parse_duration

__all__ = [
    "PARALLEL_DIMS",
    "Axis",
    "Exchange",
    "Level",
    "Mesh",
    "Placement",
    "book_latency",
    "book_time_per_byte",
    "bytes_per_byte",
    "calls_latency",
    "level_terms",
    "one_axis",
    "parse_mesh",
    "place",
    "placements",
    "time_per_byte",
]

PARALLEL_DIMS = ("tp", "cp", "ep", "pp", "dp")
"""The parallel dims, in the order the default placement fills the axes from the innermost."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,31}")
_AXIS = re.compile(r"\s*([^=\s]+)\s*=\s*(\d{1,9})\s*@\s*([^+]+?)\s*(?:\+\s*(.+?))?\s*")


class Exchange(Enum):
    """How a dim's bytes travel: a collective over its group, or a send to one neighbour."""

    ALL_REDUCE = "all-reduce"
    ALL_GATHER = "all-gather"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_TO_ALL = "all-to-all"
    SEND = "point-to-point send"


@dataclass(frozen=True)
class Axis:
    """One axis of the mesh: ``size`` devices, ``bandwidth`` bytes/s per device one way, ``latency`` s."""

    name: str
    size: int
    bandwidth: sp.Rational
    bandwidth_text: str
    latency: sp.Rational = sp.S.Zero


@dataclass(frozen=True)
class Mesh:
    """The axes from the innermost out; ``given`` is False for the one axis of ``--link-bandwidth``."""

    axes: tuple[Axis, ...]
    given: bool = True

    @property
    def devices(self) -> int:
        """The product of the axes' sizes."""
        n = 1
        for axis in self.axes:
            n *= axis.size
        return n

    def text(self) -> str:
        """The mesh as ``--mesh`` spells it (bandwidths as typed)."""
        return ",".join(
            f"{a.name}={a.size}@{a.bandwidth_text}" + (f"+{a.latency}s" if a.latency else "")
            for a in self.axes
        )


@dataclass(frozen=True)
class Level:
    """A group's extent over one axis: ``size`` devices of it (a divisor of the axis)."""

    axis: Axis
    size: int


def _bandwidth(text: str, where: str) -> sp.Rational:
    """Bytes/s from ``450e9`` or ``450GB/s`` (a byte rate), exact."""
    match = re.fullmatch(r"\s*([0-9.eE+_-]+)\s*([A-Za-z/]*)\s*", text)
    if match is None:
        raise ProblemError(where, f"bandwidth {text!r} is not a number of bytes/s (450e9, 450GB/s)")
    number, unit_text = match.groups()
    factor = sp.Integer(1)
    if unit_text:
        unit = parse_unit(unit_text)
        if unit is None or unit.dimension is not Dimension.BYTE_RATE:
            raise ProblemError(where, f"unit {unit_text!r} is not a bandwidth (B/s, GB/s, TB/s)")
        factor = unit.factor
    value = parse_decimal(number, where) * factor
    if value <= 0:
        raise ProblemError(where, f"bandwidth {text!r} must be positive")
    return value


def parse_mesh(text: str, where: str = "--mesh") -> Mesh:
    """``gpu=8@450e9,node=16@50GB/s+5us``: axes from the innermost out.

    >>> [(a.name, a.size, a.bandwidth) for a in parse_mesh("gpu=8@450GB/s,node=2@5e10").axes]
    [('gpu', 8, 450000000000), ('node', 2, 50000000000)]
    """
    axes: list[Axis] = []
    for part in text.split(","):
        match = _AXIS.fullmatch(part)
        if match is None:
            raise ProblemError(
                where,
                f"axis {part.strip()!r} is not name=size@bandwidth[+latency], e.g. gpu=8@450GB/s",
            )
        name, size, bandwidth, latency = match.groups()
        if not _NAME.fullmatch(name) or name in PARALLEL_DIMS:
            raise ProblemError(
                where, f"axis name {name!r} must be a word other than {', '.join(PARALLEL_DIMS)}"
            )
        if any(a.name == name for a in axes):
            raise ProblemError(where, f"axis {name!r} is named twice")
        if int(size) < 1:
            raise ProblemError(where, f"axis {name!r} has size {size}: at least 1")
        alpha = sp.Integer(0) if latency is None else parse_duration(latency, where)
        axes.append(Axis(name, int(size), _bandwidth(bandwidth, where), bandwidth.strip(), alpha))
    return Mesh(tuple(axes))


def one_axis(devices: int, bandwidth: sp.Rational, text: str) -> Mesh:
    """The mesh without ``--mesh``: every device on one link."""
    return Mesh((Axis("link", devices, bandwidth, text),), given=False)


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
        parts = []
        for dim, levels in self.dims:
            if levels:
                parts.append(
                    f"{dim}="
                    + "*".join(
                        lv.axis.name + ("" if lv.size == lv.axis.size else f":{lv.size}")
                        for lv in levels
                    )
                )
        return ",".join(parts)


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


def _prefix(levels: tuple[Level, ...], i: int) -> int:
    n = 1
    for level in levels[:i]:
        n *= level.size
    return n


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def level_terms(kind: Exchange, levels: tuple[Level, ...]) -> tuple[tuple[Level, sp.Rational], ...]:
    """Per level, the bytes one device sends over it per byte of V (the formula per level)."""
    if not levels:
        return ()
    if kind is Exchange.SEND:
        return ((levels[-1], sp.Integer(1)),)
    total, ring = _prefix(levels, len(levels)), CollectiveKind(kind.value.replace("-", "_"))
    out = []
    for i, level in enumerate(levels):
        inner, g = _prefix(levels, i), level.size
        # the ring's rule on the level's tensor, V/inner, or for an all-to-all g·G_i·V/G_k: its
        # chunks V/G_k to the peers first reached there, G_{i-1} of them at each distance
        tensor = g * g * inner if kind is Exchange.ALL_TO_ALL else total // inner
        out.append((level, ring.fraction(g) * sp.Rational(tensor, total)))
    return tuple(out)


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def bytes_per_byte(kind: Exchange, levels: tuple[Level, ...]) -> sp.Rational:
    """Bytes one device sends per byte of V over all levels."""
    return sp.Add(*(share for _, share in level_terms(kind, levels)))


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def time_per_byte(kind: Exchange, levels: tuple[Level, ...]) -> sp.Rational:
    """Seconds per byte of V: each level's bytes over its own axis's bandwidth.

    >>> gpu, node = Axis("gpu", 8, sp.Integer(400), "400"), Axis("node", 2, sp.Integer(50), "50")
    >>> time_per_byte(Exchange.ALL_REDUCE, (Level(gpu, 8), Level(node, 2)))  # 2·7/8/400 + 2·1/2/(8·50)
    11/1600
    """
    return sp.Add(*(share / level.axis.bandwidth for level, share in level_terms(kind, levels)))


BOOK_FACTOR = {
    Exchange.ALL_REDUCE: sp.Integer(2),
    Exchange.ALL_GATHER: sp.Integer(1),
    Exchange.REDUCE_SCATTER: sp.Integer(1),
    Exchange.ALL_TO_ALL: sp.Integer(1),
}
"""The Scaling Book's collective times in units of V/W (no ring factor): Sharding, "A Deeper
Dive into TPU Communication Primitives": an all-reduce 2·V/W, an all-gather or a
reduce-scatter V/W; an all-to-all of a device's V a quarter of the all-gather of the whole
array on a bidirectional ring (N·V/(4W), the ND form max(A, B, …)·V/(4·W)); over a switch
(GPUs, "Intra-node collectives") V/W."""


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def book_time_per_byte(
    kind: Exchange, levels: tuple[Level, ...], ici: sp.Expr = sp.oo
) -> sp.Rational:
    """Seconds per byte of V as the Scaling Book times a collective (``--convention scaling-book``).

    The networks a group spans: its ICI levels (axes at least ``ici`` fast, a TPU's own links)
    are one, W the sum of 2·β over them (Training, "Data Parallelism": W = 2 · 9e10, and "we 3x
    our bandwidth" over three axes); every other level (DCN, NVLink, a NIC) is its own, one way
    (GPUs, "Rooflines for LLM Scaling on GPUs": W_collective, a GPU's or a node's egress), and
    carries the 1/(devices inside it) of V the inner reduction leaves (Training, "Scaling Across
    Pods": 2·2·2·DF/(M·W_dcn)). On each, :data:`BOOK_FACTOR` · share · V / W, an all-to-all on
    ICI max(g)·V/(4·2β), elsewhere the share of V leaving through the level; the networks
    run at once and the slowest sets the time (Training, "Combining FSDP and Tensor
    Parallelism": comms on different axes overlap). A send keeps derive's V/β.

    >>> x, y = Axis("x", 4, sp.Integer(9), "9"), Axis("y", 4, sp.Integer(9), "9")
    >>> book_time_per_byte(Exchange.ALL_REDUCE, (Level(x, 4),), sp.Integer(9))  # 2/(2·9)
    1/9
    >>> book_time_per_byte(Exchange.ALL_GATHER, (Level(x, 4), Level(y, 4)), sp.Integer(9))
    1/36
    >>> pod = Axis("pod", 2, sp.Integer(1), "1")  # DCN: 1/4 of V at β = 1 binds
    >>> book_time_per_byte(Exchange.ALL_GATHER, (Level(x, 4), Level(pod, 2)), sp.Integer(9))
    1/4
    """
    if kind is Exchange.SEND or not levels:
        return time_per_byte(kind, levels)
    fast = [lv for lv in levels if lv.axis.bandwidth >= ici]
    factor, times = BOOK_FACTOR[kind], []
    if fast:
        w = sp.Add(*(2 * lv.axis.bandwidth for lv in fast))
        if kind is Exchange.ALL_TO_ALL:
            w = 8 * min(lv.axis.bandwidth for lv in fast) / max(lv.size for lv in fast)
        times.append(factor / w)
    total = math.prod(lv.size for lv in levels)
    for i, lv in enumerate(levels):  # the share of V leaving through it, or left after the inside
        inner = math.prod(lv.size for lv in levels[:i])
        part = inner * lv.size - inner if kind is Exchange.ALL_TO_ALL else total // inner
        if lv not in fast:
            times.append(factor * sp.Rational(part, total) / lv.axis.bandwidth)
    return sp.Max(*times)


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def book_latency(kind: Exchange, levels: tuple[Level, ...], ici: sp.Expr) -> sp.Rational:
    """Seconds of latency of one call as the Scaling Book counts hops: X/2 on its ICI axes
    (:func:`book_time_per_byte`), a bidirectional ring's (Inference, "Appendix C: Latency bound
    communications": T_min·X/2), X − 1 elsewhere, twice for an all-reduce; a send one hop."""
    if kind is Exchange.SEND or not levels:
        return levels[-1].axis.latency if levels else sp.Integer(0)
    hops = 2 if kind is Exchange.ALL_REDUCE else 1
    return sp.Add(
        *(
            hops
            * (sp.Rational(lv.size, 2) if lv.axis.bandwidth >= ici else lv.size - 1)
            * lv.axis.latency
            for lv in levels
        )
    )


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def calls_latency(kind: Exchange, levels: tuple[Level, ...]) -> sp.Rational:
    """Seconds of latency of one call: its hops per level times the level's α."""
    if not levels:
        return sp.Integer(0)
    if kind is Exchange.SEND:
        return levels[-1].axis.latency
    hops = 2 if kind is Exchange.ALL_REDUCE else 1
    return sp.Add(*(hops * (lv.size - 1) * lv.axis.latency for lv in levels))
