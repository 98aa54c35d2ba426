"""One line, always: hostile files, special files, broken output paths and a full stdout.

Every case exits 2 with exactly one line on stderr and writes nothing (issue 18).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

TINY = """title = "tiny"
[[problem]]
id = "a"
title = "bf16 matmul"
operator = "matmul"
dtype = "bf16"
chip = "tpu-v5e"
regime = "B << D, F"
"""


def one_line(r, *fragments: str) -> None:
    assert r.code == 2, r
    assert r.err.count("\n") == 1 and r.err.startswith("error: "), r
    assert "Traceback" not in r.err
    for fragment in fragments:
        assert fragment in r.err, r


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


# --- a plot whose crossover is 0 (compute-bound from the smallest value on) ----------------

ZERO_CROSSOVER = [
    ("matmul_sharded", "P", {"B": 4096, "D": 4096, "F": 4096}),
    ("moe_matmul", "E", {"B": 4096, "D": 4096, "F": 4096, "k": 2}),
    ("attention", "K", {"B": 8, "T": 4096, "S": 4096, "N": 32, "H": 128}),
]


@pytest.mark.parametrize("operator, over, dims", ZERO_CROSSOVER)
def test_plot_with_zero_crossover_is_drawn(tmp_path: Path, operator: str, over: str, dims: dict):
    from derive.pipeline import solve

    crossover = solve(
        operator, dtype="bf16", chip="tpu-v5e", set=dims, solve_for=over
    ).analysis.memory.crossover
    assert crossover.exact == 0  # the case itself: compute-bound from the start
    bound = ", ".join(f"{k} = {v}" for k, v in dims.items())
    path = tmp_path / "zero.toml"
    path.write_text(
        f'title = "zero"\n[[problem]]\nid = "z"\ntitle = "z"\noperator = "{operator}"\n'
        f'dtype = "bf16"\nchip = "tpu-v5e"\nset = {{ {bound} }}\n'
        f'[problem.plot]\nover = "{over}"\nto = 64\nseries = [ {{ label = "s", set = {{ {bound} }} }} ]\n'
    )
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 0, r
    svg = (tmp_path / "out" / "zero-z-plot.svg").read_text()
    assert svg.count("<polyline") >= 1


# --- problem sets: depth, size, special files ----------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "v = " + "[" * 500 + "]" * 500,
        "v = " + "{a=" * 500 + "1" + "}" * 500,
        "[" + "a." * 3000 + "b]",
    ],
)
def test_deep_toml_is_one_line(tmp_path: Path, body: str):
    path = tmp_path / "deep.toml"
    path.write_text(f'title = "x"\n{body}\n')
    one_line(run_cli(["key", str(path), "-o", str(tmp_path / "out")]), "nested deeper than")
    assert not (tmp_path / "out").exists()


def test_special_files_as_the_set_are_refused(tmp_path: Path):
    fifo = tmp_path / "set.toml"
    os.mkfifo(fifo)  # no writer ever comes: reading it would block forever
    one_line(run_cli(["key", str(fifo), "-o", str(tmp_path / "o")]), "FIFO")
    one_line(run_cli(["key", "/dev/zero", "-o", str(tmp_path / "o")]), "character device")
    one_line(run_cli(["key", str(tmp_path), "-o", str(tmp_path / "o")]), "is a folder")
    one_line(run_cli(["key", str(tmp_path / "none.toml")]), "no such file")
    assert not (tmp_path / "o").exists()


def test_a_huge_set_is_refused_before_reading(tmp_path: Path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)  # 1 GB, sparse: refused from its size alone
    one_line(run_cli(["key", str(path), "-o", str(tmp_path / "o")]), "larger than")


def test_non_utf8_set_is_one_line(tmp_path: Path):
    path = tmp_path / "bad.toml"
    path.write_bytes(b'title = "\xff"\n')
    one_line(run_cli(["key", str(path), "-o", str(tmp_path / "o")]), "not UTF-8")


# --- output folders that cannot be used ----------------------------------------------------


def test_output_below_a_regular_file(tiny: Path, tmp_path: Path):
    (tmp_path / "file").write_text("x")
    one_line(run_cli(["key", str(tiny), "-o", str(tmp_path / "file" / "sub")]), "is a file")
    one_line(run_cli(["key", str(tiny), "-o", str(tmp_path / "file")]), "not a folder")


def test_output_name_not_utf8(tiny: Path, tmp_path: Path):
    out = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad\xff")
    one_line(run_cli(["key", str(tiny), "-o", out]), "not UTF-8")
    assert os.listdir(tmp_path) == ["tiny.toml"]


def test_fifo_at_an_output_name_does_not_block(tiny: Path, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "tiny.md")
    for force in ([], ["--force"]):
        one_line(run_cli(["key", str(tiny), "-o", str(out), *force]), "FIFO")
    assert sorted(os.listdir(out)) == ["tiny.md"]


def _refuse(errno_name: str):
    import errno

    code = getattr(errno, errno_name)

    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    return fail


def test_read_only_parent(tiny: Path, tmp_path: Path, monkeypatch):
    """A read-only parent (simulated: the tests may run as root, who can write anywhere)."""
    monkeypatch.setattr(Path, "mkdir", _refuse("EACCES"))
    one_line(run_cli(["key", str(tiny), "-o", str(tmp_path / "ro" / "out")]), "Permission denied")


def test_read_only_folder(tiny: Path, tmp_path: Path, monkeypatch):
    import derive.commands.output_files as output_files

    (tmp_path / "out").mkdir()
    monkeypatch.setattr(output_files.os, "mkdir", _refuse("EROFS"))
    one_line(run_cli(["key", str(tiny), "-o", str(tmp_path / "out")]), "Read-only file system")
    assert os.listdir(tmp_path / "out") == []


def test_unreadable_output_file(tiny: Path, tmp_path: Path, monkeypatch):
    """An existing output file derive cannot read to look for its mark."""
    import derive.commands.output_files as output_files

    out = tmp_path / "out"
    out.mkdir()
    (out / "tiny.md").write_text("someone's notes\n")
    real_open = os.open

    def guarded_open(path, flags, *args):
        if str(path).endswith("tiny.md") and not flags & os.O_WRONLY:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(output_files.os, "open", guarded_open)
    one_line(run_cli(["key", str(tiny), "-o", str(out)]), "tiny.md", "cannot be read")
    assert (out / "tiny.md").read_text() == "someone's notes\n"


# --- a full standard output -----------------------------------------------------------------

FULL_COMMANDS = [
    ["key", "TINY", "-o", "OUT"],
    ["solve", "matmul", "--dtype", "bf16", "--chip", "h100"],
    ["check", "matmul", "--dtype", "bf16", "--chip", "h100", "--quantity", "ridge", "--claim", "2"],
    ["sweep", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "D=64", "--set", "F=64"]
    + ["--over", "B=1..5000"],
    ["chips"],
]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", FULL_COMMANDS, ids=lambda a: a[0])
def test_full_stdout_is_reported_once(argv: list[str], tiny: Path, tmp_path: Path):
    argv = [str(tiny) if a == "TINY" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "derive", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            timeout=120,
        )
    assert r.returncode == 2, r.stderr
    assert r.stderr == "error: standard output: cannot write: No space left on device\n"


def test_closed_pipe_is_quiet(tmp_path: Path):
    """`derive sweep … | head -1`: the reader leaving early is not an error."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "derive", "sweep", "matmul", "--dtype", "bf16", "--chip", "h100"]
        + ["--set", "D=64", "--set", "F=64", "--over", "B=1..200000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == b""
