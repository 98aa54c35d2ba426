"""A model by its size, served (issue 34, item 3): ``derive model --params P --phase …``.

Expected values by hand, in Fractions: a step is two kernels, the weights (2·P_act FLOPs a
token, P·w bytes: every weight read once) and the KV cache (kv bytes per token × B·S, with
attention's FLOPs only when given); each kernel's bound is max(FLOPs/π, bytes/β), the step's
T_lower their sum, tokens/s = B/T_lower, the decode crossover B* = π·P·w/(2·P_act·β).
H100: π = 989e12 FLOP/s (bf16), β = 3.35e12 B/s (the chip file).
"""

from __future__ import annotations

import json
from fractions import Fraction

from tests.conftest import run_cli

PEAK, BANDWIDTH = Fraction(989 * 10**12), Fraction(335 * 10**10)


def _serving(*argv: str) -> dict:
    result = run_cli(["model", *argv, "--chip", "h100", "--format", "json"])
    assert result.code == 0, result.err
    return json.loads(result.out)["serving"]


def _bound(flops: int, moved: int) -> Fraction:
    return max(Fraction(flops) / PEAK, Fraction(moved) / BANDWIDTH)


def test_a_memory_bound_decode_step_by_hand():
    P, kv, B, S = 70 * 10**9, 327680, 8, 4096
    argv = ["--params", "70e9", "--kv-bytes-per-token", "327680", "--phase", "decode"]
    out = _serving(*argv, "--set", f"B={B}", "--set", f"S={S}")
    weights, attention = out["step"]["kernels"]
    assert (weights["flops"], weights["bytes"]) == (str(2 * P * B), str(2 * P))
    assert (attention["flops"], attention["bytes"]) == ("0", str(kv * B * S))
    t_lower = _bound(2 * P * B, 2 * P) + _bound(0, kv * B * S)
    assert Fraction(out["step"]["t_lower"]) == t_lower
    assert out["step"]["binding"] == "memory" and weights["binding"] == "memory"
    assert Fraction(out["inter_token_latency"]) == t_lower
    assert Fraction(out["tokens_per_s"]) == B / t_lower
    assert Fraction(out["crossover"]["exact"]) == PEAK * 2 * P / (2 * P * BANDWIDTH)
    assert any("attention's FLOPs are left out" in line for line in out["assumptions"])


def test_a_compute_bound_decode_step_with_attention_flops_and_an_moe():
    P, active, kv, B, S, attn = 7 * 10**9, 7 * 10**9, 131072, 1024, 16, 10**6
    argv = ["--params", "7e9", "--kv-bytes-per-token", "131072"]
    argv += ["--attention-flops-per-token", "1e6", "--phase", "decode"]
    out = _serving(*argv, "--set", f"B={B}", "--set", f"S={S}")
    weights, attention = out["step"]["kernels"]
    assert weights["binding"] == "compute" and out["step"]["binding"] == "compute"
    assert attention["flops"] == str(attn * B)
    t_lower = _bound(2 * active * B, 2 * P) + _bound(attn * B, kv * B * S)
    assert Fraction(out["step"]["t_lower"]) == t_lower
    assert Fraction(out["tokens_per_s"]) == B / t_lower
    # a mixture of experts: FLOPs from the active parameters, every weight read (fp8: 1 B)
    P, active = 671 * 10**9, 37 * 10**9
    argv = ["--params", "671e9", "--params-active", "37e9", "--kv-bytes-per-token", "70272"]
    out = _serving(*argv, "--dtype", "weights=fp8", "--phase", "decode", "--set", "S=4096")
    assert Fraction(out["crossover"]["exact"]) == PEAK * P / (2 * active * BANDWIDTH)


def test_prefill_and_tensor_parallel_split_evenly():
    P, kv, B, S, tp = 70 * 10**9, 327680, 2, 2048, 8
    argv = ["--params", "70e9", "--kv-bytes-per-token", "327680", "--devices", "8"]
    out = _serving(*argv, "--phase", "prefill", "--set", f"B={B}", "--set", f"S={S}")
    weights, attention = out["step"]["kernels"]
    assert Fraction(weights["flops"]) == Fraction(2 * P * B * S, tp)
    assert Fraction(weights["bytes"]) == Fraction(2 * P, tp)
    assert Fraction(attention["bytes"]) == Fraction(kv * B * S, tp)
    t_lower = _bound(2 * P * B * S // tp, 2 * P // tp) + _bound(0, kv * B * S // tp)
    assert Fraction(out["ttft"]) == t_lower and out["step"]["binding"] == "compute"
    assert Fraction(out["prefill_tokens_per_s"]) == B * S / t_lower
    assert any("all-reduces are left out" in line for line in out["assumptions"])


def test_markdown_says_what_the_step_assumed():
    argv = ["model", "--params", "70e9", "--kv-bytes-per-token", "327680", "--chip", "h100"]
    result = run_cli([*argv, "--phase", "decode", "--set", "B=8", "--set", "S=4096"])
    assert result.code == 0, result.err
    text = result.out.replace("\\_", "_")
    assert "Known by its size alone, the step assumes: every weight is read once" in text
    assert "attention's FLOPs are left out" in text and "memory-bound" in text


def test_without_the_kv_bytes_a_step_says_so_in_one_line():
    argv = ["model", "--params", "70e9", "--chip", "h100", "--phase", "decode"]
    result = run_cli([*argv, "--set", "B=8", "--set", "S=4096"])
    assert result.code == 2 and result.err.count("\n") == 1
    assert "--kv-bytes-per-token" in result.err
    for flag in ("--kv-bytes-per-token", "--attention-flops-per-token"):
        result = run_cli(["model", "llama-3-8b", flag, "5"])
        assert result.code == 2 and "goes with --params" in result.err, flag
    result = run_cli(["model", "--params", "7e9", "--kv-bytes-per-token", "-3"])
    assert result.code == 2 and result.err.count("\n") == 1


SET = """title = "a model by its size, served"
[[problem]]
id = "decode"
model = { params = "70e9", kv_bytes_per_token = "327680" }
chip = "h100"
phase = "decode"
set = { B = 8, S = 4096 }
ask = ["tokens_per_s", "inter_token_latency"]
"""


def test_derive_check_judges_a_sized_step(tmp_path):
    path = tmp_path / "set.toml"
    path.write_text(SET)
    P, kv, B, S = 70 * 10**9, 327680, 8, 4096
    t_lower = _bound(2 * P * B, 2 * P) + _bound(0, kv * B * S)
    rate = B / t_lower
    argv = ["check", "--problem-set", str(path), "--problem", "decode"]
    right = run_cli([*argv, "--quantity", "tokens_per_s", "--claim", f"{float(rate):.6g}"])
    assert right.code == 0 and "correct" in right.out, right.err + right.out
    wrong = run_cli([*argv, "--quantity", "tokens_per_s", "--claim", f"{float(2 * rate):.6g}"])
    assert wrong.code == 1, wrong.err + wrong.out


def test_the_kv_bytes_join_the_model_memory():
    P, kv, B, S, N = 70 * 10**9, 327680, 8, 4096, 2
    argv = ["--params", "70e9", "--kv-bytes-per-token", "327680", "--chip", "h100"]
    out = json.loads(
        run_cli(
            [
                "model",
                *argv,
                "--devices",
                "2",
                "--set",
                "B=8",
                "--set",
                "S=4096",
                "--format",
                "json",
            ]
        ).out
    )
    assert out["kv_bytes_per_token"]["exact"] == str(kv)
    assert out["kv_bytes"]["exact"] == str(kv * B * S)
    assert Fraction(out["memory_per_device"]["exact"]) == Fraction(2 * P + kv * B * S, N)
    assert out["fits"]["exact"] is (Fraction(2 * P + kv * B * S, N) <= 80 * 10**9)
    free = json.loads(run_cli(["model", *argv, "--format", "json"]).out)
    assert free["fits"] is None and "B and S" in free["left_out"]["fits"]


def test_the_python_api_serves_a_sized_model_as_the_command_does():
    import derive

    argv = ["--params", "70e9", "--kv-bytes-per-token", "327680", "--phase", "decode"]
    out = _serving(*argv, "--set", "B=8", "--set", "S=4096")
    served = derive.solve_model(
        "",
        params="70e9",
        kv_bytes_per_token="327680",
        chip="h100",
        phase="decode",
        set={"B": 8, "S": 4096},
    )
    assert str(served.phase.latency) == out["inter_token_latency"]
    assert list(served.phase.assumptions) == out["assumptions"]
