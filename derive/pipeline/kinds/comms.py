"""The comms-only kind: an operator that only communicates (a bare all-reduce), timed on its link."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.catalogue.reading import rows_valued_in
from derive.declare.operator import Operator
from derive.errors import DeriveError, ProblemError
from derive.pipeline.kinds.operator_record import OperatorRecord
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.pipeline.kinds.surface import quantity, short_repr
from derive.present.formats import Document
from derive.problem.binding import ProblemSpec, read_mesh

if TYPE_CHECKING:
    from derive.analysis.comms_only import CommsAnalysis


@dataclass(frozen=True, repr=False)
class CommsDerivation(OperatorRecord):
    """An operator that only communicates (a bare all-reduce), timed on the link.

    ``d.analysis.time`` is T_comms, exact; there is no intensity, ridge or crossover (no
    compute). Shows itself in Jupyter as the worked solution; ``repr`` is one line.
    """

    analysis: CommsAnalysis

    kind = ProblemKind.COMMS
    """A comms-only operator (an operator problem: ``kind.parent``)."""

    t_comms = quantity(q.T_COMMS, "The time on the link, T_comms (also T_lower and T_upper)")

    def __repr__(self) -> str:
        problem = self.analysis.problem
        return short_repr(
            f"<CommsDerivation {problem.operator.name} on {problem.hardware_name}: "
            f"link-bound, T_comms = {self.analysis.time}>"
        )

    def document(self, title: str | None = None, text: str = "", level: int = 1) -> Document:
        """The worked solution as a document (its collectives, then the time on the link)."""
        from derive.present.comms_view import comms_document

        return comms_document(self.analysis, level=level)

    def _json(self) -> dict:
        """Every quantity, as exact strings."""
        from derive.present.comms_view import comms_json

        return comms_json(self.analysis)

    def _roots(self) -> tuple[object, ...]:
        return (self.analysis,)


def derive_comms(spec: ProblemSpec, operator: Operator) -> CommsDerivation:
    """An operator that only communicates, bound and timed on its link."""
    from derive.analysis.comms_only import analyse_comms
    from derive.problem.comms_binding import bind_comms

    return CommsDerivation(analyse_comms(bind_comms(spec, operator)), spec=spec)


def derive_collective(spec: ProblemSpec, text: str) -> CommsDerivation:
    """``--collective 'AllGather_y(A[E_y, F])'``: one collective in the book's notation, timed."""
    problem, operator, _ = collective_problem(spec, text)
    return derive_comms(problem, operator)


def collective_problem(spec: ProblemSpec, text: str) -> tuple[ProblemSpec, Operator, str]:
    """``--collective TEXT`` read once: the problem of its operator, the operator, and the
    operator file (declared as data) ``derive check`` loads it from."""
    from derive.declare.registry import operators_as_file
    from derive.problem.collective_text import parse_collective

    op = parse_collective(text, read_mesh(spec))
    return replace(spec, operator=op.name), op, operators_as_file(f"--collective {op.doc}", (op,))


@dataclass(frozen=True)
class CommsKind(OneClaimAtATime):
    """An operator problem whose operator only communicates: a sub-kind of the operator's
    (a set names it as an operator problem; :meth:`covers` tells it apart)."""

    kind: ProblemKind = ProblemKind.COMMS
    noun: str = "an operator that only communicates"

    def covers(self, problem: Problem, operators: Sequence[str | Path] = ()) -> bool:
        """Whether an operator problem is of this kind: its operator only communicates (an
        operator that cannot be loaded is not: its error comes when it is derived)."""
        from derive.pipeline.cache import registry
        from derive.problem.comms_binding import only_communicates

        spec = getattr(problem, "spec", None)
        if not isinstance(spec, ProblemSpec):
            return False
        try:
            operator = registry(tuple(str(p) for p in operators)).get(spec.operator)
        except DeriveError:
            return False
        return only_communicates(operator)

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> CommsDerivation:
        """:func:`derive.pipeline.derive_operator` on the problem's spec (timed on its link).

        Raises:
            ProblemError: its operator computes (an operator problem, not this kind).
        """
        from derive.pipeline.kinds.operator import derive_operator

        spec = cast(ProblemSpec, problem.spec)  # an operator problem's spec
        derived = derive_operator(spec, operators)
        if derived.kind is not self.kind:
            raise ProblemError(f"operator {spec.operator!r}", "computes: not comms-only")
        return cast(CommsDerivation, derived)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """What a comms-only operator answers: its time on the link."""
        return tuple(row.name for row in rows_valued_in(self.kind))
