"""A composite's fusion savings × a model's layers (issue 36): ``derive solve COMPOSITE
--layers N|MODEL``, against a hand count."""

from __future__ import annotations

import json

from tests.conftest import run_cli

ARGS = ["solve", "decode_step_70b", "--dtype", "bf16", "--chip", "h100", "--set", "B=8",
        "--set", "S=4096"]  # fmt: skip
# fused up → act → down: the activation's input and output are each written once and read
# once less, B × 28672 elements of 2 bytes (B = 8), in every one of the model's layers
PER_LAYER = 4 * 8 * 28672 * 2


def test_savings_times_the_layers_of_an_80_layer_model():
    r = run_cli([*ARGS, "--layers", "llama-2-70b", "--format", "json"])
    assert r.code == 0, r.err
    savings = json.loads(r.out)["fusion_savings"]
    assert savings == {
        "exact": str(PER_LAYER),
        "unit": "B",
        "per_layer": str(PER_LAYER),
        "layers": 80,
        "total": str(80 * PER_LAYER),
    }


def test_the_steps_show_savings_times_layers():
    r = run_cli([*ARGS, "--layers", "80"])
    assert r.code == 0, r.err
    assert "Fusion savings × layers" in r.out
    assert f"80 \\cdot {PER_LAYER}" in r.out and str(80 * PER_LAYER) in r.out


def test_layers_on_what_fuses_nothing_or_no_model_is_one_line():
    for argv in (
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=8", "--layers", "80"],
        [*ARGS, "--layers", "no-such-model"],
        [*ARGS, "--layers", "0"],
    ):
        r = run_cli(argv)
        assert r.code == 2 and r.err.strip().count("\n") == 0 and "--layers" in r.err, r.err
