"""The Scaling Book's "How to Think About TPUs" (jax-ml/scaling-book, tpus.md, as fetched at
commit 0819a7d): the hardware questions chips.toml answers, through the CLI.

The book's inputs (its tables and the questions' own figures) are typed below; each expected
value is the book's formula evaluated on them, never its answer. Where derive times something
on a mesh the test runs ``--convention scaling-book`` and reads derive's own exact value beside
it; a chip's facts have no convention (``derive chips``). A slip is named where the book's
answer differs from its own formula.

=====================  ==============================================  ======================
where                  worked number                                   status
=====================  ==============================================  ======================
What Is a TPU?         an MXU: bf16[8,128]@[128,128] per 8 cycles,     reproduced (chips
                       "5e13" at 1.5 GHz; 4 MXUs, "2e14" (1.97e14)     facts)
                       v5e int8 "4e14" (3.94e14); VMEM 128 MiB         reproduced
                       v5p pod of 8960 chips, "4 exaflops"             reproduced
VMEM and intensity     VMEM ~22x HBM: intensity "10-20" suffices       reproduced (ridge)
Key Takeaways tables   pod, host, HBM, FLOPs, ICI one way / both ways  reproduced, but v5e's
                                                                       HBM 8.2e11 (book
                                                                       8.1e11) and v5p's
                                                                       95 GB (book 96 GB)
                       PCIe 1.5e10 a chip, DCN 2.5e10 a host           reproduced
Question 1             200B bf16 over 32 v4p: 12.5e9 B a chip over     reproduced (slip:
                       HBM, "around 10ms"                              1.23e12, table 1.2e12)
Question 2             v5e pod: 32 hosts, 256 cores, 5.1e16 FLOP/s,    reproduced (chips
                       4 TB; v5p pod: 2240 hosts, 17,920 cores,        facts, v5e's and v6e's
                       4e18 FLOP/s, 860 TB                             one core added; the
                                                                       book's 2e14, 4.5e14
                                                                       round)
Question 3             PCIe-bound matmul on v6e: B > 9.2e14/1.5e10     reproduced as D → ∞;
                       ≈ 61,000                                        at D = 8192 never
Question 4             int8 [16384, 4096] on v5e: B > 271 from HBM,    reproduced (slip: 271
                       B > 11 from VMEM (22x)                          from 1.3e8, exact 263)
Question 5             v5e 4x4, bf16[8, 128, 8192] (0,0) → (3,3):      fixed (Send_{xy}: V
                       first byte 6 µs, 188 + 6 = 194 µs               over both ports);
                                                                       slip: 1.7e7 for 1.68e7
Question 6             (2) ICI: 15/16 of the array over 2 links        fixed (a line one way,
                       "167ms"; (3) HBM "19ms"; (4) FLOPs "1.3ms";     (G−1)/G; derive's own:
                                                                       alike lines at once,
                                                                       it was 2x); slips: 16e9
                       the whole ~150–200 ms                           for 2^34 B, 1.3 for 1.4
Question 6 (1)         PCIe load: 8 GB over 8 links, "66ms"            reproduced (a kernel
                                                                       of 2^30 B at the chip's
                                                                       pcie_bytes_per_s as
                                                                       --bandwidth: 71.6 ms;
                                                                       the 16e9 slip again)
TPU Networking         v5p "2.5e12" HBM against 9e10 ICI, "about 25x"  the book's own table
                                                                       has 2.8e12 (31x)
Appendix C             VPU 2048 ALUs, 32 VREGs (v4)                    not in chips.toml
=====================  ==============================================  ======================
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

US = Fraction(1, 10**6)

# The book's "specific numbers for our chips" (Key Takeaways), as its table writes them.
TABLE = {  # chip: (pod chips, host chips, HBM bytes, HBM B/s, bf16 FLOP/s, int8 OP/s, ICI one way)
    "tpu-v4p": (16 * 16 * 16, 2 * 2 * 1, "32e9", "1.2e12", "2.75e14", "2.75e14", "4.5e10"),
    "tpu-v5p": (16 * 20 * 28, 2 * 2 * 1, "96e9", "2.8e12", "4.59e14", "9.18e14", "9e10"),
    "tpu-v5e": (16 * 16, 4 * 2, "16e9", "8.1e11", "1.97e14", "3.94e14", "4.5e10"),
    "tpu-v6e": (16 * 16, 4 * 2, "32e9", "1.6e12", "9.20e14", "1.84e15", "9e10"),
}
# chips.toml cites Google's documents where the book rounds: v5e's 819 GB/s, v5p's 95 GB.
DIFFER = {("tpu-v5e", "hbm_bytes_per_s"): "8.2e11", ("tpu-v5p", "hbm_capacity_bytes"): "95e9"}


@pytest.fixture
def chips(cli) -> dict:
    r = cli(["chips", "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def _fact(chips: dict, chip: str, name: str) -> Fraction:
    return Fraction(chips[chip]["facts"][name]["value"])


@pytest.mark.parametrize("chip", sorted(TABLE))
def test_the_chip_table(chips, chip):
    pod, host, hbm, bw, bf16, int8, ici = TABLE[chip]
    got = chips[chip]
    for key, book in (
        ("hbm_capacity_bytes", hbm),
        ("hbm_bytes_per_s", bw),
        ("link_bytes_per_s", ici),
    ):
        assert Fraction(got[key]) == Fraction(DIFFER.get((chip, key), book)), key
    assert Fraction(got["peaks"]["bf16"]["flop_per_s"]) == Fraction(bf16)
    assert Fraction(got["peaks"]["int8"]["flop_per_s"]) == Fraction(int8)
    assert (_fact(chips, chip, "pod_chips"), _fact(chips, chip, "host_chips")) == (pod, host)
    # PCIe "typically around 1.5e10 bytes / second per chip"; "for TPU v4 is 16GB / second each
    # way"; Trillium "32GB/s, about 2x higher"
    pcie = {"tpu-v4p": "1.6e10", "tpu-v6e": "3.2e10"}.get(chip, "1.5e10")
    assert _fact(chips, chip, "pcie_bytes_per_s") == Fraction(pcie)
    # 4 nearest neighbours on a 2D torus (v5e, v6e), 6 on a 3D one (v4, v5p)
    assert _fact(chips, chip, "ici_links") == (6 if chip.endswith("p") else 4)
    assert _fact(chips, chip, "dcn_bytes_per_s_per_host") == Fraction("2.5e10")
    # the bidirectional column is twice the one-way one (a link used both ways)
    print(f"{chip}: ICI one way {Fraction(ici)}, both ways {2 * Fraction(ici)}")


def test_an_mxu_and_the_v5e_peak(chips):
    """One bf16[8,128] @ bf16[128,128] every 8 cycles: 128·128 multiply-adds a clock, "about
    5e13 bf16 FLOPs/s per MXU at 1.5GHz"; 4 MXUs, "2e14" (the table's 1.97e14)."""
    per_clock = Fraction(2 * 8 * 128 * 128, 8)
    assert _fact(chips, "tpu-v5e", "bf16_flops_per_clock") == per_clock
    per_mxu = per_clock * _fact(chips, "tpu-v5e", "clock_hz")
    assert per_mxu == per_clock * Fraction("1.5e9")
    whole = _fact(chips, "tpu-v5e", "units") * per_mxu
    peak = Fraction(chips["tpu-v5e"]["peaks"]["bf16"]["flop_per_s"])
    assert abs(whole - peak) / peak < Fraction(1, 100)  # 1.966e14 against the quoted 1.97e14
    assert _fact(chips, "tpu-v5e", "vmem_bytes") == 128 * 2**20
    # Trillium's 256x256 array "can perform 4x more FLOPs / cycle" than a 128x128
    assert _fact(chips, "tpu-v6e", "mxu_side") ** 2 / 128**2 == 4
    print(f"MXU {float(per_mxu):.4g} FLOP/s, 4 MXUs {float(whole):.4g}, quoted {float(peak):.4g}")


def test_question_2_pods(chips):
    """A v5e pod: 16x16 chips, hosts of 4x2, one core a chip; a v5p pod: 16x20x28, hosts of
    2x2x1, two TensorCores a chip. Hosts, cores, FLOP/s and HBM of each (the book: 2e14 and
    4.5e14 a chip rounded, "5.1e16" and "4e18"; 96 GB, chips.toml 95 GB: 851 TB, not 860)."""
    for chip, cores, pod, host in (
        ("tpu-v5e", 1, 16 * 16, 4 * 2),
        ("tpu-v5p", 2, 16 * 20 * 28, 2 * 2),
    ):
        n = _fact(chips, chip, "pod_chips")
        assert n == pod and n / _fact(chips, chip, "host_chips") == pod // host
        assert _fact(chips, chip, "tensorcores") * n == cores * pod  # 256 and 17,920
        flops = n * Fraction(chips[chip]["peaks"]["bf16"]["flop_per_s"])
        hbm = n * Fraction(chips[chip]["hbm_capacity_bytes"])
        print(
            f"{chip}: {pod // host} hosts, {cores * pod} cores, {float(flops):.3g} FLOP/s, {float(hbm):.3g} B"
        )
    assert 8960 * Fraction(chips["tpu-v5p"]["peaks"]["bf16"]["flop_per_s"]) > Fraction("4e18")


def _solve(cli, *argv: str) -> dict:
    r = cli(["solve", *argv, "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_vmem_bandwidth_needs_an_intensity_of_about_11(cli):
    """ "VMEM bandwidth is around 22x higher than HBM bandwidth ... an arithmetic intensity of
    only 10-20": v5e's bf16 peak over 22 × 8.1e11."""
    vmem = 22 * Fraction("8.1e11")
    got = _solve(
        cli, "matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--bandwidth", str(float(vmem))
    )
    assert Fraction(got["ridge"]) == Fraction("1.97e14") / vmem
    assert 10 < Fraction(got["ridge"]) < 20


def test_question_1_loading_200b_parameters_over_32_v4p(cli):
    """bf16 200e9 parameters over 32 chips, 12.5e9 bytes a chip over the table's 1.2e12 B/s
    (the book's answer divides by 1.23e12: "around 10ms")."""
    argv = ["model", "--params", "200e9", "--chip", "tpu-v4p", "--devices", "32", "--phase",
            "decode", "--set", "B=1,S=1", "--kv-bytes-per-token", "0", "--format", "json"]  # fmt: skip
    book, own = (cli([*argv, *c]) for c in (["--convention", "scaling-book"], []))
    assert book.code == own.code == 0, book.err + own.err
    step = json.loads(book.out)["serving"]
    assert Fraction(step["step"]["t_mem"]) == 2 * Fraction("200e9") / 32 / Fraction("1.2e12")
    derive = step["derive_convention"]["latency"]["value"]
    assert derive == json.loads(own.out)["serving"]["inter_token_latency"]
    print(f"load: scaling-book {step['inter_token_latency']}, derive {derive}")


def _crossover(got: dict) -> Fraction:
    assert got["crossover"]["status"] == "crosses", got["crossover"]
    return Fraction(got["crossover"]["exact"])


def test_question_3_pcie_bound_matmul_on_v6e(cli):
    """x bf16[B, D], A bf16[D, F = 4D] in host DRAM, over 1.5e10 B/s of PCIe on a v6e
    (9.2e14): 2BDF/C = 2(BD + DF + BF)/W. The book drops BD and BF (B ≪ D): B > C/W ≈ 61,000.
    Exactly, B = C·DF / (W·DF − C·(D + F)): it tends to C/W as D grows, and at D = 8192 no B
    is compute bound."""
    c, w = Fraction("9.2e14"), Fraction("1.5e10")
    base = ["matmul", "--dtype", "bf16", "--chip", "tpu-v6e", "--bandwidth", "1.5e10"]
    d = 2**20
    b = _crossover(_solve(cli, *base, "--set", f"D={d},F={4 * d}"))
    assert b == c * d * 4 * d / (w * d * 4 * d - c * (d + 4 * d))
    assert c / w < b < c / w * Fraction(11, 10)
    assert _solve(cli, *base, "--set", "D=8192,F=32768")["crossover"]["status"] == "never"
    print(
        f"PCIe crossover: book's limit {float(c / w):.6g}, derive exact at D = 2^20: {float(b):.6g}"
    )


@pytest.mark.parametrize("bandwidth", [Fraction("8.1e11"), 22 * Fraction("8.1e11")])
def test_question_4_int8_matmul_on_v5e(cli, bandwidth):
    """int8[16384, 4096] by int8[B, 4096] on a v5e (3.94e14 int8 OP/s): FLOPs-bound when
    2·4096·16384·B/C > (16384·4096 + 4096·B + 16384·B)/W. From HBM (8.1e11) the book writes
    "B > 271" from its rounded 1.3e8 and 6.7e7 (exactly 262.7); from VMEM (22x) "B > 11"."""
    d, f, c = 4096, 16384, Fraction("3.94e14")
    got = _solve(cli, "matmul", "--dtype", "int8", "--chip", "tpu-v5e", "--bandwidth",
                 str(float(bandwidth)), "--set", f"D={d},F={f}")  # fmt: skip
    assert Fraction(got["peak"]) == c and Fraction(got["bandwidth"]) == bandwidth
    b = _crossover(got)
    assert 2 * d * f * b / c == (d * f + d * b + f * b) / bandwidth
    if bandwidth == Fraction("8.1e11"):  # "slightly larger than the 240" (bf16 C/W, F, D → ∞)
        bf16 = _solve(
            cli, "matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--bandwidth", "8.1e11"
        )
        assert Fraction(bf16["ridge"]) == Fraction("1.97e14") / bandwidth < b
    print(f"int8 matmul over {float(bandwidth):.4g} B/s: B > {float(b):.6g}")


def _send(cli, mesh: str) -> tuple[Fraction, Fraction]:
    argv = ["solve", "--collective", "Send_{xy}(A[B, S, D], hops=6)", "--dtype", "bf16",
            "--mesh", mesh, "--chip", "tpu-v5e", "--set", "B=8,S=128,D=8192", "--format", "json"]  # fmt: skip
    r = cli([*argv, "--convention", "scaling-book"])
    assert r.code == 0, r.err
    (one,) = json.loads(r.out)["collectives"]
    return Fraction(one["time"]), Fraction(one["time_derive"])


def test_question_5_a_send_across_a_v5e_4x4(cli):
    """bf16[8, 128, 8192] from TPU{0,0} to TPU{3,3} of a v5e 4x4 (no wraparound): half right,
    half down, 2 · 4.5e10 B/s; six hops of 1 µs, so the first byte at 6 µs and the whole at
    V/(2β) + 6 µs (the book: 1.7e7 bytes, "188 + 6 = 194us"; exactly 2^24 B, 186.4 + 6)."""
    v, beta = 2 * 8 * 128 * 8192, Fraction("4.5e10")
    book, own = _send(cli, ",".join(f"{a}=4@4.5e10+1us:line" for a in "xy"))
    assert book == own == v / (2 * beta) + 6 * US
    bare, _ = _send(cli, "tpu:4x4")  # the slice from chips.toml: its lines, no latency given
    assert book - bare == 6 * US  # the first byte's arrival
    print(f"send: scaling-book {float(book) * 1e6:.4g} µs, derive {float(own) * 1e6:.4g} µs")


def test_question_6_the_pieces_of_a_gather_and_a_matmul(cli):
    """int8[128·1024, 128·1024] (2^34 B; the book's "16GB", then 16e9) sharded over a v5e 4x4,
    gathered to one chip and multiplied by bf16[8, 128·1024]. (2) ICI: 15/16 of the array over
    2 links at 4.5e10, "15e9 / (4.5e10 * 2) = 167ms", a full all-gather alike; (3) HBM → MXU
    at 8.1e11, "16e9 / 8.1e11 = 19ms"; (4) 2·8·2^34 FLOPs at 1.97e14, "1.3ms" (1.395)."""
    n, beta = 128 * 1024, Fraction("4.5e10")
    argv = ["solve", "--collective", "AllGather_{xy}(A[I_{xy}, J])", "--dtype", "int8",
            "--mesh", "tpu:4x4", "--chip", "tpu-v5e", "--set", f"I={n},J={n}", "--format", "json"]  # fmt: skip
    r = cli([*argv, "--convention", "scaling-book"])
    assert r.code == 0, r.err
    (one,) = json.loads(r.out)["collectives"]
    ici = Fraction(n * n) * Fraction(15, 16) / (2 * beta)
    assert Fraction(one["time"]) == ici
    assert Fraction(one["time_derive"]) == ici  # derive's own: both axes' links at once (it was 2x)
    got = _solve(cli, "matmul", "--dtype", "bf16", "--dtype", "Y=int8", "--chip", "tpu-v5e",
                 "--bandwidth", "8.1e11", "--set", f"B=8,D={n},F={n}")  # fmt: skip
    assert Fraction(got["t_mem"]) == (n * n + 2 * 2 * 8 * n) / Fraction("8.1e11")
    assert Fraction(got["t_math"]) == 2 * 8 * n * n / Fraction("1.97e14")
    assert max(ici, Fraction(got["t_mem"]), Fraction(got["t_math"])) == ici  # the ICI binds
    print(f"ICI {float(ici):.4g} s (derive's own {float(Fraction(one['time_derive'])):.4g} s), "
          f"HBM {float(Fraction(got['t_mem'])):.4g} s, FLOPs {float(Fraction(got['t_math'])):.4g} s")  # fmt: skip


def test_question_6_1_a_pcie_load_is_a_kernel_at_the_chips_pcie_bandwidth(cli, chips):
    """(1) PCIe load: each of the 2 hosts of a v5e 4x4 holds half the array, "16GB / 2 = 8GB
    over 8 PCIe links, each of which has 1.5e10 bytes/second", "about 66ms". Each chip loads its
    own 1/16 over its own link, so the load is a kernel of that many bytes at the chip's PCIe
    bandwidth (``derive chips``'s pcie_bytes_per_s as ``--bandwidth``): 2^30 B, 71.6 ms; the
    book's 66.7 ms is the same formula on its 16e9 for 2^34 B."""
    array, host = 2**34, _fact(chips, "tpu-v5e", "host_chips")
    hosts, pcie = 16 / host, _fact(chips, "tpu-v5e", "pcie_bytes_per_s")
    got = _solve(cli, "--flops", "0", "--bytes", str(array // 16), "--chip", "tpu-v5e",
                 "--bandwidth", str(pcie))  # fmt: skip
    load = Fraction(got["step"]["t_lower"])
    assert load == Fraction(array) / hosts / (host * pcie) == Fraction(array // 16) / pcie
    book = Fraction("16e9") / hosts / (host * Fraction("1.5e10"))  # its stated inputs
    assert load / book == Fraction(array) / Fraction("16e9")  # the slip named above, alone
    ici = Fraction(array) * Fraction(15, 16) / (2 * Fraction("4.5e10"))
    assert load < ici  # the pipeline's slowest piece is still the ICI copy
    print(
        f"PCIe load: book's formula {float(book) * 1e3:.4g} ms, derive {float(load) * 1e3:.4g} ms"
    )
