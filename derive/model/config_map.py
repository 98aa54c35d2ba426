"""The Hugging Face ``config.json`` fields of each supported ``model_type``, as tables.

A :class:`Family` lists, for one ``model_type``, the config fields that set a
:class:`~derive.model.transformer.Transformer` field (:class:`Field`), the choices the
architecture fixes (``fixed``: a gated MLP, RMS norms, q/k norms…) and the fields known not
to change any count (``ignored``, on top of :data:`IGNORED`, each with its reason). Layer
patterns that need more than one field (sliding windows, dense layers) are read by the
small functions named in ``layers``. The tables are data, ``derive/data/model_families.toml``
(its header says how a family is written); every number there was read from the
``configuration_*.py`` and ``modeling_*.py`` of transformers for that ``model_type``
(defaults included).

Anything else in a config is refused by :mod:`derive.model.config_file`: a field derive
does not know may change a count, and a silently wrong count is worse than an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cache
from importlib import resources

from derive.problem.sets.toml_file import loads_toml


class Kind(str, Enum):
    """What a config field holds."""

    SIZE = "a positive integer"
    COUNT = "a non-negative integer"
    FLAG = "true or false"


class LayerRule(str, Enum):
    """How a family says which layers are windowed or dense (several fields at once)."""

    WINDOW_ALL = "sliding_window (when not null) windows every layer"
    WINDOW_QWEN = (
        "use_sliding_window with sliding_window windows the layers from max_window_layers on "
        "(or the layer_types marked sliding_attention)"
    )
    WINDOW_ALTERNATE = (
        "sliding_window windows every other layer, the first included (or the layer_types "
        "marked sliding_attention)"
    )
    WINDOW_PATTERN = (
        "sliding_window windows every layer but each sliding_window_pattern-th (by default 6) "
        "(or the layer_types marked sliding_attention)"
    )
    DENSE_FIRST_K = "first_k_dense_replace blocks have a dense MLP of width intermediate_size"
    DENSE_SPARSE_STEP = (
        "blocks in mlp_only_layers, or whose index + 1 is not a multiple of decoder_sparse_step, "
        "have a dense MLP of width intermediate_size"
    )


REQUIRED = object()  # a Field default: the config must give the field


@dataclass(frozen=True)
class Field:
    """One config field that sets a Transformer field.

    ``default``: the value when the field is absent (transformers' default; ``REQUIRED``: the
    config must give it); ``nullable``: ``null`` is a value (the part is absent).
    """

    config: str
    target: str
    kind: Kind
    default: object = REQUIRED
    nullable: bool = False


@dataclass(frozen=True)
class Check:
    """A field read only at the values that change no count (``allowed``); any other value
    is refused, naming the field, the value and ``why``."""

    config: str
    allowed: tuple[object, ...]
    why: str

    def admits(self, value: object) -> bool:
        """Whether ``value`` is allowed (by type and value: ``0`` is not ``false``)."""
        return any(type(value) is type(a) and value == a for a in self.allowed)


@dataclass(frozen=True)
class Family:
    """The config of one ``model_type``: its fields, the fixed choices, the ignored fields.

    ``aliases``: (another name, the field it names), transformers' ``attribute_map``: a
    config may give either (both only with one value). ``checked``: fields read only at the
    values that change no count.
    """

    model_type: str
    fields: tuple[Field, ...]
    fixed: tuple[tuple[str, object], ...]
    ignored: tuple[tuple[str, str], ...] = ()
    layers: tuple[LayerRule, ...] = ()
    note: str = ""
    aliases: tuple[tuple[str, str], ...] = ()
    checked: tuple[Check, ...] = ()

    def field(self, config: str) -> Field | None:
        """The row for a config field, or None."""
        return next((f for f in self.fields if f.config == config), None)


_SOURCE = "derive/data/model_families.toml"
_KEYS = {  # the keys each kind of table may hold: a misspelt one is refused, never skipped
    "file": {"ignored", "checked", "families"},
    "family": {"fixed", "layers", "aliases", "note", "fields", "ignored", "checked"},
    "field": {"target", "kind", "default", "default_null", "nullable"},
    "check": {"allowed", "or_null", "why"},
}


def _keys(table: dict, kind: str, where: str) -> dict:
    """``table``, once its keys are all among those a ``kind`` table may hold."""
    unknown = sorted(set(table) - _KEYS[kind])
    if unknown:
        raise ValueError(f"{_SOURCE}: {where}: unknown keys {', '.join(unknown)}")
    return table


def _check(name: str, row: dict, where: str) -> Check:
    """A row of ``checked`` (``or_null``: null is allowed too, before the other values)."""
    _keys(row, "check", where)
    allowed = ((None,) if row.get("or_null") else ()) + tuple(row["allowed"])
    return Check(name, allowed, row["why"])


def _checks(table: dict, where: str) -> tuple[Check, ...]:
    return tuple(_check(name, row, f"{where}.{name}") for name, row in table.items())


def _field(config: str, row: dict) -> Field:
    """A row of a family's ``fields`` (no ``default``: required; ``default_null``: null)."""
    default = None if row.get("default_null") else row.get("default", REQUIRED)
    return Field(
        config, row["target"], Kind[row["kind"].upper()], default, row.get("nullable", False)
    )


def _family(model_type: str, table: dict) -> Family:
    where = f"[families.{model_type}]"
    _keys(table, "family", where)
    return Family(
        model_type,
        tuple(
            _field(config, _keys(row, "field", f"{where}.fields.{config}"))
            for config, row in table["fields"].items()
        ),
        tuple(table["fixed"].items()),
        tuple(table.get("ignored", {}).items()),
        tuple(LayerRule[rule.upper()] for rule in table.get("layers", ())),
        table.get("note", ""),
        tuple(table.get("aliases", {}).items()),
        _checks(table.get("checked", {}), f"{where}.checked"),
    )


@dataclass(frozen=True)
class Tables:
    """The tables of ``derive/data/model_families.toml``."""

    ignored: tuple[tuple[str, str], ...]
    """Fields of every config that change no count, with the reason (shown in the docs)."""
    checked: tuple[Check, ...]
    """Fields of every config read only at the values that change no count."""
    families: dict[str, Family]
    """Every supported ``model_type``, in the docs' order."""


@cache
def tables() -> Tables:
    """The families' tables, read once, when a config is first read (not at every start)."""
    text = resources.files("derive").joinpath("data/model_families.toml").read_text("utf-8")
    data = _keys(loads_toml(text, _SOURCE), "file", "the file")
    return Tables(
        tuple(data["ignored"].items()),
        _checks(data["checked"], "[checked]"),
        {model_type: _family(model_type, t) for model_type, t in data["families"].items()},
    )
