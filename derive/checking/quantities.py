"""What a checked quantity should be: exact, leading-order, or recomputed with other inputs.

Every quantity is computed from a :class:`Basis` (a numerator of FLOPs, a
denominator of bytes, the per-tensor byte terms and which bandwidth the roof
uses) and the hardware numbers. The exact answer, the leading order under a
regime and every "what if" a diagnosis tries (a rounded peak, the link instead
of HBM, other dtypes) are the same computation with a different basis or
different numbers, so they cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.analyse import Analysis, ByteTerm
from derive.analysis.crossover import ALWAYS, NEVER, Crossover, reduced_parts, solve_crossover
from derive.analysis.leading_order import leading_order
from derive.errors import ProblemError, RegimeError
from derive.problem.regime import Regime

__all__ = [
    "MEMORY",
    "NETWORK",
    "QUANTITIES",
    "Basis",
    "Hardware",
    "Target",
    "basis_of",
    "compute",
    "describe",
    "expected",
    "hardware_of",
    "kind_of",
    "leading",
    "roof_of",
]

# quantity -> (kind, roof). Kinds: num (FLOPs), den (bytes), ratio (intensity), ridge,
# cross (crossover), t_num (FLOPs / peak), t_den (bytes / bandwidth).
MEMORY, NETWORK = "memory", "network"
_TABLE: dict[str, tuple[str, str]] = {
    "flops": ("num", MEMORY),
    "bytes": ("den", MEMORY),
    "intensity": ("ratio", MEMORY),
    "intensity_regime": ("ratio", MEMORY),
    "ridge": ("ridge", MEMORY),
    "crossover": ("cross", MEMORY),
    "t_math": ("t_num", MEMORY),
    "t_mem": ("t_den", MEMORY),
    "network_bytes": ("den", NETWORK),
    "network_intensity": ("ratio", NETWORK),
    "network_ridge": ("ridge", NETWORK),
    "network_crossover": ("cross", NETWORK),
    "t_comms": ("t_den", NETWORK),
}
QUANTITIES: tuple[str, ...] = tuple(_TABLE)

_NAMES = {
    "flops": "FLOPs",
    "bytes": "bytes",
    "intensity": "intensity",
    "intensity_regime": "leading-order intensity",
    "ridge": "ridge point",
    "crossover": "crossover",
    "t_math": "T_math",
    "t_mem": "T_mem",
    "network_bytes": "network bytes",
    "network_intensity": "network intensity",
    "network_ridge": "network ridge point",
    "network_crossover": "network crossover",
    "t_comms": "T_comms",
}


def describe(quantity: str) -> str:
    """The quantity's name for prose (``T_math``, ``ridge point``)."""
    return _NAMES.get(quantity, quantity)


def kind_of(quantity: str) -> str:
    """The kind of computation a quantity is (``ratio``, ``cross``, ...)."""
    return _TABLE[quantity][0]


def roof_of(quantity: str) -> str:
    """``memory`` or ``network``."""
    return _TABLE[quantity][1]


@dataclass(frozen=True)
class Target:
    """An expected value.

    Attributes:
        value: the exact value with bound dims substituted, or None (no crossover).
        symbolic: the same before bound dims are substituted.
        threshold: for a crossover, the smallest compute-bound integer, when numeric.
        note: for a crossover without a value, what happens instead.
    """

    value: sp.Expr | None
    symbolic: sp.Expr | None = None
    threshold: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Basis:
    """What a roof is made of: FLOPs over bytes (exact or leading-order) and its byte terms."""

    num: sp.Expr
    den: sp.Expr
    terms: tuple[ByteTerm, ...]
    roof: str


@dataclass(frozen=True)
class Hardware:
    """Exact hardware numbers: peak, memory bandwidth and link bandwidth (or None)."""

    peak: sp.Rational
    memory: sp.Rational
    link: sp.Rational | None

    def bandwidth(self, roof: str) -> sp.Rational | None:
        """The bandwidth of a roof."""
        return self.memory if roof == MEMORY else self.link


def hardware_of(a: Analysis) -> Hardware:
    """The hardware numbers of an analysed problem."""
    p = a.problem
    return Hardware(p.peak.value, p.bandwidth.value, p.link.value if p.link else None)


def basis_of(a: Analysis, roof: str, regime: Regime | None = None) -> Basis:
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


def compute(kind: str, basis: Basis, hw: Hardware, a: Analysis) -> Target:
    """One quantity from a basis and hardware numbers, with the problem's bound dims.

    Raises:
        ProblemError: a network quantity without a link bandwidth.
    """
    p = a.problem
    sub_all, sub_x = p.bound_subs(), p.bound_subs(except_dim=p.solve_for)
    bw = hw.bandwidth(basis.roof)
    if bw is None and kind in ("ridge", "cross", "t_den"):
        raise ProblemError(
            "network quantity",
            "no link bandwidth is known; give --link-bandwidth BYTES_PER_S or a chip with a link",
        )
    if kind == "cross":
        return _crossover_target(
            solve_crossover(
                *reduced_parts(basis.num.subs(sub_x), basis.den.subs(sub_x)),
                hw.peak,
                bw,
                p.solve_for,
            )
        )
    symbolic = {
        "num": basis.num,
        "den": basis.den,
        "ratio": sp.cancel(basis.num / basis.den),
        "ridge": hw.peak / bw if bw else None,
        "t_num": basis.num / hw.peak,
        "t_den": basis.den / bw if bw else None,
    }[kind]
    value = sp.cancel(symbolic.subs(sub_all)) if kind == "ratio" else symbolic.subs(sub_all)
    return Target(value, symbolic)


def expected(a: Analysis, quantity: str) -> Target:
    """The exact expected value of a quantity.

    Raises:
        ProblemError: a quantity that does not apply (``intensity_regime`` without a regime, network without comms).
    """
    if quantity == "intensity_regime":
        if a.problem.regime is None:
            raise ProblemError(
                "--quantity intensity_regime",
                "needs --regime (the leading order is taken under a regime)",
            )
        return compute("ratio", basis_of(a, MEMORY, a.problem.regime), hardware_of(a), a)
    return compute(kind_of(quantity), basis_of(a, roof_of(quantity)), hardware_of(a), a)


def leading(a: Analysis, quantity: str, regime: Regime | None) -> Target | None:
    """The quantity at leading order under ``regime`` (None where that means nothing)."""
    kind = kind_of(quantity)
    if regime is None or kind == "ridge" or quantity == "intensity_regime":
        return None
    try:
        return compute(kind, basis_of(a, roof_of(quantity), regime), hardware_of(a), a)
    except RegimeError:
        return None
