"""Operators declared inside a problem set: ``[[operator]]`` tables, read as data.

A shared set needs no Python: its operators are TOML tables whose shapes and FLOPs are
formula *strings*. This module checks the tables' structure (keys, types, sizes) into
frozen records; :mod:`derive.problem.sets.registry` reads the formulas with derive's safe parser
and builds each :class:`~derive.declare.operator.Operator`, validated exactly as in Python.

.. code-block:: toml

    [[operator]]
    name = "mm"
    dims = ["B", "D", "F"]
    flops = "2*B*D*F"
    reads = [ { name = "X", shape = ["B", "D"] }, { name = "Y", shape = ["D", "F"] } ]
    writes = [ { name = "Z", shape = ["B", "F"] } ]
    doc = "Z = X·Y; 2 FLOPs per multiply-accumulate"
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.problem.sets.checks import check_keys

MAX_OPERATORS = 64
MAX_TENSORS = 64
MAX_DIMS = 32
MAX_RANK = 16
MAX_FORMULAS = 4096  # FLOPs and shape entries in all of a set's tables: bounds the parsing
_OPERATOR: dict[str, type] = {
    "name": str,
    "dims": list,
    q.FLOPS.name: str,
    "reads": list,
    "writes": list,
    "comms": list,
    "doc": str,
}
_TENSOR: dict[str, type] = {"name": str, "shape": list, "width": str, "doc": str}
_REQUIRED = ("name", "dims", q.FLOPS.name)


@dataclass(frozen=True)
class TensorTable:
    """A tensor as declared in TOML: its shape entries are formula text over the dims."""

    name: str
    shape: tuple[str, ...]
    width: str | None = None
    doc: str = ""


@dataclass(frozen=True)
class OperatorTable:
    """An ``[[operator]]`` table, structure checked, formulas not yet read.

    ``where`` names it in errors (``"set.toml: operator 'mm'"``).
    """

    name: str
    dims: tuple[str, ...]
    flops: str
    reads: tuple[TensorTable, ...]
    writes: tuple[TensorTable, ...]
    comms: tuple[TensorTable, ...]
    doc: str
    where: str


def _check(table: object, schema: dict[str, type], where: str) -> dict:
    if not isinstance(table, dict):
        raise ProblemError(where, "must be a table")
    check_keys(table, schema, where)  # its schemas hold strings and lists
    return table


def _shape_entry(value: object, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ProblemError(where, 'a shape entry is a formula string ("D/P") or a positive integer')
    return str(value)


def _tensor(raw: object, where: str) -> TensorTable:
    table = _check(raw, _TENSOR, where)
    if "name" not in table or "shape" not in table:
        raise ProblemError(where, 'needs name and shape, e.g. { name = "X", shape = ["B", "D"] }')
    shape = table["shape"]
    if len(shape) > MAX_RANK:
        raise ProblemError(f"{where}: key 'shape'", f"more than {MAX_RANK} entries")
    entries = tuple(_shape_entry(s, f"{where}: shape entry {i + 1}") for i, s in enumerate(shape))
    return TensorTable(table["name"], entries, table.get("width"), table.get("doc", ""))


def _tensors(table: dict, part: str, where: str) -> tuple[TensorTable, ...]:
    items = table.get(part, [])
    if len(items) > MAX_TENSORS:
        raise ProblemError(f"{where}: key {part!r}", f"more than {MAX_TENSORS} tensors")
    return tuple(_tensor(t, f"{where} {part} {i + 1}") for i, t in enumerate(items))


def _operator(raw: object, index: int, origin: str) -> OperatorTable:
    where = f"{origin}: operator {index + 1}"
    name = raw.get("name") if isinstance(raw, dict) else None
    if isinstance(name, str) and len(name) <= 64 and name.isidentifier():
        where = f"{origin}: operator {name!r}"
    table = _check(raw, _OPERATOR, where)
    missing = [key for key in _REQUIRED if key not in table]
    if missing:
        raise ProblemError(where, f"missing key {missing[0]!r} (needs {', '.join(_REQUIRED)})")
    dims = table["dims"]
    if not dims or len(dims) > MAX_DIMS or not all(isinstance(d, str) for d in dims):
        raise ProblemError(f"{where}: key 'dims'", f"a list of 1 to {MAX_DIMS} dim names")
    return OperatorTable(
        name=table["name"],
        dims=tuple(dims),
        flops=table[q.FLOPS.name],
        reads=_tensors(table, "reads", where),
        writes=_tensors(table, "writes", where),
        comms=_tensors(table, "comms", where),
        doc=table.get("doc", ""),
        where=where,
    )


def parse_operator_tables(raw: object, origin: str) -> tuple[OperatorTable, ...]:
    """The ``[[operator]]`` tables of a problem set, structure checked.

    Raises:
        ProblemError: not a list of tables, an unknown key, a wrong type, too many entries.
    """
    if not isinstance(raw, list) or len(raw) > MAX_OPERATORS:
        raise ProblemError(f"{origin}: key 'operator'", f"1 to {MAX_OPERATORS} [[operator]] tables")
    tables = tuple(_operator(table, i, origin) for i, table in enumerate(raw))
    formulas = sum(
        1 + sum(len(t.shape) for t in (*op.reads, *op.writes, *op.comms)) for op in tables
    )
    if formulas > MAX_FORMULAS:
        raise ProblemError(
            f"{origin}: key 'operator'",
            f"{formulas} formulas (FLOPs and shape entries); at most {MAX_FORMULAS} in a set",
        )
    return tables
