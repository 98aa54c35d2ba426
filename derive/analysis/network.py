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

Alike torus or line axes (one size, bandwidth and latency: a TPU slice) gather, scatter
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
def level_rule(
    kind: Exchange, topology: Topology, g: int, hops: int = 1
) -> tuple[sp.Rational, int, int, str]:
    """(load per byte of the level's tensor, links, steps, rule) of one level of g devices
    (a send: over ``hops`` hops, cut through, a step of latency each).

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
        said = "one hop" if hops == 1 else f"{hops} hop(s)"
        return sp.Integer(1), 1, hops, f"{name}: V over one link, {said}"
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


_AT_ONCE = (Topology.TORUS, Topology.LINE)  # each axis's links its own: alike axes work at once


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def level_costs(kind: Exchange, levels: tuple[Level, ...], hops: int = 1) -> tuple[LevelCost, ...]:
    """Per level (innermost first), the busiest link's bytes per byte of V, links and steps."""
    if not levels:
        return ()
    if kind is Exchange.SEND:
        levels = levels[-1:]
    total, out = math.prod(lv.size for lv in levels), []
    alike = {(lv.size, lv.axis.bandwidth, lv.axis.latency, lv.axis.topology) for lv in levels}
    at_once = len(levels) > 1 and len(alike) == 1 and levels[0].axis.topology in _AT_ONCE
    for i, level in enumerate(levels):
        inner = math.prod(lv.size for lv in levels[:i])
        load, links, steps, rule = level_rule(kind, level.axis.topology, level.size, hops)
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
def calls_latency(kind: Exchange, levels: tuple[Level, ...], hops: int = 1) -> sp.Rational:
    """Seconds of latency of one call: its steps per level times the level's α per hop."""
    return sp.Add(*(c.steps * c.level.axis.latency for c in level_costs(kind, levels, hops)))


BOOK_FACTOR = {
    k: sp.Integer(2 if k is Exchange.ALL_REDUCE else 1) for k in Exchange if k is not Exchange.SEND
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
    our bandwidth" over three axes; lines only, no wraparound, Σβ one way and (G−1)/G of V:
    Sharding, Pop Quiz 2, the unidirectional form in "What Have We Learned?"); every other
    level (DCN, NVLink, a NIC) is its own, one way (GPUs, "Rooflines for LLM Scaling on GPUs":
    W_collective, a GPU's or a node's egress), and carries the 1/(devices inside it) of V the
    inner reduction leaves (Training, "Scaling Across Pods": 2·2·2·DF/(M·W_dcn)). On each, :data:`BOOK_FACTOR` · share · V / W, an all-to-all on
    ICI max(g)·V/(4·2β), elsewhere the share of V leaving through the level; the networks
    run at once and the slowest sets the time (Training, "Combining FSDP and Tensor
    Parallelism": comms on different axes overlap). A send keeps derive's V/β.

    >>> from derive.problem.mesh import Axis
    >>> x, y = Axis("x", 4, sp.Integer(9), "9"), Axis("y", 4, sp.Integer(9), "9")
    >>> book_time_per_byte(Exchange.ALL_REDUCE, (Level(x, 4),), sp.Integer(9))  # 2/(2·9)
    1/9
    >>> book_time_per_byte(Exchange.ALL_GATHER, (Level(x, 4), Level(y, 4)), sp.Integer(9))
    1/36
    >>> from derive.problem.mesh import Topology
    >>> line = Axis("x", 4, sp.Integer(9), "9", topology=Topology.LINE)  # one way, 3/4 of V
    >>> book_time_per_byte(Exchange.ALL_GATHER, (Level(line, 4),), sp.Integer(9))
    1/12
    >>> pod = Axis("pod", 2, sp.Integer(1), "1")  # DCN: 1/4 of V at β = 1 binds
    >>> book_time_per_byte(Exchange.ALL_GATHER, (Level(x, 4), Level(pod, 2)), sp.Integer(9))
    1/4
    """
    if kind is Exchange.SEND or not levels:
        return time_per_byte(kind, levels)
    fast = [lv for lv in levels if lv.axis.bandwidth >= ici]
    factor, times = BOOK_FACTOR[kind], []
    if fast:
        w, share, _ = book_ici_network(fast)
        if kind is Exchange.ALL_TO_ALL:
            w, share = 8 * min(lv.axis.bandwidth for lv in fast) / max(lv.size for lv in fast), 1
        times.append(factor * share / w)
    total = math.prod(lv.size for lv in levels)
    for i, lv in enumerate(levels):  # the share of V leaving through it, or left after the inside
        inner = math.prod(lv.size for lv in levels[:i])
        part = inner * lv.size - inner if kind is Exchange.ALL_TO_ALL else total // inner
        if lv not in fast:  # SHARP halves an all-reduce (GPUs, "In network reductions": B/W)
            k = 1 if lv.axis.topology is Topology.SWITCH_SHARP else factor
            times.append(k * sp.Rational(part, total) / lv.axis.bandwidth)
    return sp.Max(*times)


def book_precise_levels(kind: Exchange, levels: tuple[Level, ...]) -> tuple[sp.Rational, ...]:
    """Seconds per byte of V on each level, the book's "more precise" form of a collective over
    switch levels (GPUs, "Cross-node collectives": bytes · max_i (D_i − 1)/(D_i · W_i), W_i a
    child's egress into level i, the 1/(devices inside) of V the inner reduction leaves; twice
    for an all-reduce, SHARP's without the (D_i − 1)/D_i). Empty for an all-to-all or a send."""
    if kind in (Exchange.ALL_TO_ALL, Exchange.SEND):
        return ()
    out, inner = [], 1
    for lv in levels:
        sharp = lv.axis.topology is Topology.SWITCH_SHARP and kind is Exchange.ALL_REDUCE
        k = 1 if sharp else BOOK_FACTOR[kind] * (1 - sp.Rational(1, lv.size))
        out.append(k / (inner * lv.axis.bandwidth))
        inner *= lv.size
    return tuple(out)


def book_ici_network(fast: list[Level]) -> tuple[sp.Expr, sp.Expr, bool]:
    """The book's W over its ICI levels, the share of V it times and whether both ways: 2β
    each and the whole V, but lines alone (no wraparound) one way, (G−1)/G of V (How to Think
    About TPUs). :func:`book_time_per_byte` times by it; a checker's slip says it."""
    both = not all(lv.axis.topology is Topology.LINE for lv in fast)
    w = sp.Add(*((2 if both else 1) * lv.axis.bandwidth for lv in fast))
    return w, sp.Integer(1) if both else 1 - sp.Rational(1, math.prod(lv.size for lv in fast)), both


@lru_cache(maxsize=4096)  # pure and exact: a layout search asks the same groups again
def book_latency(
    kind: Exchange, levels: tuple[Level, ...], ici: sp.Expr, hops: int = 1
) -> sp.Rational:
    """Seconds of latency of one call as the Scaling Book counts hops: X/2 on its ICI axes
    (:func:`book_time_per_byte`), a bidirectional ring's (Inference, "Appendix C: Latency bound
    communications": T_min·X/2), X − 1 on a line (no wraparound: Sharding, Pop Quiz 2) and
    elsewhere, twice for an all-reduce; a send its hops."""
    if kind is Exchange.SEND or not levels:
        return hops * levels[-1].axis.latency if levels else sp.Integer(0)
    hops = 2 if kind is Exchange.ALL_REDUCE else 1
    bidi = (lv.axis.bandwidth >= ici and lv.axis.topology is not Topology.LINE for lv in levels)
    per = (
        sp.Rational(lv.size, 2) if b else lv.size - 1 for b, lv in zip(bidi, levels, strict=True)
    )
    return sp.Add(*(hops * n * lv.axis.latency for n, lv in zip(per, levels, strict=True)))


def book_ici(levels: tuple[Level, ...]) -> sp.Expr:
    """The ICI threshold of :func:`book_time_per_byte` for a mesh as typed: its bidirectional
    axes (line, torus) are the book's ICI, W both ways; a switch or a one-way ring one way."""
    both = (Topology.LINE, Topology.TORUS)
    return min((lv.axis.bandwidth for lv in levels if lv.axis.topology in both), default=sp.oo)
