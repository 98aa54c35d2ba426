"""derive check judges a step's bounds, a measured run's MFU and a model's serving step (issue 14).

Every expected value is computed here from the operators' and the model's sizes and the
H100's datasheet figures (989e12 FLOP/s bf16 dense, 1.979e15 sparse, 3.35e12 B/s), with
Fractions: transformer_block's kernels one by one (the MLP's up, activation and down as
one fused kernel), a matmul's FLOPs over a measured time, and Llama-2-70B's decode and
prefill steps as tests/model/test_serving.py computes them.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import derive
from derive.problem.binding import ProblemSpec
from derive.problem.model_spec import ModelSpec
from derive.problem.serving_spec import ServingSpec
from derive.problem.sets.problem_set import ModelEntry
from derive.problem.timing import TimingSpec
from tests.conftest import run_cli
from tests.model.test_serving import DH, HEADS, KV, LAYERS, VOCAB, _step
from tests.model.test_serving import FF as FF70
from tests.model.test_serving import D as D70

PEAK, SPARSE, HBM = Fraction(989 * 10**12), Fraction(1979 * 10**12), Fraction(335 * 10**10)
W = 2  # bf16

# transformer_block at B = 8, T = S = 512, d = 4096, f = 11008, N = K = 32 heads of H = 128
B, T, S, D, FF, N, K, H = 8, 512, 512, 4096, 11008, 32, 32, 128
BLOCK = ["transformer_block", "--dtype", "bf16", "--chip", "h100"] + [
    f"--set={name}={value}"
    for name, value in (
        ("B", B),
        ("T", T),
        ("S", S),
        ("d_model", D),
        ("d_ff", FF),
        ("N", N),
        ("K", K),
        ("H", H),
    )
]


def _matmul(rows: int, inner: int, cols: int) -> tuple[int, int]:
    return 2 * rows * inner * cols, W * (rows * inner + inner * cols + rows * cols)


def _block_kernels() -> list[tuple[int, int]]:
    """(FLOPs, bytes) of each kernel of transformer_block, in order."""
    rows = B * T
    norm = (7 * rows * D, W * (rows * D + 2 * D + rows * D))  # 7 FLOPs per element, γ and β
    residual = (rows * D, W * 3 * rows * D)  # one add per element: two reads, one write
    attention = (4 * B * T * S * N * H, W * (2 * B * T * N * H + 2 * B * S * K * H))
    up, down = _matmul(rows, D, FF), _matmul(rows, FF, D)
    # fused: the up projection's output and the activation's stay on chip
    mlp = (up[0] + rows * FF + down[0], W * (rows * D + D * FF + FF * D + rows * D))
    return [
        norm,
        _matmul(rows, D, N * H),
        _matmul(rows, D, 2 * K * H),
        attention,
        _matmul(rows, N * H, D),
        residual,
        norm,
        _matmul(rows, D, FF),
        mlp,
        residual,
    ]


def _check(argv: list[str]) -> tuple[int, dict]:
    result = run_cli(["check", *argv, "--format", "json"])
    assert result.code in (0, 1), result
    return result.code, json.loads(result.out)


def test_a_step_lower_bound_is_the_sum_per_kernel_and_the_single_roofline_is_named():
    kernels = _block_kernels()
    t_lower = sum(max(Fraction(f) / PEAK, Fraction(q) / HBM) for f, q in kernels)
    single = max(
        sum(Fraction(f) for f, _ in kernels) / PEAK, sum(Fraction(q) for _, q in kernels) / HBM
    )
    assert single < t_lower
    code, right = _check(
        [*BLOCK, "--quantity", "t_lower", "--claim", f"{float(t_lower) * 1e3:.6g} ms"]
    )
    assert code == 0 and right["verdict"] == "correct"
    assert Fraction(right["expected"]) == t_lower
    code, slip = _check([*BLOCK, "--quantity", "t_lower", "--claim", f"{float(single):.6g} s"])
    assert code == 1 and slip["verdict"] == "incorrect"
    assert "single roofline of the whole step" in slip["diagnosis"][0]
    upper = sum(Fraction(f) / PEAK + Fraction(q) / HBM for f, q in kernels)
    code, named = _check(
        [*BLOCK, "--quantity", "t_upper", "--claim", f"T_{{upper}} = {float(upper):.6g} s"]
    )
    assert code == 0, named


def test_an_overlapped_bound_given_as_the_serial_sum_is_named():
    # matmul_sharded: D split over P = 8 chips, the partial Z[B, F] sent over NVLink (4.5e11 B/s)
    argv = ["matmul_sharded", "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set=B=8", "--set=D=8192", "--set=F=8192", "--set=P=8"]
    flops = Fraction(2 * 8 * 8192 * 8192, 8)
    moved = W * (8 * 8192 // 8 + 8192 // 8 * 8192 + 8 * 8192)
    sent = W * 8 * 8192
    t_math, t_mem, t_comms = flops / PEAK, Fraction(moved) / HBM, Fraction(sent) / (45 * 10**10)
    overlapped, serial = max(t_math, t_mem, t_comms), max(t_math, t_mem) + t_comms
    assert overlapped != serial
    code, right = _check(
        [*argv, "--quantity", "t_lower_overlapped", "--claim", f"{float(overlapped) * 1e6:.6g} us"]
    )
    assert code == 0 and Fraction(right["expected"]) == overlapped, right
    code, slip = _check(
        [*argv, "--quantity", "t_lower_overlapped", "--claim", f"{float(serial):.6g}"]
    )
    assert code == 1 and "this is the serial sum" in slip["diagnosis"][0], slip


def test_mfu_from_a_measured_time_and_its_slips():
    argv = ["matmul", "--dtype", "bf16", "--chip", "h100", "--set=B=4096", "--set=D=4096"]
    argv += ["--set=F=4096", "--measured-time", "0.2ms"]
    mfu = Fraction(2 * 4096**3) / Fraction(2, 10**4) / PEAK
    for claim in (
        f"{float(mfu):.5f}",
        f"{float(mfu) * 100:.4f}%",
        f"\\text{{MFU}} = {float(mfu):.4f}",
    ):
        code, right = _check([*argv, "--quantity", "mfu", "--claim", claim])
        assert code == 0 and right["verdict"] == "correct", (claim, right)
    assert Fraction(right["expected"]) == mfu
    sparse = Fraction(2 * 4096**3) / Fraction(2, 10**4) / SPARSE
    code, slip = _check([*argv, "--quantity", "mfu", "--claim", f"{float(sparse):.5f}"])
    assert code == 1 and any("sparse figure" in d for d in slip["diagnosis"])
    code, percent = _check([*argv, "--quantity", "mfu", "--claim", f"{float(mfu) * 100:.4f}"])
    assert code == 1 and "percentage written without the % sign" in percent["diagnosis"][0]
    mbu = Fraction(W * 3 * 4096**2) / Fraction(2, 10**4) / HBM
    code, right = _check([*argv, "--quantity", "mbu", "--claim", f"{float(mbu):.5f}"])
    assert code == 0, right


_LLAMA = ["llama-2-70b", "--chip", "h100", "--devices", "8", "--tp", "8"]


def test_a_decode_rate_and_a_ttft_of_a_70b_model_on_8_chips():
    lower, _ = _step(64, 64, 8192)
    decode = [*_LLAMA, "--set", "B=64", "--set", "S=8192", "--phase", "decode"]
    rate = 64 / lower
    code, right = _check(
        [*decode, "--quantity", "tokens_per_s", "--claim", f"{float(rate):.6g} tokens/s"]
    )
    assert code == 0 and right["verdict"] == "correct", right
    code, wrong = _check(
        [*decode, "--quantity", "tokens_per_s", "--claim", f"{float(8 * rate):.6g}"]
    )
    assert code == 1 and any("multiplies by the devices" in d for d in wrong["diagnosis"])
    code, step = _check(
        [*decode, "--quantity", "t_lower", "--claim", f"{float(lower) * 1e3:.6g} ms"]
    )
    assert code == 0, step
    ttft, _ = _step(4096, 1, 4096)
    prefill = [*_LLAMA, "--set", "B=1", "--set", "S=4096", "--phase", "prefill"]
    code, right = _check([*prefill, "--quantity", "ttft", "--claim", f"{float(ttft) * 1e3:.6g} ms"])
    assert code == 0 and right["verdict"] == "correct", right
    code, wrong = _check([*prefill, "--quantity", "ttft", "--claim", f"{float(ttft):.6g} ms"])
    assert code == 1 and wrong["verdict"] == "incorrect"


def test_the_decode_crossover_reads_a_threshold_and_refuses_the_memory_bound_side():
    decode = [*_LLAMA, "--set", "B=64", "--set", "S=8192", "--phase", "decode"]
    # the matmuls' FLOPs and bytes per device, linear in B (as tests/model/test_serving.py counts them)
    q, kv = HEADS * DH, KV * DH
    weights = LAYERS * (q * D70 + 2 * D70 * kv + q * D70 + 3 * D70 * FF70) + D70 * VOCAB
    per_b = LAYERS * (7 * D70 + 2 * q // 8 + 2 * kv // 8 + 3 * FF70 // 8) + D70 + VOCAB // 8
    # 2·B·weights/8 / π = W·(weights/8 + B·per_b) / β, solved for B
    crossing = Fraction(W * weights, 8) / HBM / (Fraction(2 * weights, 8) / PEAK - W * per_b / HBM)
    threshold = -(-crossing.numerator // crossing.denominator)
    code, exact = _check([*decode, "--quantity", "crossover", "--claim", f"{float(crossing):.8g}"])
    assert code == 0, exact
    for claim in (f"B \\geq {threshold}", f"B > {threshold - 1}", str(threshold)):
        code, right = _check([*decode, "--quantity", "crossover", "--claim", claim])
        assert code == 0 and right["verdict"] == "correct", (claim, right)
    code, side = _check([*decode, "--quantity", "crossover", "--claim", f"B \\leq {threshold}"])
    assert code == 1 and "memory-bound" in side["diagnosis"][0]


def test_the_api_judges_a_serving_problem():
    lower, _ = _step(64, 64, 8192)
    spec = ModelSpec("llama-2-70b", chip="h100", devices="8", sets=("B=64", "S=8192"))
    entry = ModelEntry(
        "decode", "decode", "", spec, ("tokens_per_s",), ServingSpec("decode", "8", TimingSpec())
    )
    right = derive.check(entry, "tokens_per_s", f"{float(64 / lower):.6g}")
    assert right.verdict is derive.Verdict.CORRECT
    assert derive.check(entry, "inter_token_latency", "1 s").verdict is derive.Verdict.INCORRECT
    operator = ProblemSpec("matmul", dtypes=("bf16",), chip="h100", sets=("B=8", "D=64", "F=64"))
    t_lower = derive.check(operator, "t_lower", "1 s")
    assert t_lower.verdict is derive.Verdict.INCORRECT


@pytest.mark.parametrize(
    "argv, message",
    [
        (["matmul", "--chip", "h100", "--dtype", "bf16", "--quantity", "mfu", "--claim", "0.5"], "needs a measurement"),
        (["transformer_block", "--chip", "h100", "--dtype", "bf16", "--quantity", "t_lower", "--claim", "1"], "every dim bound"),
        ([*_LLAMA, "--set=B=1", "--set=S=8", "--phase", "decode", "--quantity", "ttft", "--claim", "1"], "needs prefill"),
        (["llama-2-70b", "--chip", "h100", "--launch-overhead", "5us", "--quantity", "params", "--claim", "1"], "give --phase"),
        (["llama-2-70b", "--chip", "h100", "--devices", "8", "--tp", "16", "--set=B=1", "--set=S=8", "--phase", "decode", "--quantity", "t_lower", "--claim", "1"], "divides --devices (8)"),
        (["matmul", "--chip", "h100", "--dtype", "bf16", "--set=B=8", "--set=D=8", "--set=F=8", "--measured-time", "1s", "--quantity", "mfu", "--claim", "__import__('os')"], "claim"),
        (["matmul", "--chip", "h100", "--dtype", "bf16", "--set=B=8", "--set=D=8", "--set=F=8", "--quantity", "tokens_per_s", "--claim", "1"], "unknown model"),
        ([*_LLAMA, "--set=B=1", "--set=S=8", "--phase", "decode", "--quantity", "crossover", "--claim", "B \\geq 1e99999"], "claim"),
    ],
)  # fmt: skip
def test_hostile_step_claims_exit_2_with_one_line(argv, message):
    result = run_cli(["check", *argv])
    assert result.code == 2 and result.out == "", result
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result
    assert message in result.err, result
