"""Named slips of model, serving and training claims (issue 47, item 4), through the CLI.

Each claim is built here from the model's own numbers (its architecture, or the JSON
``derive model`` and ``derive train`` print) with one slip applied, and must get that
slip's name; the exact value stays ``correct``. Nothing is copied from derive's sentences
but the words that name the slip.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from conftest import ROOT, run_cli

H100 = ("--chip", "h100")
DECODE = ("llama-3-8b", *H100, "--phase", "decode", "--set", "B=32", "--set", "S=4096")


def _check(*argv: str) -> tuple[int, str]:
    r = run_cli(["check", *argv])
    assert r.err == "", r
    return r.code, r.out


def _named(claim: str, words: str, *problem: str, quantity: str) -> None:
    code, out = _check(*problem, "--quantity", quantity, "--claim", claim)
    assert code == 1 and words in out, out


def _exact(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def test_the_tied_head_counted_again():
    L, d, f, V, positions = 12, 768, 3072, 50257, 1024  # GPT-2 small, tied head
    params = L * (4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d) + V * d + positions * d + 2 * d
    problem = ("gpt2-small", *H100)
    assert _check(*problem, "--quantity", "params", "--claim", str(params))[0] == 0
    _named(str(params + V * d), "tied head again", *problem, quantity="params")
    _named(str(2 * (params + V * d)), "tied head again", *problem, quantity="weights_bytes")


def test_k_and_v_counted_twice_or_in_fp32():
    per_token = 2 * 32 * 8 * 128 * 2  # Llama 3 8B: 2 (K, V) · L · h_kv · d_h · 2 bytes
    problem = ("llama-3-8b", *H100)
    assert _check(*problem, "--quantity", "kv_bytes_per_token", "--claim", str(per_token))[0] == 0
    _named(str(2 * per_token), "K and V twice", *problem, quantity="kv_bytes_per_token")
    int8 = (*problem, "--dtype", "kv=int8")  # an 8-bit cache: fp32 is 4 times it
    _named(str(2 * per_token), "fp32", *int8, quantity="kv_bytes_per_token")
    _named(str(per_token), "K and V twice", *int8, quantity="kv_bytes_per_token")


def _decode(*flags: str) -> dict:
    r = run_cli(["model", *DECODE, *flags, "--format", "json"])
    assert r.code == 0, r
    return json.loads(r.out)


def _seconds(value: Fraction) -> str:
    return f"{float(value) * 1e3:.5f} ms"


def test_a_decode_step_without_its_all_reduces():
    tp = ("--tp", "8", "--devices", "8")
    step = _decode(*tp)["serving"]["step"]
    assert Fraction(step["t_comms"]) > 0
    without = sum(
        max(Fraction(k["t_math"]), Fraction(k["t_mem"])) for k in step["kernels"]
    )  # each kernel's roofline with its all-reduce left out
    problem = (*DECODE, *tp)
    assert (
        _check(*problem, "--quantity", "t_lower", "--claim", _seconds(Fraction(step["t_lower"])))[0]
        == 0
    )
    _named(_seconds(without), "all-reduces", *problem, quantity="t_lower")
    rate = Fraction(32) / without
    _named(f"{float(rate):.1f} tokens/s", "all-reduces", *problem, quantity="tokens_per_s")


def test_a_decode_step_without_its_kv_read():
    data = _decode()
    kv = Fraction(data["kv_bytes"]["exact"])
    step = data["serving"]["step"]
    without = Fraction(0)
    for k in step["kernels"]:
        t_mem, t_math = Fraction(k["t_mem"]), Fraction(k["t_math"])
        if k["parts"] == ["attention"]:  # the cache read left out of attention's bytes
            t_mem *= (Fraction(k["bytes"]) - kv) / Fraction(k["bytes"])
        without += max(t_math, t_mem)
    _named(_seconds(without), "KV-cache read", *DECODE, quantity="t_lower")
    _named(_seconds(without), "KV-cache read", *DECODE, quantity="inter_token_latency")


def test_gb_and_gib_confused_in_any_byte_quantity():
    problem = ("llama-3-8b", *H100)
    _, out = _check(*problem, "--quantity", "weights_bytes", "--claim", "1", "--format", "json")
    weights = Fraction(json.loads(out)["expected"])
    assert _check(*problem, "--quantity", "weights_bytes", "--claim", _exact(weights))[0] == 0
    gib, gb = f"{float(weights / 2**30):.3f}", f"{float(weights / 10**9):.3f}"
    _named(f"{gib} GB", "read as GiB it would be right", *problem, quantity="weights_bytes")
    _named(f"{gb} GiB", "read as GB it would be right", *problem, quantity="weights_bytes")
    memory = (
        "--problem-set",
        str(ROOT / "tests" / "sets" / "graded.toml"),
        "--problem",
        "train-8b",
    )
    _, out = _check(*memory, "--quantity", "memory_per_device", "--claim", "1", "--format", "json")
    total = Fraction(json.loads(out)["expected"])  # a training run's memory, a byte quantity too
    claim = f"{float(total / 2**30):.3f} GB"
    _named(claim, "read as GiB it would be right", *memory, quantity="memory_per_device")
    _named(
        f"{float(weights / 2**30):.3f}e9",
        "GiB (2^30 B) read as GB",
        *problem,
        quantity="weights_bytes",
    )


def test_one_flop_per_multiply_add():
    problem = ("llama-3-8b", *H100, "--set", "S=4096")
    _, out = _check(*problem, "--quantity", "flops_per_token", "--claim", "1", "--format", "json")
    flops = Fraction(json.loads(out)["expected"])
    _named(str(flops / 2), "multiply-add", *problem, quantity="flops_per_token")


_TRAIN = """
[[problem]]
id = "run"
model = "llama-3-8b"
chip = "h100"
train = {{ {train} }}
ask = ["memory_per_device", "t_lower"]
"""


def _run(tmp_path, train: str, zero: int = 1) -> tuple[tuple[str, ...], dict]:
    path = tmp_path / f"set-{abs(hash(train))}-{zero}.toml"
    path.write_text(_TRAIN.format(train=f"{train}, zero = {zero}"))
    pairs = [
        (k.strip(), v.strip().strip('"')) for k, v in (kv.split("=") for kv in train.split(","))
    ]
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in pairs]
    r = run_cli(["train", "llama-3-8b", *H100, *flags, f"--zero={zero}", "--format", "json"])
    assert r.code == 0, r
    return ("--problem-set", str(path), "--problem", "run"), json.loads(r.out)


@pytest.mark.parametrize("stage, other", [(1, 0), (1, 2), (2, 3)])
def test_zero_stage_off_by_one(tmp_path, stage, other):
    train = "dp = 8, batch_tokens = 4194304, seq = 4096"
    problem, run = _run(tmp_path, train, stage)
    memory = Fraction(run["memory_per_device"]["total"])
    assert _check(*problem, "--quantity", "memory_per_device", "--claim", str(memory))[0] == 0
    wrong = Fraction(_run(tmp_path, train, other)[1]["memory_per_device"]["total"])
    _named(str(wrong), f"stage {other}", *problem, quantity="memory_per_device")


def test_six_p_t_without_the_recomputed_forward(tmp_path):
    problem, run = _run(tmp_path, 'dp = 8, batch_tokens = 4194304, seq = 4096, recompute = "full"')
    model, recompute = Fraction(run["flops_model"]), Fraction(run["flops_recompute"])
    t_math = Fraction(run["t_math"])
    assert _check(*problem, "--quantity", "t_math", "--claim", f"{float(t_math):.5f} s")[0] == 0
    six = t_math * model / (model + recompute)  # the model's FLOPs alone: 6·P·T and attention's
    _named(f"{float(six):.5f} s", "recomputed forward", *problem, quantity="t_math")
    _named(f"{float(t_math / 2):.5f} s", "multiply-add", *problem, quantity="t_math")


def test_a_training_step_without_the_pipeline_bubble(tmp_path):
    problem, run = _run(
        tmp_path,
        "dp = 4, pp = 2, microbatches = 4, micro_batch_size = 64, batch_tokens = 4194304, seq = 4096",
    )
    assert run["compute_bound"] and Fraction(run["t_comms"]) < Fraction(run["t_lower"]) / 2
    t_lower, bubble = Fraction(run["t_lower"]), Fraction(run["bubble_fraction"])
    assert _check(*problem, "--quantity", "t_lower", "--claim", f"{float(t_lower):.5f} s")[0] == 0
    # compute-bound with the comms hidden: the bubble is that share of the step
    _named(
        f"{float(t_lower * (1 - bubble)):.5f} s", "pipeline bubble", *problem, quantity="t_lower"
    )


def test_a_prefill_step_with_one_flop_per_multiply_add():
    prefill = ("llama-3-8b", *H100, "--phase", "prefill", "--set", "B=8", "--set", "S=4096")
    r = run_cli(["model", *prefill, "--format", "json"])
    step = json.loads(r.out)["serving"]["step"]
    assert step["binding"] == "compute"
    halved = sum(max(Fraction(k["t_math"]) / 2, Fraction(k["t_mem"])) for k in step["kernels"])
    assert (
        _check(*prefill, "--quantity", "ttft", "--claim", _seconds(Fraction(step["t_lower"])))[0]
        == 0
    )
    _named(_seconds(halved), "multiply-add", *prefill, quantity="ttft")
