"""No stage tells kinds apart by name (issue 48, item 2).

What a stage does differently for a kind is the kind's own: its member's data
(``ProblemKind.label``, ``parent``, ``roofline``, ``judged_as`` in
``derive/catalogue/kinds.py``) or its :class:`~derive.pipeline.kinds.Kind` (``noun``,
``chains``, ``derive``, ``asks``). This test parses (never imports) every module of
``derive/`` outside ``derive/catalogue/`` and finds no comparison of anything with a named
kind (``x.kind is ProblemKind.COMMS``, ``kind is not ProblemKind.OPERATOR``, ``== ``, ``!=``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "derive"
_COMPARE = (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)


def _named_kind(node: ast.expr) -> bool:
    """``ProblemKind.X``: one kind by its name."""
    value = node.value if isinstance(node, ast.Attribute) else None
    return isinstance(value, ast.Name) and value.id == "ProblemKind"


def branches_on_a_kind(tree: ast.AST) -> list[int]:
    """The lines comparing something with a named kind."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(op, _COMPARE) for op in node.ops)
        and any(_named_kind(side) for side in (node.left, *node.comparators))
    ]


def test_no_stage_branches_on_a_named_kind():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("derive/catalogue/"):
            continue
        found += [f"{name}:{line}" for line in branches_on_a_kind(ast.parse(path.read_text()))]
    assert found == [], "a branch on a named kind (make it the kind's own): " + ", ".join(found)


def test_the_scan_finds_a_branch():
    source = "if d.kind is ProblemKind.COMMS:\n    pass\nok = kind is not ProblemKind.OPERATOR\n"
    assert branches_on_a_kind(ast.parse(source)) == [1, 3]
    assert branches_on_a_kind(ast.parse("if not d.kind.roofline:\n    pass\n")) == []
