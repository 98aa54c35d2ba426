"""A whole-model problem as typed (``derive model`` flags or a problem set's ``model = …`` entry).

Every field is text, as the user wrote it; :func:`derive.model.binding.bind_model`
checks it against the model and the catalogues.
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.catalogue import ProblemKind, Typed
from derive.problem.sets.model_tables import ModelTable


@dataclass(frozen=True)
class ModelSpec(Typed):
    """A model problem as typed: every field is text (or a tuple of text)."""

    model: str
    chip: str | None = None
    peak: str | None = None
    bandwidth: str | None = None
    capacity: str | None = None
    devices: str | None = None
    dtypes: tuple[str, ...] = ()
    sets: tuple[str, ...] = ()
    train_tokens: str | None = None
    mfu: str | None = None
    measured_tokens_per_s: str | None = None
    state_bytes: str | None = None
    tp: str | None = None
    # a model by its size alone (``--params``; ``model`` is then empty)
    params: str | None = None
    params_active: str | None = None
    # with ``params``: the KV cache's bytes per token, attention's FLOPs per token (a step)
    kv_bytes_per_token: str | None = None
    attention_flops_per_token: str | None = None
    # money and energy (issue 36): a price per device-hour and a power per device
    price_per_hour: str | None = None
    power: str | None = None
    # the set's ``[[model]]`` table of that name, when the model is declared as data there
    table: ModelTable | None = None

    serving = None
    """No serving step: a typed model has none (a set's entry with ``phase`` has one)."""

    train = None
    """No training run: a typed model has none (a set's entry with ``train`` has one)."""

    kind = ProblemKind.MODEL
    """A whole model (a serving step is a :class:`~derive.problem.sets.problem_set.ModelEntry`'s)."""
