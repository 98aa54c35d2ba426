"""A training run's questions (``derive train --given/--define/--equation/--unknown``).

The run's quantities are named by their keys (``t_lower``, ``bubble_fraction``, ``mfu``,
``dp``, …). An unknown that is one of the run's settings (:data:`SETTINGS`: ``dp``, ``tp``,
``pp``, ``ep``, ``cp``, ``batch_tokens``, ``seq``) is solved by deriving the run at each
value (:func:`derive.questions.degrees.solve_setting`): a degree from 1 up; the batch in
steps of dp · b · S from pp of them, by bisection; the sequence length over the divisors of
the batch per DP rank. The run reported is the run at the value found; any other unknown is
solved by sympy over the run as given. A batch or a sequence length given as a flag too is
refused (which of the two would hold is not for derive to guess); a degree given too is the
search's start as before (``--dp 1 --unknown dp``).
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

SETTINGS = ("dp", "tp", "pp", "ep", "cp", "batch_tokens", "seq")
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
    if name in ("batch_tokens", "seq") and getattr(run, name) is not None:
        flag = "--" + name.replace("_", "-")
        raise ProblemError(
            questions.label("unknowns", name),
            f"{flag} is given too: drop {flag} to solve for {name}, or drop the unknown",
        )
    values, bisect = _values(run, name)
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

    value, answered = solve_setting(questions, name, run_at, values, bisect)
    d = derive_training(model, _at(run, name, value), operators, compare)
    return d, answered


def _values(run: TrainSpec, name: str) -> tuple[Sequence[int] | None, bool]:
    """The values of setting ``name`` to try, and whether to bisect (see the module)."""
    if name not in ("batch_tokens", "seq"):
        return None, False
    from derive.training.binding import batch_tokens
    from derive.training.binding import whole_setting as whole  # the binding's one reader

    per_rank = whole(run, "dp") * whole(run, "micro_batch_size")
    if name == "batch_tokens":
        if run.seq is None:
            raise ProblemError("--unknown batch_tokens", "give the sequence length, --seq S")
        grain = per_rank * whole(run, "seq")
        return range(grain * whole(run, "pp"), grain * 2**24 + 1, grain), True
    if run.batch_tokens is None:
        raise ProblemError("--unknown seq", "give the tokens per step, --batch-tokens T")
    import sympy as sp

    tokens = int(batch_tokens(run))
    if tokens % per_rank:
        return [], False  # the run refuses every S: said as "no seq … runs"
    return [int(d) for d in sp.divisors(tokens // per_rank)], False


def _at(run: TrainSpec, name: str, value: int) -> TrainSpec:
    """The run with one setting (``dp``) as typed text."""
    return replace(run, **{name: str(value)})  # type: ignore[arg-type]
