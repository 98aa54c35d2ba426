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
