"""A training run's questions (``derive train --given/--define/--equation/--unknown``).

The run's quantities are named by their keys (``t_lower``, ``bubble_fraction``, ``mfu``,
``dp``, …). An unknown that is one of the run's settings (:data:`SETTINGS`: ``dp``, ``tp``,
``pp``, ``ep``, ``cp``, ``batch_tokens``, ``seq``) is solved by deriving the run at each
value (:func:`derive.questions.degrees.solve_setting`): dp over the divisors of the batch's
sequences; on a ``--mesh`` of N devices a degree over the divisors of N over the others, dp
(when not given) taking the rest, dp itself the one value left; a degree from 1 up; the batch in
steps of dp · b · S from pp of them, by bisection; the sequence length over the divisors of
the batch per DP rank. The run reported is the run at the value found; any other unknown is
solved by sympy over the run as given. A batch or a sequence length given as a flag too is
refused (which of the two would hold is not for derive to guess); a degree given too is
set aside for the values tried (``--dp 1 --unknown dp``).
"""

from __future__ import annotations

import math
import re
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
    from derive.questions.quantities import quantities_of
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
    values, bisect, fill = _values(run, name)
    rest = replace(questions, equations=(), unknowns=())

    def run_at(value: int) -> Mapping[str, Known] | None:
        try:
            analysis = derive_training(model, _at(run, name, value, fill), operators).analysis
        except ProblemError:
            if (value == 1 and fill is None) or values == [value]:  # the run itself is wrong
                raise
            return None  # a value the run refuses (dp not dividing the batch, …)
        own = quantities_of(analysis)
        return {**own, **as_known(answer_questions(rest, own))}

    value, answered = solve_setting(questions, name, run_at, values, bisect)
    d = derive_training(model, _at(run, name, value, fill), operators, compare)
    return d, answered


def _values(run: TrainSpec, name: str) -> tuple[Sequence[int] | None, bool, int | None]:
    """The values of setting ``name`` to try, whether to bisect (see the module) and, on a
    mesh without ``--dp``, the devices dp · ``name`` fills (dp = that / the value)."""
    from derive.problem.mesh import parse_mesh
    from derive.training.binding import batch_tokens
    from derive.training.binding import whole_setting as whole  # the binding's one reader

    degrees = ("dp", "tp", "pp", "cp")
    if name in degrees and run.mesh is not None and run.mesh.strip().lower() != "default":
        tpu = run.mesh.startswith("tpu:")  # a slice AxBxC, which the binding reads
        mesh = None if tpu else parse_mesh(run.mesh, run.where("mesh"))
        devices = mesh.devices if mesh else math.prod(map(int, re.findall(r"\d+", run.mesh)))
        free = name != "dp" and run.dp is None
        fixed = math.prod(whole(run, d) for d in degrees if d != name and not (free and d == "dp"))
        if devices % fixed:  # no value fits the mesh: the run at 1 says why
            return None, False, None
        if not free:  # the mesh leaves one value: dp · tp · pp · cp = N
            return [devices // fixed], False, None
        return _divisors(devices, fixed), False, devices // fixed
    per_rank = whole(run, "dp") * whole(run, "micro_batch_size")
    if name == "dp" and run.batch_tokens is not None and run.seq is not None:  # dp · b · S | T
        sequence = whole(run, "micro_batch_size") * whole(run, "seq")
        return _divisors(int(batch_tokens(run)), sequence) or None, False, None  # else dp = 1's why
    if name not in ("batch_tokens", "seq"):
        return None, False, None
    if name == "batch_tokens":
        if run.seq is None:
            raise ProblemError("--unknown batch_tokens", "give the sequence length, --seq S")
        grain = per_rank * whole(run, "seq")
        return range(grain * whole(run, "pp"), grain * 2**24 + 1, grain), True, None
    if run.batch_tokens is None:
        raise ProblemError("--unknown seq", "give the tokens per step, --batch-tokens T")
    return _divisors(int(batch_tokens(run)), per_rank), False, None


def _divisors(whole: int, part: int) -> list[int]:
    """The divisors of whole / part, [] when part does not divide it (the run then refuses
    every value: said as "no seq … runs")."""
    import sympy as sp

    return [] if whole % part else [int(d) for d in sp.divisors(whole // part)]


def _at(run: TrainSpec, name: str, value: int, fill: int | None = None) -> TrainSpec:
    """The run with one setting (``dp``) as typed text; dp = fill / value when it fills a mesh."""
    dp = {} if fill is None else {"dp": str(fill // value)}
    return replace(run, **{name: str(value)}, **dp)  # type: ignore[arg-type]
