"""Fuzzing the command line: problem sets, claims, chains and output paths.

Whatever the input, derive answers with exit 0 or 1 and its report, or exit 2 and exactly
one ``error: …`` line on stderr, never a traceback, within its time budget (each run gets
``--time-limit``: a runaway is stopped by derive itself, not by the test's clock). Examples are
few and small so the suite stays fast; hypothesis shrinks any failure to a minimal input.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BUDGET = ["--time-limit", "20"]
FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)


def assert_answered(r, codes=(0, 2)) -> None:
    """Answered, or refused with one line per error (a problem set's errors come all at once,
    each a whole line naming the file, the problem and the key; at most 20 and a count)."""
    assert r.code in codes, r
    if r.code == 2:
        lines = r.err.splitlines()
        assert r.err.endswith("\n") and 1 <= len(lines) <= 21, r
        assert all(line.startswith("error: ") for line in lines), r
    assert "Traceback" not in r.err


# --- problem sets ----------------------------------------------------------------------------

OPERATORS = st.sampled_from(["matmul", "attention", "moe_matmul", "matmul_sharded", "nope", ""])
TEXT = st.sampled_from(
    ["bf16", "fp7", "h100", "tpu-v99", "B << D, F", "B <<< D", "1.97e14", "-1", "", "x" * 300]
)
SMALL_INT = st.integers(min_value=-3, max_value=5000)
DIM = st.sampled_from(["B", "D", "F", "P", "E", "k", "K", "S", "Q"])
KEYS = st.sampled_from(["dtype", "chip", "peak", "bandwidth", "regime", "compute", "solve_for"])


@st.composite
def problem_tables(draw) -> dict:
    table: dict = {"id": draw(st.sampled_from(["a", "b", "../x", "A", ""])), "title": "t"}
    table["operator"] = draw(OPERATORS)
    for key in draw(st.lists(KEYS, max_size=4, unique=True)):
        table[key] = draw(TEXT)
    if draw(st.booleans()):
        table["set"] = draw(st.dictionaries(DIM, SMALL_INT, max_size=4))
    if draw(st.booleans()):
        table["plot"] = {
            "over": draw(DIM),
            "from": draw(SMALL_INT),
            "to": draw(SMALL_INT),
            "series": [{"label": "s", "set": draw(st.dictionaries(DIM, SMALL_INT, max_size=3))}],
        }
    return table


def to_toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {to_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(to_toml(v) for v in value) + "]"
    return json.dumps(value)


@FUZZ
@given(
    problems=st.lists(problem_tables(), min_size=0, max_size=3),
    junk=st.sampled_from(["", "[", "x = 1", "colour = 1"]),
)
def test_fuzzed_problem_sets(tmp_path: Path, problems: list[dict], junk: str):
    lines = ['title = "fuzz"', junk]
    for table in problems:
        lines.append("[[problem]]")
        lines += [f"{k} = {to_toml(v)}" for k, v in table.items()]
    path = tmp_path / "fuzz.toml"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    r = run_cli(["key", str(path), "-o", str(out), "--quiet", *BUDGET])
    assert_answered(r)
    if r.code == 2:
        assert not out.exists() or not any(p for p in out.iterdir() if not p.name.startswith("."))


# --- claims and chains -----------------------------------------------------------------------

PIECES = list("BDFPQ0123456789+-*/^(){}_ .=<") + [
    "\\frac",
    "\\sqrt",
    "\\cdot",
    "\\approx",
    "\\input",
    "__import__",
    "1/31",
    "10^{10}",
    "\x00",
    "\u202e",
]
CLAIMS = st.lists(st.sampled_from(PIECES), max_size=20).map("".join)
PROBLEM = ["matmul", "--dtype", "bf16", "--chip", "tpu-v5e"]


@FUZZ
@given(
    claim=CLAIMS,
    quantity=st.sampled_from(["intensity", "crossover", "flops", "bytes", "ridge", "t_math"]),
)
def test_fuzzed_claims(claim: str, quantity: str):
    r = run_cli(["check", *PROBLEM, "--quantity", quantity, "--claim", claim, *BUDGET])
    assert_answered(r, codes=(0, 1, 2))


@FUZZ
@given(
    lines=st.lists(CLAIMS, min_size=0, max_size=5),
    regime=st.sampled_from([[], ["--regime", "B << D, F"]]),
)
def test_fuzzed_chains(tmp_path: Path, lines: list[str], regime: list[str]):
    path = tmp_path / "chain.txt"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    r = run_cli(["check", *PROBLEM, *regime, "--chain", str(path), *BUDGET])
    assert_answered(r, codes=(0, 1, 2))


# --- output paths ----------------------------------------------------------------------------

SEGMENTS = st.sampled_from(
    ["out", "..", ".", "a b", "file", "fifo", "link", "\udcff", "x" * 300, ""]
)


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("set") / "tiny.toml"
    path.write_text(
        'title = "t"\n[[problem]]\nid = "a"\ntitle = "t"\noperator = "matmul"\n'
        'dtype = "bf16"\nchip = "h100"\n'
    )
    return path


@FUZZ
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=3))
def test_fuzzed_output_folders(tmp_path: Path, tiny_set: Path, parts: list[str]):
    (tmp_path / "file").write_text("x")
    if not (tmp_path / "fifo").exists():
        os.mkfifo(tmp_path / "fifo")
    if not (tmp_path / "link").exists():
        (tmp_path / "link").symlink_to(tmp_path / "file")
    out = str(tmp_path) + "/" + "/".join(parts)
    r = run_cli(["key", str(tiny_set), "-o", out, "--quiet", *BUDGET])
    assert_answered(r)
