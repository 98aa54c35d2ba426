"""The comms-only kind: an operator that only communicates (a bare all-reduce), timed on its link."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from derive.catalogue import Quantity
from derive.catalogue import table as q
from derive.declare.operator import Operator
from derive.pipeline.kinds.operator_record import OperatorRecord
from derive.pipeline.kinds.surface import quantity, short_repr
from derive.present.formats import Document
from derive.problem.binding import ProblemSpec

if TYPE_CHECKING:
    from derive.analysis.comms_only import CommsAnalysis

__all__ = ["CommsDerivation", "derive_comms"]


@dataclass(frozen=True, repr=False)
class CommsDerivation(OperatorRecord):
    """An operator that only communicates (a bare all-reduce), timed on the link.

    ``d.analysis.time`` is T_comms, exact; there is no intensity, ridge or crossover (no
    compute). Shows itself in Jupyter as the worked solution; ``repr`` is one line.
    """

    analysis: CommsAnalysis

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

    ROWS: ClassVar[tuple[Quantity, ...]] = (q.T_COMMS, q.T_LOWER, q.T_UPPER)
    """What a comms-only operator has: its time on the link (the step's bounds are that time);
    no FLOPs, intensity, ridge or crossover (the checker's quantities for it, too)."""

    def _rows(self) -> tuple[Quantity, ...]:
        return self.ROWS

    def _exact_roots(self) -> tuple[object, ...]:
        """Its time on the link, where the catalogue's rows read it (a formula while a dim
        is unbound)."""
        time = self.analysis.time
        return ({"network": {"t_comms": time}, "t_lower": time, "t_upper": time},)

    def _report(self) -> dict:
        """Its JSON, with T_comms also where an operator's sits (``network.t_comms``): the
        catalogue's operator rows then find it."""
        report = self.as_json()
        return {**report, "network": {"t_comms": report["t_comms"]}}


def derive_comms(spec: ProblemSpec, operator: Operator) -> CommsDerivation:
    """An operator that only communicates, bound and timed on its link."""
    from derive.analysis.comms_only import analyse_comms
    from derive.problem.comms_binding import bind_comms

    return CommsDerivation(analyse_comms(bind_comms(spec, operator)), spec=spec)
