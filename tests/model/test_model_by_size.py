"""A model by its size alone (issue 24, item 3): ``derive model --params 70e9``.

Expected values by hand, in Fractions: weights = P·w, memory per device = weights/N,
fewest devices = ⌈weights/C⌉, training state = s·P/N, training FLOPs = 6·P_act·D, time =
F/(N·π·MFU), implied MFU = 6·P_act·r/π. H100: 80e9 B, 989e12 FLOP/s bf16 (the chip file).
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import ceil

from tests.conftest import run_cli

CAPACITY, PEAK = 80 * 10**9, 989 * 10**12


def _json(*argv: str) -> dict:
    result = run_cli(["model", *argv, "--format", "json"])
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_params_alone_give_weights_fit_and_training_totals():
    P, N, D = 70 * 10**9, 8, 2 * 10**12
    out = _json("--params", "70e9", "--chip", "h100", "--devices", "8")
    assert out["params"]["exact"] == str(P)
    assert out["weights_bytes"]["exact"] == str(2 * P)  # bf16
    assert Fraction(out["memory_per_device"]["exact"]) == Fraction(2 * P, N)  # 17.5 GB
    assert out["fits"]["exact"] is True
    assert out["min_devices"]["exact"] == str(ceil(Fraction(2 * P, CAPACITY)))
    train = _json(
        "--params",
        "70e9",
        "--chip",
        "h100",
        "--devices",
        "8",
        "--train-tokens",
        "2e12",
        "--mfu",
        "0.4",
        "--state-bytes",
        "adam-mixed",
    )
    assert train["train_flops"]["exact"] == str(6 * P * D)
    assert Fraction(train["train_seconds"]["exact"]) == Fraction(6 * P * D) / (
        N * PEAK * Fraction(2, 5)
    )
    assert Fraction(train["train_state_bytes"]["exact"]) == Fraction(16 * P, N)


def test_params_active_drive_training_flops_and_the_implied_mfu():
    P, active, rate = 671 * 10**9, 37 * 10**9, 1000
    out = _json(
        "--params",
        "671e9",
        "--params-active",
        "37e9",
        "--chip",
        "h100",
        "--dtype",
        "weights=fp8",
        "--measured-tokens-per-s",
        "1000",
    )
    assert out["weights_bytes"]["exact"] == str(P)  # fp8: one byte a weight
    assert Fraction(out["mfu"]["exact"]) == Fraction(6 * active * rate, PEAK)
    assert out["fits"]["exact"] is False and out["min_devices"]["exact"] == str(
        ceil(Fraction(P, CAPACITY))
    )


def test_what_needs_an_architecture_says_so():
    out = _json("--params", "7e9", "--chip", "h100", "--set", "B=1", "--set", "S=8")
    for key in ("kv_bytes_per_token", "kv_bytes", "flops_per_token", "max_batch"):
        assert out[key] is None and "needs an architecture" in out["left_out"][key], key
    result = run_cli(["model", "--params", "7e9", "--chip", "h100", "--phase", "decode"])
    assert result.code == 2 and "give --kv-bytes-per-token" in result.err  # issue 34


def test_bad_sizes_are_one_line():
    for argv, fragment in (
        (["--params", "7.5"], "whole number"),
        (["--params", "seven"], "--params"),
        (["--params", "7e9", "--params-active", "8e9"], "exceeds"),
        (["--params-active", "8e9"], "goes with --params"),
        (["llama-3-8b", "--params", "7e9"], "not both"),
        ([], "give a model"),
    ):
        result = run_cli(["model", *argv])
        assert result.code == 2 and result.err.count("\n") == 1 and fragment in result.err, argv


SET = """title = "sizes and configs"
[[problem]]
id = "size"
model = { params = "70e9" }
chip = "h100"
devices = 8
ask = ["weights_bytes", "memory_per_device", "fits"]

[[problem]]
id = "config"
model = "configs/gpt2/config.json"
ask = ["params"]
"""


def test_a_set_names_a_model_by_size_and_by_config(tmp_path):
    import shutil
    from pathlib import Path

    shutil.copytree(Path(__file__).parents[1] / "data" / "configs", tmp_path / "configs")
    path = tmp_path / "set.toml"
    path.write_text(SET)
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out"), "--jobs", "1", "--quiet"])
    assert result.code == 0, result.err
    text = (tmp_path / "out" / "set.md").read_text()
    assert "$M_{\\mathrm{dev}}$ = 17500000000 B" in text and "$P$ = 124439808" in text
    bad = tmp_path / "bad.toml"
    bad.write_text(SET.replace('{ params = "70e9" }', '{ size = "70e9" }'))
    result = run_cli(["key", str(bad)])
    assert result.code == 2 and "size" in result.err
