"""The Scaling Book's "Sharded Matrices and How to Multiply Them" (jax-ml/scaling-book, sharding.md,
as fetched at commit 0819a7d): every worked number, under ``--convention scaling-book``.

Each expected value is the book's formula evaluated here on the book's stated inputs (its chip
tables typed below, never its answer); each test also reads derive's own exact value, printed
beside the book's (``time_derive``, ``value_derive``), and prints the two. The book's answer is
named in a comment where it differs from its own formula (a slip).

=====================  ==============================================  ======================
where                  worked number                                   status
=====================  ==============================================  ======================
Pop Quiz               int8[128, 2048] A[I_XY, J] on X2·Y8·Z2:         reproduced
                       16,384 B a device, 512 KiB over all
JAX snippet            local shapes [2, 1024] and [2048, 4096]         reproduced
ICI latency            v5e: under 4.5e10 · 1e-6 = 45 kB a hop is       reproduced
                       latency bound
Pop Quiz 2 (1)         AllGather_Y([E_Y, F]) E=2048, F=8192, v5e       reproduced: the full
                       {X: 8, Y: 4}: 34e6/9e10 = 377 µs, then "3 ·     ring's V/W (slip:
                       8.4e6 / 4.5e10 = 560 µs" (no wraparound)        34e6 for 33.55e6) and
                                                                       the line's (fixed)
Pop Quiz 2 (2)         E = F = 256: 3 hops · 1 µs = 3 µs               fixed (a line's X−1
                                                                       hops, max not sum)
Question 1             A[I_X, J, K] on X4·Y8·Z2: total / one copy 16   reproduced
Question 2             v4p 4x4x4: AllGather_X([B_X, D_Y]) 23 µs,       reproduced; (3) slip:
                       AllGather_XY 46 µs (latency bound 4 µs),        190 µs is 4BD/W, the
                       AllReduce_Z([B_X, D_Y]{U_Z}) "190 µs"           unsharded array's
Question 3             AllGather_X([B_X]) B=128, v4p: 2 hops, 2 µs     fixed (max, not sum)
Question 4             S1 vs S2: C/W = 2550, S2 better iff D > 5100    reproduced (and
                                                                       derive's own printed)
Question 4, in text    S1 comms bound when "F < 2550"                  slip: B < C/W (tested)
Question 9             AllGather A vs ReduceScatter O: ratio M/K       reproduced
Question 10            AllToAll / AllGather: ½ one way, ¼ both ways    reproduced
Summary table          AllGather V/(W·n_axes), ReduceScatter the       reproduced in
                       same, AllReduce 2×, AllToAll ¼                  tests/test_scaling_book
Pop Quiz 2, profiles   measured 680 µs and 8 µs                        not a formula: a
                                                                       profile of real chips
Questions 5–8          no worked number in the text                    —
Case 4                 A[I_X, J] · B[J, K_X] invalid                   refused with the fix
                                                                       (test_sharded_operators)
=====================  ==============================================  ======================
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

US = Fraction(1, 10**6)  # the book's ICI latency: "typically around 1us" a hop
BETA_V5E = Fraction("4.5e10")  # TPU v5e ICI, one way a link (How to Think About TPUs' table)
BETA_V4P = Fraction("4.5e10")  # TPU v4p ICI, one way; bidirectional 9e10
C_V5P, BETA_V5P = Fraction("4.59e14"), Fraction("9e10")  # TPU v5p bf16 FLOP/s; ICI one way
BF16 = 2


def _mesh(sizes: dict[str, int], beta: Fraction, topology: str, latency: str = "") -> str:
    return ",".join(f"{a}={n}@{beta}{latency}:{topology}" for a, n in sizes.items())


def _collective(cli, text: str, mesh: str, *chip: str, **dims: int) -> tuple[Fraction, Fraction]:
    """The book's time and derive's own (printed beside it) of one collective."""
    argv = ["solve", "--collective", text, "--dtype", "bf16", "--mesh", mesh, *chip,
            "--set", ",".join(f"{k}={v}" for k, v in dims.items())]  # fmt: skip
    book, own = (
        cli([*argv, *extra, "--format", "json"]) for extra in (["--convention", "scaling-book"], [])
    )
    assert book.code == 0 and own.code == 0, book.err + own.err
    (b,), (o,) = json.loads(book.out)["collectives"], json.loads(own.out)["collectives"]
    assert b["time_derive"] == o["time"]
    print(f"{text}: scaling-book {b['time']} ≈ {float(Fraction(b['time'])):.6g} s, "
          f"derive {o['time']} ≈ {float(Fraction(o['time'])):.6g} s")  # fmt: skip
    return Fraction(b["time"]), Fraction(o["time"])


def _tensors(cli, mesh: str, dtype: str, *shards: str, **dims: int) -> dict[str, Fraction]:
    r = cli(["solve", "matmul", "--dtype", dtype, "--chip", "tpu-v5e", "--mesh", mesh,
             *(f"--shard={s}" for s in shards),
             "--set", ",".join(f"{k}={v}" for k, v in dims.items()), "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    return {
        t["spec"]: Fraction(t["bytes_per_device"]) for t in json.loads(r.out)["sharding"]["tensors"]
    }


def test_pop_quiz_bytes_of_a_sharded_array(cli):
    """int8[128, 2048] as A[I_XY, J] on Mesh({X: 2, Y: 8, Z: 2}): 128/(2·8) · 2048 bytes a
    device; replicated over Z, so Z copies of the array over all 32 devices."""
    sizes = {"x": 2, "y": 8, "z": 2}
    held = _tensors(cli, _mesh(sizes, BETA_V5E, "torus"), "int8", "X[B_{xy}, D]", "Y[D, F]",
                    B=128, D=2048, F=128)  # fmt: skip
    assert held["X[B_{xy}, D]"] == Fraction(128, 2 * 8) * 2048
    assert held["X[B_{xy}, D]"] * 32 == 128 * 2048 * sizes["z"]


def test_the_jax_snippets_local_shapes(cli):
    """A = bf16[8, 2048] on P('X', 'Y') of a 4x2 mesh: local [2, 1024]; B = bf16[2048, 8192]
    on P(None, 'Y'): local [2048, 4096]."""
    held = _tensors(cli, "x=4@4.5e10:torus,y=2@4.5e10:torus", "bf16", "X[B_x, D_y]", "Y[D, F_y]",
                    B=8, D=2048, F=8192)  # fmt: skip
    assert held["X[B_x, D_y]"] == BF16 * (8 // 4) * (2048 // 2)
    assert held["Y[D, F_y]"] == BF16 * 2048 * (8192 // 2)


def test_question_1_replication_ratio(cli):
    """A[I_X, J, K, …] on Mesh({X: 4, Y: 8, Z: 2}): the total over all chips is Y·Z copies."""
    sizes = {"x": 4, "y": 8, "z": 2}
    held = _tensors(cli, _mesh(sizes, BETA_V5E, "torus"), "bf16", "X[B_x, D]", "Y[D, F]",
                    B=64, D=64, F=64)  # fmt: skip
    assert held["X[B_x, D]"] * 64 / (BF16 * 64 * 64) == sizes["y"] * sizes["z"]


def test_a_hop_under_45_kb_is_latency_bound(cli):
    """ "TPU v5e with 4.5e10 unidirectional ICI bandwidth, sending any buffer under 4.5e10 · 1e-6
    = 45kB will be latency bound": a hop of β·α bytes takes its latency again on the link."""
    at = BETA_V5E * US
    assert at.denominator == 1
    book, own = _collective(cli, "Send_x(A[E])", f"x=4@{BETA_V5E}+1us:torus", E=int(at) // BF16)
    assert book == own == 2 * US  # the bytes' time equals the hop's latency


def test_pop_quiz_2_all_gather_on_v5e(cli):
    """AllGather_Y([E_Y, F]) → [E, F], E = 2048, F = 8192 bf16 on a v5e {X: 8, Y: 4}. The book:
    V/W_ici with W both ways, "34e6 / 9e10 = 377us" (slip: V = 2·2048·8192 = 33.55e6, so
    372.8 µs), then: no wraparound on an axis under 16, "3 · 8.4e6 / 4.5e10 = 560us", (Y−1)
    shards over one link. A v5e's own 8x4 slice (tpu:8x4) is two lines."""
    v, sizes = BF16 * 2048 * 8192, {"x": 8, "y": 4}
    ring, _ = _collective(cli, "AllGather_y(A[E_y, F])", _mesh(sizes, BETA_V5E, "torus"),
                          E=2048, F=8192)  # fmt: skip
    assert ring == v / (2 * BETA_V5E)
    line, own = _collective(cli, "AllGather_y(A[E_y, F])", "tpu:8x4", "--chip", "tpu-v5e",
                            E=2048, F=8192)  # fmt: skip
    assert line == 3 * (v // 4) / BETA_V5E
    assert own == line  # derive's own line: the same (Y−1)/Y·V one way


def test_pop_quiz_2_small_gather_is_three_hops(cli):
    """E = F = 256: a shard of 64·256·2 = 32 kB, "32e3/4.5e10 = 0.7us, so we're latency
    bound. Since we have 3 hops, this will take roughly 3 * 1us = 3us" (no wraparound)."""
    mesh = _mesh({"x": 8, "y": 4}, BETA_V5E, "line", "+1us")
    book, own = _collective(cli, "AllGather_y(A[E_y, F])", mesh, E=256, F=256)
    shard = BF16 * 64 * 256
    assert shard / BETA_V5E < US  # latency bound
    assert book == max(3 * US, 3 * shard / BETA_V5E) == 3 * US
    assert own == 3 * US + 3 * shard / BETA_V5E  # derive adds the two
    r = cli(["solve", "--collective", "AllGather_y(A[E_y, F])", "--dtype", "bf16", "--mesh", mesh,
             "--set", "E=256,F=256", "--convention", "scaling-book"])  # fmt: skip
    assert "derive's own exact time" in r.out  # beside the book's, in the worked solution


@pytest.mark.parametrize(
    ("text", "book_time"),
    [
        # (1) 2BD/Y bytes over one axis, W = 9e10 both ways: "= 23us"
        ("AllGather_x(A[B_x, D_y])", Fraction(BF16 * 1024 * 4096, 4) / (2 * BETA_V4P)),
        # (2) the whole array over two axes: "2BD / (2 · W) = 46us"
        ("AllGather_{xy}(A[B_x, D_y])", Fraction(BF16 * 1024 * 4096) / (2 * 2 * BETA_V4P)),
        # (3) 2·V/W of what a device holds, V = 2·(B/4)·(D/4). The book: "4BD/W ... = 190us",
        # the unsharded array's (a slip: [B_X, D_Y] holds 1/16 of it, so 11.65 µs)
        ("AllReduce_z(A[B_x, D_y]{U_z})", 2 * Fraction(BF16 * 256 * 1024) / (2 * BETA_V4P)),
    ],
)
def test_question_2_collectives_on_a_v4p_cube(cli, text, book_time):
    """TPU v4p 4x4x4, Mesh({X: 4, Y: 4, Z: 4}), B = 1024, D = 4096 bf16: a full cube wraps."""
    mesh = _mesh({"x": 4, "y": 4, "z": 4}, BETA_V4P, "torus", "+1us")
    book, _ = _collective(cli, text, mesh, B=1024, D=4096)
    assert book == book_time
    if text.startswith("AllGather_{xy}"):  # "far from the latency bound of 4us (1us per hop)"
        assert book > (4 // 2 + 4 // 2) * US


def test_question_2_on_the_chip_slice(cli):
    """The same cube as tpu:4x4x4 of a v4p (chips.toml's ICI and wraparound)."""
    book, _ = _collective(cli, "AllGather_x(A[B_x, D_y])", "tpu:4x4x4", "--chip", "tpu-v4p",
                          B=1024, D=4096)  # fmt: skip
    assert book == Fraction(BF16 * 1024 * 4096, 4) / (2 * BETA_V4P)


def test_question_3_latency_bound_all_gather(cli):
    """AllGather_X([B_X]), B = 128 bf16 on a v4p 4x4x4: 256 bytes, "we can do the full gather
    in only 2 hops, so roughly 2us" (X/2 hops both ways; the bytes' time ~0)."""
    mesh = _mesh({"x": 4, "y": 4, "z": 4}, BETA_V4P, "torus", "+1us")
    book, own = _collective(cli, "AllGather_x(A[B_x])", mesh, B=128)
    assert book == max(Fraction(4, 2) * US, Fraction(BF16 * 128) / (2 * BETA_V4P)) == 2 * US
    assert own > book


def _strategies(cli, convention: str, **dims: int) -> dict:
    mesh = f"x=4@{BETA_V5P}:torus"
    r = cli(["solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v5p", "--mesh", mesh,
             "--shard", "X[B, D]", "--shard", "Y[D_x, F]", "--convention", convention,
             "--set", ",".join(f"{k}={v}" for k, v in dims.items()), "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    return json.loads(r.out)["sharding"]


def test_question_4_strategy_2_wins_iff_d_over_5100(cli):
    """A[B, D] ·_D B[D_X, F]: Strategy 1 all-gathers B (2DF/W_ici, then 2BDF/C), Strategy 2
    multiplies partial sums (2BDF/(X·C)) and all-reduces C[B, F]{U_X} (4BF/W_ici). With B
    past C/W (S1 compute bound), S2 wins iff 4BF/W < 2BDF/C, "D > 2 · 2550 = 5100"."""
    w = 2 * BETA_V5P
    assert C_V5P / w == 2550
    book = _strategies(cli, "scaling-book", B=4096, F=16384)
    (cross,) = book["crossovers"]
    assert (cross["below"], cross["above"]) == ("gather Y", "partial sums over x")
    assert Fraction(cross["value"]) == 2 * C_V5P / w
    own = _strategies(cli, "derive", B=4096, F=16384)["crossovers"][0]["value"]
    assert cross["value_derive"] == own  # derive's own, printed beside
    print(f"D crossover: scaling-book {cross['value']}, derive {own}")


def test_question_4_strategy_1_is_comms_bound_below_b_2550(cli):
    """S1's T = max(2BDF/C, 2DF/W_ici): compute bound past B = C/W_ici = 2550. The book writes
    "comms bound when F < C / W_ici = 2550" (a slip: F cancels; it is B)."""
    b = C_V5P / (2 * BETA_V5P)
    assert b.denominator == 1
    rows = _strategies(cli, "scaling-book", B=int(b), D=8192, F=16384)["strategies"]
    s1 = next(r for r in rows if r["name"] == "gather Y")
    assert Fraction(s1["t_math"]) == Fraction(s1["t_comms"]) == 2 * 8192 * 16384 * b / C_V5P


def test_question_9_gather_then_multiply_or_multiply_then_scatter(cli):
    """A[I, J_X] · B[J, K]: all-gather A (∝ N·M) or reduce-scatter the product O[N, K_X]
    (∝ N·K): "the communication cost ratio of the two algorithms is M/K"."""
    n, m, k = 1024, 8192, 2048
    r = cli(["solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v5p", "--mesh", "x=4@9e10:torus",
             "--shard", "X[B, D_x]", "--shard", "Y[D, F]", "--shard", "Z[B, F_x]",
             "--convention", "scaling-book", "--set", f"B={n},D={m},F={k}", "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    rows = {
        row["name"]: Fraction(row["t_comms"]) for row in json.loads(r.out)["sharding"]["strategies"]
    }
    gathered = next(t for name, t in rows.items() if name.startswith("gather"))
    scattered = next(t for name, t in rows.items() if name.startswith("partial"))
    assert gathered / scattered == Fraction(m, k)


@pytest.mark.parametrize("devices", [4, 8])
def test_question_10_all_to_all_against_all_gather(cli, devices):
    """An N×N A[I_X, J] over D devices. One way (a ring): the all-gather carries N²(1 − 1/D)
    over a link, the all-to-all N²(1 − 1/D)/2, half. Both ways the book's ratio is ¼ (its
    table, and its (5): a strip's blocks travel at most D/2 each way, D²/8 of them)."""
    n = 64 * devices
    dims = {"I": n, "J": n}
    ring = f"x={devices}@4.5e10"
    _, gather = _collective(cli, "AllGather_x(A[I_x, J])", ring, **dims)  # derive's own, exact
    _, a2a = _collective(cli, "AllToAll_x(A[I_x, J] -> A[I, J_x])", ring, **dims)
    scalars = n * n * (1 - Fraction(1, devices))
    assert (gather, a2a) == (BF16 * scalars / BETA_V5E, BF16 * scalars / 2 / BETA_V5E)
    torus = f"x={devices}@4.5e10:torus"
    gather, own_gather = _collective(cli, "AllGather_x(A[I_x, J])", torus, **dims)
    a2a, own_a2a = _collective(cli, "AllToAll_x(A[I_x, J] -> A[I, J_x])", torus, **dims)
    assert a2a / gather == Fraction(1, 4)
    # derive's own, exact: D²/8 blocks of N²/D² over the busiest link against (D−1)/(2D)·N²
    assert own_a2a / own_gather == Fraction(devices, 4 * (devices - 1))


@pytest.mark.parametrize("fmt", ["md", "tex", "json", "text"])
def test_free_dims_under_the_books_convention_print_formulas(cli, fmt):
    """Every dim free: derive's own time beside the book's is a formula (it was a traceback)."""
    r = cli(["solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v5p", "--mesh", "x=4@9e10:torus",
             "--shard", "X[B, D]", "--shard", "Y[D_x, F]", "--convention", "scaling-book",
             "--format", fmt])  # fmt: skip
    assert r.code == 0 and "Traceback" not in r.err, r.err
    assert ("time_derive" if fmt == "json" else "derive's own exact time") in r.out
