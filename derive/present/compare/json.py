"""``derive compare --format json``: one object per row, exact values beside floats.

Each quantity is ``{"exact": sympy str, "value": float}``; the keys are a contract
(add freely, never rename). The model comparison (:mod:`derive.commands.compare_model`)
writes the same shape with its serving keys added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.catalogue.reading import text_or_none

if TYPE_CHECKING:
    from derive.analysis.analyse import Analysis
    from derive.analysis.crossover.records import Crossover
    from derive.catalogue import Quantity
    from derive.present.compare.ratios import Ratios
    from derive.present.compare.table import CompareRow


def bound_of(analysis: Analysis) -> str:
    """The ceiling the problem binds on: the step's binding, else by T_math against T_mem."""
    if analysis.step is not None:
        return analysis.step.binding.value
    return "compute" if bool(analysis.t_math >= analysis.memory.time) else "memory"


def quantity_json(value: sp.Expr | None) -> dict[str, object] | None:
    """An exact value as ``{"exact", "value"}`` (None stays None)."""
    if value is None:
        return None
    return {"exact": str(value), "value": float(value) if value.is_number else None}


def _crossover_json(crossover: Crossover, leading: bool) -> dict[str, object]:
    exact = crossover.exact
    return {
        "variable": crossover.variable.name,
        "status": crossover.status,
        "exact": text_or_none(exact),
        "value": float(exact) if exact is not None and exact.is_number else None,
        q.MIN_COMPUTE_BOUND.name: crossover.min_compute_bound,
        "leading_order": leading,
    }


def ratios_json(ratio: Ratios) -> dict[str, object]:
    """A row's ratios to its baseline row."""
    return {
        "baseline": ratio.baseline,
        "baseline_compute_dtype": ratio.compute,
        "peak": quantity_json(ratio.peak),
        "bandwidth": quantity_json(ratio.bandwidth),
        q.RIDGE.name: quantity_json(ratio.ridge),
        "t_lower_speedup": quantity_json(ratio.speedup),
        "follows": ratio.follows.value if ratio.speedup is not None else None,
    }


def own_comms(analysis: Analysis) -> sp.Expr | None:
    """derive's own exact T_comms of an operator timed under ``--convention scaling-book``
    (each collective's own time in place of the book's); None when none was the book's."""
    own = [(c.own_time, c.time) for c in analysis.collectives if c.own_time is not None]
    net = analysis.network
    return net.time + sp.Add(*(o - t for o, t in own if t is not None)) if own and net else None


def compare_json(
    rows: list[CompareRow], ratios: list[Ratios] | None = None
) -> list[dict[str, object]]:
    """One object per row: exact values as sympy ``str`` with a float ``value`` beside each;
    the operator's rows laid out in the contract's order, its times only where every dim is
    bound (``null`` for a formula)."""
    from derive.present.json_export import laid_out

    out: list[dict[str, object]] = []
    for index, row in enumerate(rows):
        analysis, problem = row.analysis, row.analysis.problem
        crossover, leading = row.headline
        numeric = analysis.all_bound
        net, own = analysis.network, own_comms(analysis) if numeric else None
        numbers = (analysis,) if numeric else ()  # the records the times are read from
        network = (
            None
            if net is None or net.crossover is None
            else {
                q.RIDGE.name: quantity_json(net.ridge),
                q.CROSSOVER.name: _crossover_json(net.crossover, False),
                **laid_out(ProblemKind.OPERATOR, numbers, {}, "", (q.T_COMMS,), quantity_json),
                **({"t_comms_derive": quantity_json(own)} if own is not None else {}),
            }
        )
        after: dict[Quantity, dict[str, object]] = {
            q.T_MEM: {"bound": bound_of(analysis) if numeric else None},
            q.FRACTION_OF_PEAK: {q.NETWORK.name: network},
            q.T_LOWER: {"ratios": ratios_json(ratios[index])} if ratios is not None else {},
        }
        order = q.T_MATH, q.T_MEM, q.ATTAINABLE, q.FRACTION_OF_PEAK, q.T_LOWER
        out.append(
            {
                "chip": row.chip.name,
                "title": row.chip.title,
                "compute_dtype": row.compute,
                "operator": problem.operator.name,
                "dtypes": {name: dtype.name for name, dtype in problem.dtypes},
                "regime": problem.regime.text if problem.regime else None,
                "set": {dim.name: int(value) for dim, value in problem.bound},
                "peak": quantity_json(row.chip.peak(row.compute).value),
                "bandwidth": quantity_json(row.chip.hbm.value),
                q.RIDGE.name: quantity_json(analysis.memory.ridge),
                q.CROSSOVER.name: _crossover_json(crossover, leading),
                **laid_out(ProblemKind.OPERATOR, numbers, after, "", order, quantity_json),
            }
        )
    return out
