"""The standalone LaTeX key (``derive key`` writes ``<stem>.tex``, an 11pt article) is
printable as it comes: it compiles with no LaTeX error, no overfull box and no line of
text stretched to badness 10000, for the sets the appendix test puts in a paper (the
built-in set with its models and serving chapters, and tests/sets/*.toml).

The figures once came out ~4.4pt too wide here: pgfplots' room for the tick labels is a
fixed estimate, right at 10pt type and short at 11pt (derive.figures.tikz now lets TeX
measure it). The compile tests skip only when pdflatex is absent outside CI.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from derive.pipeline.key import build_key
from derive.problem.sets.problem_set import load_problem_set
from tests.present.test_appendix_columns import SETS, _pdflatex

OVERFULL = re.compile(r"^Overfull \\[hv]box \(.*$", re.M)
# a paragraph's line stretched as far as TeX will (an alignment's row is tabularx's trial
# and looks right on the page)
STRETCHED = re.compile(r"^Underfull \\hbox \(badness 10000\) in paragraph.*$", re.M)
ERROR = re.compile(r"^! .*$", re.M)


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_standalone_key_compiles_clean(tmp_path: Path, name: str):
    pdflatex = _pdflatex()
    files = build_key(load_problem_set(SETS[name]), name)
    assert files[f"{name}.tex"].count(r"\documentclass") == 1
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", f"{name}.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / f"{name}.log").read_text(encoding="latin-1")
    assert run.returncode == 0 and not ERROR.findall(log), log[-3000:]
    assert (tmp_path / f"{name}.pdf").stat().st_size > 0
    assert not OVERFULL.findall(log), OVERFULL.findall(log)
    assert not STRETCHED.findall(log), STRETCHED.findall(log)
