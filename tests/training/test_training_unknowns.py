"""Issue 32 item 10: a training run's batch and sequence length as unknowns
(``derive train --equation … --unknown batch_tokens|seq``), and the Python surface's
``given/define/equations/unknowns`` on :func:`derive.pipeline.solve_training`.

The expected values are computed here from the run's linear cost in its tokens (t_math is
FLOPs / (devices · peak), and the FLOPs are a fixed multiple of the tokens at a fixed S),
not read from the solver's answer.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

from derive.pipeline import solve_training
from tests.conftest import run_cli

_BASE = ["train", "llama-3-8b", "--chip", "h100", "--dp", "8"]


def _t_math(**run: object) -> Fraction:
    return Fraction(str(solve_training("llama-3-8b", chip="h100", dp=8, **run).analysis.t_math))


def test_batch_tokens_solved_as_the_smallest_multiple_that_holds():
    r = run_cli(
        [
            *_BASE,
            "--seq",
            "4096",
            "--equation",
            "t_math >= 10 s",
            "--unknown",
            "batch_tokens",
            "--format",
            "json",
        ]
    )
    assert r.code == 0, r
    found = int(json.loads(r.out)["defined"]["batch_tokens"]["exact"])
    grain = 8 * 4096  # dp · micro-batch · S: the batch is whole micro-batches per rank
    per_token = _t_math(batch_tokens=grain * 128, seq=4096) / (grain * 128)
    assert _t_math(batch_tokens=grain * 64, seq=4096) == per_token * grain * 64  # linear in T
    expected = math.ceil(Fraction(10) / (per_token * grain)) * grain
    assert found == expected
    assert (
        _t_math(batch_tokens=found, seq=4096) >= 10 > _t_math(batch_tokens=found - grain, seq=4096)
    )


def test_seq_solved_over_the_divisors_of_the_batch_per_rank():
    argv = [
        *_BASE,
        "--zero",
        "3",
        "--batch-tokens",
        "4194304",
        "--equation",
        "memory_per_device <= 40 GB",
        "--unknown",
        "seq",
        "--format",
        "json",
    ]
    r = run_cli(argv)
    assert r.code == 0, r
    seq = int(json.loads(r.out)["defined"]["seq"]["exact"])
    assert (4194304 // 8) % seq == 0

    def memory(s: int) -> Fraction:
        run = solve_training("llama-3-8b", chip="h100", dp=8, zero=3, batch_tokens=4194304, seq=s)
        return Fraction(str(run.memory_per_device.exact))

    assert memory(seq) <= 40 * 10**9 < memory(2 * seq)  # the next divisor up is 2 S


def test_a_batch_given_and_unknown_is_refused_in_one_line():
    r = run_cli(
        [
            *_BASE,
            "--seq",
            "4096",
            "--batch-tokens",
            "4194304",
            "--equation",
            "t_math >= 10 s",
            "--unknown",
            "batch_tokens",
        ]
    )
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r
    assert "--batch-tokens" in r.err


def test_seq_unknown_without_a_batch_is_refused_in_one_line():
    r = run_cli([*_BASE, "--equation", "t_math >= 10 s", "--unknown", "seq"])
    assert r.code == 2 and r.err.count("\n") == 1 and "--batch-tokens" in r.err, r


def test_no_batch_meets_an_impossible_relation():
    r = run_cli(
        [*_BASE, "--seq", "4096", "--equation", "bubble_fraction > 1", "--unknown", "batch_tokens"]
    )
    assert r.code == 2 and r.err.count("\n") == 1 and "batch_tokens" in r.err, r


def test_python_training_takes_questions():
    run = solve_training(
        "llama-3-8b",
        chip="h100",
        dp=8,
        seq=4096,
        equations=["t_math >= 10 s"],
        unknowns=["batch_tokens"],
    )
    defined = run.as_json()["defined"]
    assert int(defined["batch_tokens"]["exact"]) == run.analysis.problem.batch_tokens
    run = solve_training(
        "llama-3-8b",
        chip="h100",
        dp=8,
        batch_tokens=4194304,
        seq=4096,
        define={"x": "t_lower * dp"},
    )
    assert Fraction(run.as_json()["defined"]["x"]["exact"]) == 8 * Fraction(
        str(run.analysis.t_lower)
    )


def test_an_equation_every_batch_or_sequence_satisfies_is_answered_as_such():
    """Issue 46: t_math > 0 s holds at every batch tried (each run's FLOPs are positive) and a
    state of more than 1 GB at every S (the 8B model's weights alone are 16 GB): derive
    stopped with an error; it now says every value satisfies it and shows the first run."""
    for unknown, given, equation, first in (
        ("batch_tokens", ["--seq", "4096"], "t_math >= 0 s", 8 * 4096),  # dp · b · S, M = 1
        ("seq", ["--batch-tokens", "4194304"], "memory_per_device >= 1 GB", 1),
    ):
        argv = [*_BASE, *given, "--equation", equation, "--unknown", unknown]
        r = run_cli([*argv, "--format", "json"])
        assert r.code == 0, r.err
        report = json.loads(r.out)
        assert report["equations"]["verdict"] == "infinitely many solutions"
        assert f"holds for every {unknown}" in report["equations"]["note"]
        assert int(report[unknown]) == first
        md = run_cli(argv)
        assert md.code == 0 and "every value satisfies it" in md.out.replace("\\", "")


def _memory(**run: object) -> Fraction:
    return Fraction(str(solve_training(**run).memory_per_device.exact))


def test_dp_solved_on_47059_chips_past_4096():
    """Issue 46: the degrees were tried from 1 to 4096 only. 47,059 (a prime) sequences split
    over dp = 1 or 47,059: the whole batch on one device is over a second, on 47,059 under."""
    chips, seq = 47059, 4096
    run = {"zero": "3", "batch_tokens": str(chips * seq), "seq": str(seq)}
    argv = [
        "train",
        "llama-3-8b",
        "--chip",
        "h100",
        *(f"--{k.replace('_', '-')}={v}" for k, v in run.items()),
    ]
    r = run_cli([*argv, "--equation", "t_lower <= 1 s", "--unknown", "dp", "--format", "json"])
    assert r.code == 0, r.err
    assert json.loads(r.out)["dp"] == chips

    def t_lower(dp: int) -> Fraction:
        d = solve_training("llama-3-8b", chip="h100", dp=dp, **run)
        return Fraction(str(d.analysis.t_lower))

    assert t_lower(chips) <= 1 < t_lower(1)  # the batch's divisors are 1 and 47,059


def test_tp_solved_on_a_tpu_v5p_pod_of_8960_chips_dp_taking_the_rest():
    """Issue 46: on a mesh the degrees multiply to its N; with --unknown tp and no --dp, dp
    fills the mesh (N / tp). The smallest tp whose memory fits 95 GB; every smaller tp the
    model splits (heads 64, KV heads 8) does not fit."""
    n, seq = 16 * 20 * 28, 4096
    run = {"chip": "tpu-v5p", "zero": "1", "batch_tokens": str(n * seq), "seq": str(seq)}
    r = run_cli(
        ["train", "llama-3-70b", "--mesh", "tpu:16x20x28"]
        + [f"--{k.replace('_', '-')}={v}" for k, v in run.items()]
        + ["--equation", "memory_per_device <= 95 GB", "--unknown", "tp", "--format", "json"]
    )
    assert r.code == 0, r.err
    report = json.loads(r.out)
    tp = report["tp"]
    assert report["dp"] * tp == n and report["devices"] == n
    at = {"mesh": "tpu:16x20x28", **run}
    assert _memory(model="llama-3-70b", tp=tp, dp=n // tp, **at) <= 95 * 10**9
    for smaller in (d for d in range(1, tp) if n % d == 0 and 8 % d == 0):
        assert _memory(model="llama-3-70b", tp=smaller, dp=n // smaller, **at) > 95 * 10**9


def test_pp_solved_on_8960_h100s_and_dp_on_a_mesh_is_its_one_value():
    mesh, n, seq = "gpu=8@450e9,node=1120@50e9", 8960, 4096
    base = ["train", "llama-3-70b", "--chip", "h100", "--tp", "8", "--zero", "1", "--mesh", mesh]
    base += ["--batch-tokens", str(4 * n * seq), "--seq", str(seq), "--format", "json"]
    r = run_cli([*base, "--equation", "memory_per_device <= 40 GB", "--unknown", "pp"])
    assert r.code == 0, r.err
    report = json.loads(r.out)
    pp = report["pp"]
    assert report["dp"] * 8 * pp == n
    at = {"model": "llama-3-70b", "chip": "h100", "tp": 8, "zero": 1, "mesh": mesh, "seq": seq}
    at["batch_tokens"] = 4 * n * seq
    assert _memory(pp=pp, dp=n // (8 * pp), **at) <= 40 * 10**9
    assert _memory(pp=pp // 2, dp=n // (4 * pp), **at) > 40 * 10**9  # 80 layers: pp even
    one = json.loads(run_cli([*base, "--equation", "t_lower <= 100 s", "--unknown", "dp"]).out)
    assert one["dp"] == n // 8 and one["equations"]["verdict"] == "solved"


def test_an_equality_every_value_keeps_is_answered_as_such():
    r = run_cli(
        [
            *_BASE,
            "--batch-tokens",
            "4194304",
            "--equation",
            "dp = 8",
            "--unknown",
            "seq",
            "--format",
            "json",
        ]
    )
    assert r.code == 0, r.err
    assert json.loads(r.out)["equations"]["verdict"] == "infinitely many solutions"


def test_a_degree_no_value_of_which_runs_says_why_in_one_line():
    # a batch that is no whole number of sequences; a tp that splits neither the heads nor
    # the mesh: the run at the first value says what is wrong, not "no dp of runs"
    for extra, flag in (
        (["--batch-tokens", "4194305", "--unknown", "dp"], "--batch-tokens"),
        (["--tp", "3", "--mesh", "gpu=8@450e9,node=2@50e9", "--unknown", "pp"], "--tp"),
    ):
        argv = ["train", "llama-3-8b", "--chip", "h100", "--seq", "4096", *extra]
        if "--batch-tokens" not in extra:
            argv += ["--batch-tokens", "4194304"]
        r = run_cli([*argv, "--equation", "t_math <= 10 s"])
        assert r.code == 2 and r.err.count("\n") == 1 and r.err.startswith(f"error: {flag}"), r
