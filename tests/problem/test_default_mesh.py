"""--mesh default: the chip's node (chips.toml node_devices, node_link_bytes_per_s) as a mesh.

Expected values by hand: a DGX H100 node is 8 GPUs on NVLink at 4.5e11 B/s one way, the nodes
on one 400 Gb/s NIC per GPU (5e10 B/s); the hierarchical all-reduce of V bytes over 8 × 2 is
2·7/8·V/4.5e11 + 2·1/2·V/(8·5e10).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from derive.pipeline import solve_training

S = 4096


def _fr(value: sp.Expr) -> Fraction:
    r = sp.Rational(value)
    return Fraction(int(r.p), int(r.q))


def _run(dp: int, **train: object):
    return solve_training(
        "llama-3-8b", chip="h100", dp=dp, batch_tokens=dp * S, seq=S, **train
    ).analysis


def test_two_dgx_nodes_are_the_given_mesh():
    default = _run(16, mesh="default")
    given = _run(16, mesh="gpu=8@4.5e11:switch,node=2@5e10")
    assert default.problem.placement.text() == given.problem.placement.text()
    assert default.t_comms == given.t_comms
    v = 2 * Fraction(default.params.total)  # one all-reduce of the bf16 gradients
    nvlink, nic = Fraction("4.5e11"), Fraction("5e10")
    hand = 2 * Fraction(7, 8) * v / nvlink + 2 * Fraction(1, 2) * v / (8 * nic)
    assert _fr(default.comms.time_of("dp")) == hand
    assert "gpu=8@4.5e11:switch,node=2@5e10" in default.problem.mesh_default


def test_not_whole_nodes_keep_the_single_axis():
    default = _run(12, mesh="default")
    plain = _run(12)
    assert default.problem.placement is None
    assert default.t_comms == plain.t_comms
    assert "not a multiple" in default.problem.mesh_default


RUN = ["train", "llama-3-8b", "--dp", "16", "--batch-tokens", "65536", "--seq", "4096"]


def test_a_chip_without_a_node_names_the_flag(cli):
    r = cli([*RUN, "--chip", "tpu-v5p", "--mesh", "default"])
    assert r.code == 2 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "--mesh default" in lines[0]


def test_the_steps_say_which_mesh(cli):
    r = cli([*RUN, "--chip", "h100", "--mesh", "default", "--format", "md"])
    assert r.code == 0 and "--mesh default: h100 nodes of 8" in r.out
