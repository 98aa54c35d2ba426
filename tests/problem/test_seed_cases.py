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

from derive.catalogue import ProblemKind
from derive.catalogue import quantity as catalogued

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
        row = catalogued(key)  # a key the catalogue does not know fails here
        value = got
        for step in row.json_path(ProblemKind.OPERATOR):  # where the report keeps it
            value = value[step]
        if row.dimension is None or not isinstance(want, str):
            assert value == want, (key, value, want)
        else:
            assert same(value, want), (key, value, want)
        checked += 1
    assert checked == len(problem["expect"]) > 0
