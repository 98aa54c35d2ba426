"""Derive every roofline quantity of a bound problem, exactly.

One pure function, :func:`analyse`, from a :class:`~derive.problem.binding.Problem` to
an :class:`Analysis` record. Steps and rendering read this record; they never
compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy as sp

from derive.analysis import algebra
from derive.analysis.algebra import substitute
from derive.analysis.crossover import Crossover, reduced_parts, solve_crossover
from derive.analysis.leading_order import LeadingOrder, leading_order
from derive.declare.operator import Tensor
from derive.problem.binding import Problem
from derive.problem.regime import REGIME_FACTOR

__all__ = ["Analysis", "ByteTerm", "Roofline", "analyse"]


@dataclass(frozen=True)
class ByteTerm:
    """One tensor's bytes: width × elements, kept whole so it can be explained."""

    tensor: Tensor
    role: str
    dtype: str
    width: sp.Rational
    elements: sp.Expr

    @cached_property
    def bytes(self) -> sp.Expr:
        """Width × elements (computed once: steps, reports and figures all ask for it)."""
        return self.width * self.elements


@dataclass(frozen=True)
class Roofline:
    """One roofline: FLOPs against bytes over one bandwidth (memory or link)."""

    terms: tuple[ByteTerm, ...]
    bytes: sp.Expr
    intensity: sp.Expr
    ridge: sp.Rational | None
    crossover: Crossover | None
    time: sp.Expr | None


@dataclass(frozen=True)
class Analysis:
    """Everything derived for one problem.

    ``*_bound`` values have the bound dims substituted (all of them); crossovers
    use every bound dim except the one solved for.
    """

    problem: Problem
    flops: sp.Expr
    memory: Roofline
    leading: LeadingOrder | None
    intensity_regime: sp.Expr | None
    crossover_regime: Crossover | None
    regime_holds: bool | None
    regime_checks: tuple[tuple[str, bool], ...]
    t_math: sp.Expr
    t_lower: sp.Expr | None
    t_upper: sp.Expr | None
    attainable: sp.Expr | None
    fraction_of_peak: sp.Expr | None
    intensity_at_point: sp.Expr | None
    network: Roofline | None

    @property
    def headline(self) -> tuple[Crossover, bool]:
        """The crossover to show first, and whether it is the leading-order one.

        The exact crossover when it is a number or a definite never/always; else the
        leading-order one when that is a number; else the exact one (formula or status).
        """
        exact, lead = self.memory.crossover, self.crossover_regime
        if exact.is_number or exact.status in ("never", "always"):
            return exact, False
        if lead is not None and lead.is_number:
            return lead, True
        return exact, False

    @property
    def all_bound(self) -> bool:
        """True when every dim has a value, so times are numbers."""
        return self.t_math.is_number and self.memory.time is not None and self.memory.time.is_number


def _terms(problem: Problem, tensors: tuple[Tensor, ...], role_of) -> tuple[ByteTerm, ...]:
    dtypes = dict(problem.dtypes)
    return tuple(
        ByteTerm(t, role_of(t), dtypes[t.name].name, dtypes[t.name].width, t.elements)
        for t in tensors
    )


def _regime_checks(problem: Problem, value: sp.Expr) -> tuple[tuple[str, bool], ...] | None:
    vals = dict(problem.bound)
    vals[problem.solve_for] = value
    checks = []
    for small, large in problem.regime.pairs:
        if large not in vals or (small is not None and small not in vals):
            return None
        lhs = vals[small] if small is not None else sp.Integer(1)
        ok = bool(REGIME_FACTOR * lhs <= vals[large])
        name = (
            f"{small} ≤ {large}/{REGIME_FACTOR}"
            if small is not None
            else f"{large} ≥ {REGIME_FACTOR}"
        )
        checks.append((name, ok))
    return tuple(checks)


def _roofline(flops_x, terms, bandwidth, peak, x, subs_x, subs_all) -> Roofline:
    total = sp.Add(*(t.bytes for t in terms))
    intensity = algebra.cancel_ratio(flops_x, total)
    ridge = peak / bandwidth if bandwidth is not None else None
    cross = None
    time = None
    if bandwidth is not None:
        cross = solve_crossover(
            *reduced_parts(substitute(flops_x, subs_x), substitute(total, subs_x)),
            peak,
            bandwidth,
            x,
        )
        time = substitute(total, subs_all) / bandwidth
    return Roofline(terms, total, intensity, ridge, cross, time)


def analyse(problem: Problem) -> Analysis:
    """Derive FLOPs, bytes, intensity, ridge, crossovers, times and the network roofline."""
    op, x = problem.operator, problem.solve_for
    P, W = problem.peak.value, problem.bandwidth.value
    subs_x, subs_all = problem.bound_subs(except_dim=x), problem.bound_subs()
    flops = op.flops
    reads = set(id(t) for t in op.reads)
    memory = _roofline(
        flops,
        _terms(problem, op.memory_tensors, lambda t: "read" if id(t) in reads else "write"),
        W,
        P,
        x,
        subs_x,
        subs_all,
    )

    leading = intensity_regime = cross_regime = holds = None
    checks: tuple = ()
    if problem.regime is not None:
        leading = leading_order(flops, tuple(t.bytes for t in memory.terms), problem.regime)
        intensity_regime = leading.ratio
        cross_regime = solve_crossover(
            *reduced_parts(
                substitute(leading.numerator, subs_x), substitute(leading.denominator, subs_x)
            ),
            P,
            W,
            x,
        )
        if cross_regime.is_number:
            found = _regime_checks(problem, cross_regime.exact)
            if found is not None:
                checks, holds = found, all(ok for _, ok in found)

    t_math = substitute(flops, subs_all) / P
    t_mem = memory.time
    numeric = t_math.is_number and t_mem.is_number
    at_point = algebra.cancel(substitute(memory.intensity, subs_all)) if numeric else None
    attainable = sp.Min(P, at_point * W) if numeric else None

    network = None
    if op.comms:
        network = _roofline(
            flops,
            _terms(problem, op.comms, lambda t: "sent"),
            problem.link.value if problem.link else None,
            P,
            x,
            subs_x,
            subs_all,
        )
    return Analysis(
        problem=problem,
        flops=flops,
        memory=memory,
        leading=leading,
        intensity_regime=intensity_regime,
        crossover_regime=cross_regime,
        regime_holds=holds,
        regime_checks=checks,
        t_math=t_math,
        t_lower=sp.Max(t_math, t_mem) if numeric else None,
        t_upper=(t_math + t_mem) if numeric else None,
        attainable=attainable,
        fraction_of_peak=(attainable / P) if numeric else None,
        intensity_at_point=at_point,
        network=network,
    )
