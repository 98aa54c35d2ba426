"""A model from a Hugging Face ``config.json``: read as bounded JSON, mapped by table.

``derive model PATH`` (PATH a ``config.json`` or a folder holding one) and a problem set's
``model = "path/to/config.json"`` load a :class:`~derive.model.transformer.Transformer`
here. The file is data, never code: JSON only, at most :data:`MAX_CONFIG_BYTES`, nested at
most :data:`MAX_DEPTH` deep, integers of at most :data:`MAX_INT_DIGITS` digits, strings of
at most :data:`MAX_STRING` characters, sizes at most :data:`MAX_SIZE`. Each field is looked
up in the table of its ``model_type`` (:mod:`derive.model.config_map`): it sets a field, it
is known to change no count (ignored), or it is refused in one line naming it.

>>> m = config_model({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}, "c", "tiny")
>>> m.layers, m.kv_heads, m.head_dim, m.tied_embeddings
(2, 4, 16, False)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from derive.errors import DeclarationError, LimitError, ParseError, ProblemError
from derive.model.config_map import (
    REQUIRED,
    Family,
    Field,
    Kind,
    LayerRule,
    tables,
)
from derive.model.quantized import weights_dtype
from derive.model.transformer import Transformer
from derive.problem.input_files import read_text_file
from derive.resources import resource_dir

MAX_CONFIG_BYTES = 1_000_000  # a real config.json is a few kB
MAX_DEPTH = 8
MAX_INT_DIGITS = 19
MAX_STRING = 1000
MAX_MODEL_TYPE = 64
MAX_SIZE = 10**9
MAX_LAYERS = 100_000
"""Layers of a config.json (the deepest real model has a few hundred), bounded before any
per-layer work (issue 37: 10^6 layers and 100,000 mlp_only_layers kept a command for minutes)."""
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def is_config_path(text: str) -> bool:
    """Whether a model argument names a config file or folder rather than a model's name."""
    return isinstance(text, str) and (
        text.endswith(".json") or "/" in text or "\\" in text or Path(text).is_dir()
    )


def _config_file(text: str) -> Path:
    path = Path(text)
    return path / "config.json" if path.is_dir() else path


def _model_name(path: Path) -> str:
    """The model's name: the folder holding ``config.json``, else the file's stem."""
    raw = path.parent.name if path.name == "config.json" and path.parent.name else path.stem
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", raw).lstrip("_.-")[:64]
    return name or "config"


def _depth(text: str) -> int:
    """How deeply arrays and objects nest, counted on the text with its strings removed."""
    deepest = level = 0
    for char in _STRINGS.sub('""', text):
        if char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def _no_duplicates(where: str):  # type: ignore[no-untyped-def]
    def hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in pairs:
            if key in out:
                raise ProblemError(f"{where} field {key[:MAX_MODEL_TYPE]!r}", "given twice")
            out[key] = value
        return out

    return hook


def _int(where: str):  # type: ignore[no-untyped-def]
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > MAX_INT_DIGITS:
            raise LimitError(where, f"an integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
        return int(text)

    return parse


def _constant(where: str) -> Callable[[str], object]:
    def refuse(text: str) -> object:
        raise ParseError(where, f"{text} is not a number JSON allows")

    return refuse


def _check_strings(data: dict[str, object], where: str) -> None:
    """Every string (keys included) at most :data:`MAX_STRING` characters, without recursion;
    the error names the top-level field it is in."""
    for field, top in data.items():
        at = f"{where} field {field[:MAX_MODEL_TYPE]!r}"
        if len(field) > MAX_STRING:
            raise LimitError(at, f"a field name of {len(field)} characters (at most {MAX_STRING})")
        stack = [top]
        while stack:
            value = stack.pop()
            if isinstance(value, str) and len(value) > MAX_STRING:
                raise LimitError(at, f"a string of {len(value)} characters (at most {MAX_STRING})")
            if isinstance(value, dict):
                stack += [*value.keys(), *value.values()]
            elif isinstance(value, list):
                stack += value


def read_config(path: Path, where: str) -> dict[str, object]:
    """The config as a dict: bounded JSON, an object at the top.

    Raises:
        ProblemError: missing or not a regular file, not JSON, a duplicate key.
        LimitError: too large, nested too deeply, an integer or a string too long.
    """
    text = read_text_file(path, where, MAX_CONFIG_BYTES, "a config.json or a folder holding one")
    if _depth(text) > MAX_DEPTH:
        raise LimitError(where, f"arrays and objects nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(
            text,
            object_pairs_hook=_no_duplicates(where),
            parse_int=_int(where),
            parse_float=_Decimal,  # a float only ever sets an ignored field: kept as its text
            parse_constant=_constant(where),
        )
    except json.JSONDecodeError as exc:
        raise ParseError(
            where, f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise LimitError(
            where, f"arrays and objects nested deeper than {MAX_DEPTH} levels"
        ) from None
    if not isinstance(data, dict):
        raise ProblemError(where, f"a config is a JSON object {{…}}, got {type(data).__name__}")
    _check_strings(data, where)
    return data


class _Decimal(str):
    """A JSON float kept as its text (it only ever sets an ignored field; never a float)."""


def _value(
    family: Family, row: Field, data: dict[str, object], where: str, written: dict[str, str]
) -> object:
    """A field's value checked against its kind (None: absent and optional, or null)."""
    at = f"{where} field {written.get(row.config, row.config)!r}"
    if row.config not in data:
        if row.default is REQUIRED:
            raise ProblemError(at, f"missing: model_type {family.model_type} needs it")
        return row.default
    value = data[row.config]
    if value is None and row.nullable:
        return None
    if row.kind is Kind.FLAG:
        if not isinstance(value, bool):
            raise ProblemError(at, f"must be true or false, got {_shown(value)}")
        return value
    low = 1 if row.kind is Kind.SIZE else 0
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_SIZE:
        raise ProblemError(at, f"must be {row.kind.value} at most {MAX_SIZE}, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(str(value))
    kinds: dict[type, str] = {str: "string", list: "list", dict: "object", _Decimal: "number"}
    kind = kinds.get(type(value), "")
    text = str(value) if isinstance(value, _Decimal) else text
    text = text if len(text) <= 40 else text[:37] + "…"
    return f"{kind} {text}".strip()


def _layer_types(data: dict[str, object], layers: int, at: str) -> int | None:
    """How many entries of ``layer_types`` are sliding (None when the config has none)."""
    types = data.get("layer_types")
    if types is None:
        return None
    allowed = ("sliding_attention", "full_attention")
    if not isinstance(types, list) or len(types) != layers or any(t not in allowed for t in types):
        raise ProblemError(
            f"{at} field 'layer_types'",
            f"must list {layers} entries, each 'sliding_attention' or 'full_attention'",
        )
    return sum(t == "sliding_attention" for t in types)


def _window_size(data: dict[str, object], at: str) -> int:
    window = data.get("sliding_window")
    if isinstance(window, bool) or not isinstance(window, int) or not 0 < window <= MAX_SIZE:
        raise ProblemError(
            f"{at} field 'sliding_window'", f"must be a positive integer, got {_shown(window)}"
        )
    return window


def _windows(rule: LayerRule, data: dict[str, object], layers: int, at: str) -> dict[str, object]:
    """``window`` and ``windowed_layers`` as a family's rule reads them."""
    windowed: int | None
    if rule is LayerRule.WINDOW_ALL:
        windowed = layers if data.get("sliding_window") is not None else 0
    elif rule is LayerRule.WINDOW_PATTERN:
        windowed = _layer_types(data, layers, at)
        if windowed is None:
            key = "sliding_window_pattern"
            key = key if key in data else "_" + key
            pattern = data.get(key, 6)  # Gemma3TextConfig's default
            if isinstance(pattern, bool) or not isinstance(pattern, int) or pattern < 1:
                raise ProblemError(f"{at} field {key!r}", "must be a positive integer")
            windowed = layers - layers // pattern
        if data.get("sliding_window") is None:
            windowed = 0
    elif rule is LayerRule.WINDOW_QWEN:
        windowed = _layer_types(data, layers, at)
        if windowed is None:
            on = data.get("use_sliding_window", False)
            if not isinstance(on, bool):
                raise ProblemError(f"{at} field 'use_sliding_window'", "must be true or false")
            start = data.get("max_window_layers", 28)
            if isinstance(start, bool) or not isinstance(start, int) or start < 0:
                raise ProblemError(
                    f"{at} field 'max_window_layers'", "must be a non-negative integer"
                )
            on = on and data.get("sliding_window") is not None
            windowed = max(0, layers - start) if on else 0
    else:  # alternate: the first, third, … layers are windowed
        counted = _layer_types(data, layers, at)
        windowed = (layers + 1) // 2 if counted is None else counted
        if "sliding_window" not in data:
            data = {**data, "sliding_window": 4096}  # Gemma2Config's default
    if not windowed:
        return {}
    return {"window": _window_size(data, at), "windowed_layers": windowed}


def _dense(rule: LayerRule, data: dict[str, object], fields: dict[str, object], at: str) -> None:
    """Set ``dense_layers`` (and clear the experts when every block is dense)."""
    layers = int(str(fields["layers"]))
    if rule is LayerRule.DENSE_FIRST_K:
        dense = fields.get("dense_layers") or 0
    else:
        only = data.get("mlp_only_layers", [])
        step = data.get("decoder_sparse_step", 1)
        if not isinstance(only, list) or any(
            isinstance(i, bool) or not isinstance(i, int) for i in only
        ):
            raise ProblemError(f"{at} field 'mlp_only_layers'", "must be a list of layer indices")
        if isinstance(step, bool) or not isinstance(step, int) or step < 1:
            raise ProblemError(f"{at} field 'decoder_sparse_step'", "must be a positive integer")
        if len(only) > layers:
            raise ProblemError(
                f"{at} field 'mlp_only_layers'", f"lists {len(only)} layers of {layers}"
            )
        sparse = {i for i in range(step - 1, layers, step)} - set(only)  # at most layers/step
        dense = layers - len(sparse)
        fields["d_ff_dense"] = data.get("intermediate_size")
    if not isinstance(dense, int) or dense > layers:
        raise ProblemError(f"{at} field 'first_k_dense_replace'", f"exceeds the {layers} layers")
    if dense == layers:  # no block has experts: a dense model of the dense width
        fields["d_ff"] = fields["d_ff_dense"]
        for key in ("experts", "top_k", "shared_experts", "d_ff_dense", "d_ff_shared"):
            fields.pop(key, None)
        fields["dense_layers"] = None
        fields["shared_gate"] = False
        return
    fields["dense_layers"] = dense or None
    if not dense:
        fields.pop("d_ff_dense", None)


def config_model(data: dict[str, object], where: str, name: str) -> Transformer:
    """Map a parsed config to a :class:`Transformer` (one line naming a field it cannot model).

    Raises:
        ProblemError: no or an unknown ``model_type``, a field derive does not model, a
            value of the wrong type or out of range. LimitError: a ``model_type`` too long.
    """
    kind = data.get("model_type")
    if not isinstance(kind, str):
        raise ProblemError(
            f"{where} field 'model_type'", f"missing or not a string: {_shown(kind)}"
        )
    if len(kind) > MAX_MODEL_TYPE:
        raise LimitError(
            f"{where} field 'model_type'", f"{len(kind)} characters (at most {MAX_MODEL_TYPE})"
        )
    shipped = tables()
    family = shipped.families.get(kind)
    if family is None:
        raise ProblemError(
            f"{where} field 'model_type'",
            f"unknown model_type {kind!r}; derive reads {', '.join(shipped.families)}",
        )
    data, written = _aliased(family, data, where)
    checks = shipped.checked + family.checked
    known = {f.config for f in family.fields} | {k for k, _ in shipped.ignored + family.ignored}
    unknown = sorted(k for k in data if k not in known | {c.config for c in checks})
    if unknown:
        raise ProblemError(
            f"{where} field {unknown[0][:MAX_MODEL_TYPE]!r}",
            f"not modelled for model_type {kind} and it may change the counts "
            "(see docs/model-configs.md for the fields derive reads)",
        )
    for check in checks:
        if check.config in data and not check.admits(data[check.config]):
            raise ProblemError(
                f"{where} field {check.config!r}",
                f"{_shown(data[check.config])} is not modelled: {check.why}",
            )
    fields: dict[str, object] = dict(family.fixed)
    source: list[tuple[str, str]] = []
    for row in family.fields:
        value = _value(family, row, data, where, written)
        if value is not None:
            fields[row.target] = value
            source.append((row.target, written.get(row.config, row.config)))
    if kind == "gpt2" and "d_ff" not in fields:
        fields["d_ff"] = 4 * int(str(fields["d_model"]))
        source.append(("d_ff", "n_inner (null: 4·n_embd)"))
    layers = int(str(fields["layers"]))
    if layers > MAX_LAYERS:
        config = dict((t, c) for t, c in source).get("layers", "layers")
        raise ProblemError(
            f"{where} field {config!r}", f"at most {MAX_LAYERS} layers are modelled, got {layers}"
        )
    for rule in family.layers:
        if rule in (LayerRule.DENSE_FIRST_K, LayerRule.DENSE_SPARSE_STEP):
            _dense(rule, data, fields, where)
            if fields.get("dense_layers") is not None and rule is LayerRule.DENSE_SPARSE_STEP:
                source += [
                    ("dense_layers", "mlp_only_layers, decoder_sparse_step"),
                    ("d_ff_dense", "intermediate_size"),
                ]
        else:
            fields.update(_windows(rule, data, layers, where))
            if "window" in fields:
                source += [("window", "sliding_window"), ("windowed_layers", _window_source(data))]
    if fields.get("shared_experts") is None:
        fields.pop("shared_experts", None)
    doc = f"read from its config.json (model_type {kind})"
    if data.get("quantization_config") is not None:
        fields["stored_as"] = weights_dtype(data["quantization_config"], where)
    try:
        return Transformer(name=name, doc=doc, source=tuple(source), **fields)  # type: ignore[arg-type]
    except DeclarationError as exc:
        target = exc.what.rsplit(" ", 1)[-1]
        config = dict(source).get(target, target)
        raise ProblemError(f"{where} field {config!r}", exc.why) from None


def _aliased(
    family: Family, data: dict[str, object], where: str
) -> tuple[dict[str, object], dict[str, str]]:
    """The config with each alias (transformers' ``attribute_map``) read as the field it
    names, and for each such field the name the config wrote."""
    out, written = dict(data), {}
    for alias, target in family.aliases:
        if alias not in out:
            continue
        value = out.pop(alias)
        if target in out and out[target] != value:
            raise ProblemError(
                f"{where} field {alias!r}",
                f"is {target} by another name and the config gives both, "
                f"{_shown(value)} and {_shown(out[target])}",
            )
        out[target] = value
        written[target] = alias
    return out, written


def _window_source(data: dict[str, object]) -> str:
    if "layer_types" in data and data["layer_types"] is not None:
        return "layer_types"
    if "max_window_layers" in data:
        return "max_window_layers"
    for key in ("sliding_window_pattern", "_sliding_window_pattern"):
        if key in data:
            return key
    return "sliding_window"


def load_config_model(text: str) -> Transformer:
    """The model a config path names (a ``config.json`` or a folder holding one).

    A relative path is looked up from the current folder, then among the configs shipped
    with derive's built-in problem set (``configs/deepseek-v3.json``).
    """
    path = _config_file(text)
    where = f"config {str(path)!r}"
    shipped = resource_dir("data") / "problems" / path
    if not path.is_absolute() and not path.exists() and shipped.is_file():
        path = shipped
    return config_model(read_config(path, where), where, _model_name(path))
