"""One unit table: the catalogue row's display unit (``Quantity.display_unit``) is what every
other table of units says for a name it shares with the catalogue (issue 31).

The tables: the questions layer's ``UNITS`` (operator, kernel and serving quantities), the
model records' ``Unit`` as the questions layer reads it, the training values' units, and the
units ``with_training`` gives a model analysis's training quantities. Two units agree when
they measure the same thing with the same factor (``byte`` is ``B``), read by the formula
layer's unit reader; ``bool`` (a truth) only agrees with itself.
"""

from __future__ import annotations

import pytest

import derive
from derive.catalogue import table
from derive.checking.training_claims import with_training
from derive.formula.units import measure_atom
from derive.questions import quantities
from derive.training.values import training_unit, training_values

ROWS = {row.name: row for row in table._ROWS}


def _measure(text: str) -> tuple:
    """(exponents, factor) of a unit text of at most one ``/``; a plain number is ()."""
    if not text:
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
    if "bool" in (unit, catalogue):
        assert unit == catalogue, (name, unit, catalogue)
    else:
        assert _measure(unit) == _measure(catalogue), (name, unit, catalogue)


def test_every_row_has_a_display_unit_the_reader_reads():
    for row in table._ROWS:
        if row.display_unit != "bool":
            _measure(row.display_unit)  # asserts it reads


@pytest.mark.parametrize("name", sorted(set(quantities.UNITS) & set(ROWS)))
def test_the_questions_units_agree_with_the_catalogue(name):
    _agree(name, quantities.UNITS[name])


def _training():
    run = derive.solve_training(
        "llama-3-8b", chip="h100", dp=8, zero=1, batch_tokens=4194304, seq=4096
    )
    return run.analysis


def test_the_training_units_agree_with_the_catalogue():
    shared = [key for key in training_values(_training()) if key in ROWS]
    assert shared
    for key in shared:
        _agree(key, training_unit(key))


def test_the_model_records_units_agree_with_the_catalogue():
    """A model's quantities (and a training run's, as ``with_training`` adds them), their
    ``Unit`` read as the questions layer reads it."""
    model = derive.solve_model("llama-3-8b", chip="h100", set={"B": 8, "S": 1024}).analysis
    analysis = with_training(model, _training())
    shared = [q for q in analysis.quantities if q.key in ROWS]
    assert len(shared) > 10
    for q in shared:  # a record's unit is its catalogue row's: one table, not a second one
        assert q.row.display_unit == ROWS[q.key].display_unit, q.key
