"""Pipeline schedules through ``derive train --schedule``: 1F1B, ZB-1P and DeepSeek-V3's DualPipe.

The bubbles are the DeepSeek-V3 Technical Report's Table 2 (and DualPipe's README), re-typed
here from their formulas: 1F1B (PP − 1)(F + B), ZB-1P (PP − 1)(F + B − 2W), DualPipe
(PP/2 − 1)(F&B + B − 3W), with F, B (the whole backward) and W (its weight gradients) of one
micro-batch on one stage computed here from the run's own FLOP counts, F&B their compute F + B.
No expected number is copied from a source: every one is computed from the run's inputs.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

DEEPSEEK_V3 = "derive/data/problems/configs/deepseek-v3.json"
# DeepSeek-V3 Technical Report §3.1-3.2: 2048 H800s, 16-way PP, 64-way EP over the DP group,
# ZeRO-1; 15360 sequences of 4096 tokens a step (micro-batches of one sequence).
PP, DEVICES, EP, SEQ, SEQUENCES = 16, 2048, 64, 4096, 15360
DV3 = [
    "train", DEEPSEEK_V3, "--chip", "h800", "--dp", str(DEVICES // PP), "--ep", str(EP),
    "--pp", str(PP), "--zero", "1", "--batch-tokens", str(SEQUENCES * SEQ), "--seq", str(SEQ),
    "--mesh", "default", "--format", "json",
]  # fmt: skip
LLAMA = ["train", "llama-3-8b", "--chip", "h100", "--seq", "4096", "--format", "json"]
# Llama 3 8B by hand (as tests/test_training_mesh.py): L = 32, d = 4096, 32 query and 8 KV
# heads of 128, f = 14336 gated, V = 128256, untied head.
L, D, H, KV, DH, F, V = 32, 4096, 32, 8, 128, 14336, 128256
BLOCK = D * H * DH + 2 * D * KV * DH + H * DH * D + 3 * D * F + 2 * D


def _json(cli, argv: list[str]) -> dict:
    r = cli(argv)
    assert r.code == 0, r.err
    return json.loads(r.out)


def _chunks(out: dict) -> tuple[Fraction, Fraction, Fraction]:
    """F, B, W of the whole step's FLOPs (a common factor N·π·M apart from seconds): the
    forward 2·P_act·T + F_attn/3, the backward 4·P_act·T + 2·F_attn/3 + the recomputation,
    its weight gradients 2·P_act·T (6·P_act·T is flops_params, F_attn flops_attention)."""
    params, attention = Fraction(out["flops_params"]), Fraction(out["flops_attention"])
    recompute = Fraction(out["flops_recompute"])
    return (params + attention) / 3, 2 * (params + attention) / 3 + recompute, params / 3


def _bubble(schedule: str, pp: int, f: Fraction, b: Fraction, w: Fraction) -> Fraction:
    """Table 2 of the DeepSeek-V3 Technical Report, re-typed."""
    if schedule == "1f1b":
        return (pp - 1) * (f + b)
    if schedule == "zb1p":
        return (pp - 1) * (f + b - 2 * w)
    f_and_b = f + b  # a forward and a backward chunk overlapped: their compute
    return (Fraction(pp, 2) - 1) * (f_and_b + b - 3 * w)


@pytest.mark.parametrize("schedule", ["1f1b", "zb1p", "dualpipe"])
def test_deepseek_v3s_published_layout_and_its_bubble(cli, schedule):
    out = _json(cli, DV3 + ["--schedule", schedule])
    m = SEQUENCES // (DEVICES // PP)
    assert (out["devices"], out["pp"], out["ep"], Fraction(out["microbatches"])) == (
        DEVICES,
        PP,
        EP,
        m,
    )
    assert [a["size"] for a in out["mesh"]] == [8, DEVICES // 8]  # 8 H800s a node
    f, b, w = (x / m for x in _chunks(out))  # one micro-batch's
    bubble = _bubble(schedule, PP, f, b, w)
    assert Fraction(out["bubble_fraction"]) == bubble / (m * (f + b) + bubble)
    assert Fraction(out["bubble_over_ideal"]) == bubble / (m * (f + b))
    if schedule == "1f1b":  # the (PP − 1)(F + B) form is GPipe's (pp − 1)/(M + pp − 1)
        assert Fraction(out["bubble_fraction"]) == Fraction(PP - 1, m + PP - 1)
        assert "schedule" not in out
    else:
        assert out["schedule"] == schedule
        chunk = out["chunk_seconds"]
        ratios = [Fraction(chunk[k]) / Fraction(chunk["forward"]) for k in ("backward", "weight")]
        assert ratios == [b / f, w / f]


def test_dualpipe_has_the_smallest_bubble_on_deepseek_v3(cli):
    fractions = [
        Fraction(_json(cli, DV3 + ["--schedule", s])["bubble_fraction"])
        for s in ("1f1b", "zb1p", "dualpipe")
    ]
    assert fractions == sorted(fractions, reverse=True)


def test_1f1b_is_the_default_byte_for_byte(cli):
    base = LLAMA + ["--pp", "4", "--batch-tokens", str(16 * 4096)]
    for fmt in ("json", "md"):
        argv = base[:-1] + [fmt]
        assert cli(argv).out == cli(argv + ["--schedule", "1f1b"]).out
    interleaved = base + ["--virtual-stages", "2"]
    assert cli(interleaved).out == cli(interleaved + ["--schedule", "interleaved"]).out


def test_dualpipe_holds_two_stages_and_keeps_pp_plus_one_in_flight(cli):
    """Device i holds stages i and pp − 1 − i: 2·L/pp blocks, and device 0 both ends (the
    embedding V·d; the head d·V and the final norm d), where 1F1B's heavier end stage holds
    L/pp blocks and the head and norm. Full recomputation keeps a layer's input, 2·S·d bytes."""
    pp, m = 4, 16
    argv = LLAMA + ["--pp", str(pp), "--batch-tokens", str(m * 4096), "--zero", "0"]
    one, dual = (_json(cli, argv + ["--schedule", s]) for s in ("1f1b", "dualpipe"))
    assert Fraction(one["params_per_device"]) == L // pp * BLOCK + D * V + D
    held = 2 * (L // pp) * BLOCK + V * D + D * V + D
    assert Fraction(dual["params_per_device"]) == held
    for part, width in (("weights", 2), ("grads", 2), ("optimizer", 12)):  # adam-mixed
        assert Fraction(dual["memory_per_device"][part]) == width * held
    layer = 2 * 4096 * D  # bf16 layer input of one micro-batch
    assert Fraction(one["memory_per_device"]["activations"]) == pp * (L // pp) * layer
    assert Fraction(dual["memory_per_device"]["activations"]) == (pp + 1) * (L // pp) * layer


def test_dualpipe_hides_one_passs_traffic_behind_the_others_compute(cli):
    """T_lower = max(T_fwd + T_bwd, C_fwd + C_bwd): the step's compute (stretched by the
    bubble, t_math times 1 + bubble/ideal) against all its traffic (tp = 1: none exposed)."""
    argv = LLAMA + ["--pp", "4", "--dp", "2", "--batch-tokens", str(2 * 16 * 4096)]
    for link in ("4.5e11", "1e9"):  # compute-bound, then communication-bound
        out = _json(cli, argv + ["--schedule", "dualpipe", "--link-bandwidth", link])
        compute = (1 + Fraction(out["bubble_over_ideal"])) * Fraction(out["t_math"])
        assert Fraction(out["t_lower"]) == max(compute, Fraction(out["t_comms"]))
        assert out["compute_bound"] is (compute >= Fraction(out["t_comms"]))


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--pp", "3", "--schedule", "dualpipe"], "even pp"),
        (["--pp", "4", "--schedule", "dualpipe", "--batch-tokens", str(7 * 4096)], "M even"),
        (["--pp", "4", "--schedule", "dualpipe", "--batch-tokens", str(6 * 4096)], "at least 2·pp"),
        (["--schedule", "zb1p"], "--pp 2 or more"),
        (["--pp", "4", "--schedule", "dualpipe", "--virtual-stages", "2"], "interleaved 1F1B's"),
        (
            ["--pp", "4", "--schedule", "dualpipe", "--convention", "megatron"],
            "--convention derive",
        ),
        (["--pp", "4", "--schedule", "interleaved"], "--virtual-stages 2"),
        (["--pp", "4", "--schedule", "gpipe"], "one of 1f1b"),
    ],
)
def test_refusals_in_one_line(cli, extra, words):
    argv = LLAMA + ["--batch-tokens", str(16 * 4096)] + extra
    r = cli(argv)
    assert r.code == 2
    assert r.err.startswith("error: --schedule") and words in r.err, r.err
    assert r.err.count("\n") == 1
