"""``derive model --phase … --mesh``: a serving step's TP all-reduces on a mesh, timed by the
one communication model (derive/analysis/network.py) that ``--collective`` and ``derive train``
use, so the same collective on the same mesh takes the same exact time everywhere.

Expected times are recomputed here from each topology's rule: an all-reduce of V bytes over g
devices moves 2(g−1)/g·V through a switch port (V up and back with in-network reduction),
(g−1)/g·V on each of a torus's two links, 2(g−1)/g·V over a one-way ring's link.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

STEP = ["model", "llama-3-70b", "--phase", "decode", "--chip", "h100", "--devices", "8"]
AT = ["--set", "B=32", "--set", "S=8192"]
B, D, LAYERS = 32, 8192, 80  # Llama 3 70B: width 8192, 80 layers; one token per sequence
V = B * D * 2  # the bf16 activation o and down all-reduce, each layer


def _serving(cli, *argv: str) -> dict:
    r = cli([*STEP, *AT, *argv, "--format", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)["serving"]


def _kernel(serving: dict, name: str) -> dict:
    return next(k for k in serving["step"]["kernels"] if k["name"] == name)


def _collective_time(cli, mesh: str, b: int, d: int) -> Fraction:
    r = cli(["solve", "--collective", "AllReduce_gpu(A[B, D]{U_gpu})", "--dtype", "bf16",
             "--mesh", mesh, "--set", f"B={b}", "--set", f"D={d}", "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    (one,) = json.loads(r.out)["collectives"]
    return Fraction(one["time"])


def test_one_collective_one_time_standalone_in_serving_and_in_training(cli):
    mesh = "gpu=8@4.5e11+1us:switch"
    alone = _collective_time(cli, mesh, B, D)
    beta, alpha, g = Fraction(45 * 10**10), Fraction(1, 10**6), 8
    assert alone == 2 * Fraction(g - 1, g) * V / beta + 2 * alpha  # reduce-scatter + all-gather
    serving = _serving(cli, "--mesh", mesh)
    for name in ("o ×80", "down ×80"):
        assert Fraction(_kernel(serving, name)["t_comms"]) == LAYERS * alone
    # a training run's gradient all-reduce on the same mesh: 2 bytes a parameter of Llama 3 8B
    r = cli(["train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--zero", "0",
             "--batch-tokens", "65536", "--seq", "8192", "--mesh", mesh, "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    params = json.loads(cli(["model", "llama-3-8b", "--format", "json"]).out)["params"]["exact"]
    train_dp = Fraction(json.loads(r.out)["comms_time_per_device"]["dp"])
    assert train_dp == _collective_time(cli, mesh, int(params), 1)


@pytest.mark.parametrize(
    ("mesh", "per_call"),
    [
        ("gpu=8@4.5e11:switch+sharp", Fraction(V, 45 * 10**10)),  # V up, reduced, V back
        ("gpu=8@4.5e11:torus", Fraction(7, 8) * V / (45 * 10**10)),  # (g−1)/g·V on each link
        # two levels: a torus of 4, then a ring of 2 nodes carrying a quarter each
        (
            "gpu=4@4.5e11+1us:torus,node=2@5e10+5us",
            Fraction(3, 4) * V / (45 * 10**10)
            + 2 * Fraction(1, 2) * Fraction(V, 4) / (5 * 10**10)
            + 2 * 2 * Fraction(1, 10**6)  # 2⌊4/2⌋ torus steps
            + 2 * 1 * Fraction(5, 10**6),  # 2(2−1) ring steps
        ),
    ],
)
def test_each_topology_times_the_all_reduce_by_its_rule(cli, mesh: str, per_call: Fraction):
    serving = _serving(cli, "--mesh", mesh)
    assert Fraction(_kernel(serving, "o ×80")["t_comms"]) == LAYERS * per_call
    assert serving["mesh"]


def test_a_switch_equals_the_ring_for_an_all_reduce_and_the_default_is_the_node(cli):
    ring = _serving(cli)
    switch = _serving(cli, "--mesh", "gpu=8@4.5e11:switch")
    default = _serving(cli, "--mesh", "default")
    assert switch["step"]["t_lower"] == ring["step"]["t_lower"] == default["step"]["t_lower"]
    assert default["mesh"] == "gpu=8@4.5e11:switch"
    # tp 4 of a node of 8: any 4 of a switch's ports are a switch of 4
    half = _serving(cli, "--mesh", "default", "--tp", "4")
    per_call = 2 * Fraction(3, 4) * V / (45 * 10**10)
    assert Fraction(_kernel(half, "o ×80")["t_comms"]) == LAYERS * per_call


def test_the_given_line_names_the_mesh_and_its_rule(cli):
    for fmt in ("md", "text", "tex"):
        r = cli([*STEP, *AT, "--mesh", "gpu=4@450GB/s+1us:torus,node=2@5e10+5us", "--format", fmt])
        assert r.code == 0, r.err
        assert "torus all-reduce" in r.out and "ring all-reduce" in r.out, fmt
    md = cli([*STEP, *AT, "--mesh", "gpu=4@4.5e11+1us:torus,node=2@5e10+5us"]).out
    assert "gpu=4@4.5e11+1us:torus,node=2@5e10+5us" in md
    assert "(g−1)/g·b on each of 2 links" in md  # an all-reduce: twice a gather's half per link


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mesh", "gpu=4@4.5e11:torus"], "its axes hold 4 devices; the step runs on --devices 8"),
        (["--mesh", "gpu=8@4.5e11+1us", "--link-latency", "1us"], "the mesh gives each axis"),
        (["--mesh", "gpu=8@4.5e11", "--tp", "4", "--devices", "8"], "P = 4 devices"),
    ],
)
def test_a_mesh_that_does_not_hold_the_step_is_refused_in_one_line(cli, argv, message):
    r = cli([*STEP, *AT, *argv])
    assert r.code == 2 and message in r.err and r.err.count("\n") == 1, r.err


def test_a_mesh_without_a_phase_is_refused(cli):
    r = cli(["model", "llama-3-70b", "--chip", "h100", "--devices", "8", "--mesh", "default"])
    assert r.code == 2 and "--mesh" in r.err and "--phase" in r.err


def test_a_sets_serving_problem_carries_its_mesh(cli, tmp_path):
    path = tmp_path / "set.toml"
    path.write_text(
        '[[problem]]\nid = "dec"\nmodel = "llama-3-70b"\nchip = "h100"\ndevices = 8\n'
        'phase = "decode"\nmesh = "gpu=8@4.5e11:switch+sharp"\nset = { B = 32, S = 8192 }\n'
        'ask = ["inter_token_latency"]\n'
    )
    want = _serving(cli, "--mesh", "gpu=8@4.5e11:switch+sharp")["inter_token_latency"]
    r = cli(["check", "--problem-set", str(path), "--problem", "dec",
             "--quantity", "inter_token_latency", "--claim", want, "--format", "json"])  # fmt: skip
    assert r.code == 0 and json.loads(r.out)["verdict"] == "correct", r.out + r.err
    ring = _serving(cli)["inter_token_latency"]
    r = cli(["check", "--problem-set", str(path), "--problem", "dec",
             "--quantity", "inter_token_latency", "--claim", ring, "--format", "json"])  # fmt: skip
    assert json.loads(r.out)["verdict"] != "correct"


def test_tp_beyond_one_node_takes_the_default_mesh_and_says_so(cli):
    """16 H100s were once one NVLink domain of 16; TP over two nodes rides their NICs."""
    argv = ["model", "llama-3-70b", "--phase", "decode", "--chip", "h100", "--devices", "16"]
    r = cli([*argv, *AT, "--format", "json"])
    chosen = json.loads(r.out)["serving"]
    given = json.loads(cli([*argv, *AT, "--mesh", "default", "--format", "json"]).out)["serving"]
    assert chosen["step"] == given["step"] and chosen["mesh"] == "gpu=8@4.5e11:switch,node=2@5e10"
    nvlink, nic = Fraction(45 * 10**10), Fraction(5 * 10**10)
    per_call = 2 * Fraction(7, 8) * V / nvlink + 2 * Fraction(1, 2) * Fraction(V, 8) / nic
    assert Fraction(_kernel(chosen, "o ×80")["t_comms"]) == LAYERS * per_call
    one_domain = 2 * Fraction(15, 16) * V / nvlink  # what a single NVLink domain would take
    assert per_call > one_domain
    assert "--mesh default: tp = 16 is more than one node" in cli([*argv, *AT]).out
