"""A set's whole-model problems (``model = "NAME"``): their keys, the model they name (a
name, a config.json, or a size), a serving step or a training run, and what they expect.

Read only for a set that has such a problem (:func:`~derive.problem.sets.problem_set.parse_problem_set`
imports this module then), so a set of operator problems loads no model, serving or
training spec (what that saves a cold key: benchmarks/README.md).
"""

from __future__ import annotations

from pathlib import Path

from derive.catalogue import ProblemKind, Use, names_for
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.problem.model_spec import ModelSpec
from derive.problem.question_spec import QUESTION_KEYS
from derive.problem.serving_spec import (
    SERVING_ASK_KEYS,
    SERVING_KEYS,
    prompt_as_context,
    serving_spec,
)
from derive.problem.sets.checks import check_keys, problem_head, str_map
from derive.problem.sets.model_tables import ModelTable
from derive.problem.sets.problem_set import (
    MODEL_ASK_KEYS,
    ModelEntry,
    asked_keys,
    exact_expect,
    questions_of,
    unknown_quantity,
)
from derive.problem.train_spec import TRAIN_ASK_KEYS, train_spec

_MODEL_PROBLEM = {
    "id": str,
    "title": str,
    "text": str,
    "model": (str, dict),
    "chip": str,
    "peak": str,
    "bandwidth": str,
    "capacity": str,
    "devices": int,
    "dtype": str,
    "dtypes": dict,
    "set": dict,
    "train_tokens": str,
    q.MFU.name: str,
    "measured_tokens_per_s": str,
    "state_bytes": str,
    "price_per_hour": str,
    "power": str,
    "ask": list,
    "train": dict,
    "train_plot": dict,
    "expect": dict,
    **SERVING_KEYS,
    **QUESTION_KEYS,
}

_SIZE = {
    q.PARAMS.name: str,
    q.PARAMS_ACTIVE.name: str,
    q.KV_BYTES_PER_TOKEN.name: str,
    "attention_flops_per_token": str,
}


def _model_named(value: str | dict, where: str, base: Path | None) -> tuple[str, dict[str, str]]:
    """(model, size): a name, a config path (relative to the set's folder), or
    ``{ params = "70e9", params_active = "37e9", kv_bytes_per_token = "327680" }``, a model
    by its size alone (``size`` then holds those keys, as ModelSpec's fields)."""
    if isinstance(value, dict):
        at = f"{where}: key 'model'"
        check_keys(value, _SIZE, at)
        if q.PARAMS.name not in value:
            raise ProblemError(at, 'a model by its size is { params = "70e9" }')
        return "", dict(value)
    if (
        base is not None
        and (value.endswith(".json") or "/" in value)
        and not Path(value).is_absolute()
    ):
        return str(base / value), {}
    return value, {}


def model_problem(
    raw: object,
    index: int,
    origin: str,
    seen: set[str],
    base: Path | None = None,
    tables: tuple[ModelTable, ...] = (),
) -> ModelEntry:
    pid, where, table = problem_head(raw, index, origin, seen, _MODEL_PROBLEM, "model")
    model, size = _model_named(table["model"], where, base)
    declared = next((t for t in tables if t.name.lower() == model.lower()), None)
    if "dtype" in table and "dtypes" in table:
        raise ProblemError(where, "give 'dtype' or 'dtypes', not both")
    dtypes = ((table["dtype"],) if "dtype" in table else ()) + str_map(
        table.get("dtypes", {}), where, "dtypes", str
    )
    serving = serving_spec(table, where)
    train = train_spec(table, where)
    kind = ProblemKind.TRAINING if train else ProblemKind.SERVING if serving else ProblemKind.MODEL
    kinds = (ProblemKind.MODEL, kind)  # a step's or a run's quantities beside the model's
    expected = tuple(dict.fromkeys(n for k in kinds for n in names_for(k, Use.EXPECT)))
    questions = questions_of(table, where, expected)
    ask = asked_keys(table.get("ask", ()), kind, questions)
    if train is not None and serving is not None:
        raise ProblemError(
            f"{where}: key 'train'", "a problem is a serving step or a training run, not both"
        )
    allowed = (
        MODEL_ASK_KEYS
        + (SERVING_ASK_KEYS if serving is not None else ())
        + (TRAIN_ASK_KEYS if train is not None else ())
        + (questions.answers if questions is not None else ())
    )
    for item in ask:
        if item not in allowed:
            raise unknown_quantity(f"{where}: key 'ask'", item, allowed)
    devices = table.get("devices")
    if devices is None and train is not None:  # the run's N = dp·tp·pp, for the model's givens
        degrees = [int(getattr(train, k) or 1) for k in ("dp", "tp", "pp")]
        devices = degrees[0] * degrees[1] * degrees[2] if all(d > 0 for d in degrees) else None
    if devices is not None and not 0 < devices < 10**9:
        raise ProblemError(
            f"{where}: key 'devices' ({devices})", "the number of devices is a positive integer"
        )
    sets = str_map(table.get("set", {}), where, "set", int)
    sets = prompt_as_context(
        sets, None if serving is None else serving.phase, f"{where}: key 'set'"
    )
    given = {key: table.get(key) for key in (*_MODEL_TEXTS, "price_per_hour", "power")}
    spec = ModelSpec(
        model=model,
        **size,
        table=declared,
        **given,
        devices=None if devices is None else str(devices),
        dtypes=dtypes,
        sets=sets,
        mfu=table.get(q.MFU.name),
        # with a phase, the rate is the serving step's (in serving.timing), not training's
        measured_tokens_per_s=None if serving else table.get("measured_tokens_per_s"),
        tp=None if serving is None or serving.tp is None else serving.tp,
    )
    defined = questions.answers if questions is not None else ()
    own = {k: v for k, v in table.get("expect", {}).items() if k not in defined}
    expect = exact_expect(own, where, expected)
    title, text = table.get("title", pid), table.get("text", "")
    return ModelEntry(pid, title, text, spec, ask, serving, train, expect, questions)


_MODEL_TEXTS = ("chip", "peak", "bandwidth", "capacity", "train_tokens", "state_bytes")
"""A model problem's keys read as typed, by ModelSpec's field of that name (and the price's)."""
