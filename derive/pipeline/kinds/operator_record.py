"""What every record of an operator problem shares: the problem as typed, the operator
files it came from and its questions (a :class:`~derive.pipeline.Derivation` with a
roofline, a :class:`~derive.pipeline.CommsDerivation` for an operator that only
communicates).

The shared fields are keyword-only: each record keeps its own analysis first
(``Derivation(analysis, solution, spec=spec)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from derive.catalogue import ProblemKind
from derive.pipeline.kinds.surface import Worked

if TYPE_CHECKING:
    from derive.problem.binding import ProblemSpec
    from derive.questions.records import Questions


@dataclass(frozen=True, repr=False)
class OperatorRecord(Worked):
    """The fields, kind and JSON report an operator problem's records share."""

    spec: ProblemSpec | None = field(default=None, kw_only=True)
    """The problem as typed (what ``derive.check`` re-derives variants from)."""
    operators: tuple[str, ...] = field(default=(), kw_only=True)
    """The operator files the problem's operator came from."""
    questions: Questions | None = field(default=None, kw_only=True)
    """Its given, defined and solved quantities (``given=``, ``define=``, ``equations=``)."""

    kind = ProblemKind.OPERATOR
    """An operator problem (``derive.check`` takes the record as its problem)."""

    def as_json(self) -> dict:
        """The JSON object of ``derive solve --format json``, with its questions' answers."""
        from derive.pipeline.kinds.questions import _with_questions_json

        return _with_questions_json(self._json(), self.questions)

    def _json(self) -> dict:
        """The record's own JSON report (before its questions)."""
        raise NotImplementedError
