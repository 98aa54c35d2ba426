"""One mesh grammar and one communication model (issue 45, items 1 and 2), through the CLI.

Each topology is simulated here piece by piece: every piece of data a device must deliver is
routed over the directed links of a ring, a line, a torus axis or a switch (multicast: a link
carries a piece once however many devices downstream need it), and the bytes on the most
loaded link and the longest route are counted. derive's `--mesh` times must equal
``hops · α + load / β``, where α and β are the axis's latency per hop and bandwidth per link.
"""

from __future__ import annotations

import json
from collections import defaultdict
from fractions import Fraction

import pytest

from tests.conftest import run_cli

BETA, ALPHA = Fraction(450 * 10**9), Fraction(1, 10**6)  # 450e9 B/s per link, 1 us per hop


def _route(topology: str, group: int, s: int, d: int, tie: int) -> list[tuple[object, object]]:
    """The directed links from s to d (``tie`` +1 or −1: the way round at an equal distance)."""
    if topology == "switch":
        return [(s, "switch"), ("switch", d)]
    if topology == "ring":
        step = 1
    elif topology == "line":
        step = 1 if d > s else -1
    else:  # torus: the shorter way round
        forward = (d - s) % group
        step = 1 if forward < group - forward else -1 if forward > group - forward else tie
    path, at = [], s
    while at != d:
        nxt = (at + step) % group
        path.append((at, nxt))
        at = nxt
    return path


def _simulate(kind: str, topology: str, group: int, size: Fraction) -> tuple[Fraction, int]:
    """(bytes on the most loaded link, hops of the longest route) of one collective.

    An all-gather: each device's shard size/P to every other device (a reduce-scatter is the
    same routes reversed, an all-reduce one then the other). An all-to-all: each device holds
    size/P and sends one chunk size/P² to each other device. On a torus each piece is split
    in two halves that break a tie of distance the two ways round."""
    halves = (1, -1) if topology == "torus" else (1,)
    load: dict[tuple[object, object], Fraction] = defaultdict(Fraction)
    hops = 0
    for s in range(group):
        for tie in halves:
            piece = (
                size / group / len(halves)
                if kind == "all_gather"
                else size / group**2 / len(halves)
            )
            targets = [d for d in range(group) if d != s]
            routes = [_route(topology, group, s, d, tie) for d in targets]
            hops = max(hops, *(len(r) for r in routes))
            if kind == "all_gather":  # multicast: each link of the tree carries the piece once
                for link in {link for r in routes for link in r}:
                    load[link] += piece
            else:
                for r in routes:
                    for link in r:
                        load[link] += piece
    return max(load.values()), hops


OPERATORS = """
from derive import Collective, Operator, Tensor, dims
B, P = dims("B P")
gather = Operator(name="gather", flops=0, comms=[Collective("all_gather", Tensor("X", (B,)), group=P)])
scatter = Operator(name="scatter", flops=0, comms=[Collective("reduce_scatter", Tensor("X", (B,)), group=P)])
reduce = Operator(name="reduce", flops=0, comms=[Collective("all_reduce", Tensor("X", (B,)), group=P)])
dispatch = Operator(name="dispatch", flops=0, comms=[Collective("all_to_all", Tensor("X", (B,)), group=P)])
every = Operator(name="every", flops=0, comms=[
    Collective(kind, Tensor(kind, (B,)), group=P)
    for kind in ("all_gather", "reduce_scatter", "all_reduce", "all_to_all")
])
"""


def _solve(tmp_path, op: str, mesh: str, group: int, elements: int) -> dict:
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    argv = ["solve", op, "--operators", str(path), "--dtype", "bf16", "--mesh", mesh]
    argv += ["--set", f"B={elements}", "--set", f"P={group}", "--format", "json"]
    result = run_cli(argv)
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.mark.parametrize("topology", ["ring", "line", "torus", "switch"])
@pytest.mark.parametrize("group", [2, 3, 4, 7, 8])
def test_each_topology_matches_its_simulation(tmp_path, topology, group):
    elements = 840 * group * group
    size = Fraction(2 * elements)  # bf16
    data = _solve(tmp_path, "every", f"x={group}@450e9+1us:{topology}", group, elements)
    times = {
        item["tensor"]: (item["steps"], Fraction(item["t_comms"])) for item in data["collectives"]
    }
    gather, hops = _simulate("all_gather", topology, group, size)
    a2a, a2a_hops = _simulate("all_to_all", topology, group, size)
    if topology == "switch":  # through the switch: one step
        hops = a2a_hops = 1
    expected = {
        "all_gather": (hops, hops * ALPHA + gather / BETA),
        "reduce_scatter": (hops, hops * ALPHA + gather / BETA),  # the gather's routes reversed
        "all_reduce": (2 * hops, 2 * (hops * ALPHA + gather / BETA)),  # one, then the other
        "all_to_all": (a2a_hops, a2a_hops * ALPHA + a2a / BETA),
    }
    assert times == expected
    assert Fraction(data["t_comms"]) == sum(t for _, t in expected.values())


def test_sharp_reduces_in_the_switch(tmp_path):
    """switch+sharp: each device sends its tensor up once and receives the sum once."""
    data = _solve(tmp_path, "reduce", "x=8@450e9:switch+sharp", 8, 4096)
    assert Fraction(data["t_comms"]) == 2 * 4096 / BETA
    plain = _solve(tmp_path, "reduce", "x=8@450e9:switch", 8, 4096)
    assert Fraction(plain["t_comms"]) == 2 * Fraction(7, 8) * 2 * 4096 / BETA


def test_two_axes_run_level_by_level(tmp_path):
    """gpu 8 on a switch, then 2 nodes on a ring: the all-gather of V first gathers each
    device's V/16 with its peer in the other node (1/2 of V/8 over the NIC), then V inside the
    node (7/8 of it at the injection bandwidth): the slow axis carries 1/8 of the data."""
    v = Fraction(2 * 4096)
    data = _solve(tmp_path, "gather", "gpu=8@450e9:switch,node=2@50e9+5us", 16, 4096)
    hand = Fraction(7, 8) * v / BETA + Fraction(1, 2) * v / 8 / Fraction(50 * 10**9)
    assert Fraction(data["t_comms"]) == hand + Fraction(5, 10**6)
    text = run_cli(
        [
            "solve",
            "gather",
            "--operators",
            str(tmp_path / "ops.py"),
            "--dtype",
            "bf16",
            "--mesh",
            "gpu=8@450e9:switch,node=2@50e9+5us",
            "--set",
            "B=4096",
            "--set",
            "P=16",
        ]
    ).out
    assert "over gpu (8 devices, switch): switch all-gather" in text
    assert "over node (2 devices, ring): ring all-gather" in text


# a step's expert all-to-alls, not repeated by a recomputed forward
MIXTRAL_EP8 = ("train", "mixtral-8x7b", "--chip", "h100", "--dp", "8", "--ep", "8", "--zero", "1")
MIXTRAL_EP8 += ("--recompute", "none", "--batch-tokens", "4194304", "--seq", "4096")


def test_the_expert_all_to_all_in_a_gpu_node_is_a_switchs(cli, tmp_path):
    """Mixtral 8x7B at ep 8 on 8 H100s: `derive train --mesh default` builds the node as a
    switch, so the expert all-to-all is (P−1)/P of each device's own tokens at its injection
    bandwidth, the same exact time `derive solve` gives on that mesh, and a quarter of what the
    one-way ring's busiest link takes ((P−1)/2 of it)."""
    argv = [*MIXTRAL_EP8, "--format", "json"]
    default = json.loads(cli([*argv, "--mesh", "default"]).out)
    switch = json.loads(cli([*argv, "--mesh", "gpu=8@4.5e11:switch"]).out)
    ring = json.loads(cli([*argv, "--mesh", "gpu=8@4.5e11"]).out)
    copies = 2 * 2 * int(default["microbatches"]) * 32  # (dispatch + combine) × passes × layers
    v = 2 * copies * 2 * 4096 * int(default["micro_batch_size"]) * 4096  # bf16 k·S·b·d per device
    ep = Fraction(default["comms_time_per_device"]["ep"])
    assert ep == Fraction(switch["comms_time_per_device"]["ep"]) == Fraction(7, 8) * v / BETA
    assert Fraction(ring["comms_time_per_device"]["ep"]) == Fraction(7, 2) * v / BETA == 4 * ep
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    solve = ["solve", "dispatch", "--operators", str(path), "--dtype", "bf16"]
    solve += ["--mesh", "gpu=8@4.5e11:switch", "--set", f"B={8 * v // 2}", "--set", "P=8"]
    alone = json.loads(cli([*solve, "--format", "json"]).out)
    assert Fraction(alone["t_comms"]) == ep


def test_a_problem_set_carries_a_mesh(cli, tmp_path):
    """``mesh = "…"`` in a set's problem: the key's collective is timed on it, as --mesh."""
    (tmp_path / "ops.py").write_text(OPERATORS)
    sets = tmp_path / "set.toml"
    sets.write_text(
        'title = "Mesh"\noperators = ["ops.py"]\n[[problem]]\nid = "ag"\ntitle = "AG"\n'
        'text = "Gather on a torus."\noperator = "gather"\ndtype = "bf16"\n'
        'mesh = "x=4@450e9:torus"\nset = { B = 4096, P = 4 }\n'
    )
    result = cli(["key", str(sets), "--trust", "--out", str(tmp_path / "out")])
    assert result.code == 0, result.err
    key = "".join(p.read_text() for p in (tmp_path / "out").rglob("*.md"))
    # 4 on a torus: the shard's two halves go both ways round, 3/8 of V on each link
    assert "torus all-gather" in key
    assert "ℓ = 3/8" in key


@pytest.mark.parametrize(
    ("mesh", "message"),
    [
        ("x=4@450e9:mesh", "error: --mesh: axis 'x': topology 'mesh' is one of ring, line, torus"),
        ("x=4@450e9,x=2@5e10", "error: --mesh: axis 'x' is named twice"),
        ("x=3@450e9", "error: --mesh: collective 'X' runs over P = 4 devices"),
    ],
)
def test_a_bad_mesh_is_one_line(tmp_path, mesh, message):
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    result = run_cli(
        [
            "solve",
            "gather",
            "--operators",
            str(path),
            "--dtype",
            "bf16",
            "--mesh",
            mesh,
            "--set",
            "B=64",
            "--set",
            "P=4",
        ]
    )
    assert result.code == 2 and result.err.startswith(message), result.err
    assert len(result.err.strip().splitlines()) == 1


def _slice(cli, chip: str, shape: str) -> list[tuple[str, int, str]]:
    argv = ["train", "llama-3-8b", "--chip", chip, "--dp", str(eval_product(shape))]
    argv += ["--batch-tokens", str(4096 * eval_product(shape)), "--seq", "4096"]
    result = cli([*argv, "--mesh", f"tpu:{shape}", "--format", "json"])
    assert result.code == 0, result.err
    return [(a["name"], a["size"], a["topology"]) for a in json.loads(result.out)["mesh"]]


def eval_product(shape: str) -> int:
    n = 1
    for part in shape.split("x"):
        n *= int(part)
    return n


def test_a_tpu_slice_wraps_around_by_the_chips_rule(cli):
    """The Scaling Book's TPU chapter: a v5p slice has wraparound links (from the optical
    switches of whole 4x4x4 cubes) on every axis when it is a multiple of a cube, on none
    otherwise; a v5e or v6e axis wraps around when it holds a full 16 chips."""
    assert _slice(cli, "tpu-v5p", "4x4x8") == [
        ("x", 4, "torus"),
        ("y", 4, "torus"),
        ("z", 8, "torus"),
    ]
    assert _slice(cli, "tpu-v5p", "2x2x4") == [("x", 2, "line"), ("y", 2, "line"), ("z", 4, "line")]
    assert _slice(cli, "tpu-v5e", "8x16") == [("x", 8, "line"), ("y", 16, "torus")]


def test_a_tpu_slice_times_a_gather_on_its_ici(tmp_path, cli):
    """An all-gather over x of a v5e 4x4 (no wraparound: a line, one-way 4.5e10 per link)
    and of a 16x16 (a torus: both directions)."""
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    v = Fraction(2 * 2048 * 8192)
    for shape, group, hand in (
        ("4x4", 4, Fraction(3, 4) * v / Fraction("4.5e10")),
        ("16x16", 16, Fraction(15, 32) * v / Fraction("4.5e10")),
    ):
        argv = ["solve", "gather", "--operators", str(path), "--dtype", "bf16", "--chip", "tpu-v5e"]
        argv += ["--mesh", f"tpu:{shape}", "--set", f"B={2048 * 8192}", "--set", f"P={group}"]
        data = json.loads(cli([*argv, "--format", "json"]).out)
        assert Fraction(data["t_comms"]) == hand, shape
    result = cli(
        [
            "solve",
            "gather",
            "--operators",
            str(path),
            "--dtype",
            "bf16",
            "--chip",
            "h100",
            "--mesh",
            "tpu:4x4",
            "--set",
            "B=64",
            "--set",
            "P=4",
        ]
    )
    assert result.err.startswith("error: --mesh tpu:4x4: chip 'h100' has no ICI torus")


MESH3 = "x=4@4.5e10:torus,y=4@4.5e10:torus,z=4@4.5e10+1us:line"


def _collective(cli, text: str, mesh: str = MESH3, sets: str = "E=2048,F=8192") -> dict:
    argv = ["solve", "--collective", text, "--dtype", "bf16", "--mesh", mesh, "--set", sets]
    result = cli([*argv, "--format", "json"])
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_collectives_in_the_books_notation(cli):
    """Each form of item 3 on a 4x4x4 mesh (x and y tori, z a line), against the simulation:
    the tensor one device holds along the collective's axes is A's dims divided by their
    other axes' sizes (A[E_x, F_y] on z: E/4 · F/4)."""
    beta, size = Fraction("4.5e10"), Fraction(2 * 2048 * 8192)
    gather, hops = _simulate("all_gather", "torus", 4, size)
    a2a, a2a_hops = _simulate("all_to_all", "torus", 4, size)
    line, line_hops = _simulate("all_gather", "line", 4, size / 16)
    cases = (
        ("AllGather_y(A[E_y, F])", "all_gather", ["y"], hops, gather / beta),
        ("ReduceScatter_x(A[E, F]{U_x})", "reduce_scatter", ["x"], hops, gather / beta),
        ("AllToAll_x(A[E_x, F] -> A[E, F_x])", "all_to_all", ["x"], a2a_hops, a2a / beta),
        (
            "AllReduce_z(A[E_x, F_y]{U_z})",
            "all_reduce",
            ["z"],
            2 * line_hops,
            2 * line / beta + 2 * line_hops * Fraction(1, 10**6),
        ),
    )
    for text, kind, axes, steps, time in cases:
        data = _collective(cli, text)
        (item,) = data["collectives"]
        assert (item["kind"], item["tensor"], item["axes"], item["steps"]) == (
            kind,
            "A",
            axes,
            steps,
        )
        assert Fraction(item["time"]) == Fraction(data["t_comms"]) == time, text
    # two alike tori at once: V in two halves, one gathered over x then y, the other over y
    # then x; in each phase both axes are busy, each with one half's gather on that axis
    data = _collective(cli, "AllGather_{xy}(A[E_{xy}, F])")
    first, _ = _simulate("all_gather", "torus", 4, size / 2 / 4)  # a half's pieces, 1/4 of it
    second, _ = _simulate("all_gather", "torus", 4, size / 2)
    assert Fraction(data["t_comms"]) == (first + second) / beta
    assert (first + second) == Fraction(15, 16) * size / 4  # (G−1)/G of V over 4 links
    assert data["collectives"][0]["axes"] == ["x", "y"]
    # unlike axes run level by level: the line z's gather of V/4 pieces first, then the torus
    # x's of V (the slow or far axis carries the least)
    data = _collective(cli, "AllGather_{xz}(A[E_{xz}, F])")
    assert Fraction(data["t_comms"]) == (gather + line * 4) / beta + line_hops * Fraction(1, 10**6)


def test_one_collective_one_time_standalone_and_in_a_training_run(cli):
    """The expert all-to-all of a Mixtral 8x7B step at ep 8 on an 8-GPU switch, written in the
    book's notation over the tokens T of the step (each GPU's T/8 routed copies of d = 4096),
    takes the exact time `derive train` gives its ep traffic on the same mesh."""
    argv = [*MIXTRAL_EP8, "--format", "json"]
    run = json.loads(cli([*argv, "--mesh", "gpu=8@4.5e11:switch"]).out)
    copies = 2 * 2 * int(run["microbatches"]) * 32  # (dispatch + combine) × passes × layers
    tokens = 8 * copies * 2 * 4096 * int(run["micro_batch_size"])  # k·S·b per GPU, 8 GPUs
    alone = _collective(
        cli, "AllToAll_gpu(X[T_gpu, D] -> X[T, D_gpu])", "gpu=8@4.5e11:switch", f"T={tokens},D=4096"
    )
    assert Fraction(alone["t_comms"]) == Fraction(run["comms_time_per_device"]["ep"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Foo_x(A[E])", "error: --collective: 'Foo_x(A[E])' is not Kind_axes(A[dims])"),
        ("AllReduce_x(A[E, F])", "error: --collective: AllReduce sums over x: mark it {U_x}"),
        ("AllGather_q(A[E_q, F])", "error: --collective: axis 'q' is not the mesh's (x, y, z)"),
        ("AllGather_x(A[E, F])", "error: --collective: AllGather_x needs a dim sharded on x"),
    ],
)
def test_a_bad_collective_is_one_line(cli, text, message):
    result = cli(["solve", "--collective", text, "--dtype", "bf16", "--mesh", MESH3])
    assert result.code == 2 and result.err.startswith(message), result.err


def test_one_gpu_node_without_a_mesh_is_its_switch(cli):
    """Without --mesh, the devices of one H100 node on its own NVLink are its NVSwitch: the
    expert all-to-all is the switch's (P−1)/P of each device's tokens; a link typed instead
    (a NIC, say) or a chip with no node keeps the one-way ring's busiest link, (P−1)/2 of them."""
    argv = ["train", "mixtral-8x7b", "--dp", "8", "--ep", "8", "--zero", "1", "--recompute", "none"]
    argv += ["--batch-tokens", "4194304", "--seq", "4096", "--format", "json"]

    def ep(*extra: str) -> Fraction:
        result = cli([*argv, *extra])
        assert result.code == 0, result.err
        return Fraction(json.loads(result.out)["comms_bytes_per_device"]["ep"])

    node = ep("--chip", "h100")
    assert node == ep("--chip", "h100", "--mesh", "gpu=8@4.5e11:switch")
    assert ep("--chip", "h100", "--link-bandwidth", "5e10") == 4 * node  # 7/2 ÷ 7/8
    assert ep("--chip", "tpu-v5p") == 4 * node


def test_check_judges_a_time_on_the_mesh(cli, tmp_path):
    """`derive check --mesh`: the torus's time (both directions: 3/8 of V per link) is correct,
    the one-way ring's (3/4 of V) is not."""
    path = tmp_path / "ops.py"
    path.write_text(OPERATORS)
    v = Fraction(2 * 2048 * 8192)
    argv = ["check", "gather", "--operators", str(path), "--dtype", "bf16", "--mesh"]
    argv += ["x=4@4.5e10:torus", "--set", "B=16777216,P=4", "--quantity", "t_comms", "--claim"]
    for share, verdict in ((Fraction(3, 8), "correct"), (Fraction(3, 4), "incorrect")):
        seconds = share * v / Fraction("4.5e10")
        out = cli([*argv, f"{float(seconds):.6g} s"]).out
        assert out.startswith(f"verdict: {verdict}"), out
