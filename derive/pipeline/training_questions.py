"""A training run's questions (``derive train --given/--define/--equation/--unknown``).

The run's quantities are named by their keys (``t_lower``, ``bubble_fraction``, ``mfu``,
``dp``, …). An unknown that is one of the run's settings (:data:`SETTINGS`: ``dp``, ``tp``,
``pp``, ``ep``) is solved by deriving the run at each value
(:func:`derive.questions.degrees.solve_setting`), and the run reported is the run at the
value found; any other unknown is solved by sympy over the run as given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from derive.errors import ProblemError
from derive.problem.model_spec import ModelSpec
from derive.problem.question_spec import QuestionSpec
from derive.problem.train_spec import TrainSpec
from derive.questions.records import Known, Questions

if TYPE_CHECKING:
    from derive.pipeline import TrainingDerivation

__all__ = ["SETTINGS", "train_with_questions"]

SETTINGS = ("dp", "tp", "pp", "ep")
"""The run's settings an equation may solve for (each a field of :class:`TrainSpec`)."""


def train_with_questions(
    model: ModelSpec,
    run: TrainSpec,
    questions: QuestionSpec,
    operators: Sequence[str | Path] = (),
    compare: bool = False,
) -> tuple[TrainingDerivation, Questions]:
    """The run (at a solved setting, if one is unknown) and its answered questions.

    Raises:
        ProblemError: one line naming the flag: unknown names, no setting that meets the
            equation, a setting solved with other unknowns.
    """
    from derive.pipeline import answer_for, derive_training
    from derive.questions.degrees import solve_setting
    from derive.questions.quantities import training_quantities
    from derive.questions.set_answers import as_known
    from derive.questions.solve import answer_questions

    settings = [u for u in questions.unknowns if u in SETTINGS]
    if not settings:
        d = derive_training(model, run, operators, compare)
        return d, answer_for(questions, d.analysis)
    name = settings[0]
    rest = replace(questions, equations=(), unknowns=())

    def run_at(value: int) -> Mapping[str, Known] | None:
        try:
            analysis = derive_training(model, _at(run, name, value), operators).analysis
        except ProblemError:
            if value == 1:  # every setting may be 1: the run itself is wrong, said as it is
                raise
            return None  # a value the run refuses (dp not dividing the batch, …)
        own = training_quantities(analysis)
        return {**own, **as_known(answer_questions(rest, own))}

    value, answered = solve_setting(questions, name, run_at)
    d = derive_training(model, _at(run, name, value), operators, compare)
    return d, answered


def _at(run: TrainSpec, name: str, value: int) -> TrainSpec:
    """The run with one setting (``dp``) as typed text."""
    return replace(run, **{name: str(value)})  # type: ignore[arg-type]
