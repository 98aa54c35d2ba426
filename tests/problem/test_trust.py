"""A set that names Python operator files is data until trusted, on every path that loads a set.

Each test plants an operator file that would create a canary file when imported, then loads
the set the way one command does without ``--trust``: the command refuses in one line that
names the file and the flag, and the canary never appears. With ``--trust`` the same path
runs the file (the canary appears, then the file is refused: it declares no operator),
which proves the planted file would have been run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

PROBLEM = """
[[problem]]
id = "q"
title = "q"
operator = "matmul"
dtype = "bf16"
chip = "tpu-v5e"
"""


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A set whose operator file writes ``canary`` beside it when it is imported."""
    canary = tmp_path / "canary"
    (tmp_path / "evil.py").write_text(f"open({str(canary)!r}, 'w').write('ran')\n")
    (tmp_path / "set.toml").write_text('title = "t"\noperators = ["evil.py"]\n' + PROBLEM)
    (tmp_path / "answers.csv").write_text("who,problem,quantity,claim\nann,q,ridge,240\n")
    return tmp_path


def _refused(r, folder: Path) -> None:
    assert r.code == 2 and r.out == "", r
    assert r.err.count("\n") == 1 and r.err.startswith("error: "), r
    assert "evil.py" in r.err and "--trust" in r.err, r
    assert not (folder / "canary").exists()


def test_key(planted: Path):
    _refused(run_cli(["key", str(planted / "set.toml"), "-o", str(planted / "out")]), planted)
    assert not (planted / "out").exists()


def test_check_one_problem(planted: Path):
    argv = ["check", "--problem-set", str(planted / "set.toml"), "--problem", "q"]
    _refused(run_cli(argv + ["--quantity", "ridge", "--claim", "240"]), planted)
    run_cli(argv + ["--quantity", "ridge", "--claim", "240", "--trust"])  # it declares nothing
    assert (planted / "canary").exists()


def test_check_a_derivation(planted: Path):
    (planted / "chain.tex").write_text("I = 2B\n")
    argv = ["check", "--problem-set", str(planted / "set.toml"), "--problem", "q"]
    _refused(run_cli(argv + ["--chain", str(planted / "chain.tex")]), planted)


def test_check_answers(planted: Path):
    argv = ["check", "--problem-set", str(planted / "set.toml")]
    _refused(run_cli(argv + ["--answers", str(planted / "answers.csv")]), planted)
    run_cli(argv + ["--answers", str(planted / "answers.csv"), "--trust"])
    assert (planted / "canary").exists()


def test_serve(planted: Path):
    pytest.importorskip("starlette")
    _refused(run_cli(["serve", str(planted / "set.toml"), "--port", "0"]), planted)


def test_grading(planted: Path):
    """The workbook's loader, which the checking workers are handed, refuses as well."""
    pytest.importorskip("starlette")
    from derive.errors import ProblemError
    from derive.web.book import load_source

    with pytest.raises(ProblemError, match="--trust"):
        load_source(str(planted / "set.toml"))
    assert not (planted / "canary").exists()
