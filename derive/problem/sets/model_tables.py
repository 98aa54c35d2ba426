"""``[[model]]`` tables: whole models as data in a problem set (no Python).

    [[model]]
    name = "tiny-moe"
    dims = ["L"]            # optional: dims the sizes may use ("L", "2*L")
    layers = "L"
    d_model = 1024
    heads = 16
    kv_heads = 4
    d_ff = 512
    vocab = 32000
    experts = 8
    top_k = 2

A table holds the :class:`~derive.model.transformer.Transformer` fields as TOML values:
sizes are integers or formula text over the table's dims, choices are strings (``mlp``,
``norm``), flags are booleans. The structure is checked here; the fields are checked by
``Transformer`` itself when a problem uses the model (:mod:`derive.model.tables`), and
every formula goes through derive's own parser, never ``eval``. A problem names the model
by its name (``model = "tiny-moe"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from derive.errors import ProblemError

MAX_MODEL_TABLES = 32
MAX_FIELDS = 48
MAX_DIMS = 16
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class ModelTable:
    """A ``[[model]]`` table: its name, dims and fields (TOML values), not yet a model.

    ``where`` names it in errors (``"set.toml: model 'tiny'"``).
    """

    name: str
    dims: tuple[str, ...]
    fields: tuple[tuple[str, int | str | bool], ...]
    where: str


def _model(raw: object, index: int, origin: str) -> ModelTable:
    where = f"{origin}: model {index + 1}"
    if not isinstance(raw, dict):
        raise ProblemError(where, "each [[model]] must be a table")
    name = raw.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProblemError(
            f"{where}: key 'name'", "a model's name is 1-64 letters, digits, '_', '.' or '-'"
        )
    where = f"{origin}: model {name!r}"
    dims = raw.get("dims", [])
    if (
        not isinstance(dims, list)
        or len(dims) > MAX_DIMS
        or not all(isinstance(d, str) and d.isidentifier() and len(d) <= 32 for d in dims)
    ):
        raise ProblemError(f"{where}: key 'dims'", f"a list of at most {MAX_DIMS} dim names")
    fields = [(k, v) for k, v in raw.items() if k not in ("name", "dims")]
    if len(fields) > MAX_FIELDS:
        raise ProblemError(where, f"more than {MAX_FIELDS} keys")
    for key, value in fields:
        if not _KEY.match(key):
            raise ProblemError(f"{where}: key {key[:40]!r}", "unknown key")
        if not isinstance(value, (int, str, bool)) or (isinstance(value, str) and len(value) > 200):
            raise ProblemError(
                f"{where}: key {key!r}",
                "must be an integer, a formula string over the dims, a choice or true/false",
            )
    return ModelTable(name, tuple(dims), tuple(fields), where)


def parse_model_tables(raw: object, origin: str) -> tuple[ModelTable, ...]:
    """The set's ``[[model]]`` tables, structure checked; names unique ignoring case."""
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_MODEL_TABLES:
        raise ProblemError(f"{origin}: key 'model'", f"1 to {MAX_MODEL_TABLES} [[model]] tables")
    tables = tuple(_model(item, i, origin) for i, item in enumerate(raw))
    seen: set[str] = set()
    for table in tables:
        if table.name.lower() in seen:
            raise ProblemError(table.where, "duplicate name (names are unique ignoring case)")
        seen.add(table.name.lower())
    return tables
