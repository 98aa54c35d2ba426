"""First contact (issue 16): --version, typo suggestions, plain-text listings, a help that
imports no sympy, a bare derive that says what it does, problem-set errors all at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from derive import __version__
from derive.pipeline.key import build_key
from derive.problem.sets.problem_set import parse_problem_set
from tests.conftest import ROOT, run_cli


def test_version():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "derive", "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == f"derive {__version__}"


@pytest.mark.parametrize(
    ("argv", "suggestion"),
    [
        (["solve", "matmul", "--dtype", "bf16", "--chip", "h-100"], "did you mean 'h100'?"),
        (["solve", "matmull", "--dtype", "bf16", "--chip", "h100"], "did you mean 'matmul'?"),
        (["solve", "matmul", "--dtype", "bf61", "--chip", "h100"], "did you mean 'bf16'?"),
    ],
)
def test_typos_get_a_suggestion(argv, suggestion):
    result = run_cli(argv)
    assert result.code == 2 and result.err.count("\n") == 1
    assert result.err.rstrip().endswith(suggestion)


@pytest.mark.parametrize("command", ["chips", "operators"])
def test_listings_are_plain_text_by_default_and_markdown_on_request(command):
    text = run_cli([command]).out
    assert "\\[" not in text and "|---" not in text and "$" not in text
    markdown = run_cli([command, "--format", "md"]).out
    assert "|---" in markdown
    assert run_cli([command, "--format", "json"]).out.lstrip().startswith("{")


def test_the_operator_listing_shows_shapes_unescaped():
    assert "q[B, T, N, H]" in run_cli(["operators"]).out


def test_help_imports_no_sympy():
    code = (
        "import sys\n"
        "sys.argv = ['derive', '--help']\n"
        "from derive.commands.cli import run\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
        "print('SYMPY' if 'sympy' in sys.modules else 'NO-SYMPY', file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.stderr.strip().endswith("NO-SYMPY"), done.stderr
    assert "answer key" in done.stdout  # the help says what bare `derive` does


def test_bare_derive_says_what_it_writes_and_where(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli([])
    assert result.code == 0
    first = result.out.splitlines()[0]
    assert "built-in answer key" in first and str(tmp_path / "out") in first
    assert (tmp_path / "out" / "rooflines.md").exists()


BAD = """
[[problem]]
id = "a"
operator = "matmul"
dtype = "bf16"
chip = "h-100"

[[problem]]
id = "b"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 0 }

[[problem]]
id = "c"
operator = "matmul"
dtype = "bf16"
chip = "h100"
[problem.plot]
over = "Q"
series = [ { label = "x", set = { D = 4096, F = 4096 } } ]

[[problem]]
id = "d"
operator = "matmul"
dtype = "bf16"
chip = "h100"
expect = { nonsense = 3 }
"""


def test_every_error_in_a_problem_set_is_reported_in_its_own_terms(tmp_path: Path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD, encoding="utf-8")
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 2 and not (tmp_path / "out").exists()
    lines = result.err.splitlines()  # the parse error first, then what binding found
    assert len(lines) == 4 and all(line.startswith(f"error: {path}: problem ") for line in lines)
    assert "problem 'd': key 'expect'" in lines[0] and "nonsense" in lines[0]
    assert "problem 'a': key 'chip'" in lines[1] and "did you mean 'h100'?" in lines[1]
    assert "problem 'b': key 'set' (B=0)" in lines[2]
    assert "problem 'c': key 'plot.over' (Q)" in lines[3]
    assert "--" not in result.err


def test_unknown_expectations_are_refused():
    text = 'title = "t"\n[[problem]]\nid = "a"\noperator = "matmul"\ndtype = "bf16"\nchip = "h100"\nexpect = { nonsense = 3 }\n'
    result_error = None
    try:
        parse_problem_set(text, "t.toml")
    except Exception as exc:
        result_error = exc
    assert result_error is not None and "key 'expect'" in str(result_error)
    assert "nonsense" in str(result_error)


def test_title_is_optional_and_defaults_to_the_id():
    text = '[[problem]]\nid = "only-id"\noperator = "matmul"\ndtype = "bf16"\nchip = "h100"\n'
    problem_set = parse_problem_set(text, "mine.toml")
    assert problem_set.problems[0].title == "only-id"
    assert problem_set.title == "mine"
    assert "only-id" in build_key(problem_set, "mine")["mine.md"]
