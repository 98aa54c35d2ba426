"""The Scaling Book's training chapter ("How to Parallelize a Transformer for Training"), its
collective and critical-batch numbers, under ``--convention scaling-book`` (issue 45,
Done-means 3). tests/test_scaling_book.py holds the FSDP, DCN, mixed FSDP + TP and HBM/10 ones.

Each expected value is the book's formula evaluated here on its inputs (chips.toml's figures,
checked below; the models' F), never its printed answer; derive's own value is printed beside
it (the JSON's ``derive_convention``, or a run without the preset).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import sympy as sp
import tomllib

ROOT = Path(__file__).resolve().parents[2]
CHIPS = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text())
C_V5P = Fraction(CHIPS["tpu-v5p"]["peak_bf16_flop_per_s"]["value"])  # 4.59e14
W_ICI = 2 * Fraction(CHIPS["tpu-v5p"]["link_bytes_per_s"]["value"])  # bidirectional, 2 · 9e10
DCN_PER_HOST, CHIPS_PER_HOST = Fraction("2.5e10"), 4  # "Scaling Between Pods"
F_70B = 28672


def test_inputs_are_the_books():
    """ "For TPUv5p, C=4.6e14 and W=2 * 9e10" (chips.toml: 4.59e14, as the FSDP section)."""
    assert (Fraction("4.59e14"), Fraction("1.8e11")) == (C_V5P, W_ICI)


def _train(cli, *args: str, book: bool = True) -> dict:
    argv = ["train", *args, "--recompute", "none", "--format", "json"]
    r = cli(argv + (["--convention", "scaling-book"] if book else []))
    assert r.code == 0, r.err
    return json.loads(r.out)


def _book(cli, key: str, *run: str) -> Fraction:
    book, own = _train(cli, *run), _train(cli, *run, book=False)
    print(f"{key}: scaling-book {book[key]}, derive {own[key]}")
    return Fraction(book[key])


def _dp(dp: int, zero: str, *mesh: str) -> tuple[str, ...]:
    return ("llama-3-8b", "--chip", "tpu-v5p", "--dp", str(dp), "--zero", zero, *mesh,
            "--batch-tokens", str(dp * 4096), "--seq", "4096")  # fmt: skip


def test_pure_data_parallelism_needs_c_over_w_a_chip(cli):
    """ "Data Parallelism": two all-reduces of 2DF bytes a layer, B/X > C/W_ici, "our batch size
    per chip must be at least 2,550" (C = 4.6e14 gives 2,556; chips.toml's 4.59e14, 2,550)."""
    assert _book(cli, "critical_tokens_per_chip", *_dp(8, "0")) == C_V5P / W_ICI


def test_data_parallelism_over_three_axes_is_850(cli):
    """ "If we dedicate all three axes ... we 3x our bandwidth ... BS=850 per TPU"."""
    mesh = ("--mesh", ",".join(f"{a}=4@9e10:torus" for a in "xyz"))
    assert _book(cli, "critical_tokens_per_chip", *_dp(64, "0", *mesh)) == C_V5P / (3 * W_ICI)


def test_tp_limit_f_over_2550_and_n_axes_times_it(cli):
    """ "Tensor Parallelism": Y < F·W_ici/C = F/2550, "Y < n_axes · F / 2550" over several axes;
    "Scaling Between Pods": Llama 3 70B "Y > n_axes · F / 2550 ≈ n_axes · 11" (F = 28,672: 11.2)."""
    for mesh, axes in (("x=8@9e10:torus", 1), ("x=4@9e10:torus,y=2@9e10:torus", 2)):
        run = ("llama-3-70b", "--chip", "tpu-v5p", "--tp", "8", "--mesh", mesh,
               "--batch-tokens", "4096", "--seq", "4096")  # fmt: skip
        assert _book(cli, "tp_max_scaling_book", *run) == axes * F_70B * W_ICI / C_V5P


def test_across_pods_a_pods_batch_must_exceed_its_compute_over_its_dcn(cli):
    """ "Scaling Between Pods": pure DP over DCN, per-pod batch > C_pod/W_DCN, C_pod the pod's
    chips' FLOP/s and W_DCN 2.5e10 a host of 4 chips. The book's "3.8e18 / 5e13 = 76,000" rounds
    8,960 chips to 8k and 2,240 hosts to 2,000; the ratio is 4·C/2.5e10 whatever the pod's size
    (73,440 on chips.toml's C). Two pods of 64 chips here."""
    chips = 64
    mesh = ",".join(f"{a}=4@9e10:torus" for a in "xyz") + f",pod=2@{DCN_PER_HOST / CHIPS_PER_HOST}"
    per_chip = _book(cli, "critical_tokens_per_chip", *_dp(2 * chips, "3", "--mesh", mesh))
    c_pod, w_dcn = chips * C_V5P, chips // CHIPS_PER_HOST * DCN_PER_HOST
    assert per_chip * chips == c_pod / w_dcn


def test_fsdp_is_data_parallelisms_critical_batch(cli):
    """ "FSDP": "our relative FLOPs and comms costs are exactly the same as pure data
    parallelism": B/X > C/W_ici ("4.59e14 / 1.8e11 = 2550")."""
    zero3, zero0 = _dp(8, "3"), _dp(8, "0")
    assert _book(cli, "critical_tokens_per_chip", *zero3) == _book(
        cli, "critical_tokens_per_chip", *zero0
    )


def _mixed(cli, model: str, f: int, sides: str, dp: int, tp: int, tokens: int, seq: int):
    """A v5p slice, TP on its first axis (M_Y = 1), FSDP on the other two (M_X = 2)."""
    mesh = ",".join(f"{a}={n}@9e10:torus" for a, n in zip("xyz", sides.split("x"), strict=True))
    run = (model, "--chip", "tpu-v5p", "--dp", str(dp), "--tp", str(tp), "--zero", "3",
           "--mesh", mesh, "--batch-tokens", str(tokens), "--seq", str(seq))  # fmt: skip
    book, own = _train(cli, *run), _train(cli, *run, book=False)
    least, x_opt = book["mixed_tokens_per_chip_scaling_book"], book["fsdp_opt_scaling_book"]
    print(f"mixed FSDP + TP: scaling-book B/N > {least}, X_opt = {x_opt}; derive's own critical "
          f"batch of this split {own['critical_tokens_per_chip']}")  # fmt: skip
    alpha, n = C_V5P / W_ICI, dp * tp
    assert Fraction(least) == alpha**2 / (2 * 1 * f)
    x = sp.sympify(x_opt)
    assert x**2 == sp.Rational(tokens * 2 * n, f) and x > 0  # X_opt² = B/F · M_X/M_Y · N
    return Fraction(least)


def test_mixed_fsdp_and_tp_on_a_4x4x4(cli):
    """ "Combining FSDP and Tensor Parallelism" (T_comms the max of the two): X_opt =
    √(B/F · M_X/M_Y · N), "N = 64, B = 48,000, F = 32768 gives roughly X ≈ 13.9" (the formula
    gives 13.7); compute-bound for B/N > α²/(M_X·M_Y·F), "roughly B/N > 99" at F = 32,768.
    Llama 3 70B's F = 28,672 here; "Scaling Across Pods" writes F ≈ 30,000 for it ("108")."""
    _mixed(cli, "llama-3-70b", F_70B, "4x4x4", 16, 4, 48000, 3000)


def test_mixed_fsdp_and_tp_on_a_16x16x16(cli):
    """Question 3: 3M tokens on a v5p 16x16x16, "2550² / 2F = 235" (LLaMA-2 13B's F = 13,824;
    Llama 3 8B's 14,336 here, on 4096 chips as 8x16x32, TP on the 8) and "X_opt = sqrt(3e6 * 2 * 4096 / 13824) = 1333" (the text's
    √((F/B)·…) inverts B/F); the slice's least batch N·α²/(2F), "4096 · 2550² / (2 · 8192 · 4)
    = 4e5" (its figure: "comms-bound below 6e5"; an earlier edition printed 1.6e10 for 1.6e6)."""
    tokens = 3 * 512 * 2048  # 3M: 512-way FSDP of sequences of 2048, TP 8 on an 8-long axis
    least = _mixed(cli, "llama-3-8b", 14336, "8x16x32", 512, 8, tokens, 2048)
    assert 4096 * least == 4096 * (C_V5P / W_ICI) ** 2 / (2 * 14336)
