"""No second list of a derivation's values by name (issue 48, item 1).

A quantity's value is read from its derivation's records by its catalogue row (the row's
read path, :mod:`derive.catalogue.reading`): ``values()``, the checker, the formulas'
known names and the workbook's boxes all go through it. This test parses (never imports)
every module of ``derive/`` and finds

- no ``exact_of_json`` (the JSON report parsed back into values), and
- no dict display that maps three or more catalogue rows (``q.X.name`` or ``q.X`` keys) to
  computed values outside ``derive/catalogue/`` and the JSON builders of ``derive/present/``
  (which lay the report out, key by key, in its contract's order), except the few in
  ``ALLOWED``, each with its reason; an entry that no longer holds such a map fails too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "derive"
OUTSIDE = ("derive/catalogue/", "derive/present/")

#: modules that map row names to values for another reason than a derivation's values.
ALLOWED: dict[str, str] = {
    "derive/pipeline/__init__.py": "the counts a caller typed (flags), not derived values",
    "derive/checking/kernel_check.py": "the givens a kernel claim is judged against (JSON)",
    "derive/problem/sets/model_problems.py": "the types of a set's keys",
    "derive/web/kernel_pages.py": "a kernel's givens as typed",
}

_VALUE = (ast.Attribute, ast.Call, ast.Name, ast.IfExp, ast.BoolOp, ast.BinOp, ast.Subscript)


def _row_key(key: ast.expr | None) -> bool:
    """``q.RIDGE.name``, ``q.RIDGE`` or ``RIDGE.name``: a catalogue row as a key."""
    named = isinstance(key, ast.Attribute) and key.attr == "name"
    if named:
        key = key.value  # type: ignore[union-attr]
    if isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name) and key.value.id == "q":
        return key.attr.isupper()
    return named and isinstance(key, ast.Name) and key.id.isupper()


def hand_maps(source: str) -> list[int]:
    """The lines of the dict displays that map three or more rows to computed values."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Dict)
        and sum(_row_key(k) and isinstance(v, _VALUE) for k, v in zip(node.keys, node.values)) >= 3
    ]


def _modules() -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def test_no_json_read_back() -> None:
    assert [name for name, text in _modules().items() if "exact_of_json" in text] == []


def test_the_measure_finds_a_hand_map() -> None:
    source = "v = {q.FLOPS.name: a.flops, q.BYTES.name: a.bytes, q.RIDGE: a.ridge}\n"
    assert hand_maps(source) == [1]
    assert hand_maps("v = {q.FLOPS.name: 'x', q.BYTES.name: 'y', q.RIDGE: 'z'}\n") == []


def test_no_hand_map_of_values_by_name() -> None:
    found = {
        name: lines
        for name, text in _modules().items()
        if not name.startswith(OUTSIDE) and (lines := hand_maps(text))
    }
    assert set(found) - set(ALLOWED) == set(), found
    assert set(ALLOWED) - set(found) == set(), "an allowed module no longer needs its entry"
