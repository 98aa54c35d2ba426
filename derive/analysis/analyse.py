"""Derive every roofline quantity of a bound problem, exactly.

One pure function, :func:`analyse`, from a :class:`~derive.problem.binding.Problem` to
an :class:`Analysis` record. Steps and rendering read this record; they never
compute: every value a worked solution shows (each side at the bound dims, the
intensity in lowest terms as a function of the solved-for dim, the intensity either
side of the threshold, a composite's parts and its unfused twin) is a field here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.algebra import ratios as algebra_ratios
from derive.analysis.algebra import rings as algebra
from derive.analysis.algebra.substitution import substitute
from derive.analysis.collectives import CollectiveTime, collective_times, link_elements
from derive.analysis.crossover.records import CROSSES, Crossover
from derive.analysis.crossover.solve import reduced_parts, solve_crossover
from derive.analysis.leading_order import LeadingOrder, leading_order
from derive.analysis.measured import Measured, measure
from derive.analysis.step import StepTime, compose
from derive.analysis.step_kernels import ceilings_of, kernels_of
from derive.declare.collective import Collective
from derive.declare.composite import Composite
from derive.declare.operator import Tensor
from derive.problem.binding import Problem
from derive.problem.regime import REGIME_FACTOR

if TYPE_CHECKING:
    from derive.analysis.parts import LayerBreakdown
    from derive.analysis.sharding import BookSharding


Values = dict[sp.Symbol, sp.Integer]


@dataclass(frozen=True)
class ByteTerm:
    """One tensor's bytes: width × elements, kept whole so it can be explained."""

    tensor: Tensor
    role: str
    dtype: str
    width: sp.Rational
    elements: sp.Expr

    @cached_property
    def bytes(self) -> sp.Expr:
        """Width × elements (computed once: steps, reports and figures all ask for it)."""
        return self.width * self.elements

    @cached_property
    def declared(self) -> sp.Expr:
        """The width's symbol × elements, as declared (``w_X·B·D`` before the dtype is read)."""
        return self.tensor.width_sym * self.elements


@dataclass(frozen=True)
class IntensityForm:
    """FLOPs over bytes as a worked solution writes it, with some dims bound.

    Attributes:
        flops: the FLOPs with those dims substituted.
        terms: each tensor's bytes with those dims substituted, in declaration order, like
            terms combined (``4BHNT + 4BHKS``, not ``2BHNT + 2BHKS + 2BHKS + 2BHNT``).
        lowest: the intensity with those dims substituted, in lowest terms.
        as_declared: True when FLOPs / Σ terms is already in lowest terms (``lowest``'s
            denominator is the same polynomial as the bytes), so it is written term by term.
    """

    flops: sp.Expr
    terms: tuple[sp.Expr, ...]
    lowest: sp.Expr
    as_declared: bool


@dataclass(frozen=True)
class Threshold:
    """The smallest compute-bound integer, checked: the intensity at it and just below it.

    Attributes:
        smallest: the smallest integer value of the solved-for dim that is compute-bound.
        at: the intensity at ``smallest`` (every other bound dim substituted).
        below: the intensity at ``smallest - 1``; None when ``smallest`` is 1.
    """

    smallest: int
    at: sp.Expr
    below: sp.Expr | None


@dataclass(frozen=True)
class Roofline:
    """One roofline: FLOPs against bytes over one bandwidth (memory or link).

    ``*_bound`` values have every bound dim substituted; ``*_of_x`` values every bound
    dim except the one solved for.
    """

    terms: tuple[ByteTerm, ...]
    bytes: sp.Expr
    intensity: sp.Expr
    ridge: sp.Rational | None
    crossover: Crossover | None
    time: sp.Expr | None
    bytes_bound: sp.Expr
    terms_bound: tuple[sp.Expr, ...]
    written: IntensityForm
    written_of_x: IntensityForm
    intensity_of_x: sp.Expr
    threshold: Threshold | None
    terms_collected: tuple[sp.Expr, ...] = ()
    terms_bound_collected: tuple[sp.Expr, ...] = ()
    depends_on_x: bool = True

    @property
    def bytes_collected(self) -> tuple[sp.Expr, ...]:
        """The bytes with like terms combined, in declaration order (``4BHNT + 4BHKS``)."""
        return self.terms_collected or tuple(term.bytes for term in self.terms)


@dataclass(frozen=True)
class Analysis:
    """Everything derived for one problem.

    ``*_bound`` values have the bound dims substituted (all of them); crossovers
    and ``*_of_x`` values use every bound dim except the one solved for.
    """

    problem: Problem
    flops: sp.Expr
    memory: Roofline
    leading: LeadingOrder | None
    intensity_regime: sp.Expr | None
    crossover_regime: Crossover | None
    regime_holds: bool | None
    regime_checks: tuple[tuple[str, bool], ...]
    t_math: sp.Expr
    t_lower: sp.Expr | None
    t_upper: sp.Expr | None
    attainable: sp.Expr | None
    fraction_of_peak: sp.Expr | None
    intensity_at_point: sp.Expr | None
    network: Roofline | None
    flops_bound: sp.Expr
    intensity_regime_of_x: sp.Expr | None = None
    threshold_regime: Threshold | None = None
    compute_bound_at_point: bool | None = None
    layer: LayerBreakdown | None = None
    step: StepTime | None = None
    collectives: tuple[CollectiveTime, ...] = ()
    measured: Measured | None = None
    intensity_bound: sp.Expr | None = None
    intensity_regime_bound: sp.Expr | None = None
    regime_depends_on_x: bool = True
    leading_den_collected: tuple[sp.Expr, ...] = ()
    sharding: BookSharding | None = field(default=None, compare=False, repr=False)  # --shard's
    layers: int = 1  # a composite's layers (--layers): its fusion savings counted in each

    @property
    def fusion_savings_total(self) -> sp.Expr | None:
        """The bytes fusion saves in every layer (None: no fusion, or a dim left free)."""
        fusion = self.layer.fusion if self.layer is not None else None
        return fusion.savings * self.layers if fusion and fusion.savings.is_number else None

    @property
    def crossover(self) -> Crossover:
        """The exact memory crossover (the memory roofline always has a bandwidth)."""
        if self.memory.crossover is None:
            raise ValueError("the memory roofline has no crossover")
        return self.memory.crossover

    @property
    def headline(self) -> tuple[Crossover, bool]:
        """The crossover to show first, and whether it is the leading-order one.

        The exact crossover when it is a number or a definite never/always; else the
        leading-order one when that is a number; else the exact one (formula or status).
        """
        exact, lead = self.crossover, self.crossover_regime
        if exact.is_number or exact.status in ("never", "always"):
            return exact, False
        if lead is not None and lead.is_number:
            return lead, True
        return exact, False

    @property
    def all_bound(self) -> bool:
        """True when every dim has a value, so times are numbers."""
        return bool(
            self.t_math.is_number and self.memory.time is not None and self.memory.time.is_number
        )


def _terms(
    problem: Problem, tensors: tuple[Tensor, ...], role_of: Callable[[Tensor], str]
) -> tuple[ByteTerm, ...]:
    dtypes = dict(problem.dtypes)
    return tuple(
        ByteTerm(
            tensor,
            role_of(tensor),
            dtypes[tensor.name].name,
            dtypes[tensor.name].width,
            link_elements(problem, tensor) if isinstance(tensor, Collective) else tensor.elements,
        )
        for tensor in tensors
    )


def _regime_checks(problem: Problem, value: sp.Expr) -> tuple[tuple[str, bool], ...] | None:
    if problem.regime is None:
        return None
    values: dict[sp.Symbol, sp.Expr] = dict(problem.bound)
    values[problem.solve_for] = value
    checks = []
    for small, large in problem.regime.pairs:
        if large not in values or (small is not None and small not in values):
            return None
        lhs = values[small] if small is not None else sp.Integer(1)
        holds = bool(REGIME_FACTOR * lhs <= values[large])
        name = (
            f"{large} ≥ {REGIME_FACTOR}" if small is None else f"{small} ≤ {large}/{REGIME_FACTOR}"
        )
        checks.append((name, holds))
    return tuple(checks)


def _written(
    flops: sp.Expr, terms: tuple[sp.Expr, ...], total: sp.Expr, lowest: sp.Expr, values: Values
) -> IntensityForm:
    """FLOPs / Σ terms at ``values``, and whether that is already in lowest terms."""
    at_flops, at_total = substitute(flops, values), substitute(total, values)
    as_declared = algebra.same_polynomial(sp.fraction(lowest)[1], at_total)
    at_terms = collect_in_order(tuple(substitute(t, values) for t in terms))
    return IntensityForm(at_flops, at_terms, lowest, as_declared)


def collect_in_order(terms: tuple[sp.Expr, ...]) -> tuple[sp.Expr, ...]:
    """Like terms combined, each where it first appears (``2a + 2b + 2b + 2a`` → ``4a + 4b``).

    >>> a, b = sp.symbols("a b")
    >>> collect_in_order((2 * a, 2 * b, 2 * b, 2 * a))
    (4*a, 4*b)
    """
    combined: dict[sp.Expr, sp.Expr] = {}
    for term in terms:
        coeff, monomial = term.as_coeff_Mul()
        combined[monomial] = combined.get(monomial, sp.Integer(0)) + coeff
    return tuple(coeff * monomial for monomial, coeff in combined.items() if coeff != 0)


def _threshold(intensity_of_x: sp.Expr, cross: Crossover | None) -> Threshold | None:
    """I at the smallest compute-bound integer and one below it, when the crossover has one."""
    if cross is None or cross.status != CROSSES or cross.min_compute_bound is None:
        return None
    x, smallest = cross.variable, cross.min_compute_bound
    below = substitute(intensity_of_x, {x: smallest - 1}) if smallest > 1 else None
    return Threshold(smallest, substitute(intensity_of_x, {x: smallest}), below)


@dataclass(frozen=True)
class _Setting:
    """What every roofline of one problem shares: FLOPs, peak, the dim solved for, the values."""

    flops: sp.Expr
    peak: sp.Rational
    x: sp.Symbol
    values_of_x: Values
    values_all: Values


def _roofline(
    setting: _Setting, terms: tuple[ByteTerm, ...], bandwidth: sp.Rational | None
) -> Roofline:
    flops, values_of_x, values_all = setting.flops, setting.values_of_x, setting.values_all
    total = sp.Add(*(term.bytes for term in terms))
    term_bytes = tuple(term.bytes for term in terms)
    intensity = algebra_ratios.cancel_ratio(flops, total)
    ridge = setting.peak / bandwidth if bandwidth is not None else None
    cross = time = None
    bytes_bound = substitute(total, values_all)
    if bandwidth is not None:
        parts = reduced_parts(substitute(flops, values_of_x), substitute(total, values_of_x))
        cross = solve_crossover(*parts, setting.peak, bandwidth, setting.x)
        time = bytes_bound / bandwidth
    intensity_of_x = algebra_ratios.cancel_at(intensity, values_of_x)
    return Roofline(
        terms=terms,
        bytes=total,
        intensity=intensity,
        ridge=ridge,
        crossover=cross,
        time=time,
        bytes_bound=bytes_bound,
        terms_bound=tuple(substitute(term, values_all) for term in term_bytes),
        written=_written(flops, term_bytes, total, intensity, {}),
        written_of_x=_written(
            flops, term_bytes, total, intensity_of_x if values_of_x else intensity, values_of_x
        ),
        intensity_of_x=intensity_of_x,
        threshold=_threshold(intensity_of_x, cross),
        terms_collected=collect_in_order(term_bytes),
        terms_bound_collected=collect_in_order(
            tuple(substitute(term, values_all) for term in term_bytes)
        ),
        depends_on_x=setting.x in intensity_of_x.free_symbols,
    )


def analyse(problem: Problem) -> Analysis:
    """Derive FLOPs, bytes, intensity, ridge, crossovers, times and the network roofline."""
    op, x = problem.operator, problem.solve_for
    peak, bandwidth = problem.peak.value, problem.bandwidth.value
    values_of_x, values_all = problem.bound_subs(except_dim=x), problem.bound_subs()
    setting = _Setting(op.flops, peak, x, values_of_x, values_all)
    flops = op.flops
    reads = set(id(tensor) for tensor in op.reads)

    def role(tensor: Tensor) -> str:
        return "read" if id(tensor) in reads else "write"

    memory = _roofline(setting, _terms(problem, op.memory_tensors, role), bandwidth)

    leading = intensity_regime = cross_regime = holds = None
    intensity_regime_of_x = None
    checks: tuple[tuple[str, bool], ...] = ()
    if problem.regime is not None:
        leading = leading_order(flops, tuple(term.bytes for term in memory.terms), problem.regime)
        intensity_regime = leading.ratio
        intensity_regime_of_x = algebra_ratios.cancel_at(intensity_regime, values_of_x)
        num, den = (substitute(e, values_of_x) for e in (leading.numerator, leading.denominator))
        cross_regime = solve_crossover(*reduced_parts(num, den), peak, bandwidth, x)
        if cross_regime.is_number and cross_regime.exact is not None:
            found = _regime_checks(problem, cross_regime.exact)
            if found is not None:
                checks, holds = found, all(ok for _, ok in found)

    t_math = substitute(flops, values_all) / peak
    t_mem = memory.bytes_bound / bandwidth
    numeric = bool(t_math.is_number and t_mem.is_number)
    intensity_bound = algebra_ratios.cancel_at(memory.intensity, values_all)
    at_point = intensity_bound if numeric else None
    attainable = sp.Min(peak, at_point * bandwidth) if at_point is not None else None

    network = None
    if op.comms:
        link = problem.link.value if problem.link else None
        network = _roofline(setting, _terms(problem, op.comms, lambda tensor: "sent"), link)
    step: StepTime | None = None
    if numeric:
        kernels = kernels_of(problem, memory.terms, network.terms if network is not None else ())
        step = compose(kernels, ceilings_of(problem))
    analysis = Analysis(
        problem=problem,
        flops=flops,
        memory=memory,
        leading=leading,
        intensity_regime=intensity_regime,
        crossover_regime=cross_regime,
        regime_holds=holds,
        regime_checks=checks,
        t_math=t_math,
        t_lower=step.t_lower if step is not None else None,
        t_upper=step.t_upper if step is not None else None,
        attainable=attainable,
        fraction_of_peak=(attainable / peak) if attainable is not None else None,
        intensity_at_point=at_point,
        network=network,
        flops_bound=substitute(flops, values_all),
        intensity_regime_of_x=intensity_regime_of_x,
        threshold_regime=(
            _threshold(intensity_regime_of_x, cross_regime)
            if intensity_regime_of_x is not None
            else None
        ),
        compute_bound_at_point=bool(t_math >= t_mem) if numeric else None,
        step=step,
        collectives=collective_times(problem, op.comms),
        measured=measure(
            problem.timing,
            flops=step.flops if step is not None else None,
            moved=step.bytes if step is not None else None,
            peak=peak,
            bandwidth=bandwidth,
            lower_bound=step.nominal_lower if step is not None else None,
        ),
        intensity_bound=intensity_bound,
        intensity_regime_bound=(
            algebra_ratios.cancel_at(intensity_regime, values_all)
            if intensity_regime is not None
            else None
        ),
        leading_den_collected=collect_in_order(leading.kept_den) if leading is not None else (),
        regime_depends_on_x=(
            intensity_regime_of_x is None or x in intensity_regime_of_x.free_symbols
        ),
    )
    if isinstance(op, Composite) and op.parts:  # the layer's modules load only for a layer
        from derive.analysis.parts import breakdown, unfused_problem

        plain = unfused_problem(problem)
        layer = breakdown(analysis, analyse(plain) if plain is not None else None)
        analysis = replace(analysis, layer=layer)
    return analysis
