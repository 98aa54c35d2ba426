"""A comms-only problem: an operator that only communicates (a bare all-reduce), on a link.

An operator with no tensor in memory and no FLOPs is timed on the interconnect alone:
its collectives' bytes over the link bandwidth, plus the link latency per ring step.
:func:`bind_comms` checks a :class:`~derive.problem.binding.ProblemSpec` for one and
returns a :class:`CommsProblem`; it needs a link bandwidth (``--link-bandwidth``, or a
chip's link) and nothing of the compute roofline (no peak, no HBM bandwidth, no regime).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.declare.collective import Collective
from derive.declare.operator import Operator
from derive.errors import ProblemError
from derive.problem.binding import (
    ProblemSpec,
    _bind_dtypes,
    _bind_sets,
    _check_groups,
    mesh_of,
)
from derive.problem.chips import Chip, Figure, custom_figure, get_chip
from derive.problem.dtypes import Dtype
from derive.problem.mesh import Mesh, parse_mesh
from derive.problem.timing import TIMING_KEYS, Timing, TimingSpec, bind_timing

# the timing flags a transfer alone has no use for: every one but the link's latency,
# each named as its flag (``measured_time`` → ``--measured-time``)
_UNUSED_TIMING = tuple(
    (name, "--" + name.replace("_", "-"))
    for name in (*TIMING_KEYS, "measured_tokens_per_s")
    if name != "link_latency"
)


@dataclass(frozen=True)
class CommsProblem:
    """A bound comms-only problem: the operator, its dtypes, the link and the bound dims."""

    operator: Operator
    dtypes: tuple[tuple[str, Dtype], ...]
    link: Figure
    link_name: str
    chip: Chip | None
    bound: tuple[tuple[sp.Symbol, sp.Integer], ...]
    timing: Timing
    mesh: Mesh | None = None

    def bound_subs(self, except_dim: sp.Symbol | None = None) -> dict[sp.Symbol, sp.Integer]:
        """Bound dims → values, optionally leaving one dim free."""
        return {d: v for d, v in self.bound if d != except_dim}

    @property
    def hardware_name(self) -> str:
        """The chip's name, or ``given numbers``."""
        return self.chip.name if self.chip else "given numbers"


def only_communicates(op: Operator) -> bool:
    """True for an operator that moves nothing through memory and sends something."""
    return not op.memory_tensors and bool(op.comms)


def _link(spec: ProblemSpec, op: Operator) -> tuple[Figure, str, Chip | None]:
    typed = spec.link_bandwidth
    chip = get_chip(spec.chip).overridden(None, None, None, typed) if spec.chip else None
    if chip is not None and chip.link is not None:
        return chip.link, chip.link.source if typed else chip.link_name, chip
    if typed is not None:
        return custom_figure(typed, "--link-bandwidth"), "as given", chip
    if spec.mesh is not None:  # the innermost axis stands for "the link" in the prose
        inner = parse_mesh(spec.mesh).axes[0]
        figure = Figure(inner.bandwidth, inner.bandwidth_text, f"mesh axis {inner.name}", "")
        return figure, f"mesh axis {inner.name}", chip
    where = f"chip {chip.name!r} has no link bandwidth; " if chip is not None else ""
    raise ProblemError(
        "--link-bandwidth",
        f"operator {op.name!r} only communicates, so its time is bytes over the link: "
        f"{where}give --link-bandwidth BYTES_PER_S",
    )


def _check_declaration(op: Operator) -> None:
    if op.flops != 0:
        raise ProblemError(
            f"operator {op.name!r}",
            "it declares FLOPs but reads and writes no tensor: declare what it reads and writes",
        )
    plain = [t.name for t in op.comms if not isinstance(t, Collective)]
    if plain:
        raise ProblemError(
            f"operator {op.name!r}",
            f"it only communicates, and {plain[0]!r} is a plain comms tensor: declare it as "
            "Collective(kind, tensor, group=P) so its bytes per device and steps are known",
        )


def _check_unused(spec: ProblemSpec) -> None:
    """A regime, a dim to solve for or a compute timing flag has nothing to act on."""
    unused = [
        (flag, why)
        for flag, value, why in (
            ("--regime", spec.regime, "no compute, so no crossover to take at leading order"),
            ("--solve-for", spec.solve_for, "no compute, so no crossover to solve for"),
            ("--compute", spec.compute, "no compute, so no compute dtype"),
            ("--peak", spec.peak, "no compute, so no compute peak"),
            ("--bandwidth", spec.bandwidth, "no memory traffic, so no memory bandwidth"),
        )
        if value is not None
    ] + [
        (flag, "no compute and no memory traffic to time")
        for name, flag in _UNUSED_TIMING
        if getattr(spec.timing, name) is not None
    ]
    if unused:
        flag, why = unused[0]
        raise ProblemError(flag, f"the operator only communicates: {why}")


def bind_comms(spec: ProblemSpec, op: Operator) -> CommsProblem:
    """Validate a spec against an operator that only communicates; the result is exact.

    Raises:
        ProblemError: FLOPs declared, a plain comms tensor, no link bandwidth, a flag with
            nothing to act on, or a bad dtype or dim (one line, naming the flag).
    """
    _check_declaration(op)
    dtypes, _ = _bind_dtypes(op, tuple(spec.dtypes))
    link, link_name, chip = _link(spec, op)  # a missing link is said first
    _check_unused(spec)
    sets = _bind_sets(op, tuple(spec.sets))
    _check_groups(op, sets)
    timing = bind_timing(TimingSpec(link_latency=spec.timing.link_latency))
    return CommsProblem(op, dtypes, link, link_name, chip, sets, timing, mesh_of(spec, op))
