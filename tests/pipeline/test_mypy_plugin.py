"""The mypy plugin (.ci/mypy_plugin.py): a record's quantity attributes are its kind's catalogue rows.

mypy, run on a snippet as ``pyproject.toml`` configures it (the plugin on), takes every
name and alias of every row each kind's record may have a value for (read here from the
catalogue with ``rows_valued_in``, independently of the plugin) and reports a misspelled
one (``m.paramz``) by name.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT

from derive.catalogue import ProblemKind
from derive.catalogue.reading import rows_valued_in
from derive.pipeline import solve_model
from derive.pipeline.kinds import KINDS
from derive.pipeline.kinds.surface import Shown

pytestmark = pytest.mark.quality
sys.path.insert(0, str(ROOT / ".ci"))
from mypy_plugin import quantity_names  # noqa: E402  (tooling beside .ci/sz.py, not derive)


def _records() -> list[type[Shown]]:
    """Every record class of a kind with rows (each kind's module loaded)."""
    for kind in KINDS:
        KINDS[kind]
    from derive.pipeline import BudgetDerivation, WhatIfDerivation  # noqa: F401  (loaded)

    found, todo = [], [Shown]
    while todo:
        record = todo.pop()
        todo += record.__subclasses__()
        kind = getattr(record, "kind", None)
        if isinstance(kind, ProblemKind) and (rows_valued_in(kind) or rows_valued_in(kind.parent)):
            found.append(record)
    return sorted(found, key=lambda record: record.__name__)


def _names(record: type[Shown]) -> set[str]:
    kind = record.kind
    rows = rows_valued_in(kind) or rows_valued_in(kind.parent)
    return {name for row in rows for name in (row.name, *row.aliases)}


def test_the_plugin_names_each_kinds_rows():
    records = _records()
    with_rows = {kind for kind in ProblemKind if rows_valued_in(kind)}
    assert {r.kind for r in records} == with_rows | {ProblemKind.DECODE_CROSSOVER}  # the step's
    for record in records:
        assert quantity_names(record.__module__, record.__name__) == _names(record), record
    m = solve_model("gpt2-small")  # what Python reads at run time, mypy takes
    assert {row.name for row in m.values()} <= quantity_names(type(m).__module__, "ModelDerivation")


def test_mypy_takes_every_quantity_and_reports_a_misspelled_one(tmp_path):
    lines = ["from derive.pipeline import solve_model", 'solve_model("gpt2-small").params.exact']
    typos = [len(lines) + 1]
    lines.append('solve_model("gpt2-small").paramz')
    for n, record in enumerate(_records()):
        lines += [
            f"from {record.__module__} import {record.__name__}",
            f"def f{n}(d: {record.__name__}) -> None:",
        ]
        lines += [f"    d.{name}" for name in sorted(_names(record)) if name.isidentifier()]
        typos.append(len(lines) + 1)
        lines.append("    d.paramz")
    snippet = tmp_path / "snippet.py"
    snippet.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", str(snippet)], cwd=ROOT, capture_output=True, text=True
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [int(line.split(":")[1]) for line in errors] == typos, done.stdout
    assert all('has no attribute "paramz"' in line for line in errors), done.stdout
