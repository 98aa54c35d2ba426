"""No second list of a derivation's values by name (issue 48, item 1).

A quantity's value is read from its derivation's records by its catalogue row (the row's
read path, :mod:`derive.catalogue.reading`): ``values()``, the checker, the formulas'
known names (:func:`derive.questions.quantities.quantities_of`), the workbook's boxes and
a kernel's JSON (:func:`derive.present.json_export.laid_out`) all go through it. This test
parses (never imports) every module of ``derive/`` and finds

- no ``exact_of_json`` (the JSON report parsed back into values), and
- no dict display, and no sequence of ``(name, value)`` pairs, that maps three or more
  catalogue rows (``q.X.name``, ``q.X``, ``X.name`` or the row's name as a string) to
  computed values outside ``derive/catalogue/``, except the modules in ``ALLOWED``, each
  with its reason (maps of what a caller typed, not of derived values); an entry no longer
  needed fails too. A row taken to a function of its module is no value: the printer of the
  record at the row's read path (:func:`derive.present.json_export.laid_out`'s ``printed``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from derive.catalogue.table import QUANTITIES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "derive"
OUTSIDE = ("derive/catalogue/",)
NAMES = frozenset(row.name for row in QUANTITIES)

#: modules that map row names to values for another reason than a derivation's values.
ALLOWED: dict[str, str] = {
    "derive/pipeline/__init__.py": "the counts a caller typed (flags), not derived values",
    "derive/model/budget.py": "the texts a caller typed (flags), not derived values",
    "derive/problem/sets/model_problems.py": "the types of a set's keys",
    "derive/web/kernel_pages.py": "a kernel's givens as typed",
}

_VALUE = (ast.Attribute, ast.Call, ast.Name, ast.IfExp, ast.BoolOp, ast.BinOp, ast.Subscript)


def _row_key(key: ast.expr | None) -> bool:
    """``q.RIDGE.name``, ``q.RIDGE``, ``RIDGE.name`` or ``"ridge"``: a catalogue row as a key."""
    if isinstance(key, ast.Constant):
        return key.value in NAMES
    named = isinstance(key, ast.Attribute) and key.attr == "name"
    if named:
        key = key.value  # type: ignore[union-attr]
    if isinstance(key, ast.Attribute) and isinstance(key.value, ast.Name) and key.value.id == "q":
        return key.attr.isupper()
    return named and isinstance(key, ast.Name) and key.id.isupper()


def _pairs(node: ast.AST) -> list[tuple[ast.expr | None, ast.expr]]:
    """A dict display's items, or the items of a tuple or list of two-item tuples."""
    if isinstance(node, ast.Dict):
        return list(zip(node.keys, node.values, strict=True))
    if isinstance(node, ast.Tuple | ast.List) and node.elts:
        items = [e.elts for e in node.elts if isinstance(e, ast.Tuple) and len(e.elts) == 2]
        return [(k, v) for k, v in items] if len(items) == len(node.elts) else []
    return []


def hand_maps(source: str) -> list[int]:
    """The lines of the maps that take three or more rows to computed values (a row taken
    to a row, as the steps an asked quantity keeps, is no value; nor is a row taken to a
    function of the module, the printer of the record at the row's read path)."""
    tree = ast.parse(source)
    printers = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}

    def valued(key: ast.expr | None, value: ast.expr) -> bool:
        printer = isinstance(value, ast.Name) and value.id in printers
        return _row_key(key) and isinstance(value, _VALUE) and not _row_key(value) and not printer

    return [
        node.lineno  # type: ignore[attr-defined]  # a display or a sequence: an expression
        for node in ast.walk(tree)
        if sum(valued(k, v) for k, v in _pairs(node)) >= 3
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
    assert hand_maps('v = (("flops", a.flops), ("bytes", a.bytes), (q.RIDGE.name, a.ridge))\n')
    assert hand_maps("v = {'peak': a.peak, 'bandwidth': a.bandwidth, 'flops': a.flops}\n") == []
    printers = "def f(r): ...\ndef g(r): ...\ndef h(r): ...\nv = {q.STEP: f, q.MEASURED: g, q.NETWORK: h}\n"
    assert hand_maps(printers) == []
    assert hand_maps(printers.split("v = ")[0] + "v = {q.STEP: x, q.MEASURED: y, q.NETWORK: z}\n")
    assert (
        hand_maps("v = {q.T_UPPER.name: q.T_LOWER.name, q.FIT: q.MEMORY, q.MFU: q.T_MATH}\n") == []
    )


def test_no_hand_map_of_values_by_name() -> None:
    found = {
        name: lines
        for name, text in _modules().items()
        if not name.startswith(OUTSIDE) and (lines := hand_maps(text))
    }
    assert set(found) - set(ALLOWED) == set(), found
    assert set(ALLOWED) - set(found) == set(), "an allowed module no longer needs its entry"
