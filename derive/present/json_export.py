"""The JSON report of ``derive solve --format json`` (a contract: keys are kept).

A key that is a quantity is its catalogue row's name (``q.RIDGE.name``), so the
report, ``derive check`` and a problem set's ``ask`` and ``expect`` name it alike.

Expressions are strings in sympy's ``str()`` syntax; ``value`` fields are
decimals for display (the only floats derive emits).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, TypeAlias

import sympy as sp

from derive.analysis.analyse import Analysis, Roofline
from derive.analysis.collectives import CollectiveTime
from derive.analysis.crossover.records import CROSSES, Crossover
from derive.analysis.measured import Measured
from derive.analysis.sharding import BookSharding, StrategyRow
from derive.analysis.step import StepTime
from derive.catalogue import ProblemKind, Quantity
from derive.catalogue import table as q
from derive.catalogue.reading import attributes, read_record, read_values, rows_valued_in
from derive.catalogue.reading import text_or_none as _s
from derive.solution.notation import str_sum

_Printers: TypeAlias = dict[Quantity, Callable[[Any], object]]
"""Rows whose records a report lays out, each by its printer."""


def _f(expr: sp.Expr | None) -> float | None:
    return float(expr) if expr is not None and expr.is_number else None


def laid_out(
    kind: ProblemKind,
    records: tuple[object, ...],
    after: Mapping[Quantity, Mapping[str, object]],
    within: str = "",
    order: tuple[Quantity, ...] = (),
    shown: Callable[[sp.Basic | str], object] = str,
    printed: _Printers | None = None,
) -> dict[str, object]:
    """A kind's report from its values (its rows read from its ``records``, as ``values()``
    reads them): each of its rows whose JSON key sits at the top of the report (or of its
    section ``within``: ``what_if``), in the catalogue's order, its exact value ``shown``
    (text unless told; a truth as JSON's, null where the derivation has none; a topic, which
    holds no value, is no key), each followed by the keys of the kind's own the report places
    after it. A report whose contract orders its keys otherwise gives its rows in ``order``
    (a layout: rows, each a key where it is placed, null where it has no value); a row
    ``printed`` is the record at its read path (a topic's: the network, the step) as its
    printer lays it out."""
    values, out = read_values(kind, records), dict[str, object]()
    for row in order or rows_valued_in(kind):
        path, value = row.json_path(kind), values.get(row)
        top = path[:-1] == ((within,) if within else ())
        if printed and row in printed:
            record = read_record(kind, records, row)
            out[path[-1]] = None if record is None else printed[row](record)
        elif order or (top and (row.dimension is not None or value is not None)):
            out[path[-1]] = value if value is None or isinstance(value, bool) else shown(value)
        out.update(after.get(row, {}))
    return out


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


def _terms_json(roof: Roofline) -> list[dict[str, object]]:
    """Each tensor's bytes as a formula, and ``bytes_at`` (exact, in B) where every dim of
    the tensor is bound (issue 36; None otherwise)."""
    return [
        {
            "tensor": t.tensor.name,
            "role": t.role,
            "dtype": t.dtype,
            "width": str(t.width),
            "elements": str(t.elements),
            "bytes": str(t.bytes),
            "bytes_at": {"exact": str(at), "unit": "B"} if at.is_number else None,
        }
        for t, at in zip(roof.terms, roof.terms_bound, strict=True)
    ]


def _fusion_savings(analysis: Analysis) -> dict[str, str] | None:
    """A composite's bytes its fused version does not move, per layer (None: nothing fused)."""
    fusion = analysis.layer.fusion if analysis.layer is not None else None
    return None if fusion is None else {"exact": str(fusion.savings), "unit": "B"}


def _network(net: Roofline) -> dict[str, object]:
    """The network's roofline: its bytes as declared, term by term, then its rows' values
    (read from the network under its key, as from the analysis)."""
    order = q.NETWORK_INTENSITY, q.NETWORK_RIDGE, q.T_COMMS
    after = {q.T_COMMS: {q.CROSSOVER.name: crossover_json(net.crossover)}}
    return {
        q.BYTES.name: str_sum([t.bytes for t in net.terms]),
        "bytes_terms": _terms_json(net),
        **laid_out(ProblemKind.OPERATOR, ({q.NETWORK.name: net},), after, "", order),
    }


_TIMES = "t_math t_mem t_comms t_lower t_upper"
_STEP = (
    "flops bytes comms_bytes t_math t_mem t_comms launch_overhead t_lower t_lower_overlapped "
    "t_lower_serial t_upper"
)


def step_json(step: StepTime | None) -> dict[str, object] | None:
    """A step's totals, bounds and kernels (None when a dim is left free)."""
    if step is None:
        return None
    return {
        **attributes(step, _STEP),
        "binding": step.binding.value,
        **attributes(step, "aggregate_intensity single_roofline_t_lower fraction_of_peak"),
        **attributes(step.ceilings, "compute_efficiency memory_efficiency"),
        "kernels": [
            {
                "name": time.kernel.name,
                "parts": list(time.kernel.parts),
                "fused": time.kernel.fused,
                **attributes(time.kernel, "flops bytes comms_bytes"),
                **attributes(time, _TIMES),
                "binding": time.binding.value,
                "share": str(time.share),
            }
            for time in step.kernels
        ],
    }


_MEASURED = (
    "time flops_per_s bytes_per_s mfu mbu intensity kernel_intensity needed_bytes_per_s "
    "needed_flops_per_s"
)


def measured_json(measured: Measured | None) -> dict[str, object] | None:
    """A measurement read against the roofline: mfu, mbu, implied intensity, verdict."""
    if measured is None:
        return None
    return {
        **attributes(measured, _MEASURED, _s),
        "verdict": measured.verdict.value,
        "beats": list(measured.beats),
    }


def to_json(analysis: Analysis) -> dict[str, object]:
    """Every derived quantity; keys that do not apply are ``None``: the problem, then its
    rows' values laid out in the contract's order (the bytes as declared, term by term), the
    crossovers, the network, the step, the collectives and the measurement among them."""
    problem = analysis.problem
    head = {
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
    }
    checks = [{"check": name, "holds": ok} for name, ok in analysis.regime_checks]
    after: dict[Quantity, dict[str, object]] = {
        q.FLOPS: {
            q.BYTES.name: str_sum([t.bytes for t in analysis.memory.terms]),
            "bytes_terms": _terms_json(analysis.memory),
            "fusion_savings": _fusion_savings(analysis),
        },
        q.FRACTION_OF_PEAK: {
            q.CROSSOVER.name: crossover_json(analysis.memory.crossover),
            q.CROSSOVER_REGIME.name: crossover_json(analysis.crossover_regime),
        },
        q.REGIME_HOLDS: {"regime_checks": checks or None},
        # the analysis's own collectives (the row's are the winning strategy's, in "sharding")
        q.STEP: {q.COLLECTIVES.name: collectives_json(analysis.collectives) or None},
        q.MEASURED: {"sharding": book_sharding_json(s)} if (s := analysis.sharding) else {},
    }
    order = (q.FLOPS, q.FUSION_SAVINGS_TOTAL, q.INTENSITY, q.INTENSITY_BOUND, q.INTENSITY_REGIME,
             q.INTENSITY_REGIME_BOUND, q.RIDGE, q.T_MATH, q.T_MEM, q.T_LOWER, q.T_UPPER,
             q.ATTAINABLE, q.FRACTION_OF_PEAK, q.REGIME_HOLDS, q.NETWORK, q.STEP, q.MFU, q.MBU,
             q.MEASURED)  # fmt: skip
    printed: _Printers = {q.NETWORK: _network, q.STEP: step_json, q.MEASURED: measured_json}
    return {**head, **laid_out(ProblemKind.OPERATOR, (analysis,), after, "", order, str, printed)}


def _strategy_json(r: StrategyRow) -> dict[str, object]:
    return {"name": r.name, "notation": list(r.notation), "flops_per_device": str(r.flops),
            q.TENSOR_BYTES.name: str(r.bytes), **attributes(r, _TIMES)}  # fmt: skip


def book_sharding_json(s: BookSharding) -> dict[str, object]:
    """The tensors, every strategy, the winner and its collectives, exact (the winner and
    its collectives are the rows' records, read from the sharding under its key)."""
    after = {q.STRATEGY: {q.T_COMMS.name: _s(s.strategy.t_comms if s.strategy else None)}}
    printed: _Printers = {q.STRATEGY: attrgetter("name"), q.COLLECTIVES: collectives_json}
    order = q.STRATEGY, q.COLLECTIVES
    winner = laid_out(ProblemKind.OPERATOR, ({"sharding": s},), after, "", order, str, printed)
    return {
        "tensors": [{"spec": t.text(), q.TENSOR_BYTES.name: str(b)} for t, b in s.tensors],
        "strategies": [_strategy_json(r) for r in s.rows],
        **winner,
        "crossovers": [
            {"dim": str(s.dim), "value": str(v), "below": a, "above": b}
            | ({"value_derive": str(s.own[i])} if i < len(s.own) else {})
            for i, (v, a, b) in enumerate(s.crossovers)
        ],
    }


def _on_mesh(item: CollectiveTime) -> dict[str, object]:
    """A collective on a mesh, as issue 45 names its keys: its axes, bytes and time."""
    axes = [c.level.axis.name for c in item.levels]
    own = {} if item.own_time is None else {"time_derive": str(item.own_time)}
    if item.precise_time is not None:  # the book's "more precise" form over switch levels
        own["time_precise"] = str(item.precise_time)
    return {"axes": axes, "bytes": str(item.sent), "time": _s(item.time), **own}


def collectives_json(collectives: tuple[CollectiveTime, ...]) -> list[dict[str, object]]:
    """Each collective's kind, group, size, bytes sent per device, ring steps and time."""
    return [
        {
            "tensor": item.collective.name,
            "kind": item.collective.kind.value,
            "group": int(item.group) if item.group.is_Integer else str(item.group),
            "overlap": item.collective.overlap,
            "size": str(item.size),
            "sent": str(item.sent),
            "steps": int(item.steps) if item.steps.is_Integer else str(item.steps),
            q.T_COMMS.name: _s(item.time),
            **(_on_mesh(item) if item.levels else {}),
        }
        for item in collectives
    ]
