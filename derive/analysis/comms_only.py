"""An operator that only communicates, timed on the link: no compute, so no roofline.

One pure function, :func:`analyse_comms`, from a
:class:`~derive.problem.comms_binding.CommsProblem` to a :class:`CommsAnalysis`: each
collective's bytes per device and time (:mod:`derive.analysis.collectives`) and their sum.
With no FLOPs and no bytes through memory there is no intensity, no ridge and no
crossover: the interconnect binds, for every value of every dim.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.collectives import CollectiveTime, collective_times
from derive.problem.comms_binding import CommsProblem


@dataclass(frozen=True)
class CommsAnalysis:
    """A comms-only problem, derived.

    Attributes:
        problem: the bound problem.
        collectives: each collective at the bound dims (bytes sent, ring steps, time).
        sent: bytes one device sends, summed over the collectives.
        link_time: sent / β_link.
        latency_time: ring steps × the link latency, summed.
        time: T_comms = link_time + latency_time, the step's time (nothing else runs).
    """

    problem: CommsProblem
    collectives: tuple[CollectiveTime, ...]
    sent: sp.Expr
    link_time: sp.Expr
    latency_time: sp.Expr
    time: sp.Expr

    @property
    def all_bound(self) -> bool:
        """True when every dim has a value, so the time is a number."""
        return bool(self.time.is_number)


def analyse_comms(problem: CommsProblem) -> CommsAnalysis:
    """Time each collective on the link and sum them (they run one after another)."""
    items = collective_times(problem, problem.operator.comms)
    link_time = sp.Add(*(item.link_time for item in items if item.link_time is not None))
    latency_time = sp.Add(*(item.latency_time for item in items))
    return CommsAnalysis(
        problem=problem,
        collectives=items,
        sent=sp.Add(*(item.sent for item in items)),
        link_time=link_time,
        latency_time=latency_time,
        time=sp.Add(*(i.latency_time if i.time is None else i.time for i in items)),
    )
