"""A derivation's quantities read from its records, each by its row's read path.

A kind names the records its values sit in (its roots: an analysis, its cost, …); each row
of the kind says where in them its value is (:meth:`~derive.catalogue.records.Quantity.read_path`:
attributes, mapping keys, one-argument getters such as ``comms.of(cp)``). The first root
that has the path gives the value; None there means the derivation has none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any, TypeAlias

import sympy as sp

from derive.catalogue.kinds import ProblemKind
from derive.catalogue.records import Quantity
from derive.catalogue.table import QUANTITIES

Exact: TypeAlias = sp.Basic | bool | str
"""An exact value: a sympy number or formula, a truth, or a word (a crossover's status)."""

_MISSING = object()


@cache
def rows_valued_in(kind: ProblemKind) -> tuple[Quantity, ...]:
    """The catalogue's rows a problem of ``kind`` has (an ``At`` of that kind)."""
    return tuple(row for row in QUANTITIES if any(a.kind is kind for a in row.at))


def _own_attribute(obj: object, key: str) -> object:
    """``obj.key`` when it is a field, a declared attribute or a mapping's key, or
    ``obj.method(arg)`` for a key ``method(arg)`` (never a quantity looked up)."""
    if key.endswith(")"):
        name, _, arg = key[:-1].partition("(")
        method = _own_attribute(obj, name)
        return _MISSING if method is _MISSING else method(arg)  # type: ignore[operator]
    if isinstance(obj, Mapping):
        return obj.get(key, _MISSING)
    declared = is_dataclass(obj) and key in {f.name for f in fields(obj)}
    return getattr(obj, key) if declared or hasattr(type(obj), key) else _MISSING


def _exact_of(found: object) -> Exact | None:
    """The exact value a record holds (a truth, a word, a status's word), or None when it
    holds no single value (a record, a list, nothing)."""
    if isinstance(found, bool | sp.logic.boolalg.BooleanAtom):
        return bool(found)
    if isinstance(found, str):  # a word (a crossover's status is one), not a formula
        return found if found.isidentifier() else None
    if isinstance(found, Enum):  # a status: its word
        return str(found.value)
    if isinstance(found, int):
        return sp.Integer(found)
    return found if isinstance(found, sp.Basic) else None


def read_record(kind: ProblemKind, roots: tuple[object, ...], row: Quantity) -> object:
    """What the records ``roots`` hold at ``row``'s read path: its value, or the record a
    topic row names (a step, a measurement), from the first root that has the path; None
    where the derivation has none."""
    for root in roots:
        found: object = root
        for key in row.read_path(kind):
            found = _own_attribute(found, key)
            if found is _MISSING or found is None:
                break
        if found is not _MISSING:
            return found
    return None


def read_values(
    kind: ProblemKind, roots: tuple[object, ...], rows: Iterable[Quantity] | None = None
) -> dict[Quantity, Exact]:
    """Every row of ``kind`` (or of ``rows``) that the records ``roots`` hold a value for."""
    asked = rows_valued_in(kind) if rows is None else rows
    found = ((row, _exact_of(read_record(kind, roots, row))) for row in asked)
    return {row: exact for row, exact in found if exact is not None}


def attributes(
    record: object, names: str | Iterable[str], shown: Callable[[Any], object] | None = str
) -> dict[str, object]:
    """``record``'s attributes ``names`` (space-separated, or a sequence), each ``shown``
    (None: as it is) under its own name: a report's section whose keys are its record's
    attribute names, in the contract's order."""
    found = {
        name: getattr(record, name) for name in (names.split() if isinstance(names, str) else names)
    }
    return found if shown is None else {name: shown(value) for name, value in found.items()}


def text_or_none(value: object) -> str | None:
    """An exact value as text for a report (sympy's ``str``), None kept as null."""
    return None if value is None else str(value)
