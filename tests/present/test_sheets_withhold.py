"""Sheets withhold the method (issue 33, item 3): a defined quantity is asked by its label.

The question sheet names what to find (the set's ``label``/``find`` text, else the name
and what it measures), never the formula that computes it; an unknown's equations are the
problem's statement and stay; the key keeps the formula.
"""

from __future__ import annotations

import pytest
from conftest import run_cli

from derive.errors import ProblemError
from derive.problem.sets.problem_set import load_problem_set

SET = """title = "Costs"

[[problem]]
id = "amdahl"
title = "An Amdahl update"
text = "A 70 ms step spends 62 % in GEMMs, which get 1.8 times faster."
given = {{ step = "70 ms", share = "62 %", gemm_speedup = "1.8" }}
define = {{ new_step = "step * (1 - share) + step * share / gemm_speedup", speedup = "step / new_step" }}
{labels}
"""


def _sheet_and_key(tmp_path, labels: str) -> tuple[str, str]:
    path = tmp_path / "set.toml"
    path.write_text(SET.format(labels=labels), encoding="utf-8")
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out"), "--quiet"])
    assert r.code == 0, r
    sheet = (tmp_path / "out" / "set-questions.md").read_text("utf-8")
    key = (tmp_path / "out" / "set.md").read_text("utf-8")
    return sheet, key


def test_the_sheet_asks_by_label_and_the_key_keeps_the_formula(tmp_path):
    sheet, key = _sheet_and_key(tmp_path, 'label = { new_step = "the new step time" }')
    find = sheet[sheet.index("Find:") :]
    assert "- the new step time" in find
    assert "gemm\\_speedup" not in find and "share /" not in find and "step /" not in find
    assert "- speedup, a number" in find  # no label: its name and what it measures
    assert "step \\* (1 - share)" in key or "step * (1 - share)" in key
    assert "gemm\\_speedup = 1.8" in sheet  # the givens stay


def test_find_is_the_same_key_and_a_label_must_name_a_defined_quantity(tmp_path):
    sheet, _ = _sheet_and_key(tmp_path, 'find = { speedup = "the speed-up of the step" }')
    assert "- the speed-up of the step" in sheet
    path = tmp_path / "bad.toml"
    path.write_text(SET.format(labels='label = { cost = "the cost" }'), encoding="utf-8")
    with pytest.raises(ProblemError, match="'cost' is not a defined quantity"):
        load_problem_set(path)


def test_the_standalone_key_has_a_title_not_a_numbered_section(tmp_path):
    _sheet_and_key(tmp_path, "")
    tex = (tmp_path / "out" / "set.tex").read_text("utf-8")
    body = tex[tex.index("\\begin{document}") :]
    assert "\\title{Costs}" in body and "\\maketitle" in body
    assert "\\section{Costs}" not in body
    assert "\\renewcommand{\\thesubsection}{\\arabic{subsection}}" in tex
