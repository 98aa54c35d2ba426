"""No module tells output formats apart by name (issue 48, item 4: one render path).

How a result prints in a format is the format's own (its record in
``derive/present/formats.py``: suffix, escaping, writer) or the document's (a
:class:`~derive.present.formats.Document`'s templates, writers, ``verbatim`` text and
``data``): a command builds a document and calls ``render(document, args.format)``. This
test parses (never imports) every module of ``derive/`` but the table itself and finds no
comparison of ``--format``'s value, or of anything with a format's name
(``args.format == "json"``, ``fmt != "text"``, ``args.format in ("md", "tex")``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "derive"
TABLE = "derive/present/formats.py"
NAMES = frozenset({"md", "tex", "json", "text"})  # FORMATS' keys (test_formats keeps them so)
_COMPARE = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _a_format(node: ast.expr) -> bool:
    """``args.format``, ``"json"`` or a tuple holding a format's name."""
    if isinstance(node, ast.Attribute | ast.Name):
        return (node.attr if isinstance(node, ast.Attribute) else node.id) == "format"
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_a_format(element) for element in node.elts)
    return isinstance(node, ast.Constant) and node.value in NAMES


def branches_on_a_format(tree: ast.AST) -> list[int]:
    """The lines comparing ``--format``'s value or a format's name."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(op, _COMPARE) for op in node.ops)
        and any(_a_format(side) for side in (node.left, *node.comparators))
    ]


def test_no_module_branches_on_a_format():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name != TABLE:
            found += [f"{name}:{n}" for n in branches_on_a_format(ast.parse(path.read_text()))]
    assert found == [], "a branch on a format (make it the format's or the document's): " + (
        ", ".join(found)
    )


def test_the_table_names_the_formats():
    from derive.present.formats import FORMATS

    assert set(FORMATS) == NAMES


def test_the_scan_finds_a_branch():
    source = 'if args.format == "json":\n    pass\nok = fmt != "text"\nx = f in ("md", "tex")\n'
    assert branches_on_a_format(ast.parse(source)) == [1, 3, 4]
    assert branches_on_a_format(ast.parse("text = render(document, args.format)\n")) == []
