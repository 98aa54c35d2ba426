"""Attention's FLOPs in a training step (issue 46): 6·P·T and the attention term, through the CLI.

Every expected count is made here from the model's own numbers (its config.json, or Llama 3
8B's published shape) by counting the (query, key) pairs a mask keeps, by formula and, on a
small model, one pair at a time.
"""

from __future__ import annotations

import json
from fractions import Fraction

from conftest import ROOT

CONFIGS = ROOT / "tests" / "data" / "configs"
H100_PEAK = Fraction(989 * 10**12)
# Llama 3 8B: L = 32 layers of 32 query heads of 128 (its parameters: tests/training/test_training.py)
L, H, DH, P_8B = 32, 32, 128, 8030261248


def _train(cli, model: str, *flags: str) -> dict:
    r = cli(["train", model, "--chip", "h100", *flags, "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def _fr(text: str) -> Fraction:
    return Fraction(text)


def _pairs(s: int, window: int | None = None, causal: bool = True) -> int:
    """The (query, key) pairs of one layer, one pair at a time: query i attends key j when the
    mask keeps it (j ≤ i) and j is among the window's last W positions (i − j < W)."""
    w = s if window is None else window
    if not causal:  # every query attends min(s, W) keys
        return s * min(s, w)
    return sum(1 for i in range(s) for j in range(s) if j <= i and i - j < w)


def _config(name: str) -> dict:
    path = CONFIGS / name
    return json.loads((path / "config.json" if path.is_dir() else path).read_text())


# The 128K example: Llama 3 8B, tp 8 × cp 8 on 64 H100s, full recomputation.
LONG = [
    "--tp", "8", "--cp", "8", "--dp", "1", "--zero", "1", "--recompute", "full",
    "--batch-tokens", "2097152", "--seq", "131072", "--mesh", "default",
]  # fmt: skip


def test_the_128k_step_counts_causal_attention_and_is_compute_bound(cli):
    r = _train(cli, "llama-3-8b", *LONG)
    s, t = 131072, 2097152
    pairs = L * s * (s + 1) // 2  # a causal layer keeps j ≤ i
    forward = Fraction(t, s) * pairs * 4 * H * DH  # q·k and p·v, 2·d_h FLOPs each a pair
    assert _fr(r["flops_params"]) == 6 * P_8B * t
    assert _fr(r["flops_attention"]) == 3 * forward  # forward, and twice that backward
    assert _fr(r["flops_model"]) == 6 * P_8B * t + 3 * forward
    assert _fr(r["flops_recompute"]) == 2 * P_8B * t + forward  # the forward again, attention too
    t_math = (8 * P_8B * t + 4 * forward) / (64 * H100_PEAK)
    assert _fr(r["t_math"]) == t_math  # about 6.68 s, where 6·P·T alone gave 2.13 s
    assert _fr(r["t_comms"]) < t_math and r["compute_bound"] is True
    # TP's all-reduces (2 a layer forward, 2 + 2 again backward under full recomputation, over
    # M = 16 micro-batches, 2·(8−1)/8 of S/cp·d bf16 each) sit on the critical path, NVLink's 4.5e11
    tp = 6 * L * (t // s) * Fraction(2 * 7, 8) * 2 * (s // 8) * 4096 / Fraction(450 * 10**9)
    assert _fr(r["t_lower"]) == t_math + tp
    assert r["attention_mask"] == "causal"


def test_the_worked_solution_names_6pt_and_the_attention_term_apart(cli):
    r = cli(["train", "llama-3-8b", "--chip", "h100", *LONG])
    assert r.code == 0, r.err
    assert r"F_{\text{params}} = 6 \cdot P_{\mathrm{act}} \cdot T" in r.out
    assert r"F_{\text{model}} = F_{\text{params}} + F_{\text{attn}}" in r.out
    assert "query i attends keys j ≤ i, S(S+1)/2 pairs a layer" in r.out
    assert "Context parallelism: each of the cp = 8 ranks" in r.out
    verdict = next(line for line in r.out.splitlines() if line.startswith("**Step at least"))
    assert "compute-bound" in verdict  # communication-bound while 6·P·T alone was counted


def test_no_mask_counts_every_pair(cli):
    s, t = 4096, 32768
    flags = ["--dp", "8", "--zero", "1", "--recompute", "none", "--batch-tokens", str(t)]
    causal = _train(cli, "llama-3-8b", *flags, "--seq", str(s))
    full = _train(cli, "llama-3-8b", *flags, "--seq", str(s), "--attention-mask", "none")
    per_pair = 4 * H * DH
    assert _fr(full["flops_attention"]) == 3 * Fraction(t, s) * L * s * s * per_pair
    assert _fr(causal["flops_attention"]) == 3 * Fraction(t, s) * L * s * (s + 1) // 2 * per_pair
    assert _pairs(256) == 256 * 257 // 2 and _pairs(256, causal=False) == 256 * 256
    assert full["attention_mask"] == "none"
    assert _fr(full["t_math"]) == (6 * P_8B * t + _fr(full["flops_attention"])) / (8 * H100_PEAK)


def test_a_bad_mask_is_one_line(cli):
    r = cli(["train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--batch-tokens", "32768",
             "--seq", "4096", "--attention-mask", "sideways"])  # fmt: skip
    assert r.code == 2 and r.err.count("\n") == 1
    assert r.err.startswith("error: --attention-mask sideways: ")


def test_sliding_windows_count_their_pairs_exactly(cli):
    """Gemma 2 (tiny): a window on every other layer, the first included; Mistral 7B: on all."""
    g = _config("gemma2-tiny.json")
    layers, w = g["num_hidden_layers"], g["sliding_window"]
    windowed = (layers + 1) // 2
    per_pair = 4 * g["num_attention_heads"] * g["head_dim"]
    for s in (8, 16, 64):  # within the window, at it, beyond it
        t = 4 * s
        flags = ["--dp", "1", "--recompute", "none", "--batch-tokens", str(t), "--seq", str(s)]
        r = _train(cli, str(CONFIGS / "gemma2-tiny.json"), *flags)
        pairs = (layers - windowed) * _pairs(s) + windowed * _pairs(s, w)
        assert _fr(r["flops_attention"]) == 3 * Fraction(t, s) * pairs * per_pair, s
        free = _train(cli, str(CONFIGS / "gemma2-tiny.json"), *flags, "--attention-mask", "none")
        pairs = (layers - windowed) * _pairs(s, causal=False) + windowed * _pairs(s, w, False)
        assert _fr(free["flops_attention"]) == 3 * Fraction(t, s) * pairs * per_pair, s
    m = _config("mistral-7b")
    s, t, w = 32768, 262144, m["sliding_window"]
    r = _train(cli, str(CONFIGS / "mistral-7b"), "--dp", "8", "--zero", "3", "--batch-tokens",
               str(t), "--seq", str(s))  # fmt: skip
    head = m["hidden_size"] // m["num_attention_heads"]
    # Σ_i min(i, W): the first W queries ramp up, the rest attend W keys each
    pairs = m["num_hidden_layers"] * (w * (w + 1) // 2 + (s - w) * w)
    assert (
        _fr(r["flops_attention"])
        == 3 * Fraction(t, s) * pairs * 4 * m["num_attention_heads"] * head
    )


def test_context_parallelism_shares_the_attention_evenly(cli):
    s, t = 8192, 65536
    base = ["--zero", "1", "--recompute", "full", "--batch-tokens", str(t), "--seq", str(s)]
    dp = _train(cli, "llama-3-8b", "--dp", "8", *base)
    cp = _train(cli, "llama-3-8b", "--dp", "2", "--cp", "4", *base)
    forward = Fraction(t, s) * L * s * (s + 1) // 2 * 4 * H * DH
    for r in (dp, cp):  # the same step's FLOPs, 1/8 of them on each of the 8 devices
        assert _fr(r["flops_attention"]) == 3 * forward
        assert _fr(r["t_math"]) == (8 * P_8B * t + 4 * forward) / (8 * H100_PEAK)
    # Megatron's load-balanced split: 2·cp chunks, rank r holds chunks r and 2·cp − 1 − r, and
    # each rank's causal pairs are exactly 1/cp of the sequence's
    c, n = 4, s // 8
    ranks = [
        sum(_rows(n * k, n) for k in (r, 2 * c - 1 - r))
        for r in range(c)
    ]  # fmt: skip
    assert len(set(ranks)) == 1 and ranks[0] * c == s * (s + 1) // 2


def _rows(start: int, count: int) -> int:
    """Causal pairs of queries start+1 … start+count (query i attends i keys)."""
    return sum(range(start + 1, start + count + 1))


def test_latent_attention_trains_per_head(cli):
    """DeepSeek-V3: scores over qk_nope + qk_rope per head, values over v_head_dim."""
    c = _config("deepseek-v3")
    s, t = 4096, 32768
    r = _train(cli, str(CONFIGS / "deepseek-v3"), "--dp", "8", "--zero", "3", "--recompute",
               "selective", "--batch-tokens", str(t), "--seq", str(s))  # fmt: skip
    qk = c["qk_nope_head_dim"] + c["qk_rope_head_dim"]
    per_pair = 2 * c["num_attention_heads"] * (qk + c["v_head_dim"])
    forward = Fraction(t, s) * c["num_hidden_layers"] * (s * (s + 1) // 2) * per_pair
    assert _fr(r["flops_attention"]) == 3 * forward
    assert _fr(r["flops_recompute"]) == forward  # selective: the attention core's forward again


def test_the_scaling_book_keeps_6nd(cli):
    flags = ["--dp", "8", "--zero", "1", "--batch-tokens", "32768", "--seq", "4096"]
    for recompute, again in (("full", 2 * P_8B * 32768), ("selective", 0), ("none", 0)):
        r = _train(cli, "llama-3-8b", *flags, "--recompute", recompute, "--convention",
                   "scaling-book")  # fmt: skip
        assert _fr(r["flops_model"]) == _fr(r["flops_params"]) == 6 * P_8B * 32768
        assert _fr(r["flops_attention"]) == 0 and _fr(r["flops_recompute"]) == again
    md = cli(["train", "llama-3-8b", "--chip", "h100", *flags, "--convention", "scaling-book"])
    assert "attention's FLOPs are not counted (the book's 6ND)" in md.out


def test_a_model_known_by_its_size_says_attention_is_left_out(cli):
    flags = ["--params", "70e9", "--chip", "h100", "--dp", "64", "--zero", "3"]
    run = [*flags, "--batch-tokens", "4194304", "--seq", "4096"]
    r = cli(["train", *run, "--format", "json"])
    assert r.code == 0, r.err
    report = json.loads(r.out)
    assert _fr(report["flops_attention"]) == 0
    assert _fr(report["flops_model"]) == 6 * 70 * 10**9 * 4194304
    md = cli(["train", *run])
    assert "Attention's FLOPs are left out: they need an architecture." in md.out
