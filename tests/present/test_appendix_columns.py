"""The appendix drops into a paper (issue 16): ``\\input`` into a two-column and a
one-column ``article`` at 10, 11 or 12pt type compiles with no overfull box over 1 pt, and
every problem and figure has a ``\\label``.

The compile tests skip only when pdflatex is absent outside CI (``.ci/run`` installs TeX Live).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from derive.pipeline.key import build_key
from derive.present.key.files import PREAMBLE
from derive.present.tex_layout import tex_column_widths
from derive.problem.sets.problem_set import load_problem_set
from tests.conftest import ROOT, in_ci

SETS = {
    "teacher": ROOT / "tests" / "sets" / "teacher.toml",
    "unseen": ROOT / "tests" / "sets" / "unseen.toml",
    "layers": ROOT / "tests" / "sets" / "layers.toml",
    "handout": ROOT / "tests" / "sets" / "handout.toml",
    "rooflines": ROOT / "derive" / "data" / "problems" / "rooflines.toml",
}
OVERFULL = re.compile(r"^Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)", re.M)


def _pdflatex() -> str:
    found = shutil.which("pdflatex")
    if found is None:
        if in_ci():
            pytest.fail("pdflatex is missing under CI")
        pytest.skip("pdflatex not installed")
    return found


# The paper's layouts: one column (its width in ems is the same on A4 and letter paper),
# and two columns on A4, whose columns are narrower than letter's (221 pt against 230 pt).
LAYOUTS = {
    f"{size}-{columns}": f"{size},{columns}" + (",a4paper" if columns == "twocolumn" else "")
    for size in ("10pt", "11pt", "12pt")
    for columns in ("onecolumn", "twocolumn")
}


def _paper(stem: str, options: str) -> str:
    lines = [rf"\documentclass[{options}]{{article}}", *PREAMBLE[:-1]]  # the paper's own margins
    return "\n".join(
        [*lines, r"\begin{document}", rf"\input{{{stem}-appendix}}", r"\end{document}", ""]
    )


@pytest.fixture(scope="module")
def keys() -> dict[str, dict[str, str]]:
    """Each set's key files, built once for all the layouts (lazily: a set at its first use)."""
    return {}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(SETS))
def test_the_appendix_fits_the_column(
    tmp_path: Path, keys: dict[str, dict[str, str]], name: str, layout: str
):
    pdflatex = _pdflatex()
    if name not in keys:
        keys[name] = build_key(load_problem_set(SETS[name]), name)
    for file, text in keys[name].items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(_paper(name, LAYOUTS[layout]), encoding="utf-8")
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "paper.log").read_text(encoding="latin-1")
    assert run.returncode == 0, log[-3000:]
    too_wide = [float(points) for points in OVERFULL.findall(log)]
    assert all(points <= 1.0 for points in too_wide), [
        line for line in log.splitlines() if line.startswith("Overfull")
    ]


def test_every_problem_and_figure_has_a_label():
    problem_set = load_problem_set(SETS["teacher"])
    files = build_key(problem_set, "teacher")
    appendix = files["teacher-appendix.tex"]
    for entry in problem_set.problems:
        assert rf"\label{{teacher:{entry.id}}}" in appendix
    figures = appendix.count(r"\begin{figure}") + appendix.count(r"\begin{figure*}")
    assert figures == len(re.findall(r"\\label\{fig:teacher-", appendix)) > 0
    svgs = [name for name in files if name.endswith(".svg")]
    assert figures == len(svgs)
    for name in svgs:
        assert rf"\label{{fig:{name.removesuffix('.svg')}}}" in appendix
    assert "width=10cm" not in appendix  # the column's width, measured by TeX, picks a band
    assert r"\pgfmathsetlengthmacro{\derivefigurewidth}{\linewidth-" in appendix
    assert r"width={\derivefigurewidth}" in appendix


def test_every_problem_is_on_its_chips_figure():
    """Never-compute-bound problems too: drawn at the largest intensity they approach."""
    files = build_key(load_problem_set(SETS["teacher"]), "teacher")
    h200 = files["teacher-roofline-h200.svg"]
    assert "attention-h200 (never compute-bound" in h200
    assert "<polygon" in h200  # the problem's marker
    for chip, problem in (("tpu-v6e", "norm-v6e"), ("tpu-v5p", "matmul-4096-v5p")):
        assert problem in files[f"teacher-roofline-{chip}.svg"]


def test_a_link_row_says_so():
    files = build_key(load_problem_set(SETS["teacher"]), "teacher")
    row = next(line for line in files["teacher.md"].splitlines() if "[sharded-v5e]" in line)
    assert "(link)" in row and "on the link: compute-bound" in row


def test_the_questions_sheet_compiles(tmp_path: Path):
    pdflatex = _pdflatex()
    files = build_key(load_problem_set(SETS["teacher"]), "teacher")
    sheet = files["teacher-questions.tex"]
    assert "crossover 19790" not in sheet and "Verdict" not in sheet  # no answers
    (tmp_path / "q.tex").write_text(sheet, encoding="utf-8")
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", "q.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "q.log").read_text(encoding="latin-1")
    assert run.returncode == 0, log[-3000:]
    assert not OVERFULL.findall(log)


def test_column_widths_fill_the_line():
    """Each table's ``\\hsize`` factors sum to its number of columns (tabularx's rule)."""
    headers = [
        ("part", "operator", "FLOPs", "bytes", "intensity", "time", "share"),
        ("kernel", "T_math (µs)", "T_mem (µs)", "bound (µs)", "binds on", "share (%)"),
        ("kernel", "T_math", "T_mem", "T_comms", "bound", "binds on", "share (%)"),
        ("block", "weights", "count", "value"),
        ("a", "b", "c"),
    ]
    for header in headers:
        widths = tex_column_widths(header)
        columns = len(header) - (1 if header[1] == "operator" else 0)
        assert len(widths) == columns
        assert sum(Fraction(w) for w in widths) == columns
