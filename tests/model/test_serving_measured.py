"""A serving step's measured tokens/s, and data-parallel replicas (``--devices N --tp T``).

Expected values are computed here with Fractions from Llama-2-70B's shapes and the H100's
decimal figures (the constants and the per-device bytes and lower bound of
``tests/model/test_serving.py``); the FLOPs per device are counted below kernel by kernel with
the FLOP convention derive documents (2 per weight element, 4·h·d_h·S per token for
attention, 0 for a norm: elementwise, not counted). A measured rate R of the cluster makes the step time
replicas·B/R (decode) or replicas·B·S/R (prefill); MFU = FLOPs/(T·π), MBU = bytes/(T·β).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import run_cli
from tests.model.test_serving import DH, FF, HBM, HEADS, KV, LAYERS, PEAK, VOCAB, D, N, _step


def _flops(tokens: int, context: int) -> int:
    """The step's FLOPs on one of N devices (tensor parallel), ``tokens`` in flight."""
    t, q, kv = tokens, HEADS * DH, KV * DH
    layer = (
        0  # attention norm (replicated, elementwise: not counted)
        + 2 * t * D * (q + 2 * kv) // N  # q, k, v: column split
        + 4 * t * q * context // N  # attention: heads split
        + 2 * t * q * D // N  # o: row split
        + 0  # MLP norm
        + 3 * 2 * t * D * FF // N  # gate, up, down
    )
    return LAYERS * layer + 0 + 2 * t * D * VOCAB // N  # final norm (0) and head


def _serve(*extra: str, devices: int = 8, phase: str = "decode", batch: int = 64) -> dict:
    argv = ["model", "llama-2-70b", "--chip", "h100", "--devices", str(devices), "--phase", phase]
    argv += ["--set", f"B={batch}", "--set", "S=8192", "--format", "json", *extra]
    result = run_cli(argv)
    assert result.code == 0, result
    return json.loads(result.out)


def test_a_measured_decode_rate_gives_mfu_and_mbu():
    rate = Fraction(3000)  # tokens/s of the 8-chip group
    report = _serve("--measured-tokens-per-s", "3000")
    serving = report["serving"]
    _, moved = _step(64, 64, 8192)
    time = 64 / rate
    assert Fraction(serving["step"]["flops"]) == _flops(64, 8192)
    assert Fraction(serving["measured"]["time"]) == time
    assert Fraction(serving["step_mfu"]) == _flops(64, 8192) / time / PEAK
    assert Fraction(serving["step_mbu"]) == moved / time / HBM
    assert serving["measured"]["verdict"] == "possible"
    assert serving["measured_tokens_per_s"] == "3000"
    assert report.get("mfu") is None  # not read as a training rate as well


def test_derives_own_rate_pasted_back_is_its_lower_bound():
    lower, _ = _step(64, 64, 8192)
    rate = 64 / lower
    serving = _serve("--measured-tokens-per-s", f"{float(rate):.17g}")["serving"]
    assert abs(Fraction(serving["measured"]["time"]) - lower) <= lower * Fraction(1, 10**12)
    assert serving["measured"]["verdict"] == "possible"
    assert Fraction(serving["tokens_per_s"]) == rate


def test_an_impossible_measured_rate_names_the_ceiling():
    _, moved = _step(64, 64, 8192)
    fastest = 64 * HBM / moved  # every byte at full bandwidth: the memory ceiling on the rate
    rate = int(2 * fastest)
    report = _serve("--measured-tokens-per-s", str(rate))["serving"]
    assert report["measured"]["verdict"] == "impossible"
    assert report["measured"]["beats"] == ["memory bandwidth"]
    assert Fraction(report["step_mbu"]) == moved * rate / 64 / HBM > 1
    argv = ["model", "llama-2-70b", "--chip", "h100", "--devices", "8", "--phase", "decode"]
    argv += ["--set", "B=64", "--set", "S=8192", "--measured-tokens-per-s", str(rate)]
    key = run_cli(argv).out
    assert "Impossible: this measurement beats the memory bandwidth" in key
    assert r"T_{\text{measured}} = \frac{B}{\text{tokens/s}_{\text{measured}}}" in key


def test_a_measured_prefill_rate_counts_the_prompt_tokens():
    report = _serve("--measured-tokens-per-s", "20000", phase="prefill", batch=1)["serving"]
    time = Fraction(8192, 20000)
    assert Fraction(report["measured"]["time"]) == time
    assert Fraction(report["step_mfu"]) == _flops(8192, 8192) / time / PEAK


def test_replicas_double_the_rate_and_keep_the_step():
    one = _serve("--tp", "8")
    two = _serve("--tp", "8", devices=16)
    assert (one["serving"]["replicas"], two["serving"]["replicas"]) == (1, 2)
    assert one["serving"]["step"] == two["serving"]["step"]
    lower, _ = _step(64, 64, 8192)
    assert Fraction(one["serving"]["tokens_per_s"]) == 64 / lower
    assert Fraction(two["serving"]["tokens_per_s"]) == 2 * 64 / lower
    assert one["serving"]["inter_token_latency"] == two["serving"]["inter_token_latency"]
    # memory per device is one group's: weights and the KV of its 64 sequences over 8 devices
    weights = 2 * (
        LAYERS * (2 * HEADS * DH * D + 2 * KV * DH * D + 3 * D * FF + 2 * D) + 2 * D * VOCAB + D
    )
    kv_cache = 2 * LAYERS * KV * DH * 2 * 64 * 8192
    for report in (one, two):
        per_device = report["memory_per_device"]["exact"]
        assert Fraction(per_device) == Fraction(weights + kv_cache, 8)
    prefill_one = _serve(phase="prefill", batch=1)["serving"]
    prefill_two = _serve("--tp", "8", devices=16, phase="prefill", batch=1)["serving"]
    assert Fraction(prefill_two["prefill_tokens_per_s"]) == 2 * Fraction(
        prefill_one["prefill_tokens_per_s"]
    )


def test_a_measured_rate_of_replicas_is_the_clusters():
    serving = _serve("--tp", "8", "--measured-tokens-per-s", "6000", devices=16)["serving"]
    time = Fraction(2 * 64, 6000)
    assert Fraction(serving["measured"]["time"]) == time
    assert Fraction(serving["step_mfu"]) == _flops(64, 8192) / time / PEAK


def test_replicas_in_the_worked_solution():
    argv = ["model", "llama-2-70b", "--chip", "h100", "--devices", "16", "--tp", "8"]
    key = run_cli([*argv, "--phase", "decode", "--set", "B=64", "--set", "S=8192"]).out
    assert r"\text{replicas} \cdot \frac{B}{T_{\text{lower}}} = 2 \cdot" in key
    assert "on 16 devices (2 replicas of 8)" in key
    assert "M/N\\_tp ≤ C" in key


def test_bad_replicas_and_two_measurements_exit_2_with_one_line():
    base = ["model", "llama-2-70b", "--chip", "h100", "--set", "B=1", "--set", "S=8"]
    for extra, message in (
        (["--devices", "16", "--tp", "3"], "one of 1, 2, 4, 8, 16"),
        (["--devices", "8", "--tp", "16"], "divides --devices (8)"),
        (["--devices", "8", "--tp", "0"], "divides --devices (8)"),
        (["--devices", "8", "--tp", "-2"], "divides --devices (8)"),
        (["--measured-time", "1ms", "--measured-tokens-per-s", "100"], "not both"),
        (["--measured-tokens-per-s", "0"], "positive"),
    ):
        result = run_cli([*base, *extra, "--phase", "decode"])
        assert result.code == 2 and result.out == "", (extra, result)
        assert result.err.count("\n") == 1 and message in result.err, (extra, result)


def test_without_a_phase_the_rate_is_still_trainings():
    argv = ["model", "llama-2-70b", "--chip", "h100", "--measured-tokens-per-s", "1000"]
    report = json.loads(run_cli([*argv, "--format", "json"]).out)
    params_active = Fraction(report["params_active"]["exact"])
    assert Fraction(report["mfu"]["exact"]) == 6 * params_active * 1000 / PEAK


SET = """
title = "Measured serving"

[[problem]]
id = "measured-decode"
title = "A measured decode rate"
model = "llama-2-70b"
chip = "h100"
devices = 16
tp = 8
set = { B = 64, S = 8192 }
phase = "decode"
measured_tokens_per_s = "6000"
ask = ["tokens_per_s", "measured"]
"""


def test_a_set_and_check_take_a_measured_rate(tmp_path):
    path = tmp_path / "serving.toml"
    path.write_text(SET)
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 0, result
    key = (tmp_path / "out" / "serving.md").read_text()
    assert r"T_{\text{measured}} = \frac{\text{replicas} \cdot B}" in key
    mfu = _flops(64, 8192) * 6000 / Fraction(2 * 64) / PEAK
    argv = ["check", "llama-2-70b", "--chip", "h100", "--devices", "16", "--tp", "8"]
    argv += ["--set", "B=64", "--set", "S=8192", "--phase", "decode"]
    argv += ["--measured-tokens-per-s", "6000", "--quantity", "step_mfu"]
    right = run_cli([*argv, "--claim", f"{float(mfu):.6g}"])
    assert right.code == 0, right
    wrong = run_cli([*argv, "--claim", f"{float(2 * mfu):.6g}"])
    assert wrong.code == 1, wrong


def test_the_builtin_key_reads_a_measured_rate_of_two_replicas():
    from tests.commands.test_key import builtin_files

    key = builtin_files()["rooflines.md"]
    problem = key[key.index("(serve-70b-measured):") :]
    time = Fraction(2 * 64, 8000)
    assert "measured: 8000 tokens/s for the whole cluster" in problem
    assert (
        rf"\frac{{2 \cdot 64}}{{8000}} = \frac{{{time.numerator}}}{{{time.denominator}}}" in problem
    )
    mfu = _flops(64, 8192) / time / PEAK
    assert rf"\frac{{{mfu.numerator}}}{{{mfu.denominator}}}" in problem


def test_derive_model_judges_a_serving_claim_with_its_phase():
    """``derive model … --phase decode --quantity tokens_per_s --claim …`` judges the step's
    rate, as ``derive check`` does (it used to ask for the --phase it was given)."""
    lower, _ = _step(64, 64, 8192)
    rate = 64 / lower
    base = ["llama-2-70b", "--chip", "h100", "--devices", "8", "--phase", "decode"]
    base += ["--set", "B=64", "--set", "S=8192", "--quantity", "tokens_per_s"]
    exact = f"{rate.numerator}/{rate.denominator}"
    right = run_cli(["model", *base, "--claim", exact])
    assert right.code == 0, right
    assert right.out.startswith("verdict: correct\n")
    wrong = run_cli(["model", *base, "--claim", "2000"])
    assert wrong.code == 1 and wrong.out.startswith("verdict: incorrect\n"), wrong
    checked = run_cli(["check", *base, "--claim", "2000"])
    assert (checked.code, checked.out) == (1, wrong.out)  # one verdict, one format
    assert (
        "--launch-overhead"
        in run_cli(
            ["model", *base[:5], "--launch-overhead", "5us", "--quantity", "params", "--claim", "1"]
        ).err
    )  # timing without --phase: one line


def test_tp_without_a_phase_is_refused_when_judging_too():
    """--tp splits a serving step: without --phase it is refused for a claim as for the sheet."""
    base = ["llama-2-70b", "--chip", "h100", "--devices", "16", "--tp", "8"]
    base += ["--set", "B=64", "--set", "S=8192", "--quantity", "max_batch", "--claim", "187"]
    for command in ("model", "check"):
        result = run_cli([command, *base])
        assert result.code == 2 and result.out == "", result
        assert (
            result.err.strip() == "error: --tp: times a serving step: give --phase decode|prefill"
        )


def test_a_measured_time_is_given_as_typed():
    report = run_cli(
        [
            "model",
            "llama-2-70b",
            "--chip",
            "h100",
            "--devices",
            "8",
            "--phase",
            "decode",
            "--set",
            "B=64",
            "--set",
            "S=8192",
            "--measured-time",
            "20ms",
        ]
    )
    assert report.code == 0, report
    assert "measured: a step of 20 ms" in report.out  # exact, in the unit typed


@pytest.mark.parametrize(
    ("keys", "says"),
    [
        ("devices = 16\ntp = 3", "key 'tp' (3): the tensor-parallel degree divides devices (16)"),
        ("tp = 2", "key 'tp' (2): the tensor-parallel degree divides devices (1)"),
        ("devices = 0\ntp = 1", "key 'devices' (0): the number of devices is a positive integer"),
        (
            'devices = 8\nmeasured_time = "1ms"\nmeasured_tokens_per_s = "100"',
            "key 'measured_time' with key 'measured_tokens_per_s': ",
        ),
        (
            'devices = 8\nlaunch_overhead = "5 min"',
            "key 'launch_overhead' ('5 min'): not a duration",
        ),
    ],
)
def test_a_bad_serving_problem_names_file_problem_and_key(tmp_path, keys, says):
    """Read with the set, not at bind time: the error names the file, the problem, the key."""
    path = tmp_path / "bad.toml"
    path.write_text(
        '[[problem]]\nid = "s"\nmodel = "llama-2-70b"\nchip = "h100"\n'
        f'set = {{ B = 64, S = 8192 }}\nphase = "decode"\n{keys}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = run_cli(["key", str(path), "-o", str(out)])
    assert result.code == 2 and result.out == "" and result.err.count("\n") == 1, result
    assert result.err.startswith(f"error: {path}: problem 's': {says}"), result.err
    assert "--" not in result.err and not out.exists()
