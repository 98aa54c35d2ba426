"""The communication model: every collective over any axes of a mesh, on any topology, exactly.

A collective over levels (g₁ devices of axis 1, …, g_k of axis k, innermost first; see
:mod:`derive.problem.mesh`) runs level by level from the inside out (hierarchical), as NCCL and
the XLA collectives do over axes of different speeds. On level i of a V-byte exchange the
all-gather, reduce-scatter and all-reduce work on ``b = V / (g₁⋯gᵢ₋₁)`` (what the inner levels
left), an all-to-all on chunks of ``c = V·G_{i−1}/G_k`` per peer (V/G_k to each device,
G_{i−1} of them first reached at each distance), a send on V over the outermost level. Each
level's rule (:func:`level_rule`) gives, per topology, the bytes over the device's most loaded
link (``load``), the links it uses at once and the steps; the level's time is
``steps · α + load / β``, and the bytes a device moves are ``links · load``:

==============  =========================  ===========================  ==============  ========
topology        all-gather, reduce-scatter  all-to-all (busiest link)    all-reduce      send
==============  =========================  ===========================  ==============  ========
ring (one way)  (g−1)/g·b, g−1 steps        Σd = g(g−1)/2 · c, g−1        2× an all-gather  V, 1 hop
line            (g−1)/g·b (an end's link)   ⌊g/2⌋⌈g/2⌉ · c (the middle)   2×                V, 1 hop
torus           (g−1)/(2g)·b on 2 links,    (g²−1)/8 · c (g odd),         2×                V, 1 hop
                ⌊g/2⌋ steps                 g²/8 · c (g even), ⌊g/2⌋
switch          (g−1)/g·b, 1 step           (g−1) · c, 1 step             2×, 2 steps       V, 1 hop
switch+sharp    as a switch                 as a switch                   b, 1 step         V, 1 hop
==============  =========================  ===========================  ==============  ========

Alike torus axes (one size, bandwidth and latency: a TPU slice of whole cubes) gather, scatter
and reduce at once: the data split k ways, each part through the k axes in turn, every axis's
links busy in every phase, so each level carries 1/k of its hierarchical share (an all-gather
over a g×g torus takes (g²−1)/g² · V over 4 links, not 2). Over one level of a one-way ring these are :class:`~derive.declare.collective.CollectiveKind`'s
rules, the ones an operator's ``Collective`` declares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import sympy as sp

from derive.declare.collective import CollectiveKind
from derive.problem.mesh import Axis, Topology

__all__ = [
    "Exchange",
    "Level",
    "LevelCost",
    "bytes_per_byte",
    "calls_latency",
    "level_costs",
    "level_rule",
    "time_per_byte",
]


class Exchange(Enum):
    """How bytes travel: a collective over a group, or a send to a device some hops away."""

    ALL_REDUCE = "all-reduce"
    ALL_GATHER = "all-gather"
    REDUCE_SCATTER = "reduce-scatter"
    ALL_TO_ALL = "all-to-all"
    SEND = "point-to-point send"

    @classmethod
    def of(cls, kind: CollectiveKind) -> Exchange:
        """The exchange of an operator's collective kind."""
        return cls.SEND if kind.value == "send" else cls(kind.value.replace("_", "-"))


@dataclass(frozen=True)
class Level:
    """A group's extent over one axis: ``size`` devices of it (a divisor of the axis)."""

    axis: Axis
    size: int


@dataclass(frozen=True)
class LevelCost:
    """One level of a collective: per byte of V, the busiest link's bytes; its links and steps."""

    level: Level
    load: sp.Rational
    links: int
    steps: int
    rule: str


def _a2a_chunks(topology: Topology, g: int) -> sp.Rational:
    """Chunks over the busiest link of an all-to-all among g devices, each sending one to each."""
    if topology is Topology.RING:  # the chunk for distance d crosses d links
        return sp.Rational(g * (g - 1), 2)
    if topology is Topology.LINE:  # the middle link: every chunk from one half to the other
        return sp.Integer((g // 2) * ((g + 1) // 2))
    if topology is Topology.TORUS:  # the shorter way; the chunk at g/2 split between the two
        return sp.Rational(g * g, 8) if g % 2 == 0 else sp.Rational(g * g - 1, 8)
    return sp.Integer(g - 1)  # a switch: each device injects its g−1 chunks


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same levels again
def level_rule(kind: Exchange, topology: Topology, g: int) -> tuple[sp.Rational, int, int, str]:
    """(load per byte of the level's tensor, links, steps, rule) of one level of g devices.

    The tensor is b for a gather, scatter or reduce, the chunk c per peer for an all-to-all,
    V for a send (see the module's table).

    >>> level_rule(Exchange.ALL_GATHER, Topology.TORUS, 4)[:3]
    (3/8, 2, 2)
    >>> level_rule(Exchange.ALL_TO_ALL, Topology.SWITCH, 8)[:3]
    (7, 1, 1)
    """
    if topology is Topology.TORUS and g == 2:  # two devices: one link each way, a line
        topology = Topology.LINE
    name = f"{topology.value} {kind.value}"
    if kind is Exchange.SEND:
        return sp.Integer(1), 1, 1, f"{name}: V over one link, one hop"
    if kind is Exchange.ALL_TO_ALL:
        switch = topology in (Topology.SWITCH, Topology.SWITCH_SHARP)
        steps = 1 if switch else g // 2 if topology is Topology.TORUS else g - 1
        chunks = {
            Topology.RING: "g(g−1)/2",
            Topology.LINE: "⌊g/2⌋⌈g/2⌉",
            Topology.TORUS: "g²/8 (g even) or (g²−1)/8",
        }
        rule = (
            f"{name}: {chunks.get(topology, 'g−1')} chunks c over the busiest link, {steps} step(s)"
        )
        return _a2a_chunks(topology, g), 1, steps, rule
    twice = 2 if kind is Exchange.ALL_REDUCE else 1  # a reduce-scatter, then an all-gather
    share, two = sp.Rational(g - 1, g), "2" if twice == 2 else ""
    if topology is Topology.SWITCH_SHARP and kind is Exchange.ALL_REDUCE:
        return sp.Integer(1), 1, 1, f"{name}: b up to the switch, reduced there, and back"
    if topology is Topology.TORUS:
        half = "" if twice == 2 else "1/2 · "  # an all-reduce moves twice a gather's half
        rule = f"{name}: {half}(g−1)/g·b on each of 2 links, {two}⌊g/2⌋ step(s)"
        return twice * share / 2, 2, twice * (g // 2), rule
    if topology in (Topology.SWITCH, Topology.SWITCH_SHARP):
        rule = f"{name}: {two}(g−1)/g·b at the injection bandwidth, {twice} step(s)"
        return twice * share, 1, twice, rule
    rule = f"{name}: {two}(g−1)/g·b over one link, {f'{two}(g−1)' if two else 'g−1'} step(s)"
    return twice * share, 1, twice * (g - 1), rule


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def level_costs(kind: Exchange, levels: tuple[Level, ...]) -> tuple[LevelCost, ...]:
    """Per level (innermost first), the busiest link's bytes per byte of V, links and steps."""
    if not levels:
        return ()
    if kind is Exchange.SEND:
        levels = levels[-1:]
    total, out = math.prod(lv.size for lv in levels), []
    alike = {(lv.size, lv.axis.bandwidth, lv.axis.latency, lv.axis.topology) for lv in levels}
    at_once = len(levels) > 1 and len(alike) == 1 and levels[0].axis.topology is Topology.TORUS
    for i, level in enumerate(levels):
        inner = math.prod(lv.size for lv in levels[:i])
        load, links, steps, rule = level_rule(kind, level.axis.topology, level.size)
        scale = {Exchange.ALL_TO_ALL: sp.Rational(inner, total), Exchange.SEND: sp.Integer(1)}.get(
            kind, sp.Rational(1, inner)
        )
        if at_once and kind is not Exchange.ALL_TO_ALL:  # k alike axes' links all busy
            k = len(levels)
            scale, rule = scale / k, f"{rule}; the {k} alike axes at once: 1/{k} each"
        out.append(LevelCost(level, load * scale, links, steps, rule))
    return tuple(out)


@lru_cache(maxsize=4096)
def bytes_per_byte(kind: Exchange, levels: tuple[Level, ...]) -> sp.Rational:
    """Bytes one device moves per byte of V: each level's busiest link's times its links."""
    return sp.Add(*(c.links * c.load for c in level_costs(kind, levels)))


@lru_cache(maxsize=4096)
def time_per_byte(kind: Exchange, levels: tuple[Level, ...]) -> sp.Rational:
    """Seconds per byte of V: each level's busiest link over its own axis's bandwidth.

    >>> gpu, node = Axis("gpu", 8, sp.Integer(400), "400"), Axis("node", 2, sp.Integer(50), "50")
    >>> time_per_byte(Exchange.ALL_REDUCE, (Level(gpu, 8), Level(node, 2)))  # 2·7/8/400 + 2·1/2/(8·50)
    11/1600
    """
    return sp.Add(*(c.load / c.level.axis.bandwidth for c in level_costs(kind, levels)))


@lru_cache(maxsize=4096)
def calls_latency(kind: Exchange, levels: tuple[Level, ...]) -> sp.Rational:
    """Seconds of latency of one call: its steps per level times the level's α per hop."""
    return sp.Add(*(c.steps * c.level.axis.latency for c in level_costs(kind, levels)))
