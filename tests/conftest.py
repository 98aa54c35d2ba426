"""Shared fixtures: run the CLI in-process, the repository paths, the golden-file option."""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_CASES = ROOT.parent / "shared" / "cases"
CASES = ROOT / "tests" / "cases"
# a diagnosis that fails inside derive check raises instead of being left out (see derive.checking.diagnose.strict)
os.environ.setdefault("DERIVE_CHECK_STRICT", "1")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite tests/golden/* from the current output",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


class CliResult:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:
        return f"CliResult(code={self.code}, err={self.err!r}, out={self.out[:200]!r})"


def run_cli(argv: list[str]) -> CliResult:
    """Run ``derive`` in-process and capture its streams."""
    from derive.commands.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return CliResult(code, out.getvalue(), err.getvalue())


def refused_in_one_line(r: CliResult) -> str:
    """A refusal as derive promises one: exit 2, nothing on stdout, one line ``error: …``."""
    assert r.code == 2 and r.out == "", r
    assert r.err.endswith("\n") and r.err.count("\n") == 1 and r.err.startswith("error: "), r
    return r.err


@pytest.fixture
def cli():
    return run_cli


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@contextmanager
def live_server(app: Any, **config: Any) -> Iterator[int]:
    """A real uvicorn serving ``app`` on a free loopback port, in a thread: yields the port.

    ``config`` goes to ``uvicorn.Config`` (e.g. ``http=`` a protocol class). The socket is
    bound as ``derive serve`` binds it; the server stops and the socket closes on exit.
    """
    import uvicorn

    from derive.commands.serve import _bind

    sock = _bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add a test's time (setup, call and teardown) to its package's: the folder under tests/
    it sits in (tests/<package>/ mirrors derive/<package>/), or derive/<package> for a doctest."""
    parts = Path(report.nodeid.split("::")[0]).parts
    where = "/".join(parts[:2]) if parts[0] == "derive" or len(parts) > 2 else "tests (top)"
    _SECONDS[where] = _SECONDS.get(where, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Under CI, the suite's time per package, slowest first (issue 48, item 8)."""
    if not os.environ.get("CI") or not _SECONDS:
        return
    terminalreporter.section("seconds per package")
    for where, seconds in sorted(_SECONDS.items(), key=lambda kv: (-kv[1], kv[0])):
        terminalreporter.write_line(f"{seconds:8.1f}  {where}")
