"""Every ```python block of the README runs (issue 16: the Composite snippet raised NameError)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_the_readme_block_runs(index: int):
    exec(compile(BLOCKS[index], f"README.md python block {index + 1}", "exec"), {})
