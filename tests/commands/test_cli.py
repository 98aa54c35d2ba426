"""The command line as users run it: the issue's examples, bad input, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from conftest import ROOT, run_cli

V5E_Q2 = [
    "solve",
    "matmul",
    "--dtype",
    "X=bf16",
    "--dtype",
    "Y=int8",
    "--dtype",
    "Z=bf16",
    "--chip",
    "tpu-v5e",
    "--regime",
    "B << D, F",
]


def test_issue_example_ends_with_verdict():
    r = run_cli(V5E_Q2)
    assert r.code == 0, r.err
    assert (
        r.out.rstrip()
        .rstrip("*")
        .endswith("compute-bound for B ≥ 121 (crossover at leading order 4925/41 ≈ 120.12)")
    )
    # bytes in the order a person writes them: X, Y, Z
    assert "2 B D + D F + 2 B F" in r.out


def test_json_contract_keys():
    r = run_cli(V5E_Q2 + ["--format", "json"])
    data = json.loads(r.out)
    for key in (
        "operator",
        "solve_for",
        "compute_dtype",
        "flops",
        "bytes",
        "intensity",
        "intensity_regime",
        "ridge",
        "t_math",
        "t_mem",
        "crossover",
        "crossover_regime",
        "regime_holds",
        "network",
    ):
        assert key in data
    for key in ("status", "exact", "value", "min_compute_bound"):
        assert key in data["crossover"] and key in data["crossover_regime"]
    assert data["network"] is None and data["regime_holds"] is None
    assert data["bytes"] == "2*B*D + D*F + 2*B*F"
    assert data["compute_dtype"] == "bf16"


def test_network_roofline_of_sharded_matmul():
    r = run_cli(
        [
            "solve",
            "matmul_sharded",
            "--dtype",
            "bf16",
            "--chip",
            "tpu-v5e",
            "--set",
            "P=2",
            "--solve-for",
            "D",
            "--format",
            "json",
        ]
    )
    net = json.loads(r.out)["network"]
    D = sp.Symbol("D", positive=True, integer=True)
    ridge = sp.Rational(197 * 10**12, 45 * 10**9)
    P = sp.Symbol("P", positive=True, integer=True)
    assert net["intensity"] == str(D / P)  # the formula; the crossover binds P = 2
    assert net["ridge"] == str(ridge)
    assert net["crossover"]["exact"] == str(2 * ridge)
    assert net["crossover"]["min_compute_bound"] == 8756


def test_regime_violation_is_loud():
    argv = [
        "solve",
        "matmul",
        "--dtype",
        "bf16",
        "--peak",
        "9.2e14",
        "--bandwidth",
        "1.6e10",
        "--regime",
        "B << D, F",
        "--set",
        "D=8192",
        "--set",
        "F=8192",
    ]
    data = json.loads(run_cli(argv + ["--format", "json"]).out)
    assert data["crossover_regime"]["exact"] == "57500"
    assert data["regime_holds"] is False
    assert data["crossover"]["status"] == "never"
    md = run_cli(argv).out
    assert "WARNING" in md and "violates the regime" in md


def test_all_bound_gives_times_and_bounds():
    data = json.loads(
        run_cli(
            [
                "solve",
                "matmul",
                "--dtype",
                "bf16",
                "--chip",
                "h100",
                "--set",
                "B=64",
                "--set",
                "D=8192",
                "--set",
                "F=8192",
                "--format",
                "json",
            ]
        ).out
    )
    flops = 2 * 64 * 8192 * 8192
    byts = 2 * (64 * 8192 + 8192 * 8192 + 64 * 8192)
    t_math, t_mem = sp.Rational(flops, 989 * 10**12), sp.Rational(byts, 335 * 10**10)
    assert data["t_math"] == str(t_math) and data["t_mem"] == str(t_mem)
    assert data["t_lower"] == str(max(t_math, t_mem)) and data["t_upper"] == str(t_math + t_mem)


def test_never_reports_supremum():
    data = json.loads(
        run_cli(
            [
                "solve",
                "matmul_per_example",
                "--dtype",
                "int8",
                "--peak",
                "3.94e14",
                "--bandwidth",
                "8.2e11",
                "--format",
                "json",
            ]
        ).out
    )
    assert data["crossover"]["status"] == "never"
    assert data["crossover"]["supremum_all_dims"] == "2"


def test_listings():
    chips = run_cli(["chips", "--format", "json"])
    assert chips.code == 0
    data = json.loads(chips.out)
    assert set(data) == {
        "tpu-v5e",
        "tpu-v5p",
        "tpu-v6e",
        "v100",
        "a100",
        "h100",
        "h200",
        "b200",
        "gb200",
        "tpu-v4p",
        "h800",
    }
    assert data["h100"]["peaks"]["bf16"]["ridge"] == str(sp.Rational(989 * 10**12, 335 * 10**10))
    ops = run_cli(["operators", "--format", "json"])
    assert {"matmul", "attention", "moe_matmul", "dot"} <= set(json.loads(ops.out))
    assert run_cli(["chips"]).code == 0 and run_cli(["operators"]).code == 0


BAD = [
    ["--set", "D=0"],
    ["--set", "B=-4"],
    ["--set", "D=3.5"],
    ["--set", "Q=7"],
    ["--peak", "0"],
    ["--bandwidth", "fast"],
    ["--dtype", "fp7"],
    ["--dtype", "Q=bf16"],
    ["--regime", "B <<< D"],
    ["--regime", "B << Q"],
    ["--solve-for", "Q"],
    ["--compute", "fp99"],
]


@pytest.mark.parametrize("extra", BAD, ids=[" ".join(b) for b in BAD])
def test_bad_problem_exits_2_with_one_line(extra):
    base = ["solve", "matmul", "--dtype", "bf16", "--peak", "1.97e14", "--bandwidth", "8.2e11"]
    argv = base + extra
    r = run_cli(argv)
    assert r.code == 2, r
    assert r.out == ""
    assert r.err.startswith("error: ") and r.err.count("\n") == 1 and "Traceback" not in r.err


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v99"],
        ["solve", "matmul", "--chip", "tpu-v5e", "--dtype", "fp8"],
        ["solve", "nosuchop", "--dtype", "bf16", "--chip", "tpu-v5e"],
        ["solve", "matmul", "--chip", "tpu-v5e"],
        ["solve", "matmul", "--dtype", "bf16"],
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--format", "pdf"],
        ["frobnicate"],
    ],
)
def test_bad_names_exit_2(argv):
    r = run_cli(argv)
    assert r.code == 2 and r.err.count("\n") == 1 and r.err.startswith("error: "), r


def test_chip_without_dtype_peak_lists_what_exists():
    r = run_cli(["solve", "matmul", "--chip", "tpu-v5e", "--dtype", "fp8"])
    assert "bf16" in r.err and "int8" in r.err


@pytest.mark.parametrize(
    "content, why",
    [
        (None, "no such file"),
        ("def broken(:\n", "syntax error"),
        (
            "from derive import Operator, Tensor, dims\nB, = dims('B')\nop = Operator(name='../evil', flops=B, reads=[Tensor('x', (B,))])\n",
            "identifier",
        ),
        (
            "from derive import Operator, Tensor, dims\nB, = dims('B')\nop = Operator(name='odd', flops=B, reads=[Tensor('x', ('B',))])\n",
            "shape entry",
        ),
        (
            "from derive import Operator, Tensor, dims\nB, = dims('B')\nop = Operator(name='MatMul', flops=B, reads=[Tensor('x', (B,))])\n",
            "duplicate",
        ),
        ("x = 1\n", "no module-level Operator"),
    ],
)
def test_bad_operator_files(tmp_path: Path, content, why):
    path = tmp_path / "ops.py"
    if content is not None:
        path.write_text(content)
    r = run_cli(
        ["solve", "matmul", "--operators", str(path), "--dtype", "bf16", "--chip", "tpu-v5e"]
    )
    assert r.code == 2 and why in r.err and r.err.count("\n") == 1, r
    assert not (tmp_path / "__pycache__").exists()


def test_user_operator_file(tmp_path: Path):
    path = tmp_path / "mine.py"
    path.write_text(
        "from derive import Operator, Tensor, dims\n"
        "B, d_model = dims('B d_model')\n"
        "proj = Operator(name='proj', flops=2*B*d_model*4*d_model,\n"
        "    reads=[Tensor('x', (B, d_model)), Tensor('w', (d_model, 4*d_model))], writes=[Tensor('y', (B, 4*d_model))])\n"
    )
    r = run_cli(
        [
            "solve",
            "proj",
            "--operators",
            str(path),
            "--dtype",
            "bf16",
            "--chip",
            "a100",
            "--regime",
            "B << d_model",
            "--format",
            "json",
        ]
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    B = sp.Symbol("B", positive=True, integer=True)
    assert data["intensity_regime"] == str(B)
    ridge = sp.Rational(312 * 10**12, 2039 * 10**9)
    assert data["crossover_regime"]["exact"] == str(ridge)


def _run_subprocess(seed: str) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run(
        [sys.executable, "-m", "derive", *V5E_Q2],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
    ).stdout


def test_output_is_deterministic_across_hash_seeds():
    assert _run_subprocess("0") == _run_subprocess("12345")


def _python(code: str) -> list[str]:
    """The words a fresh Python process running ``code`` (with this checkout's derive) prints."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return r.stdout.split()


_STARTUP = """
import gc, sys
import derive, derive.commands.cli
light = "sympy" not in sys.modules  # the package and the CLI module alone do not import sympy
runs = []
gc.callbacks.append(lambda phase, info: runs.append(info["generation"]) if phase == "start" else None)
{before}
derive.commands.cli.load_engine()
print(light, "sympy" in sys.modules, len(runs), gc.isenabled(), gc.get_freeze_count() > 10000)
derive.commands.cli.load_engine()  # once per process
print(gc.get_freeze_count() > 10000)
"""

_CHIPS = """
import gc, io, sys, contextlib, derive.commands.cli
sys.argv = ["derive", "chips"]
with contextlib.redirect_stdout(io.StringIO()):
    code = derive.commands.cli.{call}
print(code, gc.isenabled(), gc.get_freeze_count())
"""


def test_cli_imports_the_engine_with_the_collector_paused_then_frozen():
    # light, sympy loaded, no collection during the load, collector back on, objects frozen
    assert _python(_STARTUP.format(before="")) == ["True", "True", "0", "True", "True", "True"]


def test_cli_leaves_a_disabled_collector_disabled():
    assert _python(_STARTUP.format(before="gc.disable()")) == [
        "True",
        "True",
        "0",
        "False",
        "True",
        "True",
    ]


def test_main_in_process_does_not_touch_the_collector():
    assert _python(_CHIPS.format(call="main(['chips'])")) == ["0", "True", "0"]


def test_the_command_loads_the_engine_first():
    code, enabled, frozen = _python(_CHIPS.format(call="run()"))
    assert (code, enabled) == ("0", "True") and int(frozen) > 10000


def test_library_import_does_not_touch_the_collector():
    code = "import gc, derive; from derive import Operator, Tensor, dims, Composite; print(gc.isenabled(), gc.get_freeze_count())"
    assert _python(code) == ["True", "0"]
