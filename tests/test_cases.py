"""Every expectation of the seed problems comes out of ``derive solve --format json``.

The cases file is test input (checked answers derived independently); the copy in
tests/cases/ keeps the suite self-contained and must match ../shared/cases/ when present.
"""

from __future__ import annotations

import json
import sys

import pytest
import sympy as sp
from conftest import CASES, SHARED_CASES, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CASE_FILE = CASES / "scaling-book-ch1.toml"
PROBLEMS = tomllib.loads(CASE_FILE.read_text())["problem"]


def test_vendored_cases_match_shared():
    shared = SHARED_CASES / "scaling-book-ch1.toml"
    if not shared.exists():
        pytest.skip("../shared/cases not beside this checkout")
    assert shared.read_text() == CASE_FILE.read_text()


def argv_of(problem: dict) -> list[str]:
    argv = ["solve", problem["operator"], "--format", "json"]
    if "dtype" in problem:
        argv += ["--dtype", problem["dtype"]]
    for tensor, dtype in problem.get("dtypes", {}).items():
        argv += ["--dtype", f"{tensor}={dtype}"]
    for key in ("chip", "peak", "bandwidth", "regime", "compute"):
        if key in problem:
            argv += [f"--{key}", problem[key]]
    for dim, value in problem.get("set", {}).items():
        argv += ["--set", f"{dim}={value}"]
    return argv


def expr(text: str) -> sp.Expr:
    """Trusted test data only: the cases file, never user input."""
    names = {n: sp.Symbol(n, positive=True, integer=True) for n in "BDFGNHTSK"}
    return sp.parse_expr(text, local_dict=names)


def same(a: str, b: str) -> bool:
    return sp.cancel(expr(a) - expr(b)) == 0


@pytest.mark.parametrize("problem", PROBLEMS, ids=[p["id"] for p in PROBLEMS])
def test_case(problem: dict):
    result = run_cli(argv_of(problem))
    assert result.code == 0, result.err
    got = json.loads(result.out)
    checked = 0
    for key, want in problem["expect"].items():
        if key in ("flops", "bytes", "intensity", "intensity_regime", "ridge", "t_math", "t_mem"):
            assert same(got[key], want), (key, got[key], want)
        elif key == "crossover":
            assert same(got["crossover"]["exact"], want), (key, got["crossover"], want)
        elif key == "crossover_regime":
            assert same(got["crossover_regime"]["exact"], want), (
                key,
                got["crossover_regime"],
                want,
            )
        elif key == "min_compute_bound":
            assert got["crossover"]["min_compute_bound"] == want
        elif key == "min_compute_bound_regime":
            assert got["crossover_regime"]["min_compute_bound"] == want
        elif key == "crossover_status":
            assert got["crossover"]["status"] == want
        else:
            pytest.fail(f"unknown expectation key {key!r}")
        checked += 1
    assert checked == len(problem["expect"]) > 0
