"""What a checked quantity should be: exact, leading-order, or recomputed with other inputs.

Every quantity is computed from a :class:`Basis` (a numerator of FLOPs, a
denominator of bytes, the per-tensor byte terms and which bandwidth the roof
uses) and the hardware numbers. The exact answer, the leading order under a
regime and every "what if" a diagnosis tries (a rounded peak, the link instead
of HBM, other dtypes) are the same computation with a different basis or
different numbers, so they cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import sympy as sp

from derive.analysis.analyse import Analysis, ByteTerm
from derive.analysis.crossover.records import ALWAYS, NEVER, Crossover
from derive.analysis.crossover.solve import reduced_parts, solve_crossover
from derive.analysis.leading_order import leading_order
from derive.catalogue import Computation, ProblemKind, Roof, Use, names_for
from derive.catalogue import quantity as catalogued
from derive.catalogue import table as q
from derive.catalogue.reading import read_values
from derive.checking.thresholds import Edge
from derive.errors import ProblemError, RegimeError
from derive.problem.regime import Regime

Kind = Computation
"""What computation a quantity is (the catalogue's :class:`~derive.catalogue.Computation`)."""

STEP_KINDS = frozenset({Kind.STEP_TIME, Kind.UTILISATION, Kind.ANALYSED})
"""Kinds read from the step (``analysis.step``), the measurement or the analysis, not from a basis."""

MEMORY, NETWORK = Roof.MEMORY, Roof.NETWORK
QUANTITIES: tuple[str, ...] = names_for(ProblemKind.OPERATOR, Use.CHECK)
"""What ``derive check`` judges for an operator, in the catalogue's order."""


def describe(quantity: str) -> str:
    """The quantity's name for prose (``T_math``, ``ridge point``)."""
    return catalogued(quantity).prose if quantity in QUANTITIES else quantity


def _computation(quantity: str) -> Kind:
    """The row's computation (every quantity an operator's check takes has one)."""
    found = catalogued(quantity).computation
    assert found is not None, quantity
    return found


def kind_of(quantity: str) -> Kind:
    """The kind of computation a quantity is (``ratio``, ``cross``, ...).

    Raises:
        KeyError: not a quantity ``derive check`` judges for an operator.
    """
    if quantity not in QUANTITIES:
        raise KeyError(quantity)
    return _computation(quantity)


def roof_of(quantity: str) -> Roof:
    """``memory`` or ``network``."""
    return catalogued(quantity).roof


@dataclass(frozen=True)
class Target:
    """An expected value.

    Attributes:
        value: the exact value with bound dims substituted, or None (no crossover).
        symbolic: the same before bound dims are substituted.
        threshold: for a crossover, the smallest compute-bound integer, when numeric.
        note: for a crossover without a value, what happens instead.
        edge: for a crossover, the intensity in its dim and the ridge (why a stated
            threshold is wrong).
    """

    value: sp.Expr | None
    symbolic: sp.Expr | None = None
    threshold: int | None = None
    note: str = ""
    edge: Edge | None = None


@dataclass(frozen=True)
class Basis:
    """What a roof is made of: FLOPs over bytes (exact or leading-order) and its byte terms."""

    num: sp.Expr
    den: sp.Expr
    terms: tuple[ByteTerm, ...]
    roof: Roof


@dataclass(frozen=True)
class Hardware:
    """Exact hardware numbers: peak, memory bandwidth and link bandwidth (or None)."""

    peak: sp.Rational
    memory: sp.Rational
    link: sp.Rational | None

    def bandwidth(self, roof: Roof) -> sp.Rational | None:
        """The bandwidth of a roof."""
        return self.memory if roof == MEMORY else self.link


def hardware_of(a: Analysis) -> Hardware:
    """The hardware numbers of an analysed problem."""
    p = a.problem
    return Hardware(p.peak.value, p.bandwidth.value, p.link.value if p.link else None)


def basis_of(a: Analysis, roof: Roof, regime: Regime | None = None) -> Basis:
    """The exact basis of a roof, or its leading order under ``regime`` (with the byte terms it keeps).

    Raises:
        ProblemError: the operator sends nothing over the interconnect.
        RegimeError: the regime does not give a leading order for these terms.
    """
    if roof == NETWORK and a.network is None:
        raise ProblemError(
            f"operator {a.problem.operator.name!r}",
            "sends nothing over the interconnect, so it has no network quantities",
        )
    terms = a.network.terms if roof == NETWORK and a.network is not None else a.memory.terms
    total = sp.Add(*(t.bytes for t in terms))
    if regime is None:
        return Basis(a.flops, total, terms, roof)
    lo = leading_order(a.flops, tuple(t.bytes for t in terms), regime)
    kept = tuple(t for t in terms if any(t.bytes == k for k in lo.kept_den))
    return Basis(
        lo.numerator,
        lo.denominator,
        kept if sp.Add(*(t.bytes for t in kept)) == lo.denominator else terms,
        roof,
    )


def _crossover_target(c: Crossover) -> Target:
    if c.exact is not None:
        return Target(c.exact, c.exact, c.min_compute_bound, c.note)
    if c.status == ALWAYS:
        return Target(
            None,
            None,
            c.min_compute_bound,
            f"compute-bound for every {c.variable} ≥ 1: there is no crossover",
        )
    if c.status == NEVER:
        return Target(
            None,
            None,
            None,
            f"memory-bound for every {c.variable}: the intensity never reaches the ridge",
        )
    return Target(
        None, None, None, c.note or f"the crossover cannot be solved for {c.variable} here"
    )


@lru_cache(maxsize=4096)
def _cancelled(expr: sp.Expr) -> sp.Expr:
    """``cancel(expr)``, remembered: a diagnosis asks for the same intensities many times."""
    return sp.cancel(expr)


def compute(kind: Kind, basis: Basis, hw: Hardware, a: Analysis) -> Target:
    """One quantity from a basis and hardware numbers, with the problem's bound dims.

    Raises:
        ProblemError: a network quantity without a link bandwidth.
    """
    p = a.problem
    sub_all, sub_x = p.bound_subs(), p.bound_subs(except_dim=p.solve_for)
    bw = hw.bandwidth(basis.roof)
    if bw is None and kind in (Kind.RIDGE, Kind.CROSSOVER, Kind.TRANSFER_TIME):
        raise ProblemError(
            "network quantity",
            "no link bandwidth is known; give --link-bandwidth BYTES_PER_S or a chip with a link",
        )
    if kind == Kind.CROSSOVER:
        num, den = basis.num.subs(sub_x), basis.den.subs(sub_x)
        target = _crossover_target(
            solve_crossover(*reduced_parts(num, den), hw.peak, bw, p.solve_for)
        )
        if target.threshold is None or bw is None:
            return target
        return replace(target, edge=Edge(p.solve_for, num / den, hw.peak / bw))
    symbolic = {
        Kind.FLOPS: basis.num,
        Kind.BYTES: basis.den,
        Kind.INTENSITY: _cancelled(basis.num / basis.den),
        Kind.RIDGE: hw.peak / bw if bw else None,
        Kind.COMPUTE_TIME: basis.num / hw.peak,
        Kind.TRANSFER_TIME: basis.den / bw if bw else None,
    }[kind]
    value = _cancelled(symbolic.subs(sub_all)) if kind == Kind.INTENSITY else symbolic.subs(sub_all)
    return Target(value, symbolic)


def _step_target(a: Analysis, quantity: str) -> Target:
    """A step bound, a utilisation or a value the analysis computed, exactly: read from the
    analysis by the quantity's row (``step.t_lower_overlapped``, ``measured.mfu``).

    Raises:
        ProblemError: a dim left free (no step time), or no measurement for MFU/MBU.
    """
    kind, row = kind_of(quantity), catalogued(quantity)
    value = read_values(ProblemKind.OPERATOR, (a,), (row,)).get(row)
    if value is None and kind == Kind.ANALYSED and a.sharding is not None:
        from derive.checking.comms_slips import sharded_value  # the winner or its tensors

        value = sharded_value(a.sharding, quantity)
    if value is not None:
        return Target(value, value)
    if kind == Kind.ANALYSED:
        why = f"the {describe(quantity)} needs every dim bound: --set DIM=INT for each"
    elif kind == Kind.UTILISATION:
        rate = "--measured-flops-per-s" if quantity == q.MFU.name else "--measured-bytes-per-s"
        why = f"needs a measurement: --measured-time TIME or {rate} R"
    else:
        why = "a step's time needs every dim bound: --set DIM=INT for each"
    raise ProblemError(f"--quantity {quantity}", why)


def expected(a: Analysis, quantity: str) -> Target:
    """The exact expected value of a quantity.

    Raises:
        ProblemError: a quantity that does not apply (``intensity_regime`` without a regime,
            network without comms, a step time with a dim free, MFU without a measurement).
    """
    if kind_of(quantity) in STEP_KINDS:
        return _step_target(a, quantity)
    if quantity == q.INTENSITY_REGIME.name:
        if a.problem.regime is None:
            raise ProblemError(
                f"--quantity {quantity}",
                "needs --regime (the leading order is taken under a regime)",
            )
        return compute(Kind.INTENSITY, basis_of(a, MEMORY, a.problem.regime), hardware_of(a), a)
    return compute(kind_of(quantity), basis_of(a, roof_of(quantity)), hardware_of(a), a)


def leading(a: Analysis, quantity: str, regime: Regime | None) -> Target | None:
    """The quantity at leading order under ``regime`` (None where that means nothing)."""
    kind = kind_of(quantity)
    if regime is None or kind in (Kind.RIDGE, *STEP_KINDS) or quantity == q.INTENSITY_REGIME.name:
        return None
    try:
        return compute(kind, basis_of(a, roof_of(quantity), regime), hardware_of(a), a)
    except RegimeError:
        return None
