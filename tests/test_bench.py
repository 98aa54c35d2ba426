"""Smoke test of benchmarks/: the pieces of ``run.py --quick`` run, and the plain sympy
baseline agrees with derive on every problem of set20 (a real cross-check). No times asserted."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import sympy as sp
import tomllib
from conftest import ROOT

BENCH = ROOT / "benchmarks"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


naive = _module("naive_sympy")
run = _module("run")


def test_naive_script_runs_on_two_problems():
    r = subprocess.run(
        [
            sys.executable,
            str(BENCH / "naive_sympy.py"),
            "--json",
            "--only",
            "mm-v5e-bf16,sharded-h100",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    out = {p["id"]: p for p in json.loads(r.stdout)}
    assert out["mm-v5e-bf16"]["crossover_regime"] == ["9850/41"]
    assert out["sharded-h100"]["crossover"] == ["40509440/92711"] and out["sharded-h100"][
        "min_compute_bound"
    ] == ["437"]


def test_sweep_piece():
    s = run.measure_sweep(32, 1)
    assert s["points"] == 1024 and s["arrays"] > 0 and s["csv"] > 0


def test_repeated_set_is_a_valid_problem_set(tmp_path: Path):
    from derive.problem.sets.problem_set import load_problem_set

    count = run.repeated_set(run.SET20, 3, tmp_path / "x3.toml")
    pset = load_problem_set(tmp_path / "x3.toml")
    n = len(tomllib.loads(run.SET20.read_text())["problem"])
    assert count == len(pset.problems) == 3 * n >= 60
    assert len({p.id for p in pset.problems}) == count


def test_table():
    text = run.table([run._row("x", "1 s", "2 s", "0.50", "<= 0.4", False)])
    assert text.splitlines()[0].split() == [
        "measurement",
        "derive",
        "baseline",
        "ratio",
        "goal",
        "met?",
    ]
    assert text.splitlines()[-1].split()[-1] == "NO"


def test_composite_piece(tmp_path: Path):
    c = run.measure_composite(tmp_path, 1)
    assert c["parts"] == 12 and c["warm"] > 0


def test_set20_covers_what_it_claims():
    problems = tomllib.loads(run.SET20.read_text())["problem"]
    assert len(problems) >= 20
    assert {p["operator"] for p in problems} == set(naive.OPS)
    assert {p["chip"] for p in problems} == {
        "tpu-v5e",
        "tpu-v5p",
        "tpu-v6e",
        "v100",
        "a100",
        "h100",
        "h200",
        "b200",
    }
    dtypes = {p.get("dtype") for p in problems} | {
        v for p in problems for v in p.get("dtypes", {}).values()
    }
    assert {"mxfp4", "nvfp4"} <= dtypes and any("dtypes" in p for p in problems)
    assert {"B << D, F", "D, F >> 1", "B >> G"} <= {p.get("regime") for p in problems}
    assert any("solve_for" in p for p in problems) and any("set" in p for p in problems)
    assert not any("expect" in p for p in problems)


def _same(derived: str, roots: list, names) -> bool:
    """derive's exact answer (sympy str) equals the naive root (compared as exact values)."""
    syms = {n: sp.Symbol(n, positive=True) for n in names}
    value = sp.sympify(derived, locals=syms)  # test code: derive itself never sympifies
    return len(roots) == 1 and sp.simplify(value - roots[0]) == 0


def test_naive_sympy_agrees_with_derive_on_set20():
    from derive.declare.registry import load_registry
    from derive.pipeline import derive_spec
    from derive.problem.sets.problem_set import load_problem_set

    registry = load_registry()
    raw = {p["id"]: p for p in tomllib.loads(run.SET20.read_text())["problem"]}
    chips = naive.load_chips()
    checked = 0
    for entry in load_problem_set(run.SET20).problems:
        got = derive_spec(entry.spec, registry).as_json()
        want = naive.derive_problem(raw[entry.id], chips)
        names = naive.OPS[raw[entry.id]["operator"]][0].split()
        syms = {n: sp.Symbol(n, positive=True) for n in names}
        assert sp.simplify(sp.sympify(got["intensity"], locals=syms) - want["intensity"]) == 0, (
            entry.id
        )
        assert sp.Rational(got["ridge"]) == want["ridge"], entry.id
        for key in ("crossover", "crossover_regime"):
            c = got[key]
            if c is None:
                assert key not in want, (entry.id, key)
                continue
            if c["status"] == "crosses":
                assert _same(c["exact"], want[key], names), (entry.id, key, c["exact"], want[key])
                if c["min_compute_bound"] is not None and want[key][0].is_number:
                    assert c["min_compute_bound"] == int(sp.ceiling(want[key][0])), (entry.id, key)
            else:
                assert c["status"] in ("never", "always") and want[key] == [], (
                    entry.id,
                    key,
                    c,
                    want[key],
                )
            checked += 1
        if got["t_math"] is not None and "t_math" in want:
            assert (
                sp.Rational(got["t_math"]) == want["t_math"]
                and sp.Rational(got["t_mem"]) == want["t_mem"]
            ), entry.id
        if got["network"] is not None and "network_crossover" in want:
            c = got["network"]["crossover"]
            if c["status"] == "crosses" and c["exact"] is not None:
                assert _same(c["exact"], want["network_crossover"], names), entry.id
    assert checked >= 30


def test_fast_paths_put_the_library_back(tmp_path: Path, monkeypatch):
    """benchmarks/fast_paths.py's library setups run, and give the fast paths' files (a tiny
    run: a smoke test of the script, not a timing)."""
    monkeypatch.syspath_prepend(str(BENCH))  # it imports big_jobs and run as scripts do
    fast_paths = _module("fast_paths")
    for name, setup in fast_paths.LIBRARY.items():
        problem_set = tmp_path / f"{name}.toml"
        fast_paths.SETS[name](3, problem_set)
        fast_paths._key("", problem_set, tmp_path / f"{name}-fast")
        fast_paths._key(setup, problem_set, tmp_path / f"{name}-library")
        for path in sorted((tmp_path / f"{name}-fast").iterdir()):
            assert path.read_bytes() == (tmp_path / f"{name}-library" / path.name).read_bytes()
