"""How many modules outside the catalogue spell a quantity's name as a string (issue 31, item 2).

The catalogue (``derive/catalogue/``) declares every quantity's name and aliases once;
every other module should reach a quantity through a catalogue row, not by spelling it.
This test measures it with :mod:`ast`: every string literal (docstrings and attribute
names such as ``getattr(args, "flops")`` skipped) in
``derive/**/*.py`` outside ``derive/catalogue/`` that equals a catalogue name or alias
counts, and a module counts once however many such literals it holds.

The goal ("a handful of modules at most": the JSON key map, the parser's keywords) is
``ALLOWED`` below, at most 8 modules, each with its reason. ``BACKLOG`` lists the modules
that still spell names (57 modules, 407 literals when this test was written; 48 after the
first references to catalogue rows; 6 after the catalogue rows reached the model, training,
pipeline and present modules and one unit table, the goal met): the count may only go down (a module
that stops spelling names must leave ``BACKLOG``; a new module may not start).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from derive.catalogue import QUANTITIES

ROOT = Path(__file__).resolve().parents[2] / "derive"

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
        # "activations", the --dtype role's flag word (Role.flag), is also a catalogue name
        "derive/model/expand.py",
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


#: calls whose second argument names an attribute (``getattr(args, "flops")`` is
#: ``args.flops``, which spells no string; ``object.__setattr__(self, "flops", v)`` in a
#: frozen dataclass's ``__post_init__`` sets its field).
_ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr", "__setattr__"})


def _attribute_names(tree: ast.Module) -> set[int]:
    """The literals that name an attribute: the second argument of an attribute call."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            func = node.func
            called = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if called in _ATTRIBUTE_CALLS:
                found.add(id(node.args[1]))
    return found


def _exported_names(tree: ast.Module) -> set[int]:
    """The literals of a module's ``__all__``: the Python names it exports (a function
    ``flops`` or ``fit``), not quantity names."""
    found: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            found |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return found


def spelled(source: str, names: frozenset[str]) -> int:
    """How many string literals (not docstrings, not attribute names, not ``__all__``'s
    exported Python names) of ``source`` equal one of ``names``."""
    tree = ast.parse(source)
    skipped = _docstrings(tree) | _attribute_names(tree) | _exported_names(tree)
    return sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skipped
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


def test_the_measure_skips_exported_python_names() -> None:
    source = '__all__ = ["flops", "fit"]\nx = "t_lower"\n'
    assert spelled(source, frozenset({"flops", "fit", "t_lower"})) == 1


def test_the_measure_counts_literals_not_docstrings() -> None:
    source = '"""t_lower in a docstring."""\nx = "t_lower"\ny = "not_a_quantity"\n'
    assert spelled(source, frozenset({"t_lower"})) == 1


def test_the_measure_skips_attribute_names() -> None:
    source = (
        'a = getattr(args, "flops", None)\n'
        'object.__setattr__(self, "flops", 0)\n'
        'setattr(x, "flops", 1)\n'
        'b = table.get("flops")\n'
    )
    assert spelled(source, frozenset({"flops"})) == 1


def test_the_allow_list_is_a_handful() -> None:
    assert len(ALLOWED) <= 8
    assert not set(ALLOWED) & BACKLOG


def test_no_new_module_spells_quantity_names() -> None:
    extra = sorted(set(measure()) - set(ALLOWED) - BACKLOG)
    assert not extra, f"read these names from the catalogue instead: {extra}"


def test_the_backlog_only_shrinks() -> None:
    done = sorted(BACKLOG - set(measure()))
    assert not done, f"these modules no longer spell names: remove them from BACKLOG: {done}"


def test_at_most_eight_modules_spell_quantity_names() -> None:
    assert len(measure()) <= 8
