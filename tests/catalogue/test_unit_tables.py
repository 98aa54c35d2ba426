"""One unit table: the catalogue row's display unit (``Quantity.display_unit``) is the unit
of every quantity that has a row, wherever derive states one (issue 31, item 2).

The readers: the questions layer (:func:`derive.questions.quantities.unit_of`: the units a
formula's names carry, for an operator, a kernel, a serving step, a model and a training
run) and a model report's records (:func:`derive.model.records.unit_of`: the JSON ``unit``,
spelled the report's way: ``B`` for a byte, ``1`` for a plain number, what a count counts).
No module outside the catalogue pairs a quantity's name with a unit of its own. Two units
agree when they measure the same thing with the same factor (``byte`` is ``B``), read by
the formula layer's unit reader; ``bool`` (a truth) only agrees with itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import derive
from derive.catalogue import table
from derive.checking.training_claims import with_training
from derive.formula.units import measure_atom
from derive.model.records import Unit, unit_of
from derive.questions import quantities

ROWS = {row.name: row for row in table._ROWS}
ROWS_BY_CONSTANT = {
    constant: row.name
    for constant, row in vars(table).items()
    if isinstance(row, type(table.PARAMS)) and constant.isupper()
}
ROOT = Path(__file__).resolve().parents[2] / "derive"


def _measure(text: str) -> tuple:
    """(exponents, factor) of a unit text of at most one ``/``; a plain number is ()."""
    if not text or text == "1":
        return ()
    top, _, bottom = text.partition("/")
    head = measure_atom(top)
    assert head is not None, text
    if bottom:
        tail = measure_atom(bottom)
        assert tail is not None, text
        head = head / tail
    return (head.exponents, head.factor)


def _agree(name: str, unit: str) -> None:
    catalogue = ROWS[name].display_unit
    if {"bool", "word"} & {unit, catalogue}:  # a truth value, a name: no measure to read
        assert unit == catalogue, (name, unit, catalogue)
    else:
        assert _measure(unit) == _measure(catalogue), (name, unit, catalogue)


def test_every_row_has_a_display_unit_the_reader_reads():
    for row in table._ROWS:
        if row.display_unit not in ("bool", "word"):  # a strategy's name: a word
            _measure(row.display_unit)  # asserts it reads


def _training():
    run = derive.solve_training(
        "llama-3-8b", chip="h100", dp=8, zero=1, batch_tokens=4194304, seq=4096
    )
    return run.analysis


def _model():
    model = derive.solve_model("llama-3-8b", chip="h100", set={"B": 8, "S": 1024}).analysis
    return with_training(model, _training())


def _analyses():
    yield derive.solve(
        "matmul", dtype="bf16", chip="h100", set={"B": 4096, "D": 4096, "F": 4096}
    ).analysis
    yield derive.solve(flops=10**12, bytes=10**9, chip="h100").kernel
    yield _model()
    yield _training()


@pytest.mark.parametrize("index", range(4))
def test_the_questions_units_are_the_catalogues(index):
    """Every name a formula may use that is a catalogue row carries its display unit."""
    analysis = list(_analyses())[index]
    known = quantities.quantities_of(analysis)
    shared = [k for k in known.values() if k.name in ROWS]
    assert shared
    for k in shared:
        assert quantities.unit_of(k.name) == ROWS[k.name].display_unit
        assert (k.measure.exponents, k.measure.factor) == _measure(ROWS[k.name].display_unit) or (
            not ROWS[k.name].display_unit and k.measure.factor == 1
        ), k.name


def test_a_model_records_unit_is_its_rows():
    """A model's quantities (and a training run's, as ``with_training`` adds them): each
    that has a row carries that row, and its report unit agrees with the display unit."""
    analysis = _model()
    shared = [q for q in analysis.quantities if q.key in ROWS]
    assert len(shared) > 10
    for q in shared:
        assert q.row is ROWS[q.key], q.key
        word = q.unit.value
        if q.row.counts:
            assert word == q.row.counts and not q.row.display_unit
        else:
            _agree(q.key, word)


def test_a_part_is_counted_in_its_rows_unit():
    parts = [q for q in _model().quantities if q.key not in ROWS]
    assert {q.key for q in parts} >= {"P_attn", "P_block", "flops_2n"}
    for q in parts:
        assert q.row in (table.PARAMS, table.FLOPS_PER_TOKEN), q.key
        assert q.unit is unit_of(q.row)
    assert unit_of(table.PARAMS) is Unit.PARAMS
    assert unit_of(table.FLOPS_PER_TOKEN) is Unit.FLOPS_PER_TOKEN


def _unit_words() -> frozenset[str]:
    return frozenset(
        {row.display_unit for row in table._ROWS if row.display_unit} | {u.value for u in Unit}
    )


def _is_unit(node: ast.AST, words: frozenset[str]) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in words
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Unit"
    )


def _pairs(tree: ast.Module, names: frozenset[str]):
    """(a, b) nodes that sit together: a dict's key and value, a tuple's neighbours (not
    two names: ``("params", "tokens")`` lists names), a call's first argument and any other."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):  # a value that is a tuple: each of its items
            for k, v in zip(node.keys, node.values):
                items = v.elts if isinstance(v, ast.Tuple) else [v]
                yield from ((k, item) for item in items if k is not None)
        elif isinstance(node, ast.Tuple):
            yield from (
                (a, b)
                for a, b in zip(node.elts, node.elts[1:])
                if not (isinstance(b, ast.Constant) and b.value in names)
            )
        elif isinstance(node, ast.Call) and node.args:
            yield from ((node.args[0], other) for other in node.args[1:])


def name_unit_pairs(source: str, names: frozenset[str]) -> list[str]:
    """The catalogue names ``source`` pairs with a unit of its own (a name that is also a
    unit word, ``byte``, is read as the unit there: a unit's spelling, not a quantity's)."""
    words = _unit_words()
    return [
        name
        for a, b in _pairs(ast.parse(source), names)
        if (name := _name(a)) in names and name not in words and _is_unit(b, words)
    ]


def _name(node: ast.AST) -> str:
    """The quantity name a node spells (``"t_lower"``) or reads off a row
    (``table.T_LOWER.name``), else ""."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "name"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr in ROWS_BY_CONSTANT
    ):
        return ROWS_BY_CONSTANT[node.value.attr]
    return ""


def test_the_measure_finds_a_pair():
    names = frozenset({"t_lower"})
    assert name_unit_pairs('UNITS = {"t_lower": "s"}\n', names) == ["t_lower"]
    assert name_unit_pairs('x = ("t_lower", Unit.SECONDS)\n', names) == ["t_lower"]
    assert name_unit_pairs('sheet.q("t_lower", f, Unit.SECONDS)\n', names) == ["t_lower"]
    assert name_unit_pairs("x = {q.T_LOWER.name: (v, Unit.SECONDS)}\n", names) == ["t_lower"]
    assert name_unit_pairs('x = {"peak": "FLOP/s"}\n', names) == []
    assert name_unit_pairs('x = {"byte": Unit.BYTES}\n', names | {"byte"}) == []


UNIT_READER = "formula/units.py"
"""The reader of unit words (``flop``, ``byte``): units, not quantities."""


def test_no_module_outside_the_catalogue_gives_a_quantity_a_unit():
    names = frozenset(s for row in table._ROWS for s in row.spellings())
    found = {
        path.relative_to(ROOT.parent).as_posix(): pairs
        for path in sorted(ROOT.rglob("*.py"))
        if not path.relative_to(ROOT).as_posix().startswith("catalogue/")
        and path.relative_to(ROOT).as_posix() != UNIT_READER
        and (pairs := name_unit_pairs(path.read_text(encoding="utf-8"), names))
    }
    assert not found, f"read these units from the catalogue row: {found}"
