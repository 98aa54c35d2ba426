"""``derive serve`` refusals (one line, exit 2, nothing started) and the workbook of a foreign set."""

from __future__ import annotations

import io
import socket
from contextlib import redirect_stdout

import pytest

pytest.importorskip("starlette")

from conftest import ROOT, run_cli

from derive.commands.cli import main
from derive.errors import ProblemError
from derive.web.book import build_workbook, load_source, question_html

UNSEEN = ROOT / "tests" / "sets" / "unseen.toml"


def _one_line_error(result) -> str:
    assert result.code == 2, result
    assert result.out == ""
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


def test_help_lists_serve():
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "--hide-expected" in out.getvalue() and "--no-hints" in out.getvalue()


def test_operator_files_need_trust():
    line = _one_line_error(run_cli(["serve", str(UNSEEN), "--port", "0"]))
    assert "--trust" in line and "operators" in line


def test_missing_set():
    assert "no such file" in _one_line_error(run_cli(["serve", "no-such-set.toml"]))


@pytest.mark.parametrize(
    "flags",
    [["--port", "70000"], ["--port", "-1"], ["--workers", "0"], ["--timeout", "0"]],
)
def test_bad_flags(flags):
    _one_line_error(run_cli(["serve", *flags]))


def test_port_in_use():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        line = _one_line_error(run_cli(["serve", "--port", str(port)]))
    assert "already in use" in line


def test_trusted_foreign_set_builds():
    with pytest.raises(ProblemError):
        load_source(str(UNSEEN))
    _, pset = load_source(str(UNSEEN), trust=True)
    book = build_workbook(pset)
    index = book.index()
    assert [p["id"] for p in index["problems"]] == [p.id for p in pset.problems]
    for problem in index["problems"]:
        assert problem["asked"] and problem["steps"] > 0


def test_question_text_is_escaped():
    html = question_html('<script>alert(1)</script> & "q" **bold** $x < 1$')
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<strong>bold</strong>" in html and "\\(x &lt; 1\\)" in html


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder", "large"])
def test_a_set_that_is_not_a_small_regular_file_is_one_line(kind, tmp_path):
    """serve reads the set as key does: /dev/zero, a FIFO without a writer, a folder, 3 MB."""
    import os

    path = {
        "dev-zero": "/dev/zero",
        "fifo": str(tmp_path / "set.toml"),
        "folder": str(tmp_path),
        "large": str(tmp_path / "big.toml"),
    }[kind]
    if kind == "fifo":
        os.mkfifo(path)
    if kind == "large":
        (tmp_path / "big.toml").write_text("#" * 3_000_000)
    line = _one_line_error(run_cli(["serve", path, "--port", "0"]))
    assert path in line or repr(path) in line
