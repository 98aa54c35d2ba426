"""The question sheet of a graded assignment as its students read it (issue 33).

tests/sets/graded.toml: the six problems of the issue (an operator, Qwen2-7B from its
config.json, a decode step, a cost, a training run, givens and equations). The LaTeX
sheet carries each model problem's own question, asks what the teacher asked (not the
steps a serving step or a training run shows on the way), and prints a decimal the
teacher typed as that decimal.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from derive.commands.cli import main

SET = Path(__file__).parents[1] / "sets" / "graded.toml"


@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("graded")
    assert main(["key", str(SET), "-o", str(out), "--quiet", "--jobs", "1"]) == 0
    return out


def _problems(text: str, heading: str) -> dict[str, str]:
    """Title -> the problem's part of the sheet."""
    parts = re.split(heading, text)[1:]
    return {parts[i].strip(): parts[i + 1] for i in range(0, len(parts), 2)}


def test_every_problem_of_the_latex_sheet_carries_its_question(sheet: Path) -> None:
    tex = (sheet / "graded-questions.tex").read_text(encoding="utf-8")
    # a phrase of each problem's text in the set (the model problems' were dropped before)
    for phrase in (
        "in int8 on a TPU v5e",
        "From its config.json: how many parameters",
        "One decode step of Qwen2-7B",
        "rents at \\$2.49 an hour",
        "Llama 3 8B trained in bf16 with Adam",
        "A card of 16 GB holds only the weights",
    ):
        assert phrase in tex, phrase


def test_the_sheet_asks_what_the_teacher_asked(sheet: Path) -> None:
    md = (sheet / "graded-questions.md").read_text(encoding="utf-8")
    problems = _problems(md, r"(?m)^## \d+\. (.*)$")
    finds = {title: body.split("Find:")[1].strip().splitlines() for title, body in problems.items()}
    decode = finds["Qwen2-7B decode on one H100"]
    assert not any("bytes of the weights" in line or "KV-cache bytes" in line for line in decode)
    training = finds["Llama 3 8B trained with ZeRO-1 on 8 H100s"]
    assert not any("number of parameters" in line for line in training)
    assert len(training) == len(set(training)) == 2  # memory per device once, the step's time
    cost = finds["What a million tokens cost"]
    assert cost == ["- the cost per million generated tokens"]


def test_a_price_the_teacher_typed_prints_as_typed(sheet: Path) -> None:
    tex = (sheet / "graded-questions.tex").read_text(encoding="utf-8")
    assert r"price per device-hour (\$/h) & $2.49$" in tex
    assert r"\frac{249}{100}" not in tex


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")
def test_the_sheet_and_the_key_compile(sheet: Path) -> None:
    for name in ("graded-questions.tex", "graded.tex"):
        for _ in range(2):  # twice: the references resolve on the second run
            run = subprocess.run(
                ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name],
                cwd=sheet, capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            assert run.returncode == 0, run.stdout[-2000:]


def test_a_models_givens_table_is_printed_once(sheet: Path) -> None:
    """Problems 2-4 are on Qwen2-7B: the first prints the 13-row table, the later ones refer
    to it and print only their own rows (the batch, the context, the price), in the sheet and
    in the key, in Markdown and in LaTeX (issue 33 item 8)."""
    for name in ("graded-questions.md", "graded-questions.tex", "graded.md", "graded.tex"):
        text = (sheet / name).read_text(encoding="utf-8")
        # the table's rows read from the config (Llama 3 8B's are not), once
        assert text.count("residual stream (config:") == 1, name
        assert text.count("vocabulary (config:") == 1, name
        assert text.count("those of the table of Problem 2") == 2, name
