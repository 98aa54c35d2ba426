"""The serving kind: one prefill or decode step of a model on a group of devices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.pipeline.kinds.decode_crossover import DecodeCrossoverDerivation, ServingShown
from derive.pipeline.kinds.model import model_spec_of
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.present.formats import Document
from derive.problem.serving_spec import SERVING_ASK_KEYS
from derive.problem.sets.problem_set import MODEL_ASK_KEYS, ModelEntry

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import PhaseAnalysis
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec


@dataclass(frozen=True, repr=False)
class ServingDerivation(ServingShown):
    """One serving step of a whole model: the model's analysis and the step's."""

    analysis: ModelAnalysis
    phase: PhaseAnalysis
    spec: ModelSpec | None = None
    serving: ServingSpec | None = None

    def _roots(self) -> tuple[object, ...]:
        return self.phase.roots

    def document(self, level: int = 2) -> Document:
        """The step's worked solution as a document, a section after the model's."""
        from derive.present.serving_step import phase_document

        return phase_document(self.phase, self.analysis, level=level)

    def as_json(self) -> dict:
        """The step's keys (``derive model --phase … --format json``, under ``serving``)."""
        from derive.present.serving_step import phase_json

        return phase_json(self.phase)


def derive_serving(
    spec: ModelSpec, serving: ServingSpec, operators: Sequence[str | Path] = ()
) -> ServingDerivation:
    """One serving step (decode or prefill) of a whole-model problem, derived (cached)."""
    from derive.pipeline.cache import model_analysis, serving_analysis

    names = tuple(str(p) for p in operators)
    return ServingDerivation(
        model_analysis(spec, names), serving_analysis(spec, serving, names), spec, serving
    )


def _no_timing_without_a_step(serving: ServingSpec) -> None:
    """Refuse a timing flag of a decode asked without a batch: no step is timed to use it."""

    from derive.problem.timing import bind_timing

    bind_timing(serving.timing)  # a bad value is named first, as for a step
    for item in fields(serving.timing):
        value = getattr(serving.timing, item.name)
        if value is not None:
            flag = "--" + item.name.replace("_", "-")
            raise ProblemError(
                f"{flag} {value}",
                "times a step, and a decode without a batch gives only its crossover: "
                "give --set B=…",
            )


def derive_serving_step(
    spec: ModelSpec, serving: ServingSpec, operators: Sequence[str | Path] = ()
) -> ServingDerivation | DecodeCrossoverDerivation:
    """A serving step, or for a decode whose batch is free its crossover alone (B solved
    for, as an operator's crossover is): what ``derive model --phase`` prints."""
    from derive.model.symbols import batch
    from derive.pipeline.cache import decode_crossover_analysis, model_analysis

    names = tuple(str(p) for p in operators)
    analysis = model_analysis(spec, names)
    if serving.phase == "decode" and analysis.problem.value_of(batch) is None:
        _no_timing_without_a_step(serving)
        crossover = decode_crossover_analysis(spec, serving, names)
        return DecodeCrossoverDerivation(analysis, crossover, spec, serving)
    return derive_serving(spec, serving, operators)


def derive_set_serving(
    entry: ModelEntry, operators: Sequence[str | Path] = ()
) -> ServingDerivation | DecodeCrossoverDerivation:
    """A set's serving problem as ``derive model --phase`` derives it: its step, or for a
    decode with no batch its crossover alone (what ``derive key`` and ``derive serve`` show).

    Raises:
        ProblemError: a decode with no batch asks for what only a step has (its rate, its time).
        DeriveError: the step or the crossover cannot be derived.
    """

    serving = entry.serving
    assert serving is not None  # called for a problem with a phase
    derived = derive_serving_step(entry.spec, serving, operators)
    if not derived.kind.roofline:
        timed = [k for k in entry.ask if k in SERVING_ASK_KEYS and k != q.CROSSOVER.name]
        if timed:
            raise ProblemError(
                f"ask {timed[0]!r}",
                "times a step, and a decode with no batch gives only its crossover: "
                "give B in 'set' (set = { B = … })",
            )
    return derived


@dataclass(frozen=True)
class ServingKind(OneClaimAtATime):
    """A serving step: a set's :class:`ModelEntry` with a ``phase`` (``derive model --phase``)."""

    kind: ProblemKind = ProblemKind.SERVING
    noun: str = "a whole-model problem"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> ServingDerivation:
        """:func:`derive.pipeline.derive_serving` on the model and its step."""
        serving = cast(ModelEntry, problem).serving  # KINDS is keyed by kind: a set's step
        if serving is None:
            raise ProblemError("problem", "a serving step needs a phase (decode or prefill)")
        return derive_serving(model_spec_of(problem), serving, operators)

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else the model's quantities and the step's."""
        return getattr(problem, "ask", ()) or MODEL_ASK_KEYS + SERVING_ASK_KEYS
