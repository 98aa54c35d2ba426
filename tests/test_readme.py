"""Every ```python block of the README runs (issue 16: the Composite snippet raised NameError).

A block written as a session (``>>>`` prompts) runs as a doctest: its shown output must match.
"""

from __future__ import annotations

import doctest
import re

import pytest

from tests.conftest import ROOT

BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_the_readme_block_runs(index: int):
    block, name = BLOCKS[index], f"README.md python block {index + 1}"
    if block.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(block, {}, name, "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0, f"{name}: {runner.failures} example(s) failed"
        return
    exec(compile(block, name, "exec"), {})
