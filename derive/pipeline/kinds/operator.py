"""The operator kind: an operator declared over symbolic dims, bound to dtypes and a chip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

import sympy as sp

from derive.analysis.analyse import Analysis, analyse
from derive.analysis.crossover.records import Crossover
from derive.catalogue import ProblemKind
from derive.declare.registry import Registry
from derive.pipeline.kinds.comms import CommsDerivation, derive_comms
from derive.pipeline.kinds.protocol import Problem
from derive.pipeline.kinds.questions import (
    _with_questions_json,
)
from derive.pipeline.kinds.surface import Worked
from derive.present.formats import Document
from derive.present.view import solution_document
from derive.problem.binding import ProblemSpec, bind
from derive.problem.comms_binding import only_communicates
from derive.problem.sets.problem_set import ASK_KEYS
from derive.solution.builder import Solution, build_solution
from derive.solution.verdicts import verdict_text

if TYPE_CHECKING:
    from derive.questions.records import Questions

__all__ = ["Derivation", "OperatorKind", "analyse_spec", "derive_operator", "derive_spec"]


@dataclass(frozen=True, repr=False)
class Derivation(Worked):
    """A derived problem: the exact analysis and its worked solution.

    The quantities of ``derive solve --format json`` are attributes of the same name. One
    rule: a quantity is an exact sympy value (``d.intensity``, ``d.t_lower``, ``d.ridge``;
    ``None`` where it needs a dim left unbound), except the two crossovers, which are
    :class:`~derive.analysis.crossover.records.Crossover` records (``d.crossover.exact``,
    ``d.crossover_regime.min_compute_bound``): a crossover is a root and an integer
    threshold together. Shows itself in Jupyter as the worked solution; ``repr`` is one
    line. ``derive.check(d, quantity, claim)`` judges a claim about it.
    """

    analysis: Analysis
    solution: Solution
    spec: ProblemSpec | None = None
    """The problem as typed (what ``derive.check`` re-derives variants from)."""
    operators: tuple[str, ...] = ()
    """The operator files the problem's operator came from."""
    questions: Questions | None = None
    """Its given, defined and solved quantities (``given=``, ``define=``, ``equations=``)."""

    @property
    def kind(self) -> ProblemKind:
        """An operator problem (``derive.check`` takes a derivation as its problem)."""
        return ProblemKind.OPERATOR

    def _exact_roots(self) -> tuple[object, ...]:
        return (self, self.analysis)

    def __repr__(self) -> str:
        problem = self.analysis.problem
        dtypes = ", ".join(f"{name} {dtype.name}" for name, dtype in problem.dtypes)
        crossover, leading = self.analysis.headline
        verdict = verdict_text(crossover, self.analysis.memory.ridge, leading=leading)
        return (
            f"<Derivation {problem.operator.name} ({dtypes}) on {problem.hardware_name}: {verdict}>"
        )

    @property
    def flops(self) -> sp.Expr:
        """FLOPs, as declared."""
        return self.analysis.flops

    @property
    def bytes(self) -> sp.Expr:
        """Bytes moved through memory, every tensor once."""
        return self.analysis.memory.bytes

    @property
    def intensity(self) -> sp.Expr:
        """FLOPs / bytes, in lowest terms."""
        return self.analysis.memory.intensity

    @property
    def intensity_bound(self) -> sp.Expr | None:
        """The intensity with the bound dims substituted."""
        return self.analysis.intensity_bound

    @property
    def intensity_regime(self) -> sp.Expr | None:
        """The leading-order intensity under the regime (None without one)."""
        return self.analysis.intensity_regime

    @property
    def intensity_regime_bound(self) -> sp.Expr | None:
        """The leading-order intensity with the bound dims substituted."""
        return self.analysis.intensity_regime_bound

    @property
    def ridge(self) -> sp.Expr | None:
        """Peak / HBM bandwidth."""
        return self.analysis.memory.ridge

    @property
    def crossover(self) -> Crossover:
        """The exact crossover (status, root, smallest compute-bound integer)."""
        return self.analysis.crossover

    @property
    def crossover_regime(self) -> Crossover | None:
        """The crossover at leading order (None without a regime)."""
        return self.analysis.crossover_regime

    @property
    def regime_holds(self) -> bool | None:
        """Whether the leading-order answer respects the regime it assumed."""
        return self.analysis.regime_holds

    @property
    def t_math(self) -> sp.Expr:
        """FLOPs / peak, in seconds (a formula while dims are unbound)."""
        return self.analysis.t_math

    @property
    def t_mem(self) -> sp.Expr | None:
        """Bytes / bandwidth, in seconds."""
        return self.analysis.memory.time

    @property
    def t_lower(self) -> sp.Expr | None:
        """max(T_math, T_mem) when every dim is bound."""
        return self.analysis.t_lower

    @property
    def t_upper(self) -> sp.Expr | None:
        """T_math + T_mem when every dim is bound."""
        return self.analysis.t_upper

    @property
    def attainable(self) -> sp.Expr | None:
        """min(peak, I·bandwidth) when every dim is bound."""
        return self.analysis.attainable

    @property
    def fraction_of_peak(self) -> sp.Expr | None:
        """Attainable / peak when every dim is bound."""
        return self.analysis.fraction_of_peak

    def document(self, title: str | None = None, text: str = "", level: int = 2) -> Document:
        """The worked solution as a document, for :func:`~derive.present.formats.render`."""
        return solution_document(self.solution, title, text, level)

    def as_json(self) -> dict:
        """The JSON object of ``derive solve --format json``."""
        from derive.present.json_export import to_json

        return _with_questions_json(to_json(self.analysis), self.questions)


def analyse_spec(spec: ProblemSpec, registry: Registry) -> Analysis:
    """Bind and analyse one problem, without its worked solution (a plot's series)."""
    return analyse(bind(spec, registry.get(spec.operator)))


def derive_spec(spec: ProblemSpec, registry: Registry) -> Derivation | CommsDerivation:
    """Bind, analyse and build the steps for one problem (an operator that only
    communicates is timed on its link: a :class:`CommsDerivation`)."""
    operator = registry.get(spec.operator)
    if only_communicates(operator):
        return derive_comms(spec, operator)
    analysis = analyse(bind(spec, operator))
    return Derivation(analysis, build_solution(analysis), spec)


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
        return replace(derive_comms(spec, operator), operators=names)
    analysis = operator_analysis(spec, names)
    return Derivation(analysis, build_solution(analysis), spec, names)


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
