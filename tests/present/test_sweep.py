"""``derive sweep``: grids, values against a naive computation, the CSV formatter, safe output."""

from __future__ import annotations

import csv
import io
import itertools
import os
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from conftest import run_cli

from derive.pipeline import solve
from derive.present.sweep.csv import format_csv
from derive.present.sweep.grid import log_points, parse_over
from derive.present.sweep.values import COLUMNS, sweep_arrays, sweep_csv

BASE = ["sweep", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "F=8192"]
B, D, F = sp.symbols("B D F", positive=True, integer=True)
N = sp.Symbol("N", positive=True, integer=True)


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


# --- grid syntax ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, values",
    [
        ("B=1..5", [1, 2, 3, 4, 5]),
        ("B=7..7", [7]),
        (" B = 1 .. 3 ", [1, 2, 3]),
        ("B=1..4096:13", [2**i for i in range(13)]),
        ("B=1..10:10", list(range(1, 11))),
        ("B=1..1000:2", [1, 1000]),
        ("B=5..5:1", [5]),
        ("B=3,1,2", [3, 1, 2]),
        ("B=64", [64]),
        ("B=1, 8 ,64", [1, 8, 64]),
    ],
)
def test_parse_over(text, values):
    ax = parse_over(text, (B, D, F))
    assert ax.dim == B and ax.values.tolist() == values and ax.values.dtype == np.int64


def test_log_points_are_distinct_sorted_and_keep_both_ends():
    rng = random.Random(7)
    for _ in range(300):
        a = rng.randint(1, 10**6)
        b = a + rng.randint(0, 10 ** rng.randint(0, 7))
        n = rng.randint(2, min(b - a + 1, 5000)) if b > a else 1
        pts = log_points(a, b, n).tolist()
        assert len(pts) == n and pts[0] == a and pts[-1] == b
        assert all(x < y for x, y in itertools.pairwise(pts))


BAD_OVERS = [
    ("B=0..10", "positive integers"),
    ("B=10..1", "upwards"),
    ("B=1..10:1", "log-spaced"),
    ("B=1..10:11", "log-spaced"),
    ("B=1..10:0", "log-spaced"),
    ("X=1..3", "dims are B, D"),
    ("B=1..2e3", "not a grid"),
    ("B=1.5", "not a grid"),
    ("B=__import__('os')", "not a grid"),
    ("B=1..20000000", "at most 10^7"),
    ("B=1,2,,3", "not a grid"),
    ("B=", "not a grid"),
    ("B", "not a grid"),
    ("B=-1..3", "not a grid"),
    ("B=1..10000000000000000", "up to 10^15"),
    ("=1..3", "not a grid"),
]


@pytest.mark.parametrize("over, needle", BAD_OVERS, ids=[b[0] for b in BAD_OVERS])
def test_bad_grids_exit_2(over, needle):
    r = run_cli(BASE + ["--set", "D=64", "--over", over])
    assert r.code == 2, r
    assert r.out == "" and r.err.startswith("error: ") and r.err.count("\n") == 1, r
    assert needle in r.err, r.err


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--over", "B=1..3"], "dim D has no values"),
        (["--set", "D=3", "--over", "B=1..3", "--over", "D=1,2"], "either swept or set"),
        (["--over", "B=1..3", "--over", "B=4,5", "--set", "D=2"], "swept twice"),
        (["--over", "B=1..10000", "--over", "D=1..10000"], "at most 10^7"),
        (["--set", "D=1"], "at least one --over"),
    ],
)
def test_inconsistent_sweeps_exit_2(extra, needle):
    r = run_cli(BASE + extra)
    assert r.code == 2 and r.err.count("\n") == 1 and needle in r.err, r


def test_unbound_dims_are_all_named():
    r = run_cli(["sweep", "attention", "--dtype", "bf16", "--chip", "h100", "--over", "B=1..3"])
    assert r.code == 2 and "dims T, N, H, S, K have no values" in r.err, r


def test_needs_hardware():
    r = run_cli(
        ["sweep", "matmul", "--dtype", "bf16", "--set", "F=8", "--set", "D=8", "--over", "B=1..3"]
    )
    assert r.code == 2 and "--chip" in r.err


# --- values -----------------------------------------------------------------------------------------


def _naive(b: int, d: int, f: int, wx, wy, wz, peak: str, bw: str) -> dict:
    P, W = Fraction(peak), Fraction(bw)
    flops = Fraction(2 * b * d * f)
    byts = wx * b * d + wy * d * f + wz * b * f
    t_math, t_mem = flops / P, byts / W
    att = min(P, flops / byts * W)
    return {
        "flops": flops,
        "bytes": byts,
        "intensity": flops / byts,
        "t_math_s": t_math,
        "t_mem_s": t_mem,
        "t_lower_s": max(t_math, t_mem),
        "attainable_flop_per_s": att,
        "fraction_of_peak": att / P,
        "compute_bound": int(t_math >= t_mem),
    }


def test_values_equal_a_naive_computation():
    argv = [
        "sweep",
        "matmul",
        "--dtype",
        "X=bf16",
        "--dtype",
        "Y=mxfp4",
        "--dtype",
        "Z=bf16",
        "--chip",
        "b200",
        "--set",
        "F=28672",
        "--over",
        "B=1..4096:9",
        "--over",
        "D=1000,8192",
    ]
    r = run_cli(argv)
    assert r.code == 0, r
    rows = _rows(r.out)
    assert list(rows[0]) == ["B", "D", *COLUMNS]
    assert [(int(x["B"]), int(x["D"])) for x in rows[:3]] == [(1, 1000), (1, 8192), (3, 1000)]
    assert len(rows) == 18
    for row in rows:
        want = _naive(
            int(row["B"]), int(row["D"]), 28672, 2, Fraction(17, 32), 2, "2.25e15", "8.0e12"
        )
        for key, value in want.items():
            if key == "compute_bound":
                assert int(row[key]) == value
            else:
                assert float(row[key]) == pytest.approx(float(value), rel=6e-9), (key, row)


def test_sweep_arrays_broadcasts_open_meshes():
    a = solve("matmul", dtype="bf16", chip="tpu-v5e", set={"F": 4096}).analysis
    bs, ds = np.arange(1, 301)[:, None], np.array([[1024, 4096]])
    out = sweep_arrays(a, {B: bs, D: ds})
    assert set(out) == set(COLUMNS)
    assert out["flops"].shape == (300, 2)
    assert out["flops"][9, 1] == 2 * 10 * 4096 * 4096
    # the exact crossover at D = F = 4096 is 4925·4096/(41·4096 − 2·9850) ≈ 240... : first compute-bound B
    cross = solve(
        "matmul", dtype="bf16", chip="tpu-v5e", set={"F": 4096, "D": 4096}
    ).analysis.memory.crossover
    first = int(np.argmax(out["compute_bound"][:, 1] == 1)) + 1
    assert first == cross.min_compute_bound


def test_sweep_arrays_refuses_missing_and_bound_dims():
    a = solve("matmul", dtype="bf16", chip="tpu-v5e", set={"F": 4096}).analysis
    with pytest.raises(ValueError, match="dim D has no values"):
        sweep_arrays(a, {B: np.arange(1, 4)})
    with pytest.raises(ValueError, match="cannot also be swept"):
        sweep_arrays(a, {B: np.arange(1, 4), D: np.arange(1, 4), F: np.arange(1, 4)})


def test_compute_bound_is_exact_at_a_tie():
    # an integer crossover on TPU v5e in bf16: B* = 9850·DF/(41·DF − 9850·(D + F)) = 54175 at D = 275, F = 1970
    b, d, f = 54175, 275, 1970
    flops, byts = 2 * b * d * f, 2 * (b * d + d * f + b * f)
    assert Fraction(flops, 197 * 10**12) == Fraction(byts, 82 * 10**10)  # a true tie
    r = run_cli(
        [
            "sweep",
            "matmul",
            "--dtype",
            "bf16",
            "--chip",
            "tpu-v5e",
            "--set",
            f"D={d}",
            "--set",
            f"F={f}",
            "--over",
            f"B={b - 1},{b},{b + 1}",
        ]
    )
    assert [int(x["compute_bound"]) for x in _rows(r.out)] == [0, 1, 1]


def test_near_ties_are_decided_in_exact_integers():
    from derive.present.sweep.values import _Sweep

    # FLOPs·β − bytes·π = 10^20·B − (3·10^20 + 1): float64 sees a tie at B = 3, the integers do not
    sweep = object.__new__(_Sweep)
    sweep._gap, sweep.syms = 10**20 * B - (3 * 10**20 + 1), [B]
    sweep._exact, sweep._exact_known = None, False
    args = (np.array([2.0, 3.0, 4.0]),)
    t_math, t_mem = 1e20 * args[0], np.full(3, 3e20 + 1)  # as if π = β = 1
    assert (t_math >= t_mem).tolist() == [False, True, True]
    assert sweep._compute_bound(t_math, t_mem, args).tolist() == [False, False, True]


def test_a_constant_intensity_at_the_ridge_is_compute_bound_everywhere():
    r = run_cli(
        ["sweep", "relu", "--dtype", "fp32", "--peak", "1", "--bandwidth", "8", "--over", "N=1..5"]
    )
    rows = _rows(r.out)
    assert [x["compute_bound"] for x in rows] == ["1"] * 5 and {x["intensity"] for x in rows} == {
        "0.125"
    }


def test_comms_column_for_sharded_matmul():
    r = run_cli(
        [
            "sweep",
            "matmul_sharded",
            "--dtype",
            "bf16",
            "--chip",
            "h100",
            "--set",
            "D=8192",
            "--set",
            "F=8192",
            "--over",
            "B=1,1000",
            "--over",
            "P=1..4",
        ]
    )
    rows = _rows(r.out)
    assert list(rows[0])[-1] == "t_comms_s" and len(rows) == 8
    assert float(rows[-1]["t_comms_s"]) == pytest.approx(2 * 1000 * 8192 / 4.5e11, rel=1e-8)
    assert float(rows[2]["flops"]) == pytest.approx(2 * 8192 * 8192 / 3, rel=1e-8)


# --- the CSV formatter ------------------------------------------------------------------------------


def test_formatter_matches_printf_g9():
    rng = np.random.default_rng(3)
    values = np.concatenate(
        [
            rng.random(20000) * 10.0 ** rng.integers(-300, 300, 20000),
            rng.integers(1, 10**12, 5000).astype(np.float64),
            np.array(
                [
                    0.0,
                    -0.0,
                    1.0,
                    0.5,
                    1e-5,
                    1e-4,
                    9.9999999995,
                    123456789.0,
                    1234567890.0,
                    1e9,
                    999999999.5,
                    99999.9999,
                    0.000123456789,
                    -2.5,
                    1e300,
                    1e-300,
                    5e-324,
                    1.7976931348623157e308,
                    2.0**53,
                    0.1,
                    1 / 3,
                ]
            ),
        ]
    )
    text = format_csv(["v"], [("g", values)])
    assert text.splitlines() == ["v"] + [f"{v:.9g}" for v in values]


def test_formatter_ints_and_columns():
    ints = np.array([1, 9, 10, 99, 100, 12345, 10**15, 999999999999999, 4096], dtype=np.int64)
    text = format_csv(["n", "x"], [("int", ints), ("g", ints.astype(np.float64) / 3)])
    assert text.splitlines()[1:] == [f"{n},{n / 3:.9g}" for n in ints.tolist()]
    assert format_csv(["a"], [("int", np.zeros(0, dtype=np.int64))]) == "a\n"


def test_formatter_refuses_non_finite():
    for plain in (False, True):
        with pytest.raises(ValueError, match="not finite"):
            format_csv(["v"], [("g", np.array([1.0, np.inf]))], plain=plain)


@pytest.mark.parametrize(
    "name, sets, overs",
    [
        ("matmul", {"F": 8192}, ["B=1..1000000:300", "D=1..1000000:50"]),
        ("matmul_sharded", {"D": 8192, "F": 8192}, ["B=1..100000:40", "P=1..64:7"]),
        ("relu", {}, ["N=1..1000000000000000:500"]),
    ],
)
def test_sweep_csv_is_the_library_formatting(name, sets, overs):
    """The numpy writer is kept for speed (benchmarks/run.py, (e)); it writes exactly the
    text of Python's ``%d`` and ``%.9g``, the whole file, every column."""
    analysis = solve(name, dtype="bf16", chip="h100", set=sets).analysis
    dims = analysis.problem.operator.dims
    axes = [parse_over(text, dims) for text in overs]
    fast = sweep_csv(analysis, axes)
    assert fast == sweep_csv(analysis, axes, plain=True)
    assert len(fast.splitlines()) == 1 + np.prod([len(ax.values) for ax in axes])


# --- output -----------------------------------------------------------------------------------------


def test_output_is_deterministic():
    argv = BASE + ["--over", "B=1..4096:50", "--over", "D=512,1024,8192"]
    first = run_cli(argv).out
    assert first == run_cli(argv).out and first.count("\n") == 151


def test_output_file_is_written_atomically(tmp_path: Path):
    target = tmp_path / "s.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    r = run_cli(BASE + ["--set", "D=64", "--over", "B=1..10", "-o", str(target)])
    assert r.code == 0 and r.out == "", r
    assert target.read_text().startswith("B,flops,") and target.read_text().count("\n") == 11
    assert (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]  # no temporary file left


def test_output_refuses_a_symlink_and_a_folder(tmp_path: Path):
    real = tmp_path / "real.csv"
    real.write_text("keep\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    r = run_cli(BASE + ["--set", "D=64", "--over", "B=1..10", "-o", str(link)])
    assert r.code == 2 and "symbolic link" in r.err and real.read_text() == "keep\n"
    r = run_cli(BASE + ["--set", "D=64", "--over", "B=1..10", "-o", str(tmp_path)])
    assert r.code == 2 and "is a folder" in r.err
    r = run_cli(
        BASE + ["--set", "D=64", "--over", "B=1..10", "-o", str(tmp_path / "nope" / "s.csv")]
    )
    assert r.code == 2 and "does not exist" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


def test_a_failed_grid_writes_nothing(tmp_path: Path):
    target = tmp_path / "s.csv"
    r = run_cli(BASE + ["--over", "B=1..3", "-o", str(target)])
    assert r.code == 2 and not target.exists()
    ops = tmp_path / "ops.py"
    ops.write_text(
        "from derive import Operator, Tensor, dims\nB, D = dims('B D')\n"
        "steep = Operator(name='steep', flops=B * D**5, reads=[Tensor('x', (B, D))], writes=[Tensor('y', (B,))])\n"
    )
    argv = [
        "sweep",
        "steep",
        "--operators",
        str(ops),
        "--dtype",
        "bf16",
        "--chip",
        "h100",
        "--set",
        "D=" + "1" + "0" * 59,
    ]
    for out in ([], ["-o", str(target)]):
        r = run_cli(
            argv + ["--over", "B=1,1000000000000000"] + out
        )  # 10^295·B overflows float64 at the second point
        assert r.code == 2 and "overflows float64" in r.err and r.out == "", r
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ops.py"]


def test_blocks_join_seamlessly(monkeypatch):
    import derive.present.sweep.csv as csv_numbers
    import derive.present.sweep.values as sweep_values

    argv = BASE + ["--over", "B=1..37", "--over", "D=1,7,4096"]
    whole = run_cli(argv).out
    monkeypatch.setattr(sweep_values, "_BLOCK", 10)
    monkeypatch.setattr(csv_numbers, "_CHUNK", 4)
    assert run_cli(argv).out == whole


def test_hundred_thousand_points():
    r = run_cli(BASE + ["--over", "B=1..1000", "--over", "D=1..100"])
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert len(lines) == 100_001 and lines[-1].startswith("1000,100,1.6384e+09,")
