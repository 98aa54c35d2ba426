"""The JSON report of ``derive solve --format json`` (a contract: keys are kept).

Expressions are strings in sympy's ``str()`` syntax; ``value`` fields are
decimals for display (the only floats derive emits).
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis, Roofline
from derive.analysis.crossover import CROSSES, Crossover
from derive.analysis.measured import Measured
from derive.analysis.step import StepTime
from derive.solution.notation import str_sum

__all__ = ["crossover_json", "measured_json", "step_json", "to_json"]


def _s(expr: sp.Expr | None) -> str | None:
    return None if expr is None else str(expr)


def _f(expr: sp.Expr | None) -> float | None:
    return float(expr) if expr is not None and expr.is_number else None


def crossover_json(crossover: Crossover | None) -> dict[str, object] | None:
    """A crossover as ``{status, exact, value, min_compute_bound, …}``."""
    if crossover is None:
        return None
    return {
        "status": crossover.status,
        "exact": _s(crossover.exact),
        "value": _f(crossover.exact),
        "min_compute_bound": crossover.min_compute_bound,
        "condition": None
        if crossover.condition is None
        else f"{crossover.condition} {'>' if crossover.status == CROSSES else '>='} 0",
        "supremum": _s(crossover.supremum),
        "supremum_all_dims": _s(crossover.supremum_all),
        "note": crossover.note or None,
    }


def _terms_json(roof: Roofline) -> list[dict[str, str]]:
    return [
        {
            "tensor": t.tensor.name,
            "role": t.role,
            "dtype": t.dtype,
            "width": str(t.width),
            "elements": str(t.elements),
            "bytes": str(t.bytes),
        }
        for t in roof.terms
    ]


def _network(analysis: Analysis) -> dict[str, object] | None:
    net = analysis.network
    if net is None:
        return None
    return {
        "bytes": str_sum([t.bytes for t in net.terms]),
        "bytes_terms": _terms_json(net),
        "intensity": str(net.intensity),
        "ridge": _s(net.ridge),
        "t_comms": _s(net.time),
        "crossover": crossover_json(net.crossover),
    }


def step_json(step: StepTime | None) -> dict[str, object] | None:
    """A step's totals, bounds and kernels (None when a dim is left free)."""
    if step is None:
        return None
    return {
        "flops": str(step.flops),
        "bytes": str(step.bytes),
        "comms_bytes": str(step.comms_bytes),
        "t_math": str(step.t_math),
        "t_mem": str(step.t_mem),
        "t_comms": str(step.t_comms),
        "launch_overhead": str(step.launch_overhead),
        "t_lower": str(step.t_lower),
        "t_lower_overlapped": str(step.t_lower_overlapped),
        "t_lower_serial": str(step.t_lower_serial),
        "t_upper": str(step.t_upper),
        "binding": step.binding.value,
        "aggregate_intensity": str(step.aggregate_intensity),
        "single_roofline_t_lower": str(step.single_roofline_t_lower),
        "fraction_of_peak": str(step.fraction_of_peak),
        "compute_efficiency": str(step.ceilings.compute_efficiency),
        "memory_efficiency": str(step.ceilings.memory_efficiency),
        "kernels": [
            {
                "name": time.kernel.name,
                "parts": list(time.kernel.parts),
                "fused": time.kernel.fused,
                "flops": str(time.kernel.flops),
                "bytes": str(time.kernel.bytes),
                "comms_bytes": str(time.kernel.comms_bytes),
                "t_math": str(time.t_math),
                "t_mem": str(time.t_mem),
                "t_comms": str(time.t_comms),
                "t_lower": str(time.t_lower),
                "t_upper": str(time.t_upper),
                "binding": time.binding.value,
                "share": str(time.share),
            }
            for time in step.kernels
        ],
    }


def measured_json(measured: Measured | None) -> dict[str, object] | None:
    """A measurement read against the roofline: mfu, mbu, implied intensity, verdict."""
    if measured is None:
        return None
    return {
        "time": _s(measured.time),
        "flops_per_s": _s(measured.flops_per_s),
        "bytes_per_s": _s(measured.bytes_per_s),
        "mfu": _s(measured.mfu),
        "mbu": _s(measured.mbu),
        "intensity": _s(measured.intensity),
        "kernel_intensity": _s(measured.kernel_intensity),
        "needed_bytes_per_s": _s(measured.needed_bytes_per_s),
        "needed_flops_per_s": _s(measured.needed_flops_per_s),
        "verdict": measured.verdict.value,
        "beats": list(measured.beats),
    }


def to_json(analysis: Analysis) -> dict[str, object]:
    """Every derived quantity; keys that do not apply are ``None``."""
    problem = analysis.problem
    return {
        "operator": problem.operator.name,
        "solve_for": problem.solve_for.name,
        "compute_dtype": problem.compute_dtype,
        "dtypes": {name: dt.name for name, dt in problem.dtypes},
        "chip": problem.chip.name if problem.chip else None,
        "peak": str(problem.peak.value),
        "bandwidth": str(problem.bandwidth.value),
        "link_bandwidth": _s(problem.link.value if problem.link else None),
        "regime": problem.regime.text if problem.regime else None,
        "set": {d.name: int(v) for d, v in problem.bound},
        "flops": str(analysis.flops),
        "bytes": str_sum([t.bytes for t in analysis.memory.terms]),
        "bytes_terms": _terms_json(analysis.memory),
        "intensity": str(analysis.memory.intensity),
        "intensity_bound": _s(analysis.intensity_bound),
        "intensity_regime": _s(analysis.intensity_regime),
        "intensity_regime_bound": _s(analysis.intensity_regime_bound),
        "ridge": str(analysis.memory.ridge),
        "t_math": str(analysis.t_math),
        "t_mem": str(analysis.memory.time),
        "t_lower": _s(analysis.t_lower),
        "t_upper": _s(analysis.t_upper),
        "attainable": _s(analysis.attainable),
        "fraction_of_peak": _s(analysis.fraction_of_peak),
        "crossover": crossover_json(analysis.memory.crossover),
        "crossover_regime": crossover_json(analysis.crossover_regime),
        "regime_holds": analysis.regime_holds,
        "regime_checks": [{"check": name, "holds": ok} for name, ok in analysis.regime_checks]
        or None,
        "network": _network(analysis),
        "step": step_json(analysis.step),
        "collectives": [
            {
                "tensor": item.collective.name,
                "kind": item.collective.kind.value,
                "group": int(item.group) if item.group.is_Integer else str(item.group),
                "overlap": item.collective.overlap,
                "size": str(item.size),
                "sent": str(item.sent),
                "steps": int(item.steps) if item.steps.is_Integer else str(item.steps),
                "t_comms": _s(item.time),
            }
            for item in analysis.collectives
        ]
        or None,
        "mfu": _s(analysis.measured.mfu) if analysis.measured is not None else None,
        "mbu": _s(analysis.measured.mbu) if analysis.measured is not None else None,
        "measured": measured_json(analysis.measured),
    }
