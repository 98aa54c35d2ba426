"""Composite layers: sums over parts, fusion, the per-part table, errors."""

from __future__ import annotations

import json

import pytest
import sympy as sp
from conftest import run_cli

from derive import Composite, Operator, Tensor, dims
from derive.analysis.analyse import analyse
from derive.declare.registry import load_registry
from derive.errors import DeclarationError
from derive.problem.binding import ProblemSpec, bind

B, D, F = dims("B D F")
(N,) = dims("N")
MM = Operator(
    name="mm",
    flops=2 * B * D * F,
    reads=[Tensor("X", (B, D)), Tensor("Y", (D, F))],
    writes=[Tensor("Z", (B, F))],
)
ACT = Operator(name="act", flops=N, reads=[Tensor("x", (N,))], writes=[Tensor("y", (N,))])
b, d = dims("b d")


def mlp(fused):
    return Composite(
        name="mlp",
        parts=[
            ("up", MM, {B: b, D: d, F: 4 * d}),
            ("act", ACT, {N: 4 * b * d}),
            ("down", MM, {B: b, D: 4 * d, F: d}),
        ],
        fused=fused,
    )


def test_sums_and_names():
    m = mlp(())
    assert sp.expand(m.flops - (2 * b * d * 4 * d + 4 * b * d + 2 * b * 4 * d * d)) == 0
    assert [t.name for t in m.reads] == ["up_X", "up_Y", "act_x", "down_X", "down_Y"]
    naive = (
        2 * (b * d + 4 * d * d + 4 * b * d)
        + 2 * (4 * b * d + 4 * b * d)
        + 2 * (4 * b * d + 4 * d * d + b * d)
    )
    a = analyse(bind(ProblemSpec("mlp", ("bf16",), peak="1e15", bandwidth="1e12"), m))
    assert sp.expand(a.memory.bytes - naive) == 0


def test_fusion_is_not_3x():
    """'Fusion cuts traffic 3×' (seed text) is wrong: the weights still have to be read."""
    spec = ProblemSpec("mlp", ("bf16",), peak="1e15", bandwidth="1e12", sets=("b=64", "d=4096"))
    fused, plain = (
        analyse(bind(spec, mlp([("up", "act"), ("act", "down")]))),
        analyse(bind(spec, mlp(()))),
    )
    ratio = plain.memory.bytes.subs(plain.problem.bound_subs()) / fused.memory.bytes.subs(
        fused.problem.bound_subs()
    )
    weights = 2 * 2 * 4 * 4096 * 4096
    acts = 2 * (64 * 4096 + 64 * 4096)
    inter = 2 * 4 * 64 * 4096
    assert ratio == sp.Rational(weights + acts + 4 * inter, weights + acts) and 1 < ratio < 3
    lb = fused.layer
    assert (
        lb is not None
        and lb.unfused is not None
        and [r.label for r in lb.rows] == ["up", "act", "down"]
    )
    assert sum(r.share for r in lb.rows) == 1


@pytest.mark.parametrize(
    "kwargs, why",
    [
        (dict(parts=[("up", MM, {N: 3})]), "does not have"),
        (dict(parts=[("up", MM, {B: "b"})]), "expression"),
        (dict(parts=[]), "non-empty"),
        (dict(parts=[("up", MM, {}), ("up", MM, {})]), "distinct"),
        (dict(parts=[("up", MM, {}), ("down", MM, {D: 2 * D})], fused=[("up", "nope")]), "no part"),
        (
            dict(parts=[("up", MM, {F: 3 * F}), ("down", MM, {})], fused=[("up", "down")]),
            "as many elements",
        ),
    ],
)
def test_bad_composites(kwargs, why):
    with pytest.raises(DeclarationError, match=why):
        Composite(name="bad", **kwargs)


def test_builtin_layers_solve_and_key(tmp_path):
    reg = load_registry()
    assert len(reg.get("transformer_block").parts) == 12
    r = run_cli(
        [
            "solve",
            "decode_step_70b",
            "--dtype",
            "bf16",
            "--chip",
            "h100",
            "--set",
            "B=16",
            "--set",
            "S=4096",
        ]
    )
    assert (
        r.code == 0
        and "Per-part breakdown" in r.out
        and "Fused against unfused" in r.out
        and "(dominant)" in r.out
    )
    data = json.loads(
        run_cli(
            ["solve", "transformer_block", "--dtype", "bf16", "--chip", "b200", "--format", "json"]
        ).out
    )
    assert data["operator"] == "transformer_block"
    (tmp_path / "set.toml").write_text(
        'title = "layer"\n[[problem]]\nid = "blk"\ntitle = "block"\noperator = "decode_step_70b"\n'
        'dtype = "bf16"\nchip = "h100"\nset = { B = 8, S = 2048 }\n'
    )
    assert run_cli(["key", str(tmp_path / "set.toml"), "-o", str(tmp_path / "out")]).code == 0
    assert "Per-part breakdown" in (tmp_path / "out" / "set.md").read_text()
