"""The Scaling Book's GPU chapter ("How to Think About GPUs"), its collective and critical-batch
numbers, under ``--convention scaling-book`` (issue 45, Done-means 3).

Each expected value is the book's formula evaluated here on its stated inputs (the chips'
figures as chips.toml writes them, checked below, or the numbers the question gives), never the
book's printed answer; derive's own exact value is read beside it (``time_derive``, the JSON's
``derive_convention``, or a run without the preset) and printed. Where the printed answer differs
from the book's own formula the test says so.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
CHIPS = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text())


def _chip(name: str, key: str) -> Fraction:
    return Fraction(CHIPS[name][key]["value"])


C_H100 = _chip("h100", "peak_bf16_flop_per_s")  # the book's 990e12
W_GPU = _chip("h100", "link_bytes_per_s")  # "GPU egress bandwidth" 450e9, one way
W_NIC = _chip("h100", "node_link_bytes_per_s")  # one 400 Gb/s NIC a GPU: node egress 8·W_NIC
C_B200, W_B200 = _chip("b200", "peak_bf16_flop_per_s"), _chip("b200", "link_bytes_per_s")
NODE = 8
F_70B = 28672  # Llama 3 70B's MLP width


def test_inputs_are_the_books():
    """The chapter's table: H100 990e12 (chips.toml's dense 9.89e14), 450e9 GPU egress, 400e9
    node egress; B200 2.25e15 and 900e9."""
    assert (W_GPU, NODE * W_NIC, W_B200) == (450 * 10**9, 400 * 10**9, 900 * 10**9)
    assert Fraction("2.25e15") == C_B200 and abs(C_H100 / Fraction("990e12") - 1) < Fraction(1, 500)


def _collective(cli, text: str, mesh: str, sets: str, precise: bool = False):
    """(the book's time, derive's own) of one collective, and its "more precise" time if asked."""
    argv = ["solve", "--collective", text, "--dtype", "bf16", "--mesh", mesh, "--set", sets]
    book = cli([*argv, "--convention", "scaling-book", "--format", "json"])
    own = cli([*argv, "--format", "json"])
    assert book.code == 0 and own.code == 0, book.err + own.err
    (b,), (o,) = json.loads(book.out)["collectives"], json.loads(own.out)["collectives"]
    assert b["time_derive"] == o["time"]
    print(f"{text} on {mesh}: scaling-book {b['time']} s, derive {o['time']} s, "
          f"precise {b.get('time_precise')} s")  # fmt: skip
    times = Fraction(b["time"]), Fraction(o["time"])
    return (*times, Fraction(b["time_precise"])) if precise else times


SWITCH = f"g={NODE}@{W_GPU}:switch"


def test_quiz2_all_gather_in_a_node(cli):
    """Quiz 2, Question 3: AllGather of bf16[D_X, F], D = 4096, F = 65,536 on 8 H100s: ≈ B/W,
    "more precisely" (N−1)·B/(N·W) (the book's "1.04 ms" is the precise form; it types
    B = 512 MB and then 536e6, the same 2·D·F bytes). derive's own time is the precise one."""
    size = 2 * 4096 * 65536
    book, own = _collective(cli, "AllGather_g(A[D_g, F])", SWITCH, "D=4096,F=65536")
    assert book == size / W_GPU and own == Fraction(NODE - 1, NODE) * size / W_GPU


def test_pop_quiz1_all_gather_time(cli):
    """Pop Quiz 1: AllGather(bf16[B_X, F]), B = 1024, F = 16,384: 2·B·F/450e9 ("75 us"), or
    2·B·F·7/(8·450e9) ("65 us")."""
    book, own = _collective(cli, "AllGather_g(A[B_g, F])", SWITCH, "B=1024,F=16384")
    assert book == 2 * 1024 * 16384 / W_GPU and own == Fraction(7, 8) * book


def test_an_all_reduce_is_twice_and_sharp_halves_it(cli):
    """ "For an AllReduce, you can combine an RS + AG as usual for twice the cost"; with SHARP
    ("In network reductions") T = bytes / W. The preset timed SHARP's all-reduce as 2·B/W."""
    size = 2 * 1024 * 8192
    book, _ = _collective(cli, "AllReduce_g(A[B, F]{U_g})", SWITCH, "B=1024,F=8192")
    assert book == 2 * size / W_GPU
    book, own = _collective(cli, "AllReduce_g(A[B, F]{U_g})", SWITCH + "+sharp", "B=1024,F=8192")
    assert book == size / W_GPU == own


def test_all_to_all_in_a_node_and_across_two(cli):
    """AllToAlls: in a node B·(N−1)/(W·N²); across M nodes B·(M−1)/(M²·W_node egress), "a more
    than 4x degradation" (B the whole array's bytes)."""
    size = 2 * 1024 * 8192
    text = "AllToAll_g(A[B_g, N] -> A[B, N_g])"
    book, own = _collective(cli, text, SWITCH, "B=1024,N=8192")
    assert book == own == size * (NODE - 1) / (W_GPU * NODE**2)
    two = f"{SWITCH},n=2@{W_NIC}:switch"
    book, _ = _collective(cli, "AllToAll_{gn}(A[B_{gn}, N] -> A[B, N_{gn}])", two, "B=1024,N=8192")
    assert book == size * (2 - 1) / (2**2 * NODE * W_NIC)


def test_beyond_the_node_an_all_gather_is_bytes_over_the_node_egress(cli):
    """Cross-node collectives: T = max(bytes/W_GPU egress, bytes/W_node egress), 400e9 on an
    H100 SU of 32 nodes. (The book's "more precise" per-level max of (D_i−1)/(D_i·W_i), its
    514 and 413 GB/s, is neither convention: derive's own adds the two levels' exact times.)"""
    size = 2 * 4096 * 65536
    mesh = f"{SWITCH},n=32@{W_NIC}:switch"
    book, own = _collective(cli, "AllGather_{gn}(A[D_{gn}, F])", mesh, "D=4096,F=65536")
    assert book == max(size / W_GPU, size / (NODE * W_NIC))
    assert own == Fraction(7, 8) * size / W_GPU + Fraction(31, 32) * size / (NODE * W_NIC)


def _train(cli, *args: str, book: bool = True) -> dict:
    argv = ["train", *args, "--recompute", "none", "--format", "json"]
    r = cli(argv + (["--convention", "scaling-book"] if book else []))
    assert r.code == 0, r.err
    return json.loads(r.out)


def _critical(cli, *run: str) -> Fraction:
    book, own = _train(cli, *run), _train(cli, *run, book=False)
    print(f"critical_tokens_per_chip: scaling-book {book['critical_tokens_per_chip']}, "
          f"derive {own['critical_tokens_per_chip']}")  # fmt: skip
    return Fraction(book["critical_tokens_per_chip"])


def _fsdp(chip: str, dp: int, *mesh: str) -> tuple[str, ...]:
    return ("llama-3-8b", "--chip", chip, "--dp", str(dp), "--zero", "3", *mesh,
            "--batch-tokens", str(dp * 4096), "--seq", "4096")  # fmt: skip


def test_data_parallel_critical_batch_in_a_node_and_in_an_su(cli):
    """Data Parallelism: B/X > C/W_collective, "within a node 990e12/450e9 = 2200", "within an
    SU or at the spine level 990e12/400e9 = 2475" (an SU: 32 nodes, 256 GPUs)."""
    assert _critical(cli, *_fsdp("h100", 8)) == C_H100 / W_GPU
    su = _fsdp("h100", 256, "--mesh", "default")
    assert _critical(cli, *su) == C_H100 / (NODE * W_NIC)


def test_deepseeks_h800_at_300_gbs(cli):
    """ "DeepSeek v3 trained on 2048 H800 GPUs with lower 300GB/s ... 990e12/300e9 = 3300"."""
    w = Fraction(300 * 10**9)
    run = _fsdp("h100", 8, "--mesh", f"g=8@{w}:switch")
    assert _critical(cli, *run) == C_H100 / w


def test_b200_rooflines(cli):
    """Quiz 5, Question 1: a B200 SuperPod, 900 GB/s in a node, 400 GB/s beyond: TP's
    "2250e12 / 900e9 = 2500", so Y < F/2500, and DP's "2250e12 / 400e9 = 5625"."""
    across = _fsdp("b200", 16, "--mesh", f"g=8@{W_B200}:switch,n=2@{W_NIC}")
    assert _critical(cli, *across) == C_B200 / (NODE * W_NIC)
    tp = _train(cli, *across)["tp_max_scaling_book"]
    assert Fraction(tp) == 14336 * W_B200 / C_B200  # Llama 3 8B's F over C/W


def test_tp_limit_of_llama_3_70b_in_a_node(cli):
    """Tensor Parallelism: Y < F·W_collective/C, "F / 2200" in a node; Llama 3 70B's
    F = 28,672 gives 13.0 (Quiz 5, Question 2.3 prints "F / 1995 = 14.372": its C/W is not
    990e12/450e9; the text's "about 11-way" for F = 28000 is F/2475, the cross-node figure)."""
    run = ("llama-3-70b", "--chip", "h100", "--tp", "8", "--batch-tokens", "4096", "--seq", "4096")
    book, own = _train(cli, *run), _train(cli, *run, book=False)
    assert Fraction(book["tp_max_scaling_book"]) == F_70B * W_GPU / C_H100
    print(f"tp limit: scaling-book {book['tp_max_scaling_book']}, derive {own['tp_max_exact']}")


def test_quiz5_8_way_pipelining_of_llama_3_70b(cli):
    """Quiz 5, Question 2.3.3: Llama 3 70B on 4096 H100s, 8-way TP in a node and 8-way
    pipelining: each model-parallel shard spans 8 nodes, so DP's collectives see 8 · 400 GB/s,
    "990e12 / 3200e9 = 309". The book splits the model evenly, P/(tp·pp) a GPU; under the
    preset derive does (its own counts the heavier end stage, the head's, and norms on every TP
    rank, at the ring's (X−1)/X)."""
    run = ("llama-3-70b", "--chip", "h100", "--tp", "8", "--pp", "8", "--dp", "64", "--zero", "1",
           "--mesh", "default", "--batch-tokens", str(1024 * 4096), "--seq", "4096")  # fmt: skip
    assert _critical(cli, *run) == C_H100 / (NODE * NODE * W_NIC)


def test_moe_critical_batch_grows_by_e_over_k(cli):
    """Data Parallelism, "MoE models": T_math = 8·k·B·D·F/(X·C) against T_comms = 8·E·D·F/W, so
    B/X > (E/k)·C/W (gpt-oss's E = 128, k = 4 across nodes: "32 * 2475 = 79,200"). The book's
    E/k counts the MLPs alone; under the preset derive follows it (its step says so). Mixtral
    8x7B (E = 8, k = 2), in a node and over 2 nodes; derive's own balance is the whole model's
    total over active parameters (3.63) with attention's FLOPs; at ZeRO-3 per micro-batch, never."""
    model = json.loads(cli(["model", "mixtral-8x7b", "--format", "json"]).out)
    e, k = (int(model["architecture"][key]) for key in ("experts", "top_k"))
    ratio = Fraction(model["params"]["exact"]) / Fraction(model["params_active"]["exact"])
    for dp, mesh in ((8, ()), (16, ("--mesh", f"g=8@{W_GPU}:switch,n=2@{W_NIC}:switch"))):
        run = ("mixtral-8x7b", "--chip", "h100", "--dp", str(dp), "--zero", "3", *mesh,
               "--batch-tokens", str(dp * 4096), "--seq", "4096")  # fmt: skip
        w = W_GPU if dp == NODE else NODE * W_NIC
        assert _critical(cli, *run) == Fraction(e, k) * C_H100 / w
        assert _critical(cli, *run, "--zero", "0") == Fraction(e, k) * C_H100 / w
        own = _train(cli, *run, "--zero", "0", book=False)["critical_tokens_per_chip"]
        print(f"dp {dp}, ZeRO-0: derive's own {float(Fraction(own)):.6g} (its P/P_act {float(ratio):.4g},"
              " the ring's (X−1)/X, attention's FLOPs)")  # fmt: skip
    print(f"gpt-oss by the book's formula: {float(Fraction(128, 4) * C_H100 / (NODE * W_NIC)):.6g}")


def test_pop_quiz3_an_all_gather_sharded_over_a_second_axis(cli):
    """Pop Quiz 3: AllGather_X(bf16[D_X, F_Y]) over an SU (32 nodes), Y the inner axis:
    for Y ≤ 8 bound by the leaf, 2·D·F/400e9 (the book's (32−1)/32 dropped); for Y > 8
    "2·D·F·256/(Y·12.8e12) = 2DF/(Y·50GB/s)". D = 8192, F = 32,768; Y = 8, then 16 over 2 nodes."""
    size = 2 * 8192 * 32768
    su = f"{SWITCH},n=32@{W_NIC}:switch"
    book, _ = _collective(cli, "AllGather_n(A[D_n, F_g])", su, "D=8192,F=32768")
    assert book == size / (NODE * W_NIC)
    two = f"{SWITCH},m=2@{W_NIC}:switch,n=16@{W_NIC}:switch"
    book, _ = _collective(cli, "AllGather_n(A[D_n, F_{gm}])", two, "D=8192,F=32768")
    assert book == size / (16 * W_NIC)


def _precise(levels: list[tuple[int, Fraction]]) -> Fraction:
    """The book's "more precise" seconds per byte: max over depths i of (D_i − 1)/(D_i · W_i),
    W_i the egress of a child of level i (a GPU's link, a node's 8 NICs)."""
    return max(Fraction(d - 1, d) / w for d, w in levels)


def test_the_precise_form_over_an_su_and_over_two_nodes(cli):
    """ "A more precise derivation": T = bytes · max_i (D_i − 1)/(D_i · W_i); over an SU of 32
    nodes the node's 450e9·8/7 and the leaf's 400e9·32/31 ("413GB/s"), the leaf binding.
    Quiz 4, Question 5: over exactly 2 nodes the node level, B·7/(8·450e9), against the leaf's
    B·(2 − 1)/(2·400e9): "bounded by the node level". The headline max(B/W_gpu, B/W_node) stays."""
    size = 2 * 4096 * 65536
    for nodes in (32, 2):
        mesh = f"{SWITCH},n={nodes}@{W_NIC}:switch"
        book, _, precise = _collective(
            cli, "AllGather_{gn}(A[D_{gn}, F])", mesh, "D=4096,F=65536", True
        )
        levels = [(NODE, W_GPU), (nodes, NODE * W_NIC)]
        assert book == max(size / W_GPU, size / (NODE * W_NIC))
        assert precise == size * _precise(levels)
    assert Fraction(7, 8) / W_GPU > Fraction(1, 2) / (NODE * W_NIC)  # two nodes: the node binds
    _, _, precise = _collective(cli, "AllReduce_{gn}(A[D, F]{U_gn})", mesh, "D=4096,F=65536", True)
    assert precise == 2 * size * _precise(levels)  # an all-reduce twice, no SHARP


def test_small_x_data_parallelism(cli):
    """ "What happens when X is small?": 2-node DP, B/N > α·(X − 1)/X, α = C/W_node egress, X the
    nodes ("1237, half the above value"); the headline C/W_node (2475) is unchanged beside it."""
    run = _fsdp("h100", 16, "--mesh", "default")
    book = _train(cli, *run)
    x, alpha = 2, C_H100 / (NODE * W_NIC)
    assert Fraction(book["dp_small_x_scaling_book"]) == alpha * Fraction(x - 1, x)
    assert Fraction(book["critical_tokens_per_chip"]) == alpha
    print(f"small X: scaling-book {book['dp_small_x_scaling_book']}, "
          f"headline {book['critical_tokens_per_chip']}")  # fmt: skip
    assert _train(cli, *_fsdp("h100", 8))["dp_small_x_scaling_book"] is None  # one node
