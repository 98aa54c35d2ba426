"""The JSON report of ``derive solve --format json`` (a contract: keys are kept).

Expressions are strings in sympy's ``str()`` syntax; ``value`` fields are
decimals for display (the only floats derive emits).
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis, Roofline
from derive.analysis.crossover import Crossover
from derive.present.notation import str_sum

__all__ = ["crossover_json", "to_json"]


def _s(expr: sp.Expr | None) -> str | None:
    return None if expr is None else str(expr)


def _f(expr: sp.Expr | None) -> float | None:
    return float(expr) if expr is not None and expr.is_number else None


def crossover_json(c: Crossover | None) -> dict | None:
    """A crossover as ``{status, exact, value, min_compute_bound, …}``."""
    if c is None:
        return None
    return {
        "status": c.status,
        "exact": _s(c.exact),
        "value": _f(c.exact),
        "min_compute_bound": c.min_compute_bound,
        "condition": None
        if c.condition is None
        else f"{c.condition} {'>' if c.status == 'crosses' else '>='} 0",
        "supremum": _s(c.supremum),
        "supremum_all_dims": _s(c.supremum_all),
        "note": c.note or None,
    }


def _terms_json(roof: Roofline) -> list[dict]:
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


def _network(a: Analysis) -> dict | None:
    net = a.network
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


def to_json(a: Analysis) -> dict:
    """Every derived quantity; keys that do not apply are ``None``."""
    p = a.problem
    return {
        "operator": p.operator.name,
        "solve_for": p.solve_for.name,
        "compute_dtype": p.compute_dtype,
        "dtypes": {name: dt.name for name, dt in p.dtypes},
        "chip": p.chip.name if p.chip else None,
        "peak": str(p.peak.value),
        "bandwidth": str(p.bandwidth.value),
        "link_bandwidth": _s(p.link.value if p.link else None),
        "regime": p.regime.text if p.regime else None,
        "set": {d.name: int(v) for d, v in p.bound},
        "flops": str(a.flops),
        "bytes": str_sum([t.bytes for t in a.memory.terms]),
        "bytes_terms": _terms_json(a.memory),
        "intensity": str(a.memory.intensity),
        "intensity_regime": _s(a.intensity_regime),
        "ridge": str(a.memory.ridge),
        "t_math": str(a.t_math),
        "t_mem": str(a.memory.time),
        "t_lower": _s(a.t_lower),
        "t_upper": _s(a.t_upper),
        "attainable": _s(a.attainable),
        "fraction_of_peak": _s(a.fraction_of_peak),
        "crossover": crossover_json(a.memory.crossover),
        "crossover_regime": crossover_json(a.crossover_regime),
        "regime_holds": a.regime_holds,
        "regime_checks": [{"check": name, "holds": ok} for name, ok in a.regime_checks] or None,
        "network": _network(a),
    }
