"""The checker speaks the mesh (issue 45, item 7): a sharded operator's winner, its collectives
and a tensor's bytes judged, and a wrong communication claim named when it is the one-way
ring's, the other strategy's or the Scaling Book's approximation. Every expected value is
computed here from the inputs (a TPU v5e's ICI β = 4.5e10 B/s one way, bf16, 4×4 torus)."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction as Q

import pytest

_W = Q(45 * 10**9)  # one way per link
_TORUS = "x=4@4.5e10:torus,y=4@4.5e10:torus"
_B, _D, _F, _G = 128, 8192, 16384, 4
_ARGS = ["matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--mesh", _TORUS,
         "--shard", "X[B, D]", "--shard", "Y[D_x, F]", "--set", f"B={_B},D={_D},F={_F}"]  # fmt: skip
_Z, _Y = Q(2 * _B * _F), Q(2 * _D * _F)  # bytes: the partial sums Z all-reduced, Y gathered
_WINNER = "partial sums over x"  # Z's all-reduce moves B·F twice, Y's gather D·F once: B ≪ D/2


def _torus(volume: Q, reduce: bool) -> Q:
    """A bidirectional ring of g: (g−1)/g of V over its 2 links, twice for an all-reduce."""
    return (2 if reduce else 1) * Q(_G - 1, _G) * volume / 2 / _W


def _us(t: Q) -> str:
    return f"{float(t) * 1e6:.6g} us"


def _check(cli, quantity: str, claim: str, *extra: str):
    return cli(["check", *_ARGS, "--quantity", quantity, "--claim", claim, *extra])


def _diagnosis(r) -> str:
    return r.out.split("diagnosis:")[1]


def test_the_winner_is_judged_by_its_name_or_its_collectives(cli):
    assert _torus(_Z, True) < _torus(_Y, False)  # the winner, recomputed
    for claim in (_WINNER, "Partial sums over x", "AllReduce_x(Z[B, F]{U_x})"):
        r = _check(cli, "strategy", claim)
        assert r.code == 0 and r.out.startswith("verdict: correct"), r.out
    wrong = _check(cli, "strategy", "gather Y")
    assert wrong.code == 1 and "that is the gather Y strategy's" in wrong.out
    assert f"exact is {_WINNER}" in wrong.out
    hidden = _check(cli, "strategy", "gather Y", "--hide-expected")
    assert _WINNER not in hidden.out and "gather Y strategy's" in hidden.out
    other = _check(cli, "strategy", "all-gather everything")
    assert other.code == 1 and "not a strategy of this sharding" in other.out


def test_the_winners_collectives_in_the_books_notation(cli):
    right = _check(cli, "collectives", "AllReduce_{x}(Z[B, F]{U_x})", "--format", "json")
    assert right.code == 0 and json.loads(right.out)["verdict"] == "correct"
    wrong = _check(cli, "collectives", "AllGather_x(Y[D_x, F])")
    assert wrong.code == 1 and "gather Y strategy's" in wrong.out


def test_a_tensors_bytes_per_device(cli):
    y_local = 2 * (_D // _G) * _F  # Y[D_x, F]: D over x's 4 devices, bf16
    assert _check(cli, "bytes_per_device", f"Y = {y_local}").out.startswith("verdict: correct")
    assert _check(cli, "bytes_per_device", f"Y: {y_local // 2**20} MiB").code == 0
    whole = _check(cli, "bytes_per_device", f"Y[D_x, F] = {2 * _D * _F}")
    assert (
        whole.code == 1 and f"that is the whole Y; each device holds Y[D_x, F], 1/{_G}" in whole.out
    )
    nameless = _check(cli, "bytes_per_device", f"{y_local}")
    assert (
        nameless.code == 2
        and nameless.err.startswith("error: ")
        and "name the tensor" in nameless.err
    )


def test_t_comms_as_a_one_way_ring_is_named(cli):
    ring = 2 * Q(_G - 1, _G) * _Z / _W  # 2(g−1)/g·V/β over one link each way
    assert ring != _torus(_Z, True)
    r = _check(cli, "t_comms", _us(ring))
    assert r.code == 1 and "that is a one-way ring's time on the same links" in _diagnosis(r)
    assert "torus x over 2 link(s)" in r.out
    # the bytes over the link of the roofline: T_comms at β_link
    nb = _check(cli, "network_bytes", str(int(ring * _W)))
    assert nb.code == 1 and "one-way ring's byte count" in nb.out
    assert f"exact is {int(_torus(_Z, True) * _W)} bytes" in nb.out
    other = _check(cli, "network_bytes", str(int(_torus(_Y, False) * _W)))
    assert other.code == 1 and "gather Y strategy's" in other.out


def test_t_comms_and_t_lower_of_the_other_strategy_are_named(cli):
    r = _check(cli, "t_comms", _us(_torus(_Y, False)))
    assert r.code == 1
    assert f"that is the gather Y strategy's, not the winner's — the winner is {_WINNER}" in r.out
    hidden = _check(cli, "t_comms", _us(_torus(_Y, False)), "--hide-expected")
    assert "gather Y strategy's, not the winner's" in hidden.out and _WINNER not in hidden.out
    # a strategy's T_lower overlaps its collectives: max(T_math, T_mem, T_comms)
    peak, hbm = Q(197 * 10**12), Q(82 * 10**10)
    t_math, t_mem = Q(2 * _B * _D * _F, peak), 2 * Q(_B * _D + _D * _F + _B * _F) / hbm
    gathered = max(t_math, t_mem, _torus(_Y, False))
    r = _check(cli, "t_lower", _us(gathered))
    assert r.code == 1 and "that is the gather Y strategy's" in r.out


def _winner_times() -> tuple[Q, Q, Q]:
    """The winner's T_math, T_mem (X whole, Y[D_x, F], Z whole, bf16) and T_comms."""
    peak, hbm = Q(197 * 10**12), Q(82 * 10**10)
    local = 2 * Q(_B * _D // _G + _D // _G * _F + _B * _F)
    return Q(2 * _B * _D * _F, _G * peak), local / hbm, _torus(_Z, True)


@pytest.mark.parametrize("book", [False, True])
def test_the_strategies_table_and_the_checker_have_one_t_lower(cli, book):
    """The winner's row of JSON sharding.strategies is the problem's own t_math, t_mem,
    t_comms, t_lower (overlapped: the largest) and t_upper (their sum), as values() reads
    them and as the checker judges them."""
    from derive.pipeline import registry_naming
    from derive.pipeline.shard import derive_book_sharded
    from derive.problem.binding import ProblemSpec

    extra = ["--convention", "scaling-book"] if book else []
    r = cli(["solve", *_ARGS, *extra, "--format", "json"])
    assert r.code == 0, r.err
    data = json.loads(r.out)
    (row,) = [
        s for s in data["sharding"]["strategies"] if s["name"] == data["sharding"]["strategy"]
    ]
    t_math, t_mem, t_comms = _winner_times()
    if book:
        t_comms = 2 * _Z / (2 * _W)  # 2V/W, W both ways
    assert Q(row["t_lower"]) == max(t_math, t_mem, t_comms)
    assert Q(row["t_upper"]) == t_math + t_mem + t_comms
    assert (Q(row["t_math"]), Q(row["t_mem"]), Q(row["t_comms"])) == (t_math, t_mem, t_comms)
    assert Q(data["t_lower"]) == Q(row["t_lower"]) and Q(data["t_upper"]) == Q(row["t_upper"])
    assert Q(data["network"]["t_comms"]) == Q(row["t_comms"])
    spec = ProblemSpec("matmul", ("bf16",), chip="tpu-v5e", mesh=_TORUS, sets=(f"B={_B},D={_D},F={_F}",),
                       convention="scaling-book" if book else None)  # fmt: skip
    shards = ("X[B, D]", "Y[D_x, F]")
    derivation, _ = derive_book_sharded(spec, registry_naming("matmul", ()), shards)
    values = {v.name: v.exact for v in derivation.values().values()}
    for name in ("t_math", "t_mem", "t_comms", "t_lower", "t_upper"):
        assert Q(str(values[name])) == Q(row[name]), name
        said = _check(cli, name, str(row[name]), *extra)
        assert said.out.startswith("verdict: correct"), (name, said.out)
    serial = _check(cli, "t_lower", _us(max(t_math, t_mem) + t_comms), *extra)
    assert serial.code == 1 and "that waits for the collectives" in serial.out


def test_t_comms_as_the_scaling_books_approximation_is_named(cli):
    book = 2 * _Z / (2 * _W)  # 2V/W, W the bidirectional bandwidth, no (g−1)/g
    r = _check(cli, "t_comms", _us(book))
    assert r.code == 1 and "that is the Scaling Book's approximation" in r.out
    assert f"exact is {float(_torus(_Z, True)) * 1e6:.4g} µs" in r.out
    assert _check(cli, "t_comms", _us(_torus(_Z, True))).out.startswith("verdict: correct")


def test_a_slip_is_named_only_when_it_reproduces_the_claim(cli):
    r = _check(cli, "t_comms", _us(_torus(_Z, True) * Q(3, 2)))
    assert r.code == 1
    for slip in ("one-way ring", "Scaling Book", "strategy's"):
        assert slip not in r.out


def test_an_unsharded_problem_has_no_strategy(cli):
    r = cli(["check", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=8,D=8,F=8",
             "--quantity", "strategy", "--claim", "gather Y"])  # fmt: skip
    assert r.code == 2 and r.err.startswith("error: --quantity strategy: needs a sharded operator")


@pytest.fixture
def sharded_set(tmp_path):
    toml = tmp_path / "set.toml"
    toml.write_text(
        'title = "Sharded"\n[[problem]]\nid = "p"\ntitle = "Gather or reduce"\n'
        'text = "X[B, D] times Y[D_x, F]."\noperator = "matmul"\ndtype = "bf16"\n'
        f'chip = "tpu-v5e"\nmesh = "{_TORUS}"\nshard = ["X[B, D]", "Y[D_x, F]"]\n'
        f"set = {{ B = {_B}, D = {_D}, F = {_F} }}\n"
        'ask = ["strategy", "bytes_per_device", "t_comms"]\n'
    )
    return toml


def test_the_grading_csv_judges_a_sets_sharded_problem(cli, sharded_set, tmp_path):
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ann,p,strategy,{_WINNER}\nbob,p,strategy,gather Y\n"
        f"cat,p,bytes_per_device,Y = {2 * (_D // _G) * _F}\n"
        f"dan,p,t_comms,{_us(2 * _Z / (2 * _W))}\n"
        f'eve,p,collectives,"AllReduce_x(Z[B, F]{{U_x}})"\n'
    )
    r = cli(["check", "--problem-set", str(sharded_set), "--answers", str(answers)])
    assert r.code == 0, r.err
    rows = {row["who"]: row for row in csv.DictReader(io.StringIO(r.out.split("\nwho  ")[0]))}
    verdicts = {who: row["verdict"] for who, row in rows.items()}
    assert verdicts == {"ann": "correct", "bob": "incorrect", "cat": "correct",
                        "dan": "incorrect", "eve": "correct"}  # fmt: skip
    assert "Scaling Book's approximation" in rows["dan"]["diagnosis"]


def test_the_workbook_boxes_the_winner_and_a_tensors_bytes(sharded_set):
    from derive.web.book import build_workbook, load_source
    from derive.web.grading import Grader

    _, pset = load_source(str(sharded_set))
    asked = {a.quantity for a in build_workbook(pset).pages["p"].asked}
    assert {"strategy", "bytes_per_device", "t_comms"} <= asked
    grader = Grader.of(pset)
    assert grader.check("p", "strategy", _WINNER).verdict == "correct"
    assert grader.check("p", "strategy", "gather Y").verdict == "incorrect"
    assert grader.check("p", "bytes_per_device", f"Y = {2 * (_D // _G) * _F}").verdict == "correct"


def test_the_books_approximation_through_a_switch_takes_the_one_way_bandwidth(cli):
    beta, g = Q(450 * 10**9), 8  # an NVLink switch of 8: the book's W is the one-way figure
    argv = ["check", "matmul", "--dtype", "bf16", "--chip", "h100", "--mesh", "gpu=8@450GB/s:switch",
            "--shard", "X[B, D]", "--shard", "Y[D_gpu, F]", "--set", f"B={_B},D={_D},F={_F}",
            "--quantity", "t_comms", "--claim"]  # fmt: skip
    exact = 2 * Q(g - 1, g) * _Z / beta  # the switch's all-reduce of Z's partial sums
    assert cli([*argv, _us(exact)]).out.startswith("verdict: correct")
    r = cli([*argv, _us(2 * _Z / beta)])  # 2V/W, W = β
    assert r.code == 1 and "Scaling Book's approximation" in r.out


def test_the_books_approximation_says_w_and_vs_share_per_topology(cli):
    """The book's rule on each axis, as the diagnosis words it: a torus both ways (W = 2β, the
    whole V), a line one way ((g−1)/g of V: it has no wraparound), a switch one way. On the
    line the book's bandwidth term equals derive's, so a hop's latency (1 us) tells them apart."""
    e, f = 16, 128
    v = Q(2 * e * f)
    for mesh, book, words in (
        ("x=4@4.5e10+1us:line", Q(_G - 1, _G) * v / _W, "W = 45 GB/s over x (one way, a line having no wraparound), 3/4 of V"),
        ("x=4@4.5e10+1us:torus", v / (2 * _W), "W = 90 GB/s over x (both ways), the whole V, no (P−1)/P"),
        ("x=4@4.5e10+1us:switch", v / _W, "W = 45 GB/s one way over x (switch), its share of V"),
    ):  # fmt: skip
        r = cli(["check", "--collective", "AllGather_x(A[E_x, F])", "--dtype", "bf16", "--mesh", mesh,
                 "--set", f"E={e},F={f}", "--quantity", "t_comms", "--claim", _us(book)])  # fmt: skip
        assert (
            r.code == 1
            and f"Scaling Book's approximation: V/W for a gather or a scatter, 2V/W for an all-reduce; {words} —"
            in r.out
        ), r.out


def test_an_operator_that_only_communicates_gets_the_ring_and_the_book_slips(cli, tmp_path):
    ops = tmp_path / "gather.py"
    ops.write_text(
        "from derive import Collective, Operator, Tensor, dims\n\nE, F, P = dims('E F P')\n"
        "gather = Operator(name='gather', flops=0, "
        "comms=[Collective('all_gather', Tensor('A', (E, F)), group=P)])\n"
    )
    e, f = 2048, 8192
    argv = ["check", "gather", "--operators", str(ops), "--dtype", "bf16", "--mesh", "y=4@4.5e10:torus",
            "--set", f"E={e},F={f},P={_G}", "--quantity", "t_comms", "--claim"]  # fmt: skip
    v = Q(2 * e * f)  # the gathered A, bf16
    exact = _torus(v, False)
    assert cli([*argv, _us(exact)]).out.startswith("verdict: correct")
    ring = cli([*argv, _us(Q(_G - 1, _G) * v / _W)])  # (g−1)/g·V/β over the one link
    assert ring.code == 1 and "one-way ring's time" in ring.out
    book = cli([*argv, _us(v / (2 * _W))])  # V/W, W = 2β
    assert book.code == 1 and "Scaling Book's approximation" in book.out
    other = cli([*argv, _us(exact * Q(3, 2))])
    assert "50.0% high" in other.out
