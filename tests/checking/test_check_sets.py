"""``derive check --problem-set``: one problem of a teacher's set, a CSV of answers, --hide-expected."""

from __future__ import annotations

import csv
import io
import json

import pytest
import sympy as sp
from conftest import run_cli

SET = """title = "Homework"
[[problem]]
id = "q2"
title = "int8 weights"
operator = "matmul"
dtypes = { X = "bf16", Y = "int8", Z = "bf16" }
chip = "tpu-v5e"
regime = "B << D, F"

[[problem]]
id = "cube"
title = "a cube"
operator = "matmul"
dtype = "bf16"
chip = "tpu-v5e"
set = { B = 4096, D = 4096, F = 4096 }
"""
PEAK, HBM = sp.Rational(197 * 10**12), sp.Rational(82 * 10**10)
THRESHOLD = int(sp.ceiling(1 * PEAK / (2 * HBM)))  # int8 weights at leading order: π/(2β)


@pytest.fixture
def homework(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "set.toml").write_text(SET, encoding="utf-8")
    return tmp_path


def test_a_claim_against_a_problem_of_the_set(homework):
    argv = ["check", "--problem-set", "set.toml", "--problem", "q2", "--quantity", "crossover"]
    r = run_cli(argv + ["--claim", rf"B \geq {THRESHOLD}"])
    assert r.code == 0 and r.out.startswith("verdict: correct-leading-order")
    r = run_cli(argv + ["--claim", str(2 * THRESHOLD), "--hide-expected"])
    assert r.code == 1 and "expected" not in r.out
    assert str(THRESHOLD) not in r.out and "diagnosis:" in r.out
    r = run_cli(argv + ["--claim", str(2 * THRESHOLD), "--hide-expected", "--format", "json"])
    data = json.loads(r.out)
    assert data["expected"] is None and data["expected_hidden"] is True
    assert data["expected_leading_order"] is None and data["expected_text"] is None


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--problem", "nope", "--quantity", "ridge", "--claim", "1"], "no such problem"),
        (["--quantity", "ridge", "--claim", "1"], "needs --problem ID"),
        (
            ["--problem", "q2", "--chip", "h100", "--quantity", "ridge", "--claim", "1"],
            "from the set",
        ),
    ],
)
def test_set_misuse_is_refused(homework, argv, says):
    r = run_cli(["check", "--problem-set", "set.toml"] + argv)
    assert r.code == 2 and says in r.err and r.err.count("\n") == 1


_TIMING_FLAGS = (
    ("--efficiency", "0.5"),
    ("--compute-efficiency", "0.5"),
    ("--memory-efficiency", "0.5"),
    ("--launch-overhead", "5us"),
    ("--link-latency", "1us"),
    ("--measured-time", "1ms"),
    ("--measured-flops-per-s", "1e12"),
    ("--measured-bytes-per-s", "1e9"),
)


@pytest.mark.parametrize(("flag", "value"), _TIMING_FLAGS)
def test_a_timing_flag_with_a_problem_of_the_set_is_refused(homework, flag, value):
    """The set fixes the problem's numbers: a timing flag would be silently ignored."""
    argv = ["check", "--problem-set", "set.toml", "--problem", "q2", "--quantity", "ridge"]
    r = run_cli([*argv, "--claim", "1", flag, value])
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r
    assert r.err.startswith(f"error: derive check --problem-set with {flag}: "), r.err
    assert "fixes the problem's numbers" in r.err and "no timing flags" in r.err


@pytest.mark.parametrize("flag", ["--efficiency", "--chip"])
def test_answers_with_a_problem_or_timing_flag_are_refused(homework, flag):
    """Grading reads every number from the set too: a flag it would ignore is refused."""
    (homework / "answers.csv").write_text(_answers([["ann", "q2", "ridge", "1"]]), "utf-8")
    out = homework / "verdicts.csv"
    argv = ["check", "--problem-set", "set.toml", "--answers", "answers.csv", "-o", str(out)]
    r = run_cli([*argv, flag, "0.5" if flag == "--efficiency" else "h100"])
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r
    assert r.err.startswith(f"error: derive check --problem-set with {flag}: ") and not out.exists()


def _answers(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["who", "problem", "quantity", "claim"], *rows])
    return out.getvalue()


def test_grading_a_csv_of_answers(homework):
    ridge = PEAK / HBM
    (homework / "answers.csv").write_text(
        _answers(
            [
                ["ann", "q2", "crossover", rf"B \geq {THRESHOLD}"],
                ["bob", "q2", "ridge", f"{float(ridge):.1f} FLOPs/byte"],
                ["cat", "cube", "ridge", f"{float(2 * ridge):.1f}"],
                ["dan", "q2", "intensity", r"\frac{2BDF}{2BD+DF+2BF}"],
            ]
        ),
        encoding="utf-8",
    )
    r = run_cli(["check", "--problem-set", "set.toml", "--answers", "answers.csv"])
    assert r.code == 0, r
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert [row["verdict"] for row in rows] == [
        "correct-leading-order",
        "correct",
        "incorrect",
        "correct",
    ]
    assert rows[2]["diagnosis"] and rows[0]["read_as"] == f"B ≥ {THRESHOLD}"
    r = run_cli(
        ["check", "--problem-set", "set.toml", "--answers", "answers.csv"]
        + ["--hide-expected", "-o", "verdicts.csv"]
    )
    assert r.code == 0 and r.out.splitlines()[0].split() == ["who", "right", "answered", "asked"]
    written = list(csv.DictReader(io.StringIO((homework / "verdicts.csv").read_text("utf-8"))))
    assert [row["expected"] for row in written] == ["", "", "", ""]


def test_grading_exits_1_when_a_row_is_unreadable_or_refused_and_2_when_the_file_is_wrong(homework):
    (homework / "a.csv").write_text(
        _answers([["eve", "q2", "ridge", r"\frac{2BD"], ["fay", "q2", "ridge", "240"]]),
        encoding="utf-8",
    )
    r = run_cli(["check", "--problem-set", "set.toml", "--answers", "a.csv"])
    assert r.code == 1 and "1 of 2 answers could not be read" in r.err
    row = next(csv.DictReader(io.StringIO(r.out)))
    assert row["verdict"] == "unreadable" and row["reason"] and int(row["position"]) >= 1
    (homework / "b.csv").write_text(_answers([["gus", "q9", "ridge", "1"]]), encoding="utf-8")
    r = run_cli(["check", "--problem-set", "set.toml", "--answers", "b.csv", "-o", "v.csv"])
    row = next(csv.DictReader(io.StringIO((homework / "v.csv").read_text("utf-8"))))
    assert r.code == 1 and row["verdict"] == "refused" and "no such problem" in row["reason"]
    (homework / "c.csv").write_text("name,answer\nx,1\n", encoding="utf-8")
    r = run_cli(["check", "--problem-set", "set.toml", "--answers", "c.csv"])
    assert r.code == 2 and "missing column" in r.err


def test_chain_with_align_from_the_command_line(homework):
    (homework / "d.tex").write_text(
        "\\begin{align*}\n"
        "I &= \\frac{2BDF}{2BD + DF + 2BF} \\\\\n"
        "  &\\approx \\frac{2BDF}{DF} = 2B\n"
        "\\end{align*}\n",
        encoding="utf-8",
    )
    argv = ["check", "--problem-set", "set.toml", "--problem", "q2", "--chain", "d.tex"]
    r = run_cli(argv + ["--format", "json"])
    data = json.loads(r.out)
    assert r.code == 0 and data["verdict"] == "correct-leading-order" and data["wrong_lines"] == []


def test_check_latency_benchmark_runs_one_pass():
    """Smoke test of benchmarks/check_latency.py (no time asserted)."""
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location(
        "check_latency", ROOT / "benchmarks" / "check_latency.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--passes", "1", "--json"]) == 0
