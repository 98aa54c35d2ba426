"""Checking claims about whole-model quantities: ``derive.check``, ``derive check MODEL``, sets.

Every expected value is computed here by naive arithmetic from the architecture numbers
(the model cards), never copied from derive's output.
"""

from __future__ import annotations

import json

import pytest
import sympy as sp
from conftest import run_cli

import derive
from derive.checking.model_claims import MODEL_QUANTITIES
from derive.errors import ProblemError
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.problem_set import MODEL_ASK_KEYS, parse_problem_set


def _verdict(result) -> str:
    return result.verdict.value


def gpt2_small_params() -> int:
    """GPT-2 small: 12 blocks of width 768, MLP 3072, biases, layernorms, 1024 positions, tied head."""
    L, d, f, V, positions = 12, 768, 3072, 50257, 1024
    attention = 4 * d * d + 4 * d  # Q, K, V, O with biases
    mlp = 2 * d * f + f + d  # up and down with biases
    norms = 2 * (2 * d)  # two layernorms, weight and bias
    return L * (attention + mlp + norms) + V * d + positions * d + 2 * d


def llama3_70b_params() -> int:
    L, d, heads, kv, dh, f, V = 80, 8192, 64, 8, 128, 28672, 128256
    block = 2 * d * heads * dh + 2 * d * kv * dh + 3 * d * f + 2 * d  # q, o; k, v; gated MLP; 2 rms
    return L * block + 2 * V * d + d  # untied embedding and head, final norm


GPT2 = ModelSpec("gpt2-small", chip="a100")


def test_the_model_quantities_are_the_set_ask_keys():
    assert MODEL_QUANTITIES == MODEL_ASK_KEYS


def test_a_right_and_a_wrong_params_claim_for_gpt2_small():
    params = gpt2_small_params()
    right = derive.check(GPT2, "params", str(params))
    assert _verdict(right) == "correct" and right.relative_error == "0%"
    assert right.expected is not None and right.expected.startswith(f"{params} parameters")
    near = derive.check(GPT2, "params", "124e6 parameters")
    assert _verdict(near) == "correct" and near.diagnosis[0].startswith(
        "right to 1%: the exact total number of parameters is"
    )
    untied = params + 50257 * 768  # counting the tied head twice
    wrong = derive.check(GPT2, "params", str(untied))
    assert _verdict(wrong) == "incorrect" and str(params) in wrong.diagnosis[0]
    hidden = derive.check(GPT2, "params", str(untied), hide_expected=True)
    assert hidden.expected is None and all(str(params) not in d for d in hidden.diagnosis)


def test_a_kv_bytes_per_token_claim_in_kib_and_the_kb_slip():
    layers, kv_heads, head_dim, width = 32, 8, 128, 2  # Llama 3 8B, bf16
    per_token = 2 * layers * kv_heads * head_dim * width
    kib = sp.Rational(per_token, 1024)
    spec = ModelSpec("llama-3-8b")
    right = derive.check(spec, "kv_bytes_per_token", f"{kib} KiB/token")
    assert _verdict(right) == "correct", right
    assert right.read_as == f"{kib} KiB = {per_token} B/token"
    slip = derive.check(spec, "kv_bytes_per_token", f"{kib} KB")
    assert _verdict(slip) == "incorrect"
    assert "read as KiB it would be right" in slip.diagnosis[0]
    half = derive.check(spec, "kv_bytes_per_token", str(per_token // 2))
    assert _verdict(half) == "incorrect" and "one of K and V" in half.diagnosis[0]


def test_a_max_batch_claim_on_a_16_chip_v5e_slice():
    devices, capacity, S = 16, 16 * 10**9, 8192
    weights = 2 * llama3_70b_params()
    kv_per_token = 2 * 80 * 8 * 128 * 2
    # 16 devices, 8 KV heads: each device holds one KV head's cache, 1/8 of it (issue 46)
    largest = (devices * capacity - weights) * 8 // (kv_per_token * S * devices)
    spec = ModelSpec("llama-3-70b", chip="tpu-v5e", devices="16", sets=("B=32", f"S={S}"))
    assert _verdict(derive.check(spec, "max_batch", str(largest))) == "correct"
    wrong = derive.check(spec, "max_batch", str(largest + 1))
    assert _verdict(wrong) == "incorrect" and str(largest) in wrong.diagnosis[0]
    fits = largest >= 32
    said = derive.check(spec, "fits", "yes" if fits else "no")
    assert _verdict(said) == "correct"


def test_an_mfu_claim_from_a_measured_rate():
    peak, rate = sp.Integer(989) * 10**12, 2000
    mfu = 6 * llama3_70b_params() * rate / peak
    spec = ModelSpec(
        "llama-3-70b",
        peak="989e12",
        bandwidth="3.35e12",
        devices="8",
        train_tokens="15e12",
        measured_tokens_per_s=str(rate),
    )
    assert _verdict(derive.check(spec, "mfu", str(mfu))) == "correct"
    rounded = f"{float(mfu):.3f}"
    assert _verdict(derive.check(spec, "mfu", rounded)) == "correct"
    percent = derive.check(spec, "mfu", f"{float(100 * mfu):.1f}%")
    assert _verdict(percent) == "correct" and percent.read_as.endswith(f"% = {rounded}")
    assert _verdict(derive.check(spec, "mfu", f"{float(mfu) / 2:.3f}")) == "incorrect"


def test_train_days_take_a_time_unit():
    P, tokens, devices, peak, eta = (
        llama3_70b_params(),
        15 * 10**12,
        2048,
        989 * 10**12,
        sp.Rational(2, 5),
    )
    seconds = sp.Rational(6 * P * tokens, 1) / (devices * peak * eta)
    spec = ModelSpec(
        "llama-3-70b", peak="989e12", bandwidth="3.35e12", devices="2048",
        train_tokens="15e12", mfu="0.4",
    )  # fmt: skip
    days = seconds / 86400
    assert _verdict(derive.check(spec, "train_days", f"{float(days):.4f}")) == "correct"
    assert _verdict(derive.check(spec, "train_days", f"{float(days):.4f} days")) == "correct"
    assert _verdict(derive.check(spec, "train_seconds", f"{float(days):.4f} days")) == "correct"
    assert _verdict(derive.check(spec, "train_days", f"{float(days):.4f} GB")) == "incorrect"


def test_an_unreadable_claim_is_a_verdict_and_a_bad_quantity_raises():
    r = derive.check(GPT2, "params", "__import__('os')")
    assert _verdict(r) == "unreadable" and r.reason and r.position is not None
    with pytest.raises(ProblemError, match="unknown quantity"):
        derive.check(GPT2, "intensity", "1")
    with pytest.raises(ProblemError, match="not derived"):
        derive.check(GPT2, "max_batch", "1")


def test_derive_check_model_on_the_command_line():
    params = gpt2_small_params()
    r = run_cli(
        ["check", "gpt2-small", "--chip", "a100", "--quantity", "params", "--claim", str(params)]
    )
    assert r.code == 0 and r.out.startswith("verdict: correct\n"), r
    j = run_cli(
        ["check", "gpt2-small", "--quantity", "params", "--claim", "1e8", "--format", "json"]
    )
    data = json.loads(j.out)
    assert j.code == 1 and data["verdict"] == "incorrect" and data["expected"] == str(params)
    assert data["model"] == "gpt2-small"
    via_model = run_cli(["model", "gpt2-small", "--quantity", "params", "--claim", str(params)])
    assert via_model.code == 0 and via_model.out.startswith("verdict: correct\n")
    for flags in ([], ["--format", "json"]):
        claim = ["--quantity", "params", "--claim", "1e8", *flags]
        via_model, via_check = (
            run_cli(["model", "gpt2-small", *claim]),
            run_cli(["check", "gpt2-small", *claim]),
        )
        assert (
            (via_model.code, via_model.out) == (via_check.code, via_check.out) == (1, via_check.out)
        )


_SET = """
title = "models"
[[problem]]
id = "gpt2"
title = "GPT-2"
model = "gpt2-small"
ask = ["params"]
[[problem]]
id = "mm"
title = "a matmul"
operator = "matmul"
dtype = "bf16"
chip = "tpu-v5e"
ask = ["ridge"]
"""


def test_a_problem_set_and_an_answers_csv_name_model_problems(tmp_path):
    params = gpt2_small_params()
    path = tmp_path / "set.toml"
    path.write_text(_SET)
    assert [m.id for m in parse_problem_set(_SET, "set.toml").models] == ["gpt2"]
    one = run_cli(
        ["check", "--problem-set", str(path), "--problem", "gpt2", "--quantity", "params",
         "--claim", str(params)]
    )  # fmt: skip
    assert one.code == 0 and "verdict: correct" in one.out, one
    answers = tmp_path / "answers.csv"
    answers.write_text(
        f"who,problem,quantity,claim\nann,gpt2,params,{params}\nbob,gpt2,params,1e8\n"
        "cy,mm,ridge,240.24\n"
    )
    r = run_cli(["check", "--problem-set", str(path), "--answers", str(answers)])
    rows = [line.split(",")[4] for line in r.out.splitlines()[1:]]
    assert r.code == 0 and rows == ["correct", "incorrect", "correct"], r


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["check", "gpt2-small", "--quantity", "params", "--claim", "__import__('os')"], "claim"),
        (["check", "gpt2-small", "--quantity", "params", "--claim", "9" * 5000], "claim"),
        (["check", "gpt2-small", "--quantity", "params", "--claim", "2^2^2^2^2^2^99"], "claim"),
        (["check", "gpt2-small", "--quantity", "params", "--claim", "B \\geq 3"], "inequality"),
        (["check", "gpt2-small", "--quantity", "fits", "--claim", "yes"], "not derived"),
        (["check", "gpt2-small", "--quantity", "params", "--regime", "B<<D", "--claim", "1"], "--regime"),
        (["check", "matmul", "--capacity", "1e9", "--quantity", "ridge", "--claim", "1"], "--capacity"),
        (["check", "nosuch", "--quantity", "params", "--claim", "1"], "unknown model"),
        (["check", "gpt2-small", "--quantity", "flops", "--claim", "1"], "is a whole model"),
        (["check", "gpt2-small", "--chip", "a100", "--set", "B=1", "--set", "S=1024", "--quantity", "fits", "--claim", "maybe"], "yes or no"),
        (["check", "gpt2-small", "--quantity", "params", "--chain", "x.txt"], "--claim"),
        (["check", "gpt2-small", "--devices", "0", "--quantity", "params", "--claim", "1"], "devices"),
    ],
)  # fmt: skip
def test_hostile_model_claims_are_one_line_exit_2(argv, needle):
    r = run_cli(argv)
    assert r.code == 2 and r.out == "", r
    assert r.err.count("\n") == 1 and r.err.startswith("error: ") and needle in r.err, r.err
