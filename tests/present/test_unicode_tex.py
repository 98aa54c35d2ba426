"""Unicode letters in a problem set survive LaTeX (issue 22 item 4): the title and text of a
set and of a problem, with Žižek, naïve, Ångström and Greek, are encoded by pylatexenc where
derive's own table has no entry; the standalone key compiles and its PDF shows the letters.

The compile test skips only when pdflatex (or pdftotext) is absent outside CI.
"""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from derive.pipeline.key import build_key
from derive.present.escape import tex_escape
from derive.problem.sets.problem_set import load_problem_set
from tests.conftest import in_ci
from tests.present.test_appendix_columns import _pdflatex

SET = """\
title = "Žižek's naïve rooflines: Ångström, Ελληνικά"
text = "A naïve reader (Žižek) measures in Ångström; Ελληνικά for Greek."

[[problem]]
id = "naive"
title = "A naïve matmul, after Žižek"
text = "Ångström-sized X[B,D] Y[D,F]; Ελληνικά."
operator = "matmul"
dtype = "bf16"
chip = "h100"
"""


@pytest.mark.parametrize(
    ("text", "latex"),
    [
        ("Žižek", r"\v{Z}i\v{z}ek"),
        ("naïve", r"na{\"\i}ve"),
        ("Ångström", r"\r{A}ngström"),  # ö is one of the letters kept as typed
        ("5% of π", r"5\% of $\pi$"),  # derive's own table comes first
        ("a\x01b", "a?b"),  # a control character
        ("中", "?"),  # what neither table knows
        ("softmax(q·kᵀ)", r"softmax(q$\cdot$k$^{\mathsf{T}}$)"),  # printed k? before
    ],
)
def test_tex_escape_encodes_letters_it_has_no_entry_for(text: str, latex: str):
    assert tex_escape(text) == latex


def _pdftotext() -> str:
    found = shutil.which("pdftotext")
    if found is None:
        if in_ci():
            pytest.fail("pdftotext is missing under CI")
        pytest.skip("pdftotext not installed")
    return found


def test_a_unicode_title_compiles_with_its_letters(tmp_path: Path):
    pdflatex, pdftotext = _pdflatex(), _pdftotext()
    (tmp_path / "u.toml").write_text(SET, encoding="utf-8")
    files = build_key(load_problem_set(tmp_path / "u.toml"), "u")
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", "u.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "u.log").read_text(encoding="latin-1")
    assert run.returncode == 0 and "\n! " not in log, log[-3000:]
    shown = subprocess.run(
        [pdftotext, "-enc", "UTF-8", "u.pdf", "-"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # TeX sets ï as a dotless i under a diaeresis; read it back as the one letter
    text = unicodedata.normalize("NFC", shown.replace("ı\u0308", "ï"))
    for word in ("Žižek", "naïve", "Ångström", "λληνικά"):
        assert word in text, (word, text[:500])
