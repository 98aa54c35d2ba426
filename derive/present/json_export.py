"""The JSON report of ``derive solve --format json`` (a contract: keys are kept).

Expressions are strings in sympy's ``str()`` syntax; ``value`` fields are
decimals for display (the only floats derive emits).
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis, Roofline
from derive.analysis.crossover import CROSSES, Crossover
from derive.solution.notation import str_sum

__all__ = ["crossover_json", "to_json"]


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
    }
