"""A cluster as a mesh of links: named axes from the innermost out, each with its topology.

``--mesh "gpu=8@450GB/s:switch,node=16@50e9+5us"``: each axis ``name=size@bandwidth``, an
optional ``+latency`` (one hop) and ``:topology`` (:class:`Topology`, ``ring`` by default).
``size`` devices along the axis, ``bandwidth`` bytes/s per device one way over each of its
links (a switch: each device's injection bandwidth). The product of the sizes is the device
count. The communication model over these axes is :mod:`derive.analysis.network`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.errors import ProblemError
from derive.formula.decimals import parse_decimal
from derive.formula.durations import time_text
from derive.formula.units import Dimension, parse_unit
from derive.problem.timing import parse_duration

_RESERVED = ("tp", "cp", "ep", "pp", "dp")  # a training run's parallel dims, placed on the axes
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,31}")
_AXIS = re.compile(
    r"\s*([^=\s]+)\s*=\s*(\d{1,9})\s*@\s*([^+:]+?)\s*(?:\+\s*([^:]+?))?\s*(?::\s*(\S+?))?\s*"
)


class Topology(Enum):
    """How an axis's devices are linked: the rules of each are in :mod:`derive.analysis.network`."""

    RING = "ring"  # one-way ring: each device sends to the next, receives from the previous
    LINE = "line"  # bidirectional, no wraparound: the end devices have one neighbour
    TORUS = "torus"  # bidirectional ring (an axis with wraparound)
    SWITCH = "switch"  # every device at its injection bandwidth through a non-blocking switch
    SWITCH_SHARP = "switch+sharp"  # a switch that reduces in the network (SHARP, NVLS)


@dataclass(frozen=True)
class Axis:
    """One axis: ``size`` devices, ``bandwidth`` bytes/s per device one way per link, ``latency`` s per hop."""

    name: str
    size: int
    bandwidth: sp.Rational
    bandwidth_text: str
    latency: sp.Rational = sp.S.Zero
    topology: Topology = Topology.RING


@dataclass(frozen=True)
class Mesh:
    """The axes from the innermost out; ``given`` is False for the one axis of ``--link-bandwidth``."""

    axes: tuple[Axis, ...]
    given: bool = True
    book: bool = False  # --convention scaling-book: collectives timed as the book does

    @property
    def devices(self) -> int:
        """The product of the axes' sizes."""
        return math.prod(axis.size for axis in self.axes)

    def text(self) -> str:
        """The mesh as ``--mesh`` spells it (bandwidths as typed, a ring's topology unsaid)."""
        return ",".join(
            f"{a.name}={a.size}@{a.bandwidth_text}"
            + (f"+{time_text(a.latency).replace(' ', '').replace('µ', 'u')}" if a.latency else "")
            + ("" if a.topology is Topology.RING else f":{a.topology.value}")
            for a in self.axes
        )


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


def _topology(text: str | None, name: str, where: str) -> Topology:
    if text is None:
        return Topology.RING
    try:
        return Topology(text.lower())
    except ValueError:
        allowed = ", ".join(t.value for t in Topology)
        raise ProblemError(where, f"axis {name!r}: topology {text!r} is one of {allowed}") from None


def parse_mesh(text: str, where: str = "--mesh") -> Mesh:
    """``gpu=8@450e9:switch,node=16@50GB/s+5us``: axes from the innermost out.

    >>> [(a.name, a.size, a.bandwidth, a.topology.value) for a in parse_mesh("gpu=8@450GB/s:switch,node=2@5e10").axes]
    [('gpu', 8, 450000000000, 'switch'), ('node', 2, 50000000000, 'ring')]
    """
    axes: list[Axis] = []
    for part in text.split(","):
        match = _AXIS.fullmatch(part)
        if match is None:
            raise ProblemError(
                where,
                f"axis {part.strip()!r} is not name=size@bandwidth[+latency][:topology], "
                "e.g. gpu=8@450GB/s:switch",
            )
        name, size, bandwidth, latency, topology = match.groups()
        if not _NAME.fullmatch(name) or name in _RESERVED:
            raise ProblemError(
                where, f"axis name {name!r} must be a word other than {', '.join(_RESERVED)}"
            )
        if any(a.name == name for a in axes):
            raise ProblemError(where, f"axis {name!r} is named twice")
        if int(size) < 1:
            raise ProblemError(where, f"axis {name!r} has size {size}: at least 1")
        alpha = sp.Integer(0) if latency is None else parse_duration(latency, where)
        beta, kind = _bandwidth(bandwidth, where), _topology(topology, name, where)
        axes.append(Axis(name, int(size), beta, bandwidth.strip(), alpha, kind))
    return Mesh(tuple(axes))


def one_axis(
    devices: int, bandwidth: sp.Rational, text: str, topology: Topology = Topology.RING
) -> Mesh:
    """The mesh without ``--mesh``: every device on one link (a one-way ring by default)."""
    return Mesh((Axis("link", devices, bandwidth, text, topology=topology),), given=False)
