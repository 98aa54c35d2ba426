"""Each collective of a problem at the bound dims: its size, the bytes one device sends, its time.

Ring algorithm (see :mod:`derive.declare.collective`): ``fraction × size`` bytes leave a
device over its link in ``steps`` steps; the time is those bytes over the link
bandwidth (one way, per link) plus ``steps`` link latencies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from derive.analysis.algebra.substitution import substitute
from derive.declare.collective import Collective
from derive.problem.binding import Problem
from derive.problem.comms_binding import CommsProblem

__all__ = ["CollectiveTime", "collective_times"]


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
        time: link_time + latency_time (None without a link bandwidth).
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
        out.append(
            CollectiveTime(
                collective=tensor,
                dtype=dtype.name,
                size=size,
                group=group,
                fraction=fraction,
                sent=sent,
                steps=steps,
                link_time=link_time,
                latency_time=latency_time,
                time=link_time + latency_time if link_time is not None else None,
            )
        )
    return tuple(out)
