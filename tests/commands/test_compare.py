"""``derive compare``: one problem across chips and compute dtypes."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import run_cli

DECODE = [
    "compare",
    "matmul",
    "--dtype",
    "fp8",
    "--chips",
    "h100,b200",
    "--set",
    "B=16",
    "--set",
    "D=8192",
    "--set",
    "F=8192",
]
H100 = {
    "bf16": "9.89e14",
    "fp16": "9.89e14",
    "fp8": "1.979e15",
    "int8": "1.979e15",
    "tf32": "4.94e14",
    "fp32": "6.7e13",
}
B200 = {"bf16": "2.25e15", "fp16": "2.25e15", "fp8": "4.5e15", "int8": "4.5e15", "fp4": "9e15"}
HBM = {"h100": "3.35e12", "b200": "8.0e12"}


def _json(argv: list[str]) -> list[dict]:
    r = run_cli(argv + ["--format", "json"])
    assert r.code == 0, r
    return json.loads(r.out)


def _naive_row(peak: str, hbm: str, B: int = 16, D: int = 8192, F: int = 8192) -> dict:
    """The decode matmul by hand: fp8 tensors (1 byte), exact fractions."""
    P, W = Fraction(peak), Fraction(hbm)
    flops, byts = 2 * B * D * F, B * D + D * F + B * F
    t_math, t_mem = Fraction(flops) / P, Fraction(byts) / W
    attainable = min(P, Fraction(flops, byts) * W)
    # crossover in B with D, F bound: 2BDF·W = (BD + DF + BF)·P
    cross = Fraction(D * F) * P / (2 * D * F * W - (D + F) * P)
    return {
        "ridge": P / W,
        "t_math": t_math,
        "t_mem": t_mem,
        "attainable": attainable,
        "fraction": attainable / P,
        "crossover": cross,
        "min": math.ceil(cross),
        "bound": "compute" if t_math >= t_mem else "memory",
    }


def test_rows_are_every_peak_dtype_of_each_chip_in_order():
    rows = _json(DECODE)
    assert [(r["chip"], r["compute_dtype"]) for r in rows] == [("h100", d) for d in H100] + [
        ("b200", d) for d in B200
    ]


def test_json_exact_values_match_a_naive_derivation():
    for r in _json(DECODE):
        peak = (H100 if r["chip"] == "h100" else B200)[r["compute_dtype"]]
        want = _naive_row(peak, HBM[r["chip"]])
        assert Fraction(r["peak"]["exact"]) == Fraction(peak)
        assert Fraction(r["bandwidth"]["exact"]) == Fraction(HBM[r["chip"]])
        assert Fraction(r["ridge"]["exact"]) == want["ridge"]
        assert r["ridge"]["value"] == pytest.approx(float(want["ridge"]))
        assert Fraction(r["t_math"]["exact"]) == want["t_math"]
        assert Fraction(r["t_mem"]["exact"]) == want["t_mem"]
        assert Fraction(r["attainable"]["exact"]) == want["attainable"]
        assert Fraction(r["fraction_of_peak"]["exact"]) == want["fraction"]
        assert r["bound"] == want["bound"]
        c = r["crossover"]
        assert c["status"] == "crosses" and not c["leading_order"] and c["variable"] == "B"
        assert Fraction(c["exact"]) == want["crossover"]
        assert c["min_compute_bound"] == want["min"]
        assert r["set"] == {"B": 16, "D": 8192, "F": 8192} and r["dtypes"] == {
            "X": "fp8",
            "Y": "fp8",
            "Z": "fp8",
        }


def test_markdown_table():
    r = run_cli(DECODE)
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert lines[0] == "## Compare: matmul across 2 chips"
    assert (
        "dtypes: fp8 for every tensor; bound: B=16, D=8192, F=8192; crossover solved for: B."
        in r.out
    )
    table = [line for line in lines if line.startswith("|")]
    assert len(table) == 2 + len(H100) + len(B200)
    assert table[0].startswith(
        "| chip | compute | peak (FLOP/s) | HBM (B/s) | ridge (FLOP/B) | crossover B\\* |"
    )
    assert "T\\_math (µs)" in table[0] and "bound" in table[0]  # a unit per column
    fp8 = next(line for line in table if line.startswith("| h100 | fp8 |"))
    assert r"$\frac{39580}{67} \approx 590.75$" in fp8
    assert r"$\frac{40529920}{127321} \approx 318.33$" in fp8 and "| $319$ |" in fp8
    assert "| memory |" in fp8 and "5.40%" in fp8
    assert all(line.count("|") == table[0].count("|") for line in table)


def test_unbound_dims_drop_the_time_columns_and_mark_leading_order():
    r = run_cli(
        ["compare", "matmul", "--dtype", "bf16", "--chips", "tpu-v5e", "--regime", "B << D, F"]
    )
    assert r.code == 0, r
    assert "T\\_math" not in r.out
    bf16 = next(line for line in r.out.splitlines() if line.startswith("| tpu-v5e | bf16 |"))
    assert r"$\frac{9850}{41} \approx 240.24$ (leading order)" in bf16 and "| $241$ |" in bf16
    data = _json(
        ["compare", "matmul", "--dtype", "bf16", "--chips", "tpu-v5e", "--regime", "B << D, F"]
    )
    assert data[0]["crossover"] == {
        "variable": "B",
        "status": "crosses",
        "exact": "9850/41",
        "value": pytest.approx(9850 / 41),
        "min_compute_bound": 241,
        "leading_order": True,
    }
    assert data[0]["t_math"] is None and data[0]["bound"] is None


def test_mixed_dtypes_are_listed_per_tensor():
    r = run_cli(
        [
            "compare",
            "matmul",
            "--dtype",
            "bf16",
            "--dtype",
            "Y=mxfp4",
            "--chips",
            "b200",
            "--compute",
            "fp4",
        ]
    )
    assert r.code == 0 and "dtypes: X=bf16, Y=mxfp4, Z=bf16;" in r.out
    assert [line.split(" | ")[1] for line in r.out.splitlines() if line.startswith("| b200")] == [
        "fp4"
    ]


def test_compute_keeps_one_dtype():
    rows = _json(
        [
            "compare",
            "matmul",
            "--dtype",
            "fp8",
            "--compute",
            "fp8",
            "--set",
            "D=8192",
            "--set",
            "F=8192",
        ]
    )
    assert {r["compute_dtype"] for r in rows} == {"fp8"}
    assert [r["chip"] for r in rows] == ["h100", "h200", "b200", "gb200", "h800"]


def test_default_is_every_chip_in_catalogue_order():
    rows = _json(["compare", "matmul", "--dtype", "bf16", "--set", "D=4096", "--set", "F=4096"])
    chips = list(dict.fromkeys(r["chip"] for r in rows))
    assert chips == [
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
    ]


def test_repeated_chip_flags_add_up_in_the_order_given():
    """``--chip h100 --chip a100`` compares on both (argparse alone read ``--chip`` as an
    abbreviation of ``--chips`` and kept only the last); ``--chips`` and ``--chip`` mix."""
    base = ["compare", "matmul", "--dtype", "bf16", "--set", "D=4096", "--set", "F=4096"]
    rows = _json(base + ["--chip", "h100", "--chip", "a100"])
    assert list(dict.fromkeys(r["chip"] for r in rows)) == ["h100", "a100"]
    rows = _json(base + ["--chips", "tpu-v5e,h100", "--chip", "b200"])
    assert list(dict.fromkeys(r["chip"] for r in rows)) == ["tpu-v5e", "h100", "b200"]


def test_link_columns_for_an_operator_with_comms():
    argv = [
        "compare",
        "matmul_sharded",
        "--dtype",
        "bf16",
        "--chips",
        "h100,tpu-v5e",
        "--set",
        "P=4",
        "--set",
        "B=64",
        "--set",
        "D=8192",
        "--set",
        "F=8192",
    ]
    r = run_cli(argv)
    assert r.code == 0 and "link crossover B\\*" in r.out and "T\\_comms (µs)" in r.out
    data = _json(argv)
    net = data[0]["network"]
    assert Fraction(net["ridge"]["exact"]) == Fraction("9.89e14") / Fraction("4.5e11")
    assert Fraction(net["t_comms"]["exact"]) == Fraction(2 * 64 * 8192) / Fraction("4.5e11")


def test_tex_is_a_booktabs_fragment_with_escaped_strings():
    r = run_cli(
        [
            "compare",
            "matmul_sharded",
            "--dtype",
            "bf16",
            "--chips",
            "tpu-v5e",
            "--set",
            "P=2",
            "--regime",
            "B << D, F",
            "--format",
            "tex",
        ]
    )
    assert r.code == 0, r
    out = r.out
    assert r"\begin{tabular}" not in out and out.count(r"\begin{tabularx}") == 2
    assert out.count(r"\toprule") == out.count(r"\midrule") == out.count(r"\bottomrule") == 2
    assert r"\texttt{matmul\_\allowbreak{}sharded}" in out and "matmul_sharded" not in out
    assert r"B $\ll$ D, F" in out
    # one row per chip at the tensors' compute dtype (issue 33 item 8); every column kept
    assert r"chip & compute & crossover B* & min compute-bound B & link crossover B* \\" in out
    for table in out.split(r"\toprule")[1:]:  # every cell filled
        header, body = table.split(r"\midrule")[0].strip(), table.split(r"\midrule")[1]
        rows = body.split(r"\bottomrule")[0].strip().splitlines()
        assert [row.split(" & ")[:2] for row in rows] == [["TPU v5e", "bf16"]]  # the paper's name
        assert all(row.endswith(r"\\") for row in rows)
        assert all(row.count(" & ") == header.count(" & ") for row in rows)


def test_output_is_deterministic():
    for fmt in ("md", "tex", "json"):
        assert run_cli(DECODE + ["--format", fmt]).out == run_cli(DECODE + ["--format", fmt]).out


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["compare", "matmul", "--dtype", "fp8", "--chips", "h100,nope"], "known: tpu-v5e"),
        (["compare", "matmul", "--dtype", "fp8", "--chips", "h100,"], "comma list"),
        (["compare", "matmul", "--dtype", "fp8", "--chips", ""], "comma list"),
        (["compare", "matmul", "--dtype", "fp8", "--peak", "1e14"], "give both"),
        (
            ["compare", "matmul", "--dtype", "fp8", "--bandwidth", "1e12", "--chips", "h100"],
            "give both",
        ),
        (
            ["compare", "matmul", "--dtype", "fp8", "--compute", "fp4", "--chips", "h100"],
            "none of the chips",
        ),
        (["compare", "matmul", "--dtype", "fp8", "--compute", "fp99"], "unknown dtype"),
        (["compare", "matmul", "--chips", "h100"], "has no dtype"),
        (["compare", "nosuchop", "--dtype", "fp8"], "unknown operator"),
        (["compare", "matmul", "--dtype", "fp8", "--format", "pdf"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, needle):
    r = run_cli(argv)
    assert r.code == 2, r
    assert r.out == "" and r.err.startswith("error: ") and r.err.count("\n") == 1, r
    assert needle in r.err, r.err


def test_baseline_ratios_follow_the_ceiling_that_binds():
    """A100 → H100 in bf16: ratios from chips.toml's decimal text, speedup by bound."""
    import tomllib

    chips = tomllib.loads((Path(__file__).parents[2] / "derive/data/chips.toml").read_text())

    def figure(chip: str, key: str) -> Fraction:
        return Fraction(chips[chip][key]["value"])

    peak = figure("h100", "peak_bf16_flop_per_s") / figure("a100", "peak_bf16_flop_per_s")
    bandwidth = figure("h100", "hbm_bytes_per_s") / figure("a100", "hbm_bytes_per_s")
    assert round(float(peak), 2) == 3.17 and round(float(bandwidth), 2) == 1.64
    base = ["compare", "matmul", "--dtype", "bf16", "--chips", "h100", "--compute", "bf16"]
    base += ["--baseline", "a100", "--set", "D=4096", "--set", "F=4096"]
    small, large = _json(base + ["--set", "B=8"])[0], _json(base + ["--set", "B=4096"])[0]
    for row in (small, large):
        assert Fraction(row["ratios"]["peak"]["exact"]) == peak
        assert Fraction(row["ratios"]["bandwidth"]["exact"]) == bandwidth
        assert Fraction(row["ratios"]["ridge"]["exact"]) == peak / bandwidth
    assert Fraction(small["ratios"]["t_lower_speedup"]["exact"]) == bandwidth
    assert small["ratios"]["follows"] == "bandwidth"
    assert Fraction(large["ratios"]["t_lower_speedup"]["exact"]) == peak
    assert large["ratios"]["follows"] == "compute"
    text = run_cli(base + ["--set", "B=8"]).out
    assert "the speedup ×1.64 follows bandwidth" in text
