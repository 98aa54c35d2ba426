"""N6: with --trust, ``derive serve`` runs a set's operator file once and every worker judges
with those declarations, even when the file is edited while the server runs.

A real ``derive serve`` on a loopback port (a subprocess): the operator file appends a line
to a log each time it runs; the test checks the same claim before and after rewriting the
file with other FLOPs, with enough checks to reach every worker.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT

pytest.importorskip("starlette")

OPS = """
open({log!r}, "a").write("ran\\n")
from derive import Operator, Tensor, dims
N, = dims("N")
scale = Operator(name="scale", flops={flops} * N, reads=[Tensor("x", (N,))], writes=[Tensor("y", (N,))])
"""
SET = """title = "t"
operators = ["ops.py"]
[[problem]]
id = "s"
operator = "scale"
dtype = "bf16"
chip = "h100"
"""


def _check(port: int, answer: str) -> str:
    body = json.dumps({"problem": "s", "quantity": "flops", "answer": answer}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/check",
        data=body,
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["verdict"]


def test_a_trusted_file_runs_once_and_every_worker_keeps_its_declarations(tmp_path: Path):
    log = tmp_path / "ran.log"
    (tmp_path / "ops.py").write_text(OPS.format(log=str(log), flops=2))
    (tmp_path / "set.toml").write_text(SET)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    server = subprocess.Popen(
        [sys.executable, "-m", "derive", "serve", "set.toml", "--trust", "--port", "0"]
        + ["--workers", "2"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = None
        for line in server.stdout:
            found = re.search(r"127\.0\.0\.1:(\d+)/", line)
            if found:
                port = int(found.group(1))
                break
        assert port, "derive serve did not start"
        before = [_check(port, f"{k} * 2N / {k}") for k in range(1, 7)]
        (tmp_path / "ops.py").write_text(OPS.format(log=str(log), flops=3))  # edited meanwhile
        after = [_check(port, f"{k} * 2N / {k} + 0") for k in range(1, 7)]
        wrong = [_check(port, f"3N + 0 * {k}") for k in range(1, 5)]
    finally:
        server.terminate()
        server.wait(30)
    assert before == after == ["correct"] * 6
    assert wrong == ["incorrect"] * 4
    assert log.read_text() == "ran\n"  # once, in the server, never in a worker
