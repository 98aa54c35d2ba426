"""The operator kind: an operator declared over symbolic dims, bound to dtypes and a chip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.analysis.analyse import Analysis, analyse
from derive.analysis.crossover.records import Crossover
from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.declare.registry import Registry
from derive.pipeline.kinds.operator_record import OperatorRecord
from derive.pipeline.kinds.protocol import Problem
from derive.pipeline.kinds.surface import quantity, short_repr
from derive.present.formats import Document
from derive.present.view import solution_document
from derive.problem.binding import ProblemSpec, bind
from derive.problem.comms_binding import only_communicates
from derive.problem.sets.problem_set import ASK_KEYS
from derive.solution.builder import Solution, build_solution
from derive.solution.verdicts import verdict_text

if TYPE_CHECKING:
    from derive.pipeline.kinds.comms import CommsDerivation


@dataclass(frozen=True, repr=False)
class Derivation(OperatorRecord):
    """A derived problem: the exact analysis and its worked solution.

    The quantities of ``derive solve --format json`` are attributes of the same name. One
    rule: a quantity is a :class:`~derive.pipeline.kinds.surface.Value` read from
    :meth:`values` (``d.t_lower.exact``, ``d.t_lower.unit``; ``None`` where it needs a dim
    left unbound) that also stands in for its exact sympy value (``d.t_lower * 2``,
    ``d.intensity.subs(…)``, ``float(d.t_lower)``), except the two crossovers, which are
    :class:`~derive.analysis.crossover.records.Crossover` records (``d.crossover.exact``,
    ``d.crossover_regime.min_compute_bound``): a crossover is a root and an integer
    threshold together. Shows itself in Jupyter as the worked solution; ``repr`` is one
    line. ``derive.check(d, quantity, claim)`` judges a claim about it.
    """

    analysis: Analysis
    solution: Solution

    def _roots(self) -> tuple[object, ...]:
        return (self.analysis,)

    def __repr__(self) -> str:
        problem = self.analysis.problem
        dtypes = ", ".join(f"{name} {dtype.name}" for name, dtype in problem.dtypes)
        crossover, leading = self.analysis.headline
        verdict = verdict_text(crossover, self.analysis.memory.ridge, leading=leading)
        return short_repr(
            f"<Derivation {problem.operator.name} ({dtypes}) on {problem.hardware_name}: {verdict}>"
        )

    flops = quantity(q.FLOPS, "FLOPs, as declared")
    bytes = quantity(q.BYTES, "Bytes moved through memory, every tensor once")
    intensity = quantity(q.INTENSITY, "FLOPs / bytes, in lowest terms")
    intensity_bound = quantity(q.INTENSITY_BOUND, "The intensity with the bound dims substituted")
    intensity_regime = quantity(q.INTENSITY_REGIME, "The leading-order intensity under the regime")
    intensity_regime_bound = quantity(
        q.INTENSITY_REGIME_BOUND, "The leading-order intensity with the bound dims substituted"
    )
    ridge = quantity(q.RIDGE, "Peak / HBM bandwidth")
    regime_holds = quantity(q.REGIME_HOLDS, "Whether the leading-order answer respects its regime")
    t_math = quantity(q.T_MATH, "FLOPs / peak, in seconds (a formula while dims are unbound)")
    t_mem = quantity(q.T_MEM, "Bytes / bandwidth, in seconds")
    t_lower = quantity(q.T_LOWER, "max(T_math, T_mem) when every dim is bound")
    t_upper = quantity(q.T_UPPER, "T_math + T_mem when every dim is bound")
    attainable = quantity(q.ATTAINABLE, "min(peak, I·bandwidth) when every dim is bound")
    fraction_of_peak = quantity(q.FRACTION_OF_PEAK, "Attainable / peak when every dim is bound")

    @property
    def crossover(self) -> Crossover:
        """The exact crossover (status, root, smallest compute-bound integer)."""
        return self.analysis.crossover

    @property
    def crossover_regime(self) -> Crossover | None:
        """The crossover at leading order (None without a regime)."""
        return self.analysis.crossover_regime

    def document(self, title: str | None = None, text: str = "", level: int = 2) -> Document:
        """The worked solution as a document, for :func:`~derive.present.formats.render`."""
        return solution_document(self.solution, title, text, level)

    def _json(self) -> dict:
        from derive.present.json_export import to_json

        return to_json(self.analysis)


def analyse_spec(spec: ProblemSpec, registry: Registry) -> Analysis:
    """Bind and analyse one problem, without its worked solution (a plot's series)."""
    return analyse(bind(spec, registry.get(spec.operator)))


def derive_spec(spec: ProblemSpec, registry: Registry) -> Derivation | CommsDerivation:
    """Bind, analyse and build the steps for one problem (an operator that only
    communicates is timed on its link: a :class:`CommsDerivation`)."""
    if spec.shards:  # a set's shard: the winning strategy's operator, one device's share
        from derive.pipeline.shard import derive_book_sharded

        return derive_book_sharded(spec, registry, spec.shards)[0]
    operator = registry.get(spec.operator)
    if only_communicates(operator):  # the comms kind loads only for such an operator
        from derive.pipeline.kinds.comms import derive_comms

        return derive_comms(spec, operator)
    from derive.pipeline.fusion_layers import with_layers

    analysis = with_layers(analyse(bind(spec, operator)), spec.layers)
    return Derivation(analysis, build_solution(analysis), spec=spec)


def derive_operator(
    spec: ProblemSpec, operators: Sequence[str | Path] = ()
) -> Derivation | CommsDerivation:
    """An operator problem (the built-in operators and those of ``operators``), derived.

    The analysis comes from :mod:`derive.pipeline.cache`, shared with the checker.
    """
    from derive.pipeline.cache import operator_analysis, registry

    names = tuple(str(p) for p in operators)
    operator = registry(names).get(spec.operator)
    if only_communicates(operator):
        from derive.pipeline.kinds.comms import derive_comms

        return replace(derive_comms(spec, operator), operators=names)
    analysis = operator_analysis(spec, names)
    return Derivation(analysis, build_solution(analysis), spec=spec, operators=names)


@dataclass(frozen=True)
class OperatorKind:
    """An operator problem: a :class:`ProblemSpec`, or a set's :class:`ProblemEntry`."""

    kind: ProblemKind = ProblemKind.OPERATOR
    noun: str = "an operator problem"
    chains: bool = True

    def derive(
        self, problem: Problem, operators: Sequence[str | Path] = ()
    ) -> Derivation | CommsDerivation:
        """:func:`derive.pipeline.derive_operator` on the problem's spec."""
        spec = cast(ProblemSpec, problem.spec)  # KINDS is keyed by kind: an operator's problem
        return derive_operator(spec, operators)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every topic an operator's solution can show."""
        return getattr(problem, "ask", ()) or ASK_KEYS
