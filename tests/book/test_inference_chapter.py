"""The Scaling Book's inference chapters ("All About Transformer Inference", "Serving LLaMA 3-70B
on TPUs"): decode step times, KV caches, the decode critical batch and TP's collectives in a
serving step, under ``--convention scaling-book`` (issue 45, Done-means 3).

Each expected value is the book's formula evaluated here on its stated inputs (chips.toml's
figures, checked below; the question's numbers), never its printed answer; derive's own exact
value is printed beside it (the JSON's ``derive_convention`` or a run without the preset).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
CHIPS = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text())
C_V5E = Fraction(CHIPS["tpu-v5e"]["peak_bf16_flop_per_s"]["value"])
C8_V5E = Fraction(CHIPS["tpu-v5e"]["peak_int8_op_per_s"]["value"])
HBM_V5E = Fraction(CHIPS["tpu-v5e"]["hbm_bytes_per_s"]["value"])
ICI_V5E = Fraction(CHIPS["tpu-v5e"]["link_bytes_per_s"]["value"])  # one way; W_ici = 2·4.5e10
L, D, K, H = 80, 8192, 8, 128  # Llama 3 70B: layers, width, KV heads, head width


def test_inputs_are_the_books():
    """1.97e14 bf16, 3.94e14 int8, 4.5e10 one-way ICI; HBM 8.2e11 in chips.toml where the
    inference chapter writes 8.1e11 (the tests take chips.toml's, so the times differ by 1 %)."""
    assert (Fraction("1.97e14"), Fraction("3.94e14"), 45 * 10**9) == (C_V5E, C8_V5E, ICI_V5E)
    assert Fraction("8.2e11") == HBM_V5E


def _serving(cli, *argv: str, book: bool = True) -> dict:
    flags = ["--convention", "scaling-book"] if book else []
    r = cli(["model", *argv, "--phase", "decode", "--format", "json", *flags])
    assert r.code == 0, r.err
    return json.loads(r.out)


def _latency(cli, *argv: str) -> Fraction:
    book, own = _serving(cli, *argv), _serving(cli, *argv, book=False)
    b, o = book["serving"]["inter_token_latency"], own["serving"]["inter_token_latency"]
    print(f"inter_token_latency: scaling-book {b}, derive {o}")
    return Fraction(b)


def test_pop_quiz_lower_bound_on_a_decode_step(cli):
    """ "Theoretical estimates": a 30B dense model in int8 on a v5e 4x4, 100 kB of KV a token,
    8192 of context: T = B·KV/W_hbm + max(2·B·P/C, P·bytes/W_hbm), 16 chips ("2.5 ms" at
    batch 4, "21 ms" at 256)."""
    params, kv, chips = 30 * 10**9, 100 * 10**3, 16
    for b in (4, 256):
        run = ("--params", str(params), "--kv-bytes-per-token", str(kv), "--dtype", "weights=int8",
               "--chip", "tpu-v5e", "--devices", str(chips), "--set", f"B={b}", "--set", "S=8192")  # fmt: skip
        attention = b * kv * 8192 / (chips * HBM_V5E)
        mlp = max(Fraction(2 * b * params) / (chips * C_V5E), params / (chips * HBM_V5E))
        assert _latency(cli, *run) == attention + mlp


def test_llama_3_70b_kv_cache_per_token_in_int8(cli):
    """ "Serving LLaMA 3-70B": 2·K·H·L bytes a token in int8 (the book's "160kB" is 163,840 B;
    it then multiplies by 162e3 and 160e3)."""
    r = cli(["model", "llama-3-70b", "--dtype", "kv=int8", "--format", "json"])
    assert Fraction(json.loads(r.out)["kv_bytes_per_token"]["exact"]) == 2 * K * H * L * 1


def test_llama_3_70b_decode_step_at_batch_32_on_a_4x2_and_a_4x4(cli):
    """Batch 32, 8192 of context, params and KV in int8: T ≈ (KV + params)/(N·W_hbm), memory
    bound ("17 ms" on a 4x2, half on a 4x4). The model by its size (70e9) as the book counts."""
    kv = 2 * K * H * L
    for chips in (8, 16):
        run = ("--params", "70e9", "--kv-bytes-per-token", str(kv), "--dtype", "weights=int8",
               "--chip", "tpu-v5e", "--devices", str(chips), "--set", "B=32", "--set", "S=8192")  # fmt: skip
        expected = (kv * 8192 * 32 + 70 * 10**9) / (chips * HBM_V5E)
        assert _latency(cli, *run) == expected


def test_the_decode_critical_batch_is_240_or_120(cli):
    """ "Thinking about throughput": compute bound when B > C/W_hbm (bf16, "240"); int8 weights
    with bf16 FLOPs halve it ("120"); int8 weights and int8 FLOPs, C_int8/(2·W_hbm) ("240")."""
    base = ("--params", "70e9", "--kv-bytes-per-token", "163840", "--chip", "tpu-v5e", "--devices", "8",
            "--set", "B=32", "--set", "S=8192")  # fmt: skip
    for dtype, expected in (
        ("bf16", C_V5E / HBM_V5E),
        ("weights=int8", C_V5E / (2 * HBM_V5E)),
        ("int8", C8_V5E / (2 * HBM_V5E)),
    ):
        crossover = _serving(cli, *base, "--dtype", dtype)["serving"]["crossover"]
        assert Fraction(crossover["exact"]) == expected, dtype


def test_tp_all_reduces_in_a_decode_step_on_a_mesh(cli):
    """ "Note on ICI bounds for generation" (applied: Llama 3 70B at batch 64 on a v5e 4x8):
    T_ici = 2·B·D/W_ici a gather, an all-reduce twice that, W the both-ways bandwidth of every
    axis it spans (two here). Without a mesh the book's step leaves TP out (the "19 %"); on a
    mesh typed, the preset times each of the 2 all-reduces a layer so."""
    mesh = "x=4@4.5e10:torus,y=8@4.5e10:torus"
    run = ("llama-3-70b", "--chip", "tpu-v5e", "--devices", "32", "--set", "B=64", "--set", "S=8192",
           "--mesh", mesh)  # fmt: skip
    book, own = _serving(cli, *run)["serving"], _serving(cli, *run, book=False)["serving"]
    per_call = 2 * (2 * 64 * D) / (2 * 2 * ICI_V5E)
    for name in ("o ×80", "down ×80"):
        kernel = next(k for k in book["step"]["kernels"] if k["name"] == name)
        assert Fraction(kernel["t_comms"]) == L * per_call
    told = book["derive_convention"]["latency"]
    assert told["value"] == own["inter_token_latency"]
    print(f"TP comms: scaling-book {book['step']['t_comms']}, derive {own['step']['t_comms']}")
    r = cli(["model", *run, "--phase", "decode", "--convention", "scaling-book"])
    assert "timed 2V/W, its “Note on ICI bounds for generation”" in r.out


def test_tp_limit_of_llama_3_70b_on_two_v5e_axes(cli):
    """Applied, "we're ICI bound in theory when Y > 2·F/2550 = 22": 2 axes · F·W_ici/C. The book
    takes v5p's 2550; a v5e's C/W_ici is 1.97e14/9e10 ≈ 2189, so the limit is about 26."""
    run = ("llama-3-70b", "--chip", "tpu-v5e", "--tp", "8", "--mesh", "x=4@4.5e10,y=2@4.5e10",
           "--batch-tokens", "4096", "--seq", "4096", "--recompute", "none", "--format", "json")  # fmt: skip
    r = cli(["train", *run, "--convention", "scaling-book"])
    assert r.code == 0, r.err
    assert Fraction(json.loads(r.out)["tp_max_scaling_book"]) == 2 * 28672 * 2 * ICI_V5E / C_V5E


def test_appendix_c_latency_bound_all_gather(cli):
    """ "Appendix C: Latency bound communications": T = max(T_min·X/2, B/W_ici); 8-way, latency
    bound below 8·4.5e10·1 us = 360 kB; BS = 16, D = 8192 int8 activations (131 kB) are."""
    mesh = "x=8@4.5e10+1us:torus"
    for b in (16, 64):
        argv = ["solve", "--collective", "AllGather_x(A[B, D_x])", "--dtype", "int8", "--mesh",
                mesh, "--set", f"B={b},D=8192", "--convention", "scaling-book", "--format", "json"]  # fmt: skip
        r = cli(argv)
        assert r.code == 0, r.err
        (one,) = json.loads(r.out)["collectives"]
        size = Fraction(b * 8192)
        assert Fraction(one["time"]) == max(Fraction(8, 2) / 10**6, size / (2 * ICI_V5E))
        print(f"B={b}: scaling-book {one['time']}, derive {one['time_derive']}")
    assert 16 * 8192 < 8 * ICI_V5E / 10**6 < 64 * 8192


def test_generation_can_shard_past_the_training_tp_limit(cli):
    """ "Note on ICI bounds for generation": memory bound, TP's T_ici = 2·B·D/W_ici passes the
    weights' T_hbm = 2·D·F/(Y·W_hbm) only from Y > F/(B·β), β = W_hbm/W_ici ("usually around 8":
    "16384 / (32 * 8) = 64"; applied, Llama 3 70B at batch 64, "28,672 / (8 * 64) = 56"). Here
    chips.toml's β on one v5e axis (8.2e11/9e10 = 9.1) and on a 4x8's two (W_ici doubled)."""
    for mesh, devices, axes in (
        ("x=8@4.5e10:torus", 8, 1),
        ("x=4@4.5e10:torus,y=8@4.5e10:torus", 32, 2),
    ):
        run = ("llama-3-70b", "--chip", "tpu-v5e", "--devices", str(devices), "--set", "B=64",
               "--set", "S=8192", "--mesh", mesh)  # fmt: skip
        got = _serving(cli, *run)["serving"]["tp_max_generation_scaling_book"]
        w_ici = axes * 2 * ICI_V5E
        assert Fraction(got) == 28672 * w_ici / (64 * HBM_V5E)
        print(f"generation TP bound on {mesh}: scaling-book {got} (derive: no counterpart)")


def _book_time(cli, collective: str, mesh: str, sets: str) -> tuple[Fraction, Fraction]:
    """(the book's time, derive's own) of one collective of bf16 on ``mesh``."""
    argv = ["solve", "--collective", collective, "--dtype", "bf16", "--mesh", mesh, "--set", sets,
            "--convention", "scaling-book", "--format", "json"]  # fmt: skip
    r = cli(argv)
    assert r.code == 0, r.err
    (one,) = json.loads(r.out)["collectives"]
    return Fraction(one["time"]), Fraction(one["time_derive"])


def test_question_7_2d_weight_stationary_sharding(cli):
    """Inference, Question 7: 2D weight-stationary, AllGather_YZ(In[B, D_XYZ]), AllReduce_X(Tmp[B,
    F_YZ]), ReduceScatter_YZ(Out[B, D_X]): T = 2BD/(2X·W) + 4BF/(YZ·W) + 2BD/(2X·W) (bf16 bytes
    2BD, W = W_ici both ways an axis), against 1D's AllGather and ReduceScatter over 3 axes,
    4BD/(3W). With F = 4D at X = √(N/8), YZ = √(8N), T_2D = √128·BD/(√N·W): 2D wins for
    N > 128·(3/4)² = 72 (the book prints "81"; its general form 32·(F/D)·(3/4)² is 72 too).
    Each term is derive's on a v5e torus at the optimal shapes N = 32 (2x4x4) and 128 (4x4x8);
    the crossover is read from derive's times (T_2D·√N is one constant)."""
    b, d, w = 128, 8192, 2 * ICI_V5E
    f, one_d = 4 * d, {}
    for x, y, z in ((2, 4, 4), (4, 4, 8)):
        mesh = ",".join(f"{a}={n}@{ICI_V5E}:torus" for a, n in zip("xyz", (x, y, z), strict=True))
        gather, own_g = _book_time(cli, "AllGather_{yz}(In[B, D_{xyz}])", mesh, f"B={b},D={d}")
        reduce, own_r = _book_time(cli, "AllReduce_x(Tmp[B, F_{yz}]{U_x})", mesh, f"B={b},F={f}")
        scatter, own_s = _book_time(
            cli, "ReduceScatter_{yz}(Out[B, D_x]{U_yz})", mesh, f"B={b},D={d}"
        )
        assert gather == scatter == 2 * b * d / (2 * x * w) and reduce == 4 * b * f / (y * z * w)
        g1, own_g1 = _book_time(cli, "AllGather_{xyz}(In[B, D_{xyz}])", mesh, f"B={b},D={d}")
        s1, own_s1 = _book_time(cli, "ReduceScatter_{xyz}(Out[B, D]{U_xyz})", mesh, f"B={b},D={d}")
        assert g1 + s1 == 4 * b * d / (3 * w)
        n, two_d = x * y * z, gather + reduce + scatter
        assert two_d**2 * n == 128 * (b * d / w) ** 2  # √128·BD/(√N·W), the optimal X and YZ
        one_d[n] = (two_d, g1 + s1)
        print(f"N = {n}: 2D {float(two_d) * 1e6:.4g} us, 1D {float(g1 + s1) * 1e6:.4g} us; derive's own "
              f"2D {float(own_g + own_r + own_s) * 1e6:.4g} us, 1D {float(own_g1 + own_s1) * 1e6:.4g} us")  # fmt: skip
    (two_32, one_32), (two_128, one_128) = one_d[32], one_d[128]
    assert two_32 > one_32 and two_128 < one_128  # 1D wins at 32 chips, 2D at 128
    crossover = two_128**2 * 128 / one_128**2  # N where √128·BD/(√N·W) = 4BD/(3W)
    assert crossover == 128 * Fraction(3, 4) ** 2 == 32 * Fraction(f, d) * Fraction(3, 4) ** 2
    print(f"2D beats 1D for N > {crossover} (the book prints 81)")
