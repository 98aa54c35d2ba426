"""A serving step's batch solved from an equation (``derive model --phase … --unknown B``).

A step is derived at a whole batch (its KV cache, its weights read once, its bound); the
cost per million tokens, the rate and the step time follow from it, so no closed form in B
is handed to sympy. With ``--unknown B`` (and no ``--set B=…``), the step is derived at
each batch tried by bisection over 1 to :data:`MAX_BATCH`
(:func:`derive.questions.degrees.solve_setting`): the relation is taken to change once in
that range (a rate or a cost is monotone in the batch), and the batch found is exact at its
edge (the relation holds there and not one below). The step reported is the step at it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from derive.errors import ProblemError
from derive.problem.model_spec import ModelSpec
from derive.problem.question_spec import QuestionSpec
from derive.problem.serving_spec import ServingSpec
from derive.questions.records import Known, Questions

MAX_BATCH = 2**20
"""The largest batch tried."""


def asks_for_batch(spec: ModelSpec, questions: QuestionSpec | None) -> bool:
    """Whether ``B`` is an unknown of a step whose batch is not set (``--set B=…``)."""
    if questions is None or "B" not in questions.unknowns:
        return False
    if any(item.split("=", 1)[0].strip() == "B" for item in spec.sets):
        raise ProblemError(
            questions.label("unknowns", "B"),
            "--set B=… is given too: drop it to solve for B, or drop the unknown",
        )
    return True


def serve_with_questions(
    spec: ModelSpec,
    serving: ServingSpec,
    questions: QuestionSpec,
    operators: Sequence[str | Path] = (),
) -> tuple[ModelSpec, Questions]:
    """The model problem at the batch the equation asks for, and its answered questions.

    Raises:
        ProblemError: one line naming the unknown: other unknowns, no batch that meets it.
    """
    from derive.pipeline.kinds.serving import derive_serving_step
    from derive.questions.degrees import solve_setting
    from derive.questions.quantities import quantities_of
    from derive.questions.set_answers import as_known
    from derive.questions.solve import answer_questions

    rest = replace(questions, equations=(), unknowns=())

    def at(value: int) -> ModelSpec:
        return replace(spec, sets=(*spec.sets, f"B={value}"))

    def step_at(value: int) -> Mapping[str, Known] | None:
        step = derive_serving_step(at(value), serving, operators)
        own = quantities_of(step.analysis, getattr(step, "phase", None))
        return {**own, **as_known(answer_questions(rest, own))}

    value, answered = solve_setting(
        questions, "B", step_at, range(1, MAX_BATCH + 1), bisect=True, what="serving step"
    )
    return at(value), answered
