"""Every hint earned, units with a hint (issue 33, items 4 and 5).

A slip is named only when its premise fits the quantity (no GiB for a count, no K and V
for the weights) and recomputing the quantity the slip's way reproduces the claim. The
slipped values here are built from the parts (Llama 3 8B's V·d tables, the run's memory
parts), not copied from a text.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from conftest import ROOT, run_cli

import derive
from derive.checking.api import model_values
from derive.checking.training_claims import training_analysis_for, training_values
from derive.problem.binding import ProblemSpec
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.problem_set import load_problem_set

LLAMA = ModelSpec("llama-3-8b")
V, D_MODEL = 128256, 4096  # Llama 3 8B's vocabulary and width: its embedding and head are V·d
SET = ROOT / "derive" / "data" / "problems" / "rooflines.toml"


def _params() -> int:
    ((_, exact, _),) = model_values(LLAMA, ["params"])
    return int(exact)


def _said(spec, quantity, claim) -> str:
    r = derive.check(spec, quantity, claim)
    assert r.verdict is derive.Verdict.INCORRECT, r
    return " | ".join(r.diagnosis)


def test_params_without_the_embedding_and_the_head_are_named():
    total = _params()
    said = _said(LLAMA, "params", str(total - 2 * V * D_MODEL))
    assert "leaves out the embedding table and the output head" in said
    assert "GiB" not in said
    # Llama 3 8B's head is untied and as large as its embedding (V·d each): either one left
    # out gives the same claim, so the hint names both
    said = _said(LLAMA, "params", str(total - V * D_MODEL))
    assert "leaves out one of the embedding table and the output head (each V·d)" in said


def test_no_gib_hint_for_a_count_and_no_k_and_v_for_the_weights():
    total = _params()
    gib = Fraction(10**9, 2**30)
    assert "GiB" not in _said(LLAMA, "params", str(round(total * gib)))
    ((_, weights, _),) = model_values(LLAMA, ["weights_bytes"])
    said = _said(LLAMA, "weights_bytes", str(int(weights) // 2))
    assert "K and V" not in said and "multiply-add" not in said
    ((_, kv, _),) = model_values(LLAMA, ["kv_bytes_per_token"])
    assert "one of K and V" in _said(LLAMA, "kv_bytes_per_token", str(int(kv) // 2))


def test_the_ridge_given_as_the_crossover_is_said_alone():
    spec = ProblemSpec("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")
    ridge = Fraction(197 * 10**12, 82 * 10**10)
    r = derive.check(spec, "crossover", f"{float(ridge):.2f}")
    assert len(r.diagnosis) == 1 and r.diagnosis[0].startswith("this is the ridge point")


@cache
def _run(problem_id: str):
    entry = next(e for e in load_problem_set(SET).entries() if e.id == problem_id)
    return entry, training_values(training_analysis_for(entry))


def _decimal(value) -> str:
    return f"{float(value):.6g}"


def test_memory_without_zero_sharding_and_without_activations():
    entry, v = _run("train-8b-zero")  # ZeRO-1 over 8 DP ranks: the optimizer state is sharded
    unsharded = (
        v["memory_weights"] + v["memory_grads"] + 8 * v["memory_optimizer"] + v["activations"]
    )
    assert "without ZeRO sharding" in _said(entry, "memory_per_device", _decimal(unsharded))
    no_activations = v["memory_per_device"] - v["activations"]
    assert "leaves the activations out" in _said(
        entry, "memory_per_device", _decimal(no_activations)
    )


def test_the_recomputed_forward_pass_and_the_per_rank_batch():
    entry, v = _run("train-8b-zero")  # full recomputation: 8·P·T FLOPs, 6·P·T without it
    said = _said(entry, "t_math", f"{_decimal(v['t_math'] * Fraction(6, 8))} s")
    assert "8·P·T FLOPs, not 6·P·T" in said
    global_batch = v["critical_tokens_per_device"] * 8
    assert "global batch" in _said(entry, "critical_tokens_per_device", _decimal(global_batch))


def test_tp_comms_counted_once():
    entry, v = _run("train-70b-pipeline")  # tp 8, pp 4: 80 layers, 20 a stage
    once = v["comms_tp"] / 20
    assert "once" in _said(entry, "comms_tp", f"{_decimal(once / 10**9)} GB")


def test_a_bare_number_for_a_time_gets_its_unit_hint():
    spec = ProblemSpec("matmul", dtypes=("bf16",), chip="h100", sets=("B=256", "D=4096", "F=4096"))
    t_math = Fraction(2 * 256 * 4096 * 4096, 989 * 10**12)  # 2BDF / π, the dense bf16 peak
    micro = f"{float(t_math * 10**6):.4g}"
    said = _said(spec, "t_math", micro)
    assert said.startswith(f"a time needs a unit — as {micro} µs it would be right"), said
    hidden = derive.check(spec, "t_math", micro, hide_expected=True)
    assert "a time needs a unit" in hidden.diagnosis and micro not in " ".join(hidden.diagnosis)


def test_the_syntax_note_reads_the_whole_claim():
    argv = ["check", "matmul", "--dtype", "bf16", "--dtype", "Y=int8", "--chip", "tpu-v5e"]
    r = run_cli(
        argv + ["--regime", "B << D, F", "--quantity", "crossover", "--claim", r"B \geq 121"]
    )
    assert "no backslash" not in r.out and "the value after the left side" in r.out


AMDAHL_BY_HAND = """title = "t"
[[problem]]
id = "amdahl-step"
given = { step = "70 ms", share = "62 %", gemm_speedup = "1.8" }
define = { new_step = "step * (1 - share) + step * share / gemm_speedup", speedup = "step / new_step" }
"""


def test_a_defined_quantity_reports_like_every_other_check(tmp_path):
    # a 70 ms step, 62 % of it GEMMs sped up 1.8x: new = 70·(0.38 + 0.62/1.8) ms (the built-in
    # key asks it natively since issue 36: a what-if; here by hand, as defined quantities)
    new_step = Fraction(70, 1000) * (Fraction(38, 100) + Fraction(62, 100) / Fraction(18, 10))
    path = tmp_path / "amdahl.toml"
    path.write_text(AMDAHL_BY_HAND)
    argv = ["check", "--problem-set", str(path), "--problem", "amdahl-step"]
    argv += ["--quantity", "new_step", "--format", "json"]
    import json

    right = json.loads(run_cli(argv + ["--claim", f"{float(new_step) * 1000:.4g} ms"]).out)
    assert right["verdict"] == "correct" and "diagnosis" in right and "explanation" not in right
    assert right["expected_hidden"] is False and right["relative_error"].endswith("%")
    speedup = Fraction(70, 1000) / new_step
    two = f"{float(speedup):.2g}"  # right to 2 s.f., outside 1 %
    assert abs(Fraction(two) - speedup) > speedup / 100
    argv[argv.index("new_step")] = "speedup"
    wrong = json.loads(run_cli(argv + ["--claim", two]).out)
    assert wrong["verdict"] == "incorrect" and "right to 2 s.f." in wrong["diagnosis"][0]


def test_a_preview_never_converts_across_dimensions():
    from derive.web.pool import grader_of

    grader = grader_of(load_problem_set(SET))
    rate = grader.read("serve-70b-decode", "12.5 ms", "tokens_per_s")
    assert rate.ok and "tokens/s" not in (rate.latex or "") and "=" not in (rate.latex or "")
    time = grader.read("serve-70b-decode", "12.5 ms", "t_lower")
    assert "0.0125" in (time.latex or "")  # same dimension: converted to seconds


def test_a_step_time_from_6pt_alone_is_told_it_left_attention_out():
    entry, v = _run("train-8b-zero")  # Llama 3 8B, S = 4096, full recomputation
    t = 4194304
    p, layers, heads, head_dim, s = 8030261248, 32, 32, 128, 4096
    attention = Fraction(t, s) * layers * s * (s + 1) // 2 * 4 * heads * head_dim  # forward
    hardware = 8 * p * t + 4 * attention
    said = _said(entry, "t_math", f"{_decimal(v['t_math'] * 8 * p * t / hardware)} s")
    assert "counts 6·P·T only: attention's scores and values" in said
