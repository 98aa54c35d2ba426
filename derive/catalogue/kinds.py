"""The closed set of problem kinds derive answers, each with what a stage asks of it.

>>> ProblemKind("serving").label, ProblemKind.COMMS.judged_as
('a serving step', <ProblemKind.COMMS: 'comms'>)
"""

from __future__ import annotations

from enum import Enum
from typing import TypeVar

_T = TypeVar("_T")


class ProblemKind(Enum):
    """A kind of problem; its value is the word a problem set and JSON use.

    Each member is ``word, label, roofline[, parent[, judged_as]]`` (a name in the last
    two): what a sentence calls it, whether it is timed on its chip's roofline (a
    comms-only operator's time is its link's; a decode's crossover times no step), the
    kind a set names it by and the kind whose claims' path judges it (both itself by default).
    """

    _value_: str
    label: str
    roofline: bool
    _names: tuple[str, str]  # parent, judged_as

    OPERATOR = "operator", "an operator", True  # over symbolic dims, bound to dtypes and a chip
    KERNEL = "kernel", "a kernel given by its numbers", True  # FLOPs, bytes or an intensity
    MODEL = "model", "a whole model", False  # parameters, memory, training totals
    SERVING = "serving", "a serving step", True, "", "MODEL"  # prefill or decode on a group
    TRAINING = "training", "a training step on a cluster", True, "", "MODEL"  # dp, tp, pp, ZeRO
    BUDGET = "budget", "a scaling-law budget", False  # C = k·N·D and D = r·N solved for N and D
    WHAT_IF = "what_if", "a what-if on a measured step", False, "", "BUDGET"  # Amdahl
    COMMS = "comms", "an operator that only communicates", False, "OPERATOR"  # an all-reduce
    # a model's decode with no batch: B solved for
    DECODE_CROSSOVER = (
        "decode_crossover",
        "a decode's crossover (no batch)",
        False,
        "SERVING",
        "MODEL",
    )
    QUESTIONS = "questions", "givens and equations alone", False  # defined names, equations

    def __new__(
        cls, word: str, label: str, roofline: bool, parent: str = "", judged_as: str = ""
    ) -> ProblemKind:
        kind = object.__new__(cls)
        kind._value_, kind.label, kind.roofline = word, label, roofline
        kind._names = (parent, judged_as)
        return kind

    @property
    def parent(self) -> ProblemKind:
        """The kind a problem set names it by and whose catalogue rows it reads: a sub-kind's
        (a comms-only operator is an operator problem, a decode's crossover a serving one),
        else itself.

        >>> ProblemKind.COMMS.parent, ProblemKind.MODEL.parent
        (<ProblemKind.OPERATOR: 'operator'>, <ProblemKind.MODEL: 'model'>)
        """
        return ProblemKind[self._names[0]] if self._names[0] else self

    @property
    def judged_as(self) -> ProblemKind:
        """The kind whose claim → judgement → report path judges a claim about it (a serving
        step's, a training run's and a crossover's is a model's; a what-if's a budget's)."""
        return ProblemKind[self._names[1]] if self._names[1] else self


class Typed:
    """A problem as typed (a spec): its ``spec`` is itself, as a problem set's entry has one."""

    @property
    def spec(self: _T) -> _T:
        """The problem as typed: itself."""
        return self
