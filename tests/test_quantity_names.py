"""How many modules outside the catalogue spell a quantity's name as a string (issue 31, item 2).

The catalogue (``derive/catalogue/``) declares every quantity's name and aliases once;
every other module should reach a quantity through a catalogue row, not by spelling it.
This test measures it with :mod:`ast`: every string literal (docstrings skipped) in
``derive/**/*.py`` outside ``derive/catalogue/`` that equals a catalogue name or alias
counts, and a module counts once however many such literals it holds.

The goal ("a handful of modules at most": the JSON key map, the parser's keywords) is
``ALLOWED`` below, at most 8 modules, each with its reason. ``BACKLOG`` lists the modules
that still spell names (57 modules, 407 literals when this test was written; 48 after the
first references to catalogue rows): the count may only go down (a module
that stops spelling names must leave ``BACKLOG``; a new module may not start).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from derive.catalogue import QUANTITIES

ROOT = Path(__file__).resolve().parent.parent / "derive"

#: the modules allowed to spell a quantity's name, and why (the goal: at most 8).
ALLOWED: dict[str, str] = {
    "derive/present/json_export.py": "the JSON key map: report keys are the catalogue's names",
    "derive/formula/latex.py": "the parser's keywords (LaTeX spellings read as names)",
    "derive/formula/evaluate.py": "the formula reader's keywords",
    "derive/formula/units.py": "unit words (bytes, flop) read as units, not quantities",
    "derive/checking/claims.py": "the claim reader's unit words",
}

#: modules that still spell names (issue 31 backlog): may only shrink.
BACKLOG: frozenset[str] = frozenset(
    {
        "derive/present/key/files.py",  # template names ("fit"): a false positive
        "derive/commands/sections.py",  # args' flag attributes (--flops, --bytes): a false positive
        "derive/model/analysis.py",  # measured after merging the budget/what-if rows (params, tokens, …)
        "derive/model/records.py",  # measured after merging the budget/what-if rows (params, tokens, …)
        "derive/model/symbols.py",  # measured after merging the budget/what-if rows (params, tokens, …)
        "derive/present/budget_view.py",  # measured after merging the budget/what-if rows (params, tokens, …)
        "derive/problem/sets/natives.py",  # measured after merging the budget/what-if rows (params, tokens, …)
        "derive/questions/natives.py",  # measured after merging the budget/what-if rows (params, tokens, …)
        "derive/model/serving.py",
        "derive/present/training_view.py",
        "derive/solution/model_steps.py",
        "derive/model/counting.py",
        "derive/problem/sets/kernels.py",
        "derive/checking/model_claims.py",
        "derive/present/sweep/values.py",
        "derive/present/compare/kernels.py",
        "derive/checking/training_claims.py",
        "derive/pipeline/__init__.py",
        "derive/problem/sets/problem_set.py",
        "derive/solution/training_memory_steps.py",
        "derive/solution/training_steps.py",
        "derive/present/key/training.py",
        "derive/present/sharding_view.py",
        "derive/checking/kernel_check.py",
        "derive/commands/model.py",
        "derive/figures/model.py",
        "derive/pipeline/kinds/comms.py",
        "derive/problem/sets/operator_tables.py",
        "derive/training/analysis.py",
        "derive/web/kernel_pages.py",
        "derive/declare/operator.py",
        "derive/model/budget.py",
        "derive/present/model_view.py",
        "derive/solution/layer_steps.py",
        "derive/solution/measured_steps.py",
        "derive/analysis/leading_order.py",
        "derive/checking/diagnosis_text.py",
        "derive/declare/composite.py",
        "derive/model/expand.py",
        "derive/pipeline/kinds/decode_crossover.py",
        "derive/pipeline/kinds/training.py",
        "derive/present/key/comms.py",
        "derive/present/listing.py",
        "derive/problem/sets/errors.py",
        "derive/solution/budget_steps.py",
        "derive/solution/kernel_steps.py",
        "derive/solution/verdicts.py",
        "derive/web/comms_pages.py",
    }
)


def catalogue_names() -> frozenset[str]:
    """Every name and alias of every catalogue row."""
    return frozenset(s for row in QUANTITIES for s in row.spellings())


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def spelled(source: str, names: frozenset[str]) -> int:
    """How many string literals (not docstrings) of ``source`` equal one of ``names``."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and node.value in names
    )


def measure() -> Counter[str]:
    """Module (path relative to the repository) -> literals spelling a catalogue name."""
    names = catalogue_names()
    counts: Counter[str] = Counter()
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).as_posix()
        if rel.startswith("derive/catalogue/"):
            continue
        n = spelled(path.read_text(encoding="utf-8"), names)
        if n:
            counts[rel] = n
    return counts


def test_the_measure_counts_literals_not_docstrings() -> None:
    source = '"""t_lower in a docstring."""\nx = "t_lower"\ny = "not_a_quantity"\n'
    assert spelled(source, frozenset({"t_lower"})) == 1


def test_the_allow_list_is_a_handful() -> None:
    assert len(ALLOWED) <= 8
    assert not set(ALLOWED) & BACKLOG


def test_no_new_module_spells_quantity_names() -> None:
    extra = sorted(set(measure()) - set(ALLOWED) - BACKLOG)
    assert not extra, f"read these names from the catalogue instead: {extra}"


def test_the_backlog_only_shrinks() -> None:
    done = sorted(BACKLOG - set(measure()))
    assert not done, f"these modules no longer spell names: remove them from BACKLOG: {done}"


@pytest.mark.xfail(strict=True, reason="issue 31 item 2: the backlog is not yet emptied")
def test_at_most_eight_modules_spell_quantity_names() -> None:
    assert len(measure()) <= 8
