"""A problem's quantities as a formula names them: its catalogue rows, its dims, its givens.

:func:`quantities_of` turns any kind's analysis into :class:`~derive.questions.records.Known`
records: every catalogue row of its kind, read from its records by the row's read path (as
a derivation's ``values()`` reads them: :func:`~derive.catalogue.reading.read_values`), with
its unit from the row (:func:`unit_of`) and its exact value in base units (``train_days`` is
stored in seconds); the dims (free ones as symbols, so an equation may solve for them); and
what the problem is given, which no row holds (the hardware's numbers, a run's degrees).
A lower bound with a dim left free is ``max(T_math, T_mem)``, kept piecewise with its
branches named so a solve can say which one binds.
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.comms_only import CommsAnalysis
from derive.analysis.kernel_numbers import KernelNumbers
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
    "bytes_sent": Dimension.BYTES,
    "link_time": Dimension.TIME,
    "latency_time": Dimension.TIME,
}
"""What the hardware's numbers and a step's parts measure (they are no catalogue rows):
their unit is the catalogue's for that dimension (:data:`DISPLAY_UNITS`); a degree or a
count of devices is a plain number, a run's batch and sequence a count of tokens."""

_TOKENS = ("batch_tokens", "seq")
"""A run's givens counted in tokens (the catalogue's unit for one: ``q.TOKENS``)."""


def unit_of(name: str) -> str:
    """The display unit of a quantity a problem exports (JSON names): its catalogue row's
    (the one unit table), else its dimension's for a hardware number or a step's part.

    >>> unit_of("ridge"), unit_of("peak"), unit_of("train_days"), unit_of("dp")
    ('FLOP/byte', 'FLOP/s', 'days', '')
    """
    row = find(name)
    if row is not None:
        return row.display_unit
    if name in _TOKENS:
        return q.TOKENS.display_unit
    found = _GIVEN_DIMENSIONS.get(name)
    return DISPLAY_UNITS[found] if found is not None else ""


def _records_of(analysis: object) -> tuple[ProblemKind, tuple[object, ...]] | None:
    """The kind of an analysis and the records its rows' read paths start from (a model's
    quantities by key; a serving step also under its phase's name: ``decode.tokens_per_s``),
    or None for a record of no kind with rows (a decode's crossover alone)."""
    if isinstance(analysis, ModelAnalysis):
        return ProblemKind.MODEL, ({made.key: made.value for made in analysis.quantities},)
    if isinstance(analysis, PhaseAnalysis):
        return ProblemKind.SERVING, ({analysis.phase.value: analysis}, analysis)
    kinds: tuple[tuple[type, ProblemKind], ...] = (
        (Analysis, ProblemKind.OPERATOR),
        (CommsAnalysis, ProblemKind.COMMS),
        (KernelNumbers, ProblemKind.KERNEL),
        (TrainingAnalysis, ProblemKind.TRAINING),
    )
    kind = next((kind for of, kind in kinds if isinstance(analysis, of)), None)
    return None if kind is None else (kind, (analysis,))


Given = tuple[str, object, str]
"""A name a problem is given (no row), its value and its unit."""


def _units(*givens: tuple[str, object]) -> tuple[Given, ...]:
    return tuple((name, value, unit_of(name)) for name, value in givens)


def _givens(a: object) -> tuple[Iterable[sp.Symbol], dict, tuple[Given, ...]]:
    """A problem's dims, the values bound to them, and what it is given, each with its unit
    (no rows: the hardware's numbers, a run's degrees, a model's parts)."""
    if isinstance(a, CommsAnalysis):
        c = a.problem
        parts = (("bytes_sent", a.sent), ("link_time", a.link_time))
        givens = _units(("link_bandwidth", c.link.value), *parts, ("latency_time", a.latency_time))
        return c.operator.dims, c.bound_subs(), givens
    if isinstance(a, Analysis):
        p = a.problem
        hardware = (("peak", p.peak.value), ("bandwidth", p.bandwidth.value))
        link = ("link_bandwidth", p.link.value if p.link else None)
        return p.operator.dims, p.bound_subs(), _units(*hardware, link)
    if isinstance(a, KernelNumbers):
        return (), {}, _units(("peak", a.peak.value), ("bandwidth", a.bandwidth.value))
    if isinstance(a, ModelAnalysis):
        from derive.model.symbols import batch, context

        m, bound = a.problem, dict(a.problem.bound)
        declared = {  # a declared model's own free dims (d_model = dm): unknowns an equation solves
            s
            for made in a.quantities
            if isinstance(made.value, sp.Expr)
            for s in made.value.free_symbols
            if isinstance(s, sp.Symbol) and s not in (batch, context)
        }
        dims = (batch, context, *sorted(declared, key=lambda s: s.name))
        figures = (("capacity", m.capacity), ("peak", m.peak), ("bandwidth", m.bandwidth))
        terms = tuple(  # a step's parts and terms that are no rows (P_attn), in their row's unit
            (made.key, made.value, made.row.display_unit)
            for made in a.quantities
            if find(made.key) is None
        )
        figured = _units(("devices", m.devices), *((k, f and f.value) for k, f in figures))
        return dims, bound, (*figured, *terms)
    if isinstance(a, TrainingAnalysis):
        t = a.problem
        degrees = ((k, getattr(t, k)) for k in ("dp", "tp", "pp", "ep", "microbatches"))
        sizes = (("micro_batch", t.micro_batch), ("batch_tokens", t.batch_tokens))
        ceilings = (("seq", t.seq), ("peak", t.peak), ("link_bandwidth", t.link))
        return (), {}, _units(*degrees, *sizes, *ceilings)
    assert isinstance(a, PhaseAnalysis), a
    counts = (("step_flops", a.step_flops), ("step_bytes", a.step_bytes))
    return (), {}, _units(*counts, ("tp", a.tp), ("replicas", a.replicas))


def _known(name: str, value: object, unit: str, origin: str, bound: dict) -> Known | None:
    """A number or formula at the bound dims (a truth, such as ``fits``, or a word is no
    number a formula may use)."""
    value = sp.Integer(value) if type(value) is int else value
    if not isinstance(value, sp.Expr):
        return None
    measure = _m(unit)
    return Known(name, value.xreplace(bound) * measure.factor, measure, origin)


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


_ORIGINS = {ProblemKind.TRAINING: "training run", ProblemKind.SERVING: "serving step"}


def _own(analysis: object) -> dict[str, Known]:
    """One analysis's names: its dims, its givens, then its kind's rows at the bound dims."""
    if (records := _records_of(analysis)) is None:
        return {}
    kind, roots = records
    origin = f"a quantity of the {_ORIGINS.get(kind, 'problem')}"
    dims, bound, givens = _givens(analysis)
    table = {d.name: Known(d.name, bound.get(d, d), NUMBER, "a dim") for d in dims}
    rows = ((row.name, v, row.display_unit) for row, v in read_values(kind, roots).items())
    for name, value, unit in (*givens, *rows):
        if (found := _known(name, value, unit, origin, bound)) is not None:
            table[name] = found
    if isinstance(analysis, Analysis) and (t_mem := analysis.memory.time) is not None:
        t_math, t_mem = analysis.t_math.xreplace(bound), t_mem.xreplace(bound)
        upper = Known(q.T_UPPER.name, t_math + t_mem, _m(q.T_UPPER.display_unit), origin)
        table.setdefault(q.T_UPPER.name, upper)  # the bounds with a dim left free
        table[q.T_LOWER.name] = _lower(t_math, t_mem, analysis.t_lower)
    return table


def quantities_of(analysis: object, phase: object = None) -> dict[str, Known]:
    """The names a problem's formulas may use, whatever its kind (a serving step's after its
    model's; none for givens alone)."""
    return {**_own(analysis), **(_own(phase) if isinstance(phase, PhaseAnalysis) else {})}


def explain_missing(error: ProblemError, analysis: object) -> ProblemError:
    """An unknown name the problem names but did not derive, said with why (its left-out
    reason: ``min_devices`` needs a batch B and a context S); else the error itself."""
    for key, why in getattr(analysis, "left_out", ()) or ():
        if f"unknown name {key!r}" in error.why:
            return ProblemError(error.what, f"{key!r} is not derived for this problem: {why}")
    return error
