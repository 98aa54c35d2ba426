"""--convention scaling-book reproduces the Scaling Book's worked numbers (issue 45 item 5).

Austin et al., "How to Scale Your Model" (jax-ml/scaling-book): Training, "Data Parallelism",
"Fully-Sharded Data Parallelism (FSDP)", "Tensor Parallelism", "Combining FSDP and Tensor
Parallelism", "Scaling Across Pods"; GPUs, "Rooflines for LLM Scaling on GPUs". Every expected
value is the book's formula evaluated here on its inputs: the chips' figures as chips.toml
writes them (checked against the file below), the model's F, the book's DCN per host. Each
test prints derive's own value (the JSON's ``derive_convention``) beside the book's.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]

# The inputs: chips.toml's decimal text, re-typed (test_inputs_are_chips_toml's figures).
C_V5P = Fraction("4.59e14")  # TPU v5p bf16 FLOP/s
ICI_V5P = Fraction("9e10")  # one way per link; the book's W_ici = 2 · 9e10 (bidirectional)
C_H100 = Fraction("9.89e14")  # H100 bf16 FLOP/s
NVLINK_H100 = Fraction("4.5e11")  # one way: the GPU chapter's GPU egress, 450e9
NIC_H100 = Fraction("5e10")  # one 400 Gb/s NIC per GPU: a node's egress 8 · 5e10
# Training, "Scaling Across Pods": about 25 GB/s of DCN per host of 4 chips (per chip egress).
DCN_PER_HOST, CHIPS_PER_HOST = Fraction("2.5e10"), 4
F_70B, F_8B, D_8B, L_8B = 28672, 14336, 4096, 32  # Llama 3's MLP width, width and layers

W_ICI = 2 * ICI_V5P


def _figure(chip: str, key: str) -> Fraction:
    table = tomllib.loads((ROOT / "derive" / "data" / "chips.toml").read_text())
    return Fraction(table[chip][key]["value"])


def test_inputs_are_chips_toml():
    assert _figure("tpu-v5p", "peak_bf16_flop_per_s") == C_V5P
    assert _figure("tpu-v5p", "link_bytes_per_s") == ICI_V5P
    assert _figure("h100", "peak_bf16_flop_per_s") == C_H100
    assert _figure("h100", "link_bytes_per_s") == NVLINK_H100
    assert _figure("h100", "node_link_bytes_per_s") == NIC_H100


def _train(cli, *args: str, book: bool = True) -> dict:
    argv = ["train", *args, "--recompute", "none", "--format", "json"]
    r = cli(argv + (["--convention", "scaling-book"] if book else []))
    assert r.code == 0, r.err
    return json.loads(r.out)


def _fr(text: str | None) -> Fraction | None:
    return None if text is None else Fraction(text)


def _beside(report: dict, key: str, plain: dict) -> Fraction | None:
    """The book's value; derive's own, from the report and from a run without the preset,
    printed beside it (they must agree)."""
    book, own = _fr(report[key]), _fr(plain[key])
    told = report["derive_convention"].get(key)
    assert (told is None and book == own) or _fr(told["value"]) == own
    print(f"{key}: scaling-book {book} (≈ {float(book or 0):.6g}), derive {own}")
    return book


FSDP_8 = ("llama-3-8b", "--dp", "8", "--zero", "3", "--batch-tokens", "262144", "--seq", "4096")


def test_fsdp_critical_batch_per_chip_is_c_over_w_on_a_v5p_axis(cli):
    """Training, FSDP: compute-bound when B/X > C/W_ici, "4.59e14 / 1.8e11" for v5p. derive
    gave 0 or never (it gathers per micro-batch); the book gathers once a step."""
    run = (*FSDP_8, "--chip", "tpu-v5p")
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    assert _beside(book, "critical_tokens_per_chip", plain) == C_V5P / W_ICI
    assert plain["critical_tokens_per_chip"] is None  # derive: never, per micro-batch


def test_data_parallel_over_three_axes_is_c_over_three_w(cli):
    """Training, DP: all three axes of a v5p slice "3x our bandwidth", B/X > C/(3·W_ici)."""
    mesh = ",".join(f"{a}=4@9e10" for a in "xyz")
    run = ("llama-3-8b", "--chip", "tpu-v5p", "--dp", "64", "--zero", "3", "--mesh", mesh,
           "--batch-tokens", str(64 * 4096), "--seq", "4096")  # fmt: skip
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    assert _beside(book, "critical_tokens_per_chip", plain) == C_V5P / (3 * W_ICI)


def test_across_pods_the_dcn_rule_binds_per_slice(cli):
    """Training, "Scaling Across Pods": B per ICI slice > C/W_dcn, W_dcn one chip's egress
    (25 GB/s a host of 4 chips); the slice's 64 chips' ICI (C/(3·W) = 850 a chip) binds less."""
    w_dcn = DCN_PER_HOST / CHIPS_PER_HOST
    mesh = ",".join(f"{a}=4@9e10" for a in "xyz") + f",pod=2@{w_dcn}"
    run = ("llama-3-8b", "--chip", "tpu-v5p", "--dp", "128", "--zero", "3", "--mesh", mesh,
           "--batch-tokens", str(128 * 4096), "--seq", "4096")  # fmt: skip
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    per_chip = _beside(book, "critical_tokens_per_chip", plain)
    assert per_chip is not None and per_chip * 64 == C_V5P / w_dcn
    assert per_chip > C_V5P / (3 * W_ICI)  # DCN binds: derive's preset used to add it to ICI


@pytest.mark.parametrize("tp", [2, 4, 8])
def test_tp_limit_is_f_w_over_c_whatever_tp_is(cli, tp):
    """Training, TP: Y < F·W_ici/C (F/2550 on a v5p); it was 5.62, 8.43, 9.84 at tp 2, 4, 8."""
    run = ("llama-3-70b", "--chip", "tpu-v5p", "--tp", str(tp), "--dp", str(8 // tp),
           "--batch-tokens", str(8 // tp * 4096), "--seq", "4096")  # fmt: skip
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    assert _beside(book, "tp_max_scaling_book", plain) == F_70B * W_ICI / C_V5P


def test_h100_within_a_node_is_c_over_the_one_way_nvlink(cli):
    """GPUs, Data Parallelism: "within a node ... 990e12 / 450e9 = 2200" (one-way NVLink, not
    doubled: the preset gave half); TP: Y < F·W/C."""
    run = (*FSDP_8, "--chip", "h100")
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    assert _beside(book, "critical_tokens_per_chip", plain) == C_H100 / NVLINK_H100
    assert _beside(book, "tp_max_scaling_book", plain) == F_8B * NVLINK_H100 / C_H100


def test_h100_across_nodes_is_c_over_the_node_egress(cli):
    """GPUs, DP: "within an SU or at the spine level, BS > 990e12 / 400e9", the node's egress
    8 · 400 Gb/s; the node's NVLink binds less."""
    run = ("llama-3-8b", "--chip", "h100", "--dp", "16", "--zero", "3", "--mesh", "default",
           "--batch-tokens", str(16 * 4096), "--seq", "4096")  # fmt: skip
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    assert _beside(book, "critical_tokens_per_chip", plain) == C_H100 / (8 * NIC_H100)


def test_mixed_fsdp_and_tp_overlaps_the_two_at_the_books_traffic(cli):
    """Training, "Combining FSDP and Tensor Parallelism": T_comms = max(T_FSDP, T_TP), and TP
    an all-gather and a reduce-scatter of bf16[B, D] per layer each way, 2·2·B·D/W (derive
    counts two all-reduces, twice that, and adds the two dims' times)."""
    tokens = 4 * 4096
    run = ("llama-3-8b", "--chip", "tpu-v5p", "--dp", "4", "--tp", "2", "--zero", "3",
           "--mesh", "x=8@9e10", "--batch-tokens", str(tokens), "--seq", "4096")  # fmt: skip
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    times = {k: Fraction(v) for k, v in book["comms_time_per_device"].items()}
    per_pass = L_8B * 2 * 2 * (tokens // 4) * D_8B / W_ICI  # B/X tokens a DP rank, a layer
    assert times["tp"] == 2 * per_pass  # forward and backward
    # one axis here: FSDP on the TP group's complement, each pass its slowest dim
    fsdp = times["dp"]
    assert Fraction(book["t_comms"]) == max(fsdp / 3, per_pass) + max(2 * fsdp / 3, per_pass)
    _beside(book, "t_comms", plain)


def test_check_accepts_the_books_2550(cli, tmp_path):
    """derive check marked 2550 incorrect under the preset."""
    path = tmp_path / "set.toml"
    path.write_text(
        'title = "book"\n[[problem]]\nid = "fsdp"\nmodel = "llama-3-8b"\nchip = "tpu-v5p"\n'
        'train = { dp = 8, zero = 3, recompute = "none", batch_tokens = 262144, seq = 4096, '
        'convention = "scaling-book" }\nask = ["critical_tokens_per_chip"]\n'
    )
    claim = str(C_V5P / W_ICI)
    r = cli(["check", "--problem-set", str(path), "--problem", "fsdp",
             "--quantity", "critical_tokens_per_chip", "--claim", claim])  # fmt: skip
    assert r.code == 0, r.err
    assert "incorrect" not in r.out.lower() and "correct" in r.out.lower(), r.out


def _serving(cli, *flags: str) -> dict:
    r = cli(["model", "llama-3-70b", "--chip", "h100", "--devices", "8", "--phase", "decode",
             "--set", "B=32", "--set", "S=4096", "--format", "json", *flags])  # fmt: skip
    assert r.code == 0, r.err
    return json.loads(r.out)["serving"]


def test_serving_step_leaves_tp_all_reduces_out_as_the_inference_chapter(cli):
    """Inference, "Theoretical estimates for LLM latency and throughput": a step is its bytes
    over HBM and its FLOPs, no TP comms; derive's own step adds 2 all-reduces a layer of the
    bf16 activations B·d, 2(t−1)/t of them over the one-way NVLink, which the book leaves out
    (the "19 %" with no hint). Llama 3 70B: 80 layers of d = 8192."""
    book, plain = _serving(cli, "--convention", "scaling-book"), _serving(cli)
    all_reduces = 80 * 2 * Fraction(2 * 7, 8) * 32 * 8192 * 2 / NVLINK_H100
    assert Fraction(plain["step"]["t_comms"]) == all_reduces
    assert Fraction(book["step"]["t_comms"]) == 0
    latency, own = Fraction(book["inter_token_latency"]), Fraction(plain["inter_token_latency"])
    assert latency == own - all_reduces
    assert book["derive_convention"]["latency"] == {"value": str(own), "ratio": str(latency / own)}
    print(
        f"inter_token_latency: scaling-book {latency}, derive {own} ({float(latency / own):.4f}×)"
    )
    assert "convention" not in plain


def test_serving_convention_is_named_and_needs_a_phase(cli):
    r = cli(["model", "llama-3-70b", "--chip", "h100", "--phase", "decode", "--set", "B=1",
             "--set", "S=8", "--convention", "nemo"])  # fmt: skip
    assert r.code == 2 and "--convention nemo" in r.err and r.err.count("\n") == 1
    r = cli(["model", "llama-3-70b", "--chip", "h100", "--convention", "scaling-book"])
    assert r.code == 2 and "--convention" in r.err and "--phase" in r.err


def test_the_books_state_is_ten_bytes_so_pure_dp_fits_hbm_over_ten(cli):
    """Training, "Data Parallelism": bf16 parameters and fp32 Adam state, "2 + 8 = 10 bytes per
    parameter", so the largest model pure DP trains is HBM / 10 parameters (v5p's HBM from
    chips.toml; the book's "roughly 9B" of 96 GB)."""
    hbm = _figure("tpu-v5p", "hbm_capacity_bytes")
    largest = hbm / (2 + 8)
    assert largest.denominator == 1
    for params, fits in ((largest, True), (largest + 1, False)):
        run = ("--params", str(params), "--chip", "tpu-v5p", "--dp", "1",
               "--batch-tokens", "4096", "--seq", "4096")  # fmt: skip
        book = _train(cli, *run)
        memory = book["memory_per_device"]
        state = sum(Fraction(memory[k]) for k in ("weights", "grads", "optimizer"))
        assert state == 10 * params and book["fits"] is fits
        print(
            f"state of {params}: scaling-book {state}, derive {_train(cli, *run, book=False)['memory_per_device']}"
        )


def test_tp_over_two_ici_axes_doubles_its_limit(cli):
    """Training, TP: "when we have multiple ICI axes ... Y < n_axes · F / 2550"."""
    run = ("llama-3-70b", "--chip", "tpu-v5p", "--tp", "8", "--mesh", "x=4@9e10,y=2@9e10",
           "--batch-tokens", "4096", "--seq", "4096")  # fmt: skip
    book, plain = _train(cli, *run), _train(cli, *run, book=False)
    assert _beside(book, "tp_max_scaling_book", plain) == 2 * F_70B * W_ICI / C_V5P


def test_all_to_all_is_a_quarter_of_the_all_gather_on_a_bidirectional_ring(cli):
    """Sharding, "Our final communication primitive: the AllToAll": on a bidirectional ring an
    all-to-all costs a quarter of the all-gather of the whole array, (X·V)/(4·W_ici) for V a
    device holds. Mixtral's dispatch and combine at ep 8: top_k = 2 copies of a micro-batch's
    bf16 activations S·d per call, 2 calls a layer each way, 32 layers, one micro-batch."""
    run = ("mixtral-8x7b", "--chip", "tpu-v5p", "--dp", "8", "--ep", "8", "--mesh", "x=8@9e10",
           "--batch-tokens", str(8 * 4096), "--seq", "4096")  # fmt: skip
    book = _train(cli, *run)
    v = 4 * 32 * 2 * (2 * 4096 * 4096)  # every call's V, summed
    assert Fraction(book["comms_time_per_device"]["ep"]) == 8 * v / (4 * W_ICI)
    own = Fraction(_train(cli, *run, book=False)["comms_time_per_device"]["ep"])
    print(f"ep all-to-all: scaling-book {8 * v / (4 * W_ICI)}, derive {own}")


@pytest.mark.parametrize("latency", ["1s", "1us"])
def test_a_collective_waits_for_its_hops_or_its_bytes_the_longer(cli, latency):
    """Inference, "Appendix C: Latency bound communications": an all-gather over X chips of a
    bidirectional ring takes max(T_min·X/2, B/W_ici). FSDP on 8 v5p chips: 3 collectives of the
    bf16 weights a step (derive's own adds the two terms, over X − 1 hops)."""
    t_min = Fraction(1) if latency == "1s" else Fraction(1, 10**6)
    run = ("llama-3-8b", "--chip", "tpu-v5p", "--dp", "8", "--zero", "3",
           "--mesh", f"x=8@9e10+{latency}", "--batch-tokens", str(8 * 4096), "--seq", "4096")  # fmt: skip
    book = _train(cli, *run)
    weights = 2 * Fraction(book["params_per_device"])
    expected = 3 * max(t_min * 8 / 2, weights / W_ICI)
    assert Fraction(book["comms_time_per_device"]["dp"]) == expected
    own = _train(cli, *run, book=False)["comms_time_per_device"]["dp"]
    print(f"FSDP comms at {latency} a hop: scaling-book {expected}, derive {own}")


# --- derive solve --collective --convention scaling-book ---------------------------------
# The book's Sharding chapter ("A Deeper Dive into TPU Communication Primitives"): an
# all-gather or a reduce-scatter V/W, an all-reduce 2V/W, W the bidirectional ICI bandwidth
# of every axis the collective spans (2β each), an all-to-all a quarter of an all-gather of the
# whole array on a bidirectional ring; derive's exact time printed beside (time_derive).


def _book(cli, text: str, mesh: str, *sets: str) -> dict:
    argv = [
        "solve",
        "--collective",
        text,
        "--dtype",
        "bf16",
        "--mesh",
        mesh,
        "--set",
        ",".join(sets),
    ]
    book = cli([*argv, "--convention", "scaling-book", "--format", "json"])
    own = cli([*argv, "--format", "json"])
    assert book.code == 0 and own.code == 0, book.err + own.err
    (b,), (o,) = json.loads(book.out)["collectives"], json.loads(own.out)["collectives"]
    assert b["time_derive"] == o["time"]  # derive's own, beside the book's
    return b


@pytest.mark.parametrize(
    ("text", "sets", "book_time"),
    [
        # E·F bf16 gathered over y: V = 2·E·F bytes, W = 2·4.5e10
        ("AllGather_y(A[E_y, F])", ("E=2048", "F=8192"), Fraction(2 * 2048 * 8192, 2 * 45 * 10**9)),
        ("ReduceScatter_x(A[B, F]{U_x})", ("B=2048", "F=8192"),
         Fraction(2 * 2048 * 8192, 2 * 45 * 10**9)),
        ("AllReduce_x(A[B, F]{U_x})", ("B=2048", "F=8192"),
         2 * Fraction(2 * 2048 * 8192, 2 * 45 * 10**9)),
        # two axes: "we 3x our bandwidth" over three; W = 2·(2·4.5e10) over x and y
        ("AllGather_{xy}(A[E_{xy}, F])", ("E=2048", "F=8192"),
         Fraction(2 * 2048 * 8192, 4 * 45 * 10**9)),
    ],
)  # fmt: skip
def test_the_books_collectives_on_a_torus(cli, text, sets, book_time):
    got = _book(cli, text, "x=4@4.5e10:torus,y=4@4.5e10:torus", *sets)
    assert Fraction(got["time"]) == book_time


def test_the_books_all_to_all_is_a_quarter_of_an_all_gather(cli):
    mesh = "x=8@4.5e10:torus"
    gather = _book(cli, "AllGather_x(A[B_x, N])", mesh, "B=8192", "N=4096")
    a2a = _book(cli, "AllToAll_x(A[B_x, N] -> A[B, N_x])", mesh, "B=8192", "N=4096")
    assert Fraction(a2a["time"]) == Fraction(gather["time"]) / 4


def test_the_books_switch_is_one_way_and_a_convention_needs_a_mesh(cli):
    got = _book(cli, "AllGather_gpu(A[E_gpu, F])", "gpu=8@4.5e11:switch", "E=2048", "F=8192")
    assert Fraction(got["time"]) == Fraction(2 * 2048 * 8192, 45 * 10**10)  # V/W, W one way
    r = cli(
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--convention", "scaling-book"]
    )
    assert r.code == 2 and "give --mesh" in r.err
    r = cli(["solve", "--collective", "AllGather_x(A[E_x, F])", "--dtype", "bf16",
             "--mesh", "x=4@4.5e10", "--set", "E=8,F=8", "--convention", "book"])  # fmt: skip
    assert r.code == 2 and "derive or scaling-book" in r.err


# --- derive check and derive compare --convention scaling-book ----------------------------
# The same book's V/W judged and laid out for an operator: a sharded matmul's winner (its
# partial sums Z[B, F] all-reduced over x, 2V/W with W = 2β on a torus axis), and derive's own
# exact default beside it ((g−1)/g of V each way over 2 links, twice: 2·(g−1)/(2g)·V/β).

_TORUS, _G, _BETA = "x=4@4.5e10:torus,y=4@4.5e10:torus", 4, Fraction(45 * 10**9)
_SHARDED = ["matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--mesh", _TORUS, "--shard",
            "X[B, D]", "--shard", "Y[D_x, F]", "--set", "B=128,D=8192,F=16384"]  # fmt: skip
_V = Fraction(2 * 128 * 16384)  # Z, bf16


def _us(t: Fraction) -> str:
    return f"{float(t) * 1e6:.6g} us"


def _claim(cli, quantity: str, claim: str, *extra: str):
    return cli(["check", *_SHARDED, "--quantity", quantity, "--claim", claim,
                "--convention", "scaling-book", *extra])  # fmt: skip


def test_check_judges_a_sharded_operators_t_comms_against_the_books(cli):
    book, own = 2 * _V / (2 * _BETA), 2 * Fraction(_G - 1, 2 * _G) * _V / _BETA
    r = _claim(cli, "t_comms", _us(book))
    assert r.code == 0 and r.out.startswith("verdict: correct"), r.out
    assert f"derive's exact default is {float(own) * 1e6:.4g} µs" in r.out  # said beside
    print(f"t_comms: scaling-book {book}, derive {own}")
    wrong = _claim(cli, "t_comms", _us(own))  # derive's own, where the book's is asked
    assert wrong.code == 1 and "that is derive's exact default" in wrong.out
    assert f"exact is {float(book) * 1e6:.4g} µs" in wrong.out
    hidden = _claim(cli, "t_comms", _us(book), "--hide-expected")
    assert "derive's exact default" not in hidden.out
    plain = cli(["check", *_SHARDED, "--quantity", "t_comms", "--claim", _us(book)])
    assert plain.code == 1 and "Scaling Book's approximation" in plain.out  # derive's own asked
    data = json.loads(_claim(cli, "t_comms", _us(book), "--format", "json").out)
    assert Fraction(data["expected"]) == book


def test_check_judges_the_books_t_lower_and_a_comms_only_operator(cli, tmp_path):
    t_mem = 2 * Fraction(128 * 8192 // _G + 8192 // _G * 16384 + 128 * 16384) / (82 * 10**10)
    t_lower = max(Fraction(2 * 128 * 8192 * 16384, _G * 197 * 10**12), t_mem, 2 * _V / (2 * _BETA))
    assert _claim(cli, "t_lower", _us(t_lower)).out.startswith("verdict: correct")
    ops = tmp_path / "gather.py"
    ops.write_text(
        "from derive import Collective, Operator, Tensor, dims\n\nE, F, P = dims('E F P')\n"
        "gather = Operator(name='gather', flops=0, "
        "comms=[Collective('all_gather', Tensor('A', (E, F)), group=P)])\n"
    )
    argv = ["check", "gather", "--operators", str(ops), "--dtype", "bf16", "--mesh",
            "y=4@4.5e10:torus", "--set", "E=2048,F=8192,P=4", "--quantity", "t_comms",
            "--convention", "scaling-book", "--claim"]  # fmt: skip
    v = Fraction(2 * 2048 * 8192)
    book, own = v / (2 * _BETA), Fraction(_G - 1, 2 * _G) * v / _BETA
    r = cli([*argv, _us(book)])
    assert r.code == 0 and f"derive's exact default is {float(own) * 1e6:.4g} µs" in r.out, r.out
    wrong = cli([*argv, _us(own)])
    assert wrong.code == 1 and "that is derive's exact default" in wrong.out


def test_compare_lays_out_the_books_times(cli, tmp_path):
    ops = tmp_path / "rowpar.py"
    ops.write_text(
        "from derive import Collective, Operator, Tensor, dims\n\nB, D, F, P = dims('B D F P')\n"
        "rowpar = Operator(name='rowpar', flops=2 * B * D * F, reads=[Tensor('X', (B, D)), "
        "Tensor('W', (D, F))], writes=[Tensor('Y', (B, F))], "
        "comms=[Collective('all_reduce', Tensor('Y', (B, F)), group=P)])\n"
    )
    argv = ["compare", "rowpar", "--operators", str(ops), "--dtype", "bf16", "--mesh",
            "x=4@4.5e10:torus", "--set", "B=1024,D=8192,F=8192,P=4", "--chips", "tpu-v5e,h100"]  # fmt: skip
    v = Fraction(2 * 1024 * 8192)
    book, own = 2 * v / (2 * _BETA), 2 * Fraction(_G - 1, 2 * _G) * v / _BETA
    r = cli([*argv, "--convention", "scaling-book", "--format", "json"])
    assert r.code == 0, r.err
    for row in json.loads(r.out):
        assert Fraction(row["network"]["t_comms"]["exact"]) == book
        assert Fraction(row["network"]["t_comms_derive"]["exact"]) == own
    plain = json.loads(cli([*argv, "--format", "json"]).out)
    assert all(Fraction(row["network"]["t_comms"]["exact"]) == own for row in plain)
    assert all("t_comms_derive" not in row["network"] for row in plain)
    md = cli([*argv, "--convention", "scaling-book"]).out
    assert "convention: scaling-book" in md and f"{float(own) * 1e6:.5g} µs" in md
    assert f"{float(book) * 1e6:.2f}" in md


def test_the_convention_flag_is_declared_once_for_every_command(cli, tmp_path):
    from derive.commands.cli import build_parser
    from derive.commands.options import CONVENTION_HELP

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices
    for command in ("solve", "check", "compare", "model", "train", "sweep"):
        (flag,) = [a for a in sub[command]._actions if "--convention" in a.option_strings]
        assert (flag.help, flag.metavar) == (CONVENTION_HELP, "NAME"), command
    path = tmp_path / "set.toml"
    path.write_text('title = "s"\n[[problem]]\nid = "p"\noperator = "matmul"\ndtype = "bf16"\n'
                    'chip = "h100"\nset = { B = 8, D = 8, F = 8 }\n')  # fmt: skip
    r = cli(["check", "--problem-set", str(path), "--problem", "p", "--quantity", "t_comms",
             "--claim", "1 us", "--convention", "scaling-book"])  # fmt: skip
    assert r.code == 2 and "--convention" in r.err and r.err.count("\n") == 1
    r = cli(["check", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100", "--quantity",
             "t_lower", "--claim", "1 ms", "--convention", "scaling-book"])  # fmt: skip
    assert r.code == 2 and "--convention" in r.err and r.err.count("\n") == 1


def test_check_judges_a_serving_step_under_the_books_convention(cli):
    """derive check MODEL --phase takes --convention as derive model does (it was dropped):
    the step without TP's all-reduces; without --phase the flag is refused, never ignored."""
    own = Fraction(_serving(cli)["inter_token_latency"])
    book = own - 80 * 2 * Fraction(2 * 7, 8) * 32 * 8192 * 2 / NVLINK_H100
    argv = ["check", "llama-3-70b", "--chip", "h100", "--devices", "8", "--phase", "decode",
            "--set", "B=32", "--set", "S=4096", "--quantity", "inter_token_latency", "--claim"]  # fmt: skip
    r = cli([*argv, str(book), "--convention", "scaling-book"])
    assert r.code == 0 and r.out.startswith("verdict: correct"), r.out
    assert cli([*argv, str(book)]).code == 1  # derive's own adds the all-reduces
    r = cli(["check", "llama-3-8b", "--quantity", "params", "--claim", "8e9", "--convention",
             "scaling-book"])  # fmt: skip
    assert r.code == 2 and "--convention" in r.err and "--phase" in r.err


def test_check_takes_a_collective_in_the_books_notation(cli):
    """derive check --collective, as derive solve's: the book's V/W judged under the convention
    (W = 2β on a torus axis), derive's exact (g−1)/g of V over the two links otherwise."""
    v = Fraction(2 * 2048 * 8192)  # A[E, F] gathered over y, bf16
    book, own = v / (2 * _BETA), Fraction(_G - 1, 2 * _G) * v / _BETA
    argv = ["check", "--collective", "AllGather_y(A[E_y, F])", "--dtype", "bf16", "--mesh",
            _TORUS, "--set", "E=2048,F=8192", "--quantity", "t_comms", "--format", "json",
            "--claim"]  # fmt: skip
    r = cli([*argv, _us(book), "--convention", "scaling-book"])
    assert r.code == 0 and Fraction(json.loads(r.out)["expected"]) == book, r.out + r.err
    r = cli([*argv, _us(own)])
    assert r.code == 0 and Fraction(json.loads(r.out)["expected"]) == own, r.out + r.err
    wrong = cli([*argv, _us(book)])
    assert wrong.code == 1 and "Scaling Book's approximation" in wrong.out
    both = cli(["check", "matmul", *argv[1:], "1 us"])
    assert both.code == 2 and "--collective" in both.err and both.err.count("\n") == 1
