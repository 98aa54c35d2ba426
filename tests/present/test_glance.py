"""The answers at a glance read as a paper prints numbers (issue 26 item 10, found looking at
the key's first page): a defined quantity, a solved unknown or a model's formula answer is
math, its number rounded with a power of ten, never ``1.1102e+07 $`` or ``2097152*S``."""

from __future__ import annotations

import re

from conftest import ROOT


def _glance_rows(text: str) -> list[str]:
    """The rows of the answers-at-a-glance tables (every table row before the first problem)."""
    head = re.split(r"\n## Problem 1\b|\\subsection\{Problem 1\b", text)[0]
    return [line for line in head.splitlines() if line.startswith("|") or line.endswith("\\\\")]


def test_the_glance_rows_print_no_e_notation_and_no_star():
    """``out/`` is the built-in key (tests/commands/test_key.py proves it current)."""
    for name in ("rooflines.md", "rooflines.tex", "rooflines-appendix.tex"):
        rows = _glance_rows((ROOT / "out" / name).read_text(encoding="utf-8"))
        assert len(rows) > 30, name
        for row in rows:
            assert not re.search(r"\de[+-]?\d", row), (name, row)
            assert "*S" not in row and "\\*S" not in row, (name, row)
            assert "\\$" not in row, (name, row)  # a cost's unit is USD, in math


def test_a_defined_quantity_and_a_model_formula_are_math():
    md = (ROOT / "out" / "rooflines.md").read_text(encoding="utf-8")
    rows = {r.split("|")[1].strip(): r for r in _glance_rows(md) if r.startswith("| [")}
    chinchilla = next(v for k, v in rows.items() if k.startswith("[chinchilla]"))
    assert "$N = " in chinchilla and r"\times 10^{" in chinchilla
    context = next(v for k, v in rows.items() if k.startswith("[max-context]"))
    assert re.search(r"\$M = \d+ S \+ \d+\$", context), context


_E_NUMBER = re.compile(r"(?<![\w.\-/\\])\d+(?:\.\d+)?[eE][+-]?\d+(?!\w|\.\d)")
_PICTURE = re.compile(r"\\begin\{tikzpicture\}.*?\\end\{tikzpicture\}", re.S)


def test_latex_prose_prints_numbers_with_powers_of_ten():
    """Hardware numbers in givens, captions and a teacher's text read ``$9.89 \\times
    10^{14}$`` in LaTeX, not ``9.89e14`` (the figures' coordinates and placed labels aside:
    pgfplots reads the first, and the placer measured the second as written)."""
    for name in ("rooflines.tex", "rooflines-questions.tex", "rooflines-appendix.tex"):
        text = _PICTURE.sub("", (ROOT / "out" / name).read_text(encoding="utf-8"))
        found = [m.group(0) for m in _E_NUMBER.finditer(text)]
        assert not found, (name, found[:5])
    serving = (ROOT / "out" / "rooflines.tex").read_text(encoding="utf-8")
    assert r"$\pi$ = $9.89 \times 10^{14}$ FLOP/s (bf16 peak)" in serving
