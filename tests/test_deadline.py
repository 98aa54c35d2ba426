"""derive.deadline: work in forked workers, each item under a budget, errors carried across."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from derive.deadline import (
    DEFAULT_SECONDS,
    ENV_VAR,
    WorkerCrashError,
    run_each,
    run_with_deadline,
    time_limit,
    workers,
)
from derive.errors import DeriveError, LimitError, TimeLimitError, UnknownNameError


class UnpicklableError(DeriveError):
    """An error class whose constructor takes other arguments (does not pickle by default)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"thing {name!r}", "is wrong")


def test_results_come_back_in_order():
    assert run_each(lambda i: i * i, 50, seconds=30, name=str, jobs=3) == [i * i for i in range(50)]
    assert run_each(lambda i: i, 0, seconds=30, name=str) == []
    assert run_each(lambda i: -i, 3, seconds=None, name=str, jobs=1) == [0, -1, -2]


def test_progress_is_reported():
    seen = []
    run_each(lambda i: i, 5, seconds=30, name=str, jobs=2, on_done=lambda d, t: seen.append(d))
    assert seen == [1, 2, 3, 4, 5]


def test_a_runaway_item_is_stopped_and_named():
    def work(i: int) -> int:
        if i == 3:
            time.sleep(600)
        return i

    with pytest.raises(TimeLimitError) as info:
        run_each(work, 6, seconds=0.5, name=lambda i: f"problem {i}", jobs=2)
    assert info.value.what == "problem 3" and "time limit of 0.5 s" in info.value.why
    assert isinstance(info.value, LimitError)


def test_busy_c_code_is_stopped_too():
    """A long computation in one C call (no bytecode boundary for a signal) still ends."""
    with pytest.raises(TimeLimitError):
        run_with_deadline(pow, 7, 10**9, seconds=0.5, what="a power")


def test_derive_errors_cross_as_themselves():
    def fail(i: int) -> int:
        raise UnknownNameError("chip 'tpu-v99'", "unknown chip")

    with pytest.raises(UnknownNameError) as info:
        run_each(fail, 2, seconds=30, name=str)
    assert info.value.one_line() == "error: chip 'tpu-v99': unknown chip"
    with pytest.raises(DeriveError) as other:
        run_with_deadline(
            lambda: (_ for _ in ()).throw(UnpicklableError("x")), seconds=30, what="w"
        )
    assert other.value.one_line() == "error: thing 'x': is wrong"


def test_bugs_and_dead_workers_are_not_derive_errors():
    with pytest.raises(WorkerCrashError, match="ZeroDivisionError"):
        run_with_deadline(lambda: 1 / 0, seconds=30, what="w")
    with pytest.raises(LimitError, match="exit code 3"):
        run_with_deadline(os._exit, 3, seconds=30, what="w")
    with pytest.raises(LimitError, match="SIGKILL"):
        run_with_deadline(lambda: os.kill(os.getpid(), 9), seconds=30, what="w")
    with pytest.raises(WorkerCrashError, match=r"pickle|lambda|local object"):
        run_with_deadline(lambda: lambda: 1, seconds=30, what="w")


def test_no_worker_outlives_the_call():
    children_before = _children()
    with pytest.raises(TimeLimitError):
        run_each(lambda i: time.sleep(600), 4, seconds=0.3, name=str, jobs=2)
    assert _children() == children_before


def test_later_batches_run_on_the_same_workers_as_calls():
    """``derive key`` draws its figures on the workers that derived its problems: a batch of
    pickled calls after the inherited one, in order, forking nothing more; the budget,
    errors and clean-up hold for it as for the first batch."""
    children_before = _children()
    offset = 1000  # inherited by the workers at the fork
    with workers(lambda i: (os.getpid(), i + offset), seconds=2, jobs=2) as pool:
        first = pool.each(6, name=str)
        pids = {pid for pid, _ in first}
        assert [value for _, value in first] == [1000 + i for i in range(6)]
        later = pool.calls([(os.getpid, ())] * 6 + [(divmod, (7, 2))], name=str)
        assert set(later[:6]) <= pids and later[6] == (3, 1)
        with pytest.raises(UnknownNameError, match="thing 'x'"):
            pool.calls([(_raise_unknown, ("x",))], name=str)
        with pytest.raises(TimeLimitError, match="call 0"):
            pool.calls([(time.sleep, (600,))], name=lambda k: f"call {k}")
    assert _children() == children_before
    with workers(lambda i: os.getpid(), seconds=5, jobs=1) as pool:  # killed between batches
        (pid,) = pool.each(1, name=str)
        os.kill(pid, 9)
        time.sleep(0.2)
        with pytest.raises(LimitError, match=r"figure 0.*SIGKILL"):
            pool.calls([(abs, (-1,))], name=lambda k: f"figure {k}")
    assert _children() == children_before
    with workers(lambda i: -i, seconds=None, jobs=1) as inline:  # nothing forks
        assert inline.each(3, name=str) == [0, -1, -2]
        assert inline.calls([(abs, (-4,))], name=str) == [4]
    assert _children() == children_before


def _raise_unknown(name: str) -> None:
    raise UnknownNameError(f"thing {name!r}", "is not known")


def _children() -> set[str]:
    path = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return set(path.read_text().split()) if path.exists() else set()


def test_time_limit_sources(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert time_limit() == DEFAULT_SECONDS
    monkeypatch.setenv(ENV_VAR, "2.5")
    assert time_limit() == 2.5
    assert time_limit("7") == 7.0
    for bad in ("0", "-1", "nan", "inf", "1e9", "fast", ""):
        with pytest.raises(DeriveError, match="--time-limit"):
            time_limit(bad)
    monkeypatch.setenv(ENV_VAR, "soon")
    with pytest.raises(DeriveError, match=ENV_VAR):
        time_limit()


# --- the commands --------------------------------------------------------------------------

ROOTS_CLAIM = "(B^{1/31}+B^{1/29})^{-2}"


def test_fractional_powers_claim_ends_within_the_budget():
    """Issue 18's 22-character claim that ran for more than 10 minutes."""
    r = subprocess.run(
        [sys.executable, "-m", "derive", "check", "matmul", "--dtype", "bf16"]
        + ["--chip", "tpu-v5e", "--quantity", "intensity", "--claim", ROOTS_CLAIM]
        + ["--time-limit", "2"],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    assert r.returncode in (0, 1, 2)
    if r.returncode == 2:
        assert r.stderr.count("\n") == 1 and "--claim" in r.stderr and "time limit" in r.stderr
        assert r.stdout == ""


def test_commands_under_a_tiny_budget_are_one_line(tmp_path: Path):
    tiny = "1e-9"
    cases = [
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100"],
        ["check", "matmul", "--dtype", "bf16", "--chip", "h100", "--quantity", "ridge"]
        + ["--claim", "2"],
        ["compare", "matmul", "--dtype", "bf16", "--chips", "h100,a100"],
        ["sweep", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "D=4", "--set", "F=4"]
        + ["--over", "B=1..4"],
    ]
    for argv in cases:
        r = run_cli([*argv, "--time-limit", tiny])
        assert r.code == 2 and r.err.count("\n") == 1 and "time limit" in r.err, r
        assert r.out == ""
    (tmp_path / "set.toml").write_text(
        'title = "t"\n[[problem]]\nid = "q1"\ntitle = "t"\noperator = "matmul"\n'
        'dtype = "bf16"\nchip = "h100"\n'
    )
    r = run_cli(
        ["key", str(tmp_path / "set.toml"), "-o", str(tmp_path / "o"), "--time-limit", tiny]
    )
    assert r.code == 2 and "problem 'q1'" in r.err and "time limit" in r.err, r
    assert not (tmp_path / "o").exists()


def test_key_is_the_same_on_any_number_of_workers(tmp_path: Path):
    outs = []
    for jobs in ("1", "3"):
        out = tmp_path / jobs
        r = run_cli(
            ["key", str(ROOT / "benchmarks" / "set20.toml"), "-o", str(out), "--jobs", jobs]
        )
        assert r.code == 0, r
        outs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outs[0] == outs[1]
    assert run_cli(["key", str(ROOT / "benchmarks" / "set20.toml"), "--jobs", "0"]).code == 2


def test_progress_bar_only_on_a_terminal():
    import io

    from derive.commands.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    bar = ProgressBar("derive key s", term)
    for done in range(1, 4):
        bar(done, 3)
    bar.close()
    text = term.getvalue()
    assert "3/3" in text and text.endswith("\r") and "\n" not in text
    quiet = Terminal()
    bar = ProgressBar("derive key s", quiet, quiet=True)
    bar(1, 1)
    bar.close()
    assert quiet.getvalue() == ""
