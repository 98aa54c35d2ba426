"""The closed set of problem kinds derive answers.

>>> ProblemKind("serving").label
'a serving step'
"""

from __future__ import annotations

from enum import Enum

__all__ = ["ProblemKind"]


class ProblemKind(Enum):
    """A kind of problem; its value is the word a problem set and JSON use."""

    OPERATOR = "operator"  # an operator declared over symbolic dims, bound to dtypes and a chip
    KERNEL = "kernel"  # a kernel given by its numbers (FLOPs, bytes or an intensity)
    MODEL = "model"  # a whole model: parameters, memory, training totals
    SERVING = "serving"  # one prefill or decode step of a model on a group of devices
    TRAINING = "training"  # one training step of a model on a cluster (dp, tp, pp, ZeRO)
    BUDGET = "budget"  # a scaling-law budget: C = k·N·D and D = r·N solved for N and D
    WHAT_IF = "what_if"  # a what-if on a measured step: a profile and speed-ups (Amdahl)
    COMMS = "comms"  # an operator that only communicates (a bare all-reduce): its link time
    DECODE_CROSSOVER = "decode_crossover"  # a model's decode with no batch: B solved for
    QUESTIONS = "questions"  # givens, defined quantities and equations alone

    @property
    def parent(self) -> ProblemKind:
        """The kind a problem set names it by and whose catalogue rows it reads: a sub-kind's
        (a comms-only operator is an operator problem, a decode's crossover a serving one),
        else itself.

        >>> ProblemKind.COMMS.parent, ProblemKind.MODEL.parent
        (<ProblemKind.OPERATOR: 'operator'>, <ProblemKind.MODEL: 'model'>)
        """
        return _PARENTS[self]

    @property
    def label(self) -> str:
        """How a sentence names a problem of this kind."""
        return _LABELS[self]


_LABELS = {
    ProblemKind.OPERATOR: "an operator",
    ProblemKind.KERNEL: "a kernel given by its numbers",
    ProblemKind.MODEL: "a whole model",
    ProblemKind.SERVING: "a serving step",
    ProblemKind.TRAINING: "a training step on a cluster",
    ProblemKind.BUDGET: "a scaling-law budget",
    ProblemKind.WHAT_IF: "a what-if on a measured step",
    ProblemKind.COMMS: "an operator that only communicates",
    ProblemKind.DECODE_CROSSOVER: "a decode's crossover (no batch)",
    ProblemKind.QUESTIONS: "givens and equations alone",
}

_PARENTS = {
    **{kind: kind for kind in ProblemKind},
    ProblemKind.COMMS: ProblemKind.OPERATOR,
    ProblemKind.DECODE_CROSSOVER: ProblemKind.SERVING,
}
