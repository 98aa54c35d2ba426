"""A problem's quantities as a formula names them: by their JSON names, with their units.

One function per kind of analysis turns it into :class:`~derive.questions.records.Known`
records: the dims (free ones as symbols, so an equation may solve for them), the
quantities of ``derive solve|model --format json`` by their keys, each with its unit from
its catalogue row (:func:`unit_of`) and its exact value in base units (``train_days`` is stored in seconds).
A lower bound with a dim left free is ``max(T_math, T_mem)``, kept piecewise with its
branches named so a solve can say which one binds.
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.comms_only import CommsAnalysis
from derive.analysis.kernel_numbers import KernelNumbers
from derive.analysis.step import StepTime
from derive.catalogue import ProblemKind, find
from derive.catalogue import table as q
from derive.catalogue.reading import read_values
from derive.catalogue.records import DISPLAY_UNITS
from derive.errors import ProblemError
from derive.formula.units import Dimension, Measure, measure_atom
from derive.model.phase import PhaseAnalysis
from derive.model.records import ModelAnalysis
from derive.questions.read import NUMBER
from derive.questions.records import Known
from derive.training.analysis import TrainingAnalysis

__all__ = [
    "comms_quantities",
    "explain_missing",
    "kernel_quantities",
    "model_quantities",
    "operator_quantities",
    "phase_quantities",
    "quantities_of",
    "training_quantities",
    "unit_of",
]


def _m(text: str) -> Measure:
    """A measure from a unit text of at most one ``/`` (``FLOP/s``, ``byte/token``)."""
    if not text:
        return NUMBER
    top, _, bottom = text.partition("/")
    head = measure_atom(top)
    assert head is not None, text
    if not bottom:
        return head
    tail = measure_atom(bottom)
    assert tail is not None, text
    out = head / tail
    return Measure(out.exponents, out.factor, text)


_GIVEN_DIMENSIONS: dict[str, Dimension] = {
    "peak": Dimension.FLOP_RATE,
    "bandwidth": Dimension.BYTE_RATE,
    "link_bandwidth": Dimension.BYTE_RATE,
    "step_flops": Dimension.FLOPS,
    "step_bytes": Dimension.BYTES,
    "capacity": Dimension.BYTES,
    "devices": Dimension.COUNT,
    "bytes_sent": Dimension.BYTES,
    "link_time": Dimension.TIME,
    "latency_time": Dimension.TIME,
}
"""What the hardware's numbers and a step's parts measure (they are no catalogue rows):
their unit is the catalogue's for that dimension (:data:`DISPLAY_UNITS`)."""

_TOKENS = q.TOKENS.display_unit
"""A count of tokens (a run's batch and sequence), in the catalogue's unit for one."""


def unit_of(name: str) -> str:
    """The display unit of a quantity a problem exports (JSON names): its catalogue row's
    (the one unit table), else its dimension's for a hardware number or a step's part.

    >>> unit_of("ridge"), unit_of("peak"), unit_of("train_days")
    ('FLOP/byte', 'FLOP/s', 'days')
    """
    row = find(name)
    return row.display_unit if row is not None else DISPLAY_UNITS[_GIVEN_DIMENSIONS[name]]


_TRUTH = "bool"
"""The display unit of a yes-or-no quantity (``fits``)."""


def _known(name: str, value: sp.Expr | None, unit: str, origin: str) -> Known | None:
    if value is None or isinstance(value, sp.logic.boolalg.BooleanAtom):
        return None
    measure = _m(unit)
    return Known(name, value * measure.factor, measure, origin)


def _table(items: Iterable[Known | None]) -> dict[str, Known]:
    return {k.name: k for k in items if k is not None}


def _rows(kind: ProblemKind, records: tuple, origin: str, bound: dict | None = None) -> list:
    """The kind's catalogue quantities its records hold, each read by its row (a truth, such
    as ``fits``, is no number a formula may use), at the bound dims."""
    return [
        _known(row.name, v.xreplace(bound or {}), row.display_unit, origin)
        for row, v in read_values(kind, records).items()
        if isinstance(v, sp.Expr)
    ]


def _dims(symbols: Iterable[sp.Symbol], bound: dict[sp.Symbol, sp.Integer]) -> list[Known]:
    return [Known(d.name, bound.get(d, d), NUMBER, "a dim") for d in symbols]


def _lower(t_math: sp.Expr, t_mem: sp.Expr, t_lower: sp.Expr | None) -> Known:
    """``t_lower``: the analysis's value, or ``max(T_math, T_mem)`` with a dim left free."""
    seconds, name = _m(q.T_LOWER.display_unit), q.T_LOWER.name
    if t_lower is not None and t_lower.is_number:
        return Known(name, t_lower, seconds, "a quantity of the problem")
    return Known(
        name,
        sp.Max(t_math, t_mem),
        seconds,
        "a quantity of the problem",
        branches=((q.T_MATH.name, t_math), (q.T_MEM.name, t_mem)),
    )


def operator_quantities(a: Analysis) -> dict[str, Known]:
    """An operator problem's dims and quantities (``derive solve --format json``)."""
    p = a.problem
    origin = "a quantity of the problem"
    bound = p.bound_subs()
    givens = {
        "peak": p.peak.value,
        "bandwidth": p.bandwidth.value,
        "link_bandwidth": p.link.value if p.link else None,
        q.T_UPPER.name: (a.t_math + a.memory.time).xreplace(bound),  # with a dim left free
    }
    table = _table(_dims(p.operator.dims, bound))
    table.update(_table(_known(k, v, unit_of(k), origin) for k, v in givens.items()))
    table.update(_table(_rows(ProblemKind.OPERATOR, (a,), origin, bound)))
    t_mem = a.memory.time
    if t_mem is not None:
        table[q.T_LOWER.name] = _lower(a.t_math.xreplace(bound), t_mem.xreplace(bound), a.t_lower)
    return table


def _step(step: StepTime | None, origin: str) -> list[Known | None]:
    if step is None:
        return []
    return [
        _known(row.name, getattr(step, row.name), row.display_unit, origin)
        for row in (q.T_MATH, q.T_MEM, q.T_COMMS, q.T_LOWER, q.T_UPPER)
    ]


def kernel_quantities(k: KernelNumbers) -> dict[str, Known]:
    """A kernel problem's quantities (``derive solve --flops … --bytes …``)."""
    origin = "a quantity of the problem"
    givens = {
        q.FLOPS.name: k.flops,
        q.BYTES.name: k.bytes,
        "peak": k.peak.value,
        "bandwidth": k.bandwidth.value,
        q.T_COMMS.name: k.step and k.step.t_comms,
    }
    table = _table(_known(name, v, unit_of(name), origin) for name, v in givens.items())
    table.update(_table(_rows(ProblemKind.KERNEL, (k,), origin)))
    return table


def comms_quantities(a: CommsAnalysis) -> dict[str, Known]:
    """A comms-only operator's dims and quantities (``derive solve --format json``)."""
    p = a.problem
    origin = "a quantity of the problem"
    bound = p.bound_subs()
    values: dict[str, sp.Expr] = {  # the link and the parts of its time (no rows)
        "link_bandwidth": p.link.value,
        "bytes_sent": a.sent,
        "link_time": a.link_time,
        "latency_time": a.latency_time,
    }
    table = _table(_dims(p.operator.dims, bound))
    table.update(
        _table(_known(k, v.xreplace(bound), unit_of(k), origin) for k, v in values.items())
    )
    table.update(_table(_rows(ProblemKind.COMMS, (a,), origin, bound)))
    return table


def training_quantities(t: TrainingAnalysis) -> dict[str, Known]:
    """A training run's quantities (``derive train --format json``'s keys) and its degrees."""
    origin = "a quantity of the training run"
    p = t.problem
    table = _table(_rows(ProblemKind.TRAINING, (t,), origin))
    for name, value in (
        ("dp", p.dp),
        ("tp", p.tp),
        ("pp", p.pp),
        ("ep", p.ep),
        ("microbatches", p.microbatches),
        ("micro_batch", p.micro_batch),
    ):
        table[name] = Known(name, sp.Integer(value), NUMBER, origin)
    table["batch_tokens"] = Known("batch_tokens", p.batch_tokens, _m(_TOKENS), origin)
    table["seq"] = Known("seq", p.seq, _m(_TOKENS), origin)
    table["peak"] = Known("peak", p.peak, _m(unit_of("peak")), origin)
    table["link_bandwidth"] = Known("link_bandwidth", p.link, _m(unit_of("link_bandwidth")), origin)
    return table


def quantities_of(analysis: object, phase: object = None) -> dict[str, Known]:
    """The names a problem's formulas may use, whatever its kind (none for givens alone)."""
    own: dict[str, Known] = {}
    for kind, table in _TABLES:
        if isinstance(analysis, kind):
            own = table(analysis)  # type: ignore[operator]
            break
    if isinstance(phase, PhaseAnalysis):
        own.update(phase_quantities(phase))
    return own


def explain_missing(error: ProblemError, analysis: object) -> ProblemError:
    """An unknown name the problem names but did not derive, said with why (its left-out
    reason: ``min_devices`` needs a batch B and a context S); else the error itself."""
    for key, why in getattr(analysis, "left_out", ()) or ():
        if f"unknown name {key!r}" in error.why:
            return ProblemError(error.what, f"{key!r} is not derived for this problem: {why}")
    return error


def model_quantities(a: ModelAnalysis) -> dict[str, Known]:
    """A model problem's dims B and S and every quantity of its worked solution, by key."""
    p = a.problem
    origin = "a quantity of the problem"
    from derive.model.symbols import batch, context

    table = _table(_dims((batch, context), dict(p.bound)))
    declared = {  # a declared model's own free dims (d_model = dm): unknowns an equation solves
        s
        for made in a.quantities
        if isinstance(made.value, sp.Expr)
        for s in made.value.free_symbols
        if isinstance(s, sp.Symbol) and s not in (batch, context)
    }
    table.update(_table(_dims(sorted(declared, key=lambda s: s.name), dict(p.bound))))
    table["devices"] = Known("devices", p.devices, NUMBER, origin)
    if p.capacity is not None:
        table["capacity"] = Known("capacity", p.capacity.value, _m(unit_of("capacity")), origin)
    if p.peak is not None:
        table["peak"] = Known("peak", p.peak.value, _m(unit_of("peak")), origin)
    if p.bandwidth is not None:
        table["bandwidth"] = Known("bandwidth", p.bandwidth.value, _m(unit_of("bandwidth")), origin)
    for made in a.quantities:
        unit = made.row.display_unit
        found = None if unit == _TRUTH else _known(made.key, made.value, unit, origin)
        if found is not None:  # a truth (fits) is no number a formula may use
            table[made.key] = found
    return table


def phase_quantities(phase: PhaseAnalysis) -> dict[str, Known]:
    """A serving step's quantities (``derive model --phase``): its times and rates."""
    origin = "a quantity of the serving step"
    givens = {"step_flops": phase.step_flops, "step_bytes": phase.step_bytes}
    table = _table(_step(phase.step, origin))
    table.update(_table(_known(k, v, unit_of(k), origin) for k, v in givens.items()))
    by_phase = ({phase.phase.value: phase}, phase)  # a decode's rate: decode.tokens_per_s
    table.update(_table(_rows(ProblemKind.SERVING, by_phase, origin)))
    table["tp"] = Known("tp", sp.Integer(phase.tp), NUMBER, origin)
    table["replicas"] = Known("replicas", sp.Integer(phase.replicas), NUMBER, origin)
    return table


_TABLES: tuple[tuple[type, object], ...] = (
    (Analysis, operator_quantities),
    (CommsAnalysis, comms_quantities),
    (KernelNumbers, kernel_quantities),
    (ModelAnalysis, model_quantities),
    (TrainingAnalysis, training_quantities),
)
"""Each kind of analysis and the function that lists its quantities by name."""
