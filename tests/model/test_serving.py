"""Serving phases of a model (issue 14, item 2): a decode step and a prefill on 8 chips with TP.

The expected values are computed here kernel by kernel from Llama-2-70B's published shapes
(80 layers, d = 8192, 64 heads and 8 KV heads of 128, f = 28672, V = 32000, untied, RMS norm)
and H100's decimal figures, with Fractions; the tensor-parallel split (Megatron: column then
row, two all-reduces per layer) and the FLOP convention (2 per weight element, 4·h·d_h·S per
token for attention) are the ones derive documents.
"""

from __future__ import annotations

import json
from fractions import Fraction

import sympy as sp

from tests.conftest import run_cli

PEAK, HBM, LINK = Fraction(989 * 10**12), Fraction(335 * 10**10), Fraction(45 * 10**10)
LAYERS, D, HEADS, KV, DH, FF, VOCAB, N, W = 80, 8192, 64, 8, 128, 28672, 32000, 8, 2


def _time(flops: int | Fraction, moved: int | Fraction, sent: int | Fraction = 0) -> Fraction:
    return max(Fraction(flops) / PEAK, Fraction(moved) / HBM) + Fraction(sent) / LINK


def _step(tokens: int, batch: int, context: int, n: int = N) -> tuple[Fraction, Fraction]:
    """(t_lower, bytes) per device for ``tokens`` in flight over a KV of ``context``, on n devices.

    The KV heads split min(n, KV) ways: beyond KV devices each holds one head (replicated).
    """
    t, q, kv, m = tokens, HEADS * DH, KV * DH, min(n, KV)
    all_reduce = Fraction(2 * (n - 1), n) * t * D * W
    layer = [
        (0, W * (t * D + D + t * D), 0),  # attention norm (replicated, elementwise)
        (2 * t * D * q // n, W * (t * D + D * q // n + t * q // n), 0),  # q: column split
        (2 * t * D * kv // m, W * (t * D + D * kv // m + t * kv // m), 0),  # k
        (2 * t * D * kv // m, W * (t * D + D * kv // m + t * kv // m), 0),  # v
        (
            4 * t * q * context // n,
            W * (t * q // n + 2 * batch * context * kv // m + t * q // n),
            0,
        ),  # attention: heads and KV split
        (2 * t * q * D // n, W * (t * q // n + q * D // n + t * D), all_reduce),  # o: row split
        (0, W * (t * D + D + t * D), 0),  # MLP norm
        (2 * t * D * FF // n, W * (t * D + D * FF // n + t * FF // n), 0),  # gate
        (2 * t * D * FF // n, W * (t * D + D * FF // n + t * FF // n), 0),  # up
        (2 * t * FF * D // n, W * (t * FF // n + FF * D // n + t * D), all_reduce),  # down
    ]
    globals_ = [
        (0, W * (t * D + t * D), 0),  # embedding: one row per token
        (0, W * (t * D + D + t * D), 0),  # final norm
        (2 * t * D * VOCAB // n, W * (t * D + D * VOCAB // n + t * VOCAB // n), 0),  # head
    ]
    lower = LAYERS * sum(_time(*k) for k in layer) + sum(_time(*k) for k in globals_)
    moved = LAYERS * sum(k[1] for k in layer) + sum(k[1] for k in globals_)
    return lower, Fraction(moved)


def _serve(phase: str, batch: int, context: int, n: int = N, *more: str) -> dict:
    argv = ["model", "llama-2-70b", "--chip", "h100", "--devices", str(n), "--phase", phase]
    argv += ["--set", f"B={batch}", "--set", f"S={context}", "--format", "json", *more]
    result = run_cli(argv)
    assert result.code == 0, result
    return json.loads(result.out)["serving"]


def test_a_decode_step_of_a_70b_model_on_8_chips():
    serving = _serve("decode", 64, 8192)
    lower, moved = _step(64, 64, 8192)
    assert Fraction(serving["step"]["bytes"]) == moved
    assert Fraction(serving["step"]["t_lower"]) == lower
    assert Fraction(serving["tokens_per_s"]) == 64 / lower
    assert Fraction(serving["inter_token_latency"]) == lower
    assert serving["step"]["binding"] == "memory"
    assert (
        serving["crossover_step"]["status"] == "never"
    )  # 8k of KV per sequence keeps it memory-bound


def test_tp_beyond_the_kv_heads_replicates_them_one_per_device():
    # 16 devices, 8 KV heads: one head each; the all-reduces on one NVLink ring of 16, as _step
    # times them (without --mesh, TP over two nodes of 8 takes --mesh default: test_serving_mesh)
    serving = _serve("decode", 16, 4096, 16, "--mesh", "gpu=16@4.5e11")
    lower, moved = _step(16, 16, 4096, n=16)
    assert Fraction(serving["step"]["bytes"]) == moved
    assert Fraction(serving["step"]["t_lower"]) == lower
    argv = ["model", "llama-2-70b", "--chip", "h100", "--devices", "16", "--phase", "decode"]
    result = run_cli(argv + ["--set", "B=16", "--set", "S=4096"])
    assert result.code == 0 and "each device holds one KV head" in result.out
    result = run_cli(argv + ["--tp", "16", "--set", "B=1", "--set", "S=8"])
    assert result.code == 0


def test_a_prefill_ttft_on_8_chips():
    serving = _serve("prefill", 1, 4096)
    lower, _ = _step(4096, 1, 4096)
    assert Fraction(serving["ttft"]) == lower
    assert Fraction(serving["prefill_tokens_per_s"]) == 4096 / lower
    assert serving["tokens_per_s"] is None and serving["crossover"] is None


def test_the_decode_crossover_satisfies_its_equation():
    serving = _serve("decode", 64, 8192)
    b = sp.Symbol("B", positive=True, integer=True)
    q, kv = HEADS * DH, KV * DH
    weights = q * D + 2 * D * kv + q * D + 3 * D * FF  # per layer: q, k, v, o, gate, up, down
    flops = 2 * b * (LAYERS * weights + D * VOCAB) / N
    # per layer: q, k, v read x and write their heads; o reads heads, writes x; gate and up
    # read x, write f/N; down reads f/N, writes x. Then the head: x in, V/N logits out.
    per_layer = 7 * b * D + 2 * b * q // N + 2 * b * kv // N + 3 * b * FF // N
    activations = LAYERS * per_layer + b * D + b * VOCAB // N
    moved = W * ((LAYERS * weights + D * VOCAB) // N + activations)
    crossing = sp.Rational(serving["crossover"]["exact"])
    assert flops.subs(b, crossing) / sp.Rational(PEAK) == moved.subs(b, crossing) / sp.Rational(HBM)
    assert serving["crossover"]["min_compute_bound"] == int(sp.ceiling(crossing))
    lead = sp.Rational(serving["crossover_regime"]["exact"])
    assert lead == sp.Rational(PEAK / HBM) * W / 2  # B ≪ d: 2·B FLOPs per weight of W bytes


def test_phase_flags_without_a_phase_and_bad_tp_exit_2():
    base = [
        "model",
        "llama-2-70b",
        "--chip",
        "h100",
        "--devices",
        "8",
        "--set",
        "B=1",
        "--set",
        "S=8",
    ]
    for extra, message in (
        (["--launch-overhead", "5us"], "give --phase"),
        (
            ["--phase", "decode", "--tp", "3"],
            "divides --devices (8) into replicas: one of 1, 2, 4, 8",
        ),
        (["--phase", "decode", "--measured-time", "0"], "must be positive"),
    ):
        result = run_cli(base + extra)
        assert result.code == 2 and result.err.count("\n") == 1 and message in result.err, result
    result = run_cli(
        [
            "model",
            "llama-2-70b",
            "--chip",
            "h100",
            "--devices",
            "3",
            "--set",
            "B=1",
            "--set",
            "S=8",
            "--phase",
            "decode",
        ]
    )
    assert result.code == 2 and "not divisible by 3" in result.err


def test_the_builtin_key_has_a_serving_chapter_with_its_figure():
    from tests.commands.test_key import builtin_files

    files = builtin_files()
    figure = files["rooflines-serve-70b-decode-serving.svg"]
    assert "S = 2048" in figure and "S = 32768" in figure and "B* ≈" in figure
    key = files["rooflines.md"]
    from importlib import resources

    from derive.commands.key import BUILTIN_SET
    from derive.problem.sets.problem_set import parse_problem_set

    text = resources.files("derive").joinpath(BUILTIN_SET).read_text("utf-8")
    number = parse_problem_set(text, "rooflines.toml").number("serve-70b-decode")  # file order
    assert f"## Problem {number} (serve-70b-decode)" in key and "Serving rates" in key
    assert "](rooflines-serve-70b-decode-serving.svg)" in key
    tex = files["rooflines.tex"]
    assert r"\begin{tikzpicture}" in tex[tex.index("(serve-70b-decode):") :]


def test_serving_keys_in_a_set_are_checked(tmp_path):
    base = 'title = "s"\n[[problem]]\nid = "p"\ntitle = "t"\nmodel = "llama-2-70b"\nchip = "h100"\n'
    for extra, message in (
        ("tp = 8\n", "add phase"),
        ('phase = "train"\n', "decode or prefill"),
        ('phase = "prefill"\nserving_plot = { to = 8, contexts = [8] }\n', "decode rate"),
        ('phase = "decode"\nserving_plot = { to = 8, contexts = [] }\n', "contexts"),
        ('phase = "decode"\nlaunch_overhead = "5 min"\n', "not a duration"),
        ('phase = "decode"\nask = ["tokens_per_hour"]\n', "unknown quantity"),
    ):
        path = tmp_path / "set.toml"
        path.write_text(base + extra)
        result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
        assert result.code == 2 and result.err.count("\n") == 1 and message in result.err, (
            extra,
            result,
        )
        assert "problem 'p'" in result.err
