"""Bytes at the bound dims (issue 36): bytes_terms[].bytes_at and a composite's
fusion_savings, against hand counts."""

from __future__ import annotations

import json

from tests.conftest import run_cli


def _json(*argv: str) -> dict:
    r = run_cli(["solve", *argv, "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_one_score_matrix_in_fp16():
    out = _json("attention_materialized", "--dtype", "fp16", "--chip", "h100",
                *(f"--set={d}={v}" for d, v in dict(B=1, N=1, T=8192, S=8192, K=1, H=128).items()))  # fmt: skip
    scores = [t for t in out["bytes_terms"] if t["tensor"] == "s"]
    assert scores and all(
        t["bytes_at"] == {"exact": str(8192 * 8192 * 2), "unit": "B"} for t in scores
    )


def test_a_tensor_with_a_free_dim_has_no_bytes_at():
    out = _json("matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=64", "--set", "D=8192")
    at = {t["tensor"]: t["bytes_at"] for t in out["bytes_terms"]}
    assert at == {"X": {"exact": str(2 * 64 * 8192), "unit": "B"}, "Y": None, "Z": None}


def test_the_steps_list_each_tensor_at_the_bound_dims():
    r = run_cli(["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=64",
                 "--set", "D=8192"])  # fmt: skip
    assert f"X {2 * 64 * 8192} B" in r.out


def test_fusion_savings_of_the_mlp_chain_times_80_layers():
    out = _json("decode_step_70b", "--dtype", "bf16", "--chip", "h100", "--set", "B=8",
                "--set", "S=4096")  # fmt: skip
    # fused up → act → down: the activation's input (up's output) and output are each
    # written once and read once less, B × 28672 elements of 2 bytes
    per_layer = 4 * 8 * 28672 * 2
    assert out["fusion_savings"] == {"exact": str(per_layer), "unit": "B"}
    assert int(out["fusion_savings"]["exact"]) * 80 == 80 * per_layer
    plain = _json("matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=8")
    assert plain["fusion_savings"] is None
