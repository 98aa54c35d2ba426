"""Source scan: nothing in derive/ may evaluate text as code.

``sympify``, ``parse_expr`` and sympy's string-accepting functions all end in
Python's ``eval``; restricted globals do not make that safe. Every ``.py``
file under ``derive/`` (whatever exists when the test runs) is parsed with
``ast`` and must not call any of the names below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "derive"

FORBIDDEN = frozenset(
    {"eval", "exec", "compile", "sympify", "parse_expr", "parse_latex", "__import__"}
)
"""Never called, as a bare name or as an attribute (``sympy.sympify``, ``builtins.eval``)."""

REGEX_MODULES = frozenset({"re", "regex"})
"""``re.compile`` compiles a regular expression, not Python: allowed."""

STRING_TAKERS = frozenset(
    {"S", "subs", "simplify", "solve", "Poly", "expand", "factor", "cancel", "nsimplify"}
)
"""sympy functions that would ``sympify`` a positional string argument: refused with a string literal."""


def _called_name(call: ast.Call) -> tuple[str | None, str | None]:
    """The called name and, for ``a.b(...)``, the name of ``a`` when it is a plain name."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id, None
    if isinstance(func, ast.Attribute):
        owner = func.value.id if isinstance(func.value, ast.Name) else None
        return func.attr, owner
    return None, None


def _is_text(node: ast.AST) -> bool:
    """A string literal or an f-string."""
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _violations(path: Path) -> list[str]:
    """Each forbidden call in one file, as ``path:line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name, owner = _called_name(node)
        regex = name == "compile" and owner in REGEX_MODULES
        if name in FORBIDDEN and not regex:
            found.append(f"{path}:{node.lineno}: calls {name}")
        if name in STRING_TAKERS and any(_is_text(a) for a in node.args):
            found.append(f"{path}:{node.lineno}: calls {name} with a string")
    return found


def _sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_there_are_sources() -> None:
    assert (PACKAGE / "formula" / "__init__.py").exists()
    assert len(_sources()) > 1


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_eval(path: Path) -> None:
    assert _violations(path) == []


def test_scan_catches_forbidden_calls(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import sympy as sp, re, builtins\n"
        "sp.sympify(x)\n"
        "eval(x)\n"
        "builtins.exec(x)\n"
        "sp.S('B + 1')\n"
        "e.subs(B, '2')\n"
        "re.compile('a')\n"
        "compile(x, 'f', 'exec')\n"
        "sp.S(1)\n",
        encoding="utf-8",
    )
    lines = [v.split(":")[1] for v in _violations(bad)]
    assert lines == ["2", "3", "4", "5", "6", "8"]
