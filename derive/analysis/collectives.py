"""Each collective of a problem at the bound dims: its size, the bytes one device sends, its time.

On one link (no ``--mesh``) the one-way ring (see :mod:`derive.declare.collective`):
``fraction × size`` bytes leave a device over its link in ``steps`` steps; the time is those
bytes over the link bandwidth (one way, per link) plus ``steps`` link latencies. On a mesh the
group P is the innermost axes whose sizes multiply to P, timed by the one communication model
(:mod:`derive.analysis.network`), each level by its topology's rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import sympy as sp

from derive.analysis.algebra.substitution import substitute
from derive.analysis.network import (
    Exchange,
    Level,
    LevelCost,
    book_ici,
    book_latency,
    book_precise_levels,
    book_time_per_byte,
    level_costs,
    time_per_byte,
)
from derive.declare.collective import Collective, CollectiveKind
from derive.errors import ProblemError
from derive.problem.binding import Problem
from derive.problem.comms_binding import CommsProblem
from derive.problem.mesh import Mesh, Topology


@dataclass(frozen=True)
class CollectiveTime:
    """One collective at the bound dims.

    Attributes:
        collective: the declaration (kind, group P, the tensor).
        dtype: the tensor's dtype name.
        size: bytes of the full tensor (width × elements before the ring factor).
        group: P at the bound dims (an integer, or the dim P while it is free).
        fraction: bytes over a device's link per byte of size: 2(P−1)/P, (P−1)/P, (P−1)/(2P).
        sent: bytes over one device's link, fraction × size (an all-to-all's forwarded too).
        steps: ring steps, 2(P−1) or P−1.
        link_time: sent / β_link (None without a link bandwidth).
        latency_time: steps × link latency.
        time: link_time + latency_time (None without a link bandwidth); the book's the longer.
    """

    collective: Collective
    dtype: str
    size: sp.Expr
    group: sp.Expr
    fraction: sp.Expr
    sent: sp.Expr
    steps: sp.Expr
    link_time: sp.Expr | None
    latency_time: sp.Expr
    time: sp.Expr | None
    levels: tuple[LevelCost, ...] = ()  # on a mesh: each level's rule, topology, load and steps
    volume: sp.Expr = sp.S.Zero  # on a mesh: V, the tensor each level's load is a share of
    own_time: sp.Expr | None = None  # under --convention scaling-book: derive's own exact time
    precise_time: sp.Expr | None = None  # the book's "more precise" max over switch levels


def _as_expr(value: int | sp.Expr) -> sp.Expr:
    """A group or step count as a sympy value: an int declared as such, or an expression in P."""
    return sp.Integer(value) if isinstance(value, int) else value


def collective_times(
    problem: Problem | CommsProblem, tensors: Sequence[object]
) -> tuple[CollectiveTime, ...]:
    """The collectives among ``tensors`` (a problem's comms), timed at its bound dims."""
    bound, dtypes = problem.bound_subs(), dict(problem.dtypes)
    link = problem.link.value if problem.link is not None else None
    latency = problem.timing.link_latency
    out = []
    for tensor in tensors:
        if not isinstance(tensor, Collective):
            continue
        dtype = dtypes[tensor.name]
        width = tensor.width if tensor.width is not None else dtype.width
        size = substitute(width * tensor.size, bound)
        group = substitute(_as_expr(tensor.group), bound)
        fraction = substitute(tensor.kind.fraction(tensor.group), bound)
        steps = substitute(_as_expr(tensor.steps), bound)
        sent = fraction * size
        link_time = sent / link if link is not None else None
        latency_time = steps * latency
        costs: tuple[LevelCost, ...] = ()
        v, own, precise = size, None, None
        if problem.mesh is not None:
            kind, levels = Exchange.of(tensor.kind), _levels(problem.mesh, group, tensor)
            hops = tensor.hops  # a send's (each a step of latency); 1 for the others
            costs = level_costs(kind, levels, hops)
            if kind is Exchange.SEND and len(levels) > 1:  # Send_{xy}: a link of each at once
                w, c = sp.Add(*(lv.axis.bandwidth for lv in levels)), costs[0]
                rule = f"{c.rule}, V split over a link of each of {len(levels)} axes (β_i/Σβ)"
                costs = (replace(c, load=c.level.axis.bandwidth / w, links=len(levels), rule=rule),)
            v = size / group if tensor.kind is CollectiveKind.ALL_TO_ALL else size
            sent = v * sp.Add(*(c.links * c.load for c in costs))
            link_time = v * sp.Add(*(c.load / c.level.axis.bandwidth for c in costs))
            fraction, steps = sent / size, sp.Add(*(c.steps for c in costs))
            latency_time = sp.Add(*(c.steps * c.level.axis.latency for c in costs))
            if problem.mesh.book:  # the book's V/W and hops (a send as derive's), derive's beside
                own, ici = link_time + latency_time, book_ici(levels)
                if kind is not Exchange.SEND:
                    link_time = v * book_time_per_byte(kind, levels, ici)
                    latency_time = book_latency(kind, levels, ici, hops)
                if ici == sp.oo and (each := book_precise_levels(kind, levels)):
                    precise = v * sp.Max(*each)
        time = None if link_time is None else link_time + latency_time
        if own is not None and kind is not Exchange.SEND:  # the book waits the longer of the two
            time = sp.Max(link_time, latency_time)
        times = (link_time, latency_time, time, costs, v if costs else sp.S.Zero, own, precise)
        out.append(CollectiveTime(tensor, dtype.name, size, group, fraction, sent, steps, *times))
    return tuple(out)


def _levels(mesh: Mesh, group: sp.Expr, tensor: Collective) -> tuple[Level, ...]:
    """The collective's axes, or the group P as the mesh's innermost axes whose sizes multiply to P."""
    if tensor.axes:
        return tuple(Level(a, a.size) for a in mesh.axes if a.name in tensor.axes)
    return group_levels(mesh, group, f"collective {tensor.name!r}")


def group_levels(mesh: Mesh, group: sp.Expr | int, what: str) -> tuple[Level, ...]:
    """A group of P devices as the mesh's innermost axes whose sizes multiply to P (the last
    of them a switch may hold part of it: any g of a switch's devices are a switch of g)."""
    levels: list[Level] = []
    devices = 1
    for axis in mesh.axes:
        if devices == group:
            break
        part = group / sp.Integer(devices)
        switch = axis.topology in (Topology.SWITCH, Topology.SWITCH_SHARP)
        size = int(part) if switch and part.is_integer and axis.size % int(part) == 0 else axis.size
        levels.append(Level(axis, size))
        devices *= size
    if devices != group:
        sizes = " · ".join(str(lv.axis.size) for lv in levels)
        raise ProblemError(
            "--mesh",
            f"{what} runs over P = {group} devices: the mesh's innermost axes "
            f"hold {sizes} (bind P to a product of the innermost axes' sizes)",
        )
    return tuple(levels)


def link_elements(problem: Problem, tensor: Collective) -> sp.Expr:
    """Elements that take the collective's time on the mesh over the problem's β_link: the
    network roofline's term of an operator that also computes (its ring's without a mesh; the
    book's time under ``--convention scaling-book``, as :func:`collective_times` gives it)."""
    if problem.mesh is None or problem.link is None:
        return tensor.elements
    group = substitute(_as_expr(tensor.group), problem.bound_subs())
    kind, levels = Exchange.of(tensor.kind), _levels(problem.mesh, group, tensor)
    share = 1 / group if tensor.kind is CollectiveKind.ALL_TO_ALL else sp.Integer(1)
    per = book_time_per_byte(kind, levels, book_ici(levels)) if problem.mesh.book else time_per_byte(kind, levels)  # fmt: skip
    return tensor.size * share * per * problem.link.value
