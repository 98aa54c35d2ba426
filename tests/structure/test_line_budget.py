"""The line budget's counter (.ci/sz.py) counts lines of code as tinygrad's sz.py does:
blank lines, comments and docstrings out, generated code out, one row per package."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import ROOT

_SPEC = importlib.util.spec_from_file_location("sz", ROOT / ".ci" / "sz.py")
assert _SPEC is not None and _SPEC.loader is not None
sz = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sz)

# A line of code says "yes" (no other line does); the expected count is the number of them.
SYNTHETIC = '''"""A module docstring, no
code on its two lines."""

# a comment line
import os  # yes: code with a trailing comment

LIMIT = 3  # yes
"""LIMIT's docstring (PEP 257: a string right after an assignment)."""

TEXT = """yes: a string assigned
yes: is code on each of its lines"""


class Thing:  # yes
    """The class docstring."""

    size: int = 1  # yes
    """An attribute's docstring."""

    def f(self, x="é"):  # yes
        """The method's docstring,
        over two lines."""
        "a string right after the docstring: code"  # yes
        return f"{x}"  # yes


def g(): """a docstring on the def's line"""; return "x"  # yes: one line, code on it


print(os.sep,  # yes
      TEXT)  # yes
'''


def _expected() -> int:
    return sum(1 for line in SYNTHETIC.splitlines() if "yes" in line)


def test_the_counter_counts_a_synthetic_file():
    assert _expected() == 12
    assert sz.lines_of_code(SYNTHETIC) == _expected()


def test_a_docstring_after_wide_characters_on_its_line_is_still_a_docstring():
    # ast counts columns in UTF-8 bytes, tokenize in characters
    source = 'def f(x="ééé"): "doc"\n'
    assert sz.lines_of_code(source) == 1
    assert sz.lines_of_code('"ééé"\n') == 0  # a module whose only statement is its docstring


def test_packages_are_folders_and_generated_code_is_left_out(tmp_path: Path):
    (tmp_path / "one" / "compiled").mkdir(parents=True)
    (tmp_path / "one" / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (tmp_path / "one" / "compiled" / "t.py").write_text("z = 3\n", encoding="utf-8")
    (tmp_path / "flat.py").write_text('"""doc"""\nw = 4\n', encoding="utf-8")
    assert sz.count(tmp_path) == {"one": 2, "(top)": 1}


def test_over_names_each_package_past_its_ceiling_and_the_total(monkeypatch):
    monkeypatch.setattr(sz, "CEILINGS", {"one": 10, "two": 5})
    monkeypatch.setattr(sz, "TOTAL", 14)
    assert sz.over({"one": 10, "two": 4}) == []
    assert sz.over({"one": 11, "two": 4}) == [
        "one: 11 lines of code, over its ceiling of 10",
        "derive/: 15 lines of code, over the total of 14",
    ]
    assert sz.over({"three": 1}) == ["three: 1 lines of code and no ceiling (add one to .ci/sz.py)"]


def test_every_package_of_derive_has_a_ceiling():
    assert set(sz.count(ROOT / "derive")) <= set(sz.CEILINGS)
