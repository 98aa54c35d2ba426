"""The training kind: one training step of a model on a cluster (dp, tp, pp, ZeRO)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.pipeline.kinds.model import model_spec_of
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.pipeline.kinds.surface import Shown
from derive.present.formats import Document
from derive.problem.sets.problem_set import ModelEntry
from derive.problem.train_spec import TRAIN_ASK_KEYS, TrainSpec

if TYPE_CHECKING:
    from derive.problem.model_spec import ModelSpec
    from derive.questions.records import Questions
    from derive.training.analysis import StrategyRow, TrainingAnalysis


@dataclass(frozen=True, repr=False)
class TrainingDerivation(Shown):
    """A derived training run: the exact analysis, and the strategies compared when asked."""

    analysis: TrainingAnalysis
    strategies: tuple[StrategyRow, ...] = ()
    winner: StrategyRow | None = None
    spec: ModelSpec | None = None
    train: TrainSpec | None = None
    questions: Questions | None = None  # given/define/equations answered over the run

    kind = ProblemKind.TRAINING
    """A training run."""

    def _roots(self) -> tuple[object, ...]:
        return (self.analysis,)

    def as_problem(self) -> ModelEntry:
        """The run as a set's problem (what ``derive.check`` judges a claim against).

        Raises:
            ProblemError: the record was built without its specs.
        """
        if self.spec is None or self.train is None:
            raise ProblemError("problem", "a training run without its specs: use solve_training")
        return ModelEntry("run", "", "", self.spec, (), train=self.train)

    def document(self, level: int = 2) -> Document:
        """The worked solution as one document (``derive train``, every format)."""
        from derive.present.training_view import training_document

        return training_document(self.analysis, self.strategies, self.winner, level=level)

    def as_json(self) -> dict:
        """The JSON object of ``derive train --format json``."""
        from derive.pipeline.kinds.questions import _with_questions_json
        from derive.present.training_view import training_json

        return _with_questions_json(
            training_json(self.analysis, self.strategies, self.winner), self.questions
        )


def derive_training(
    model_spec: ModelSpec,
    train_spec: TrainSpec,
    operators: Sequence[str | Path] = (),
    compare: bool = False,
) -> TrainingDerivation:
    """A training run of a model problem, derived (cached): ``derive train`` and problem sets.

    ``compare`` adds DP, FSDP, TP, FSDP+TP and PP on the same devices and batch.
    """
    from derive.pipeline.cache import training_analysis, training_strategies

    files = tuple(str(p) for p in operators)
    analysis = training_analysis(model_spec, train_spec, files)
    if not compare:
        return TrainingDerivation(analysis, spec=model_spec, train=train_spec)
    rows, winner = training_strategies(model_spec, train_spec, files)
    return TrainingDerivation(analysis, rows, winner, model_spec, train_spec)


def solve_training(
    model: str,
    *,
    chip: str | None = None,
    peak: str | None = None,
    capacity: str | None = None,
    state_bytes: str | None = None,
    compare: bool = False,
    operators: tuple[str | Path, ...] = (),
    train_tokens: str | None = None,
    price_per_hour: str | None = None,
    power: str | None = None,
    given: Mapping[str, str] | tuple[str, ...] = (),
    define: Mapping[str, str] | tuple[str, ...] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
    **train: object,
) -> TrainingDerivation:
    """Derive a training run from Python, with the flags of ``derive train`` as keywords.

    ``given``, ``define``, ``equations`` and ``unknowns`` are as :func:`solve`'s, over the
    run's quantities (``t_lower``, ``bubble_fraction``, ``dp``, …); an unknown setting
    (``dp``, ``batch_tokens``, ``seq``, …) is solved by deriving the run, and the run
    returned is the run at the value found (``.questions`` holds the answers).

    >>> run = solve_training("llama-3-8b", chip="h100", dp=8, zero=1, batch_tokens=4194304, seq=4096)
    >>> run.analysis.bubble_fraction, run.analysis.problem.devices
    (0, 8)
    """
    from derive.problem.model_spec import ModelSpec

    spec = ModelSpec(
        model=model,
        chip=chip,
        peak=peak,
        capacity=capacity,
        state_bytes=state_bytes,
        train_tokens=train_tokens,
        price_per_hour=price_per_hour,
        power=power,
    )
    fields = {key: None if value is None else str(value) for key, value in train.items()}
    run = TrainSpec(**fields)  # type: ignore[arg-type]
    from derive.pipeline.kinds.questions import question_spec_of

    questions = question_spec_of(given, define, equations, unknowns)
    if questions is None:
        return derive_training(spec, run, operators, compare)

    from derive.pipeline.training_questions import train_with_questions

    d, answered = train_with_questions(spec, run, questions, operators, compare)
    return replace(d, questions=answered)


@dataclass(frozen=True)
class TrainingKind(OneClaimAtATime):
    """A training run: a set's :class:`ModelEntry` with ``train = {…}`` (``derive train``)."""

    kind: ProblemKind = ProblemKind.TRAINING
    noun: str = "a whole-model problem"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> TrainingDerivation:
        """:func:`derive.pipeline.derive_training` on the model and its run."""
        train = cast(ModelEntry, problem).train  # KINDS is keyed by kind: a set's run
        if train is None:
            raise ProblemError("problem", "a training run needs a train = { … } table")
        asks = getattr(problem, "ask", ())
        return derive_training(
            model_spec_of(problem), train, operators, q.COMPARE_STRATEGIES.name in asks
        )

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every quantity of the run."""
        return getattr(problem, "ask", ()) or TRAIN_ASK_KEYS
