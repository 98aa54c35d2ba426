"""derive train on a cluster as it is: a mesh of links, placements, cp, pipelines, ZeRO per
micro-batch. Every expected value is computed here by hand, with Fractions."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.analysis.network import Exchange, Level, level_costs, time_per_byte
from derive.pipeline import solve_training
from derive.problem.mesh import Axis, parse_mesh
from derive.training.analysis import analyse_training

# Llama 3 8B by hand (as tests/training/test_training.py): L = 32, d = 4096, 32 query and 8 KV heads
# of 128, f = 14336 gated, V = 128256, untied head.
L, D, H, KV, DH, F, V = 32, 4096, 32, 8, 128, 14336, 128256
BLOCK = D * H * DH + 2 * D * KV * DH + H * DH * D + 3 * D * F + 2 * D
P_8B = L * BLOCK + V * D + D * V + D
NVLINK, IB = Fraction(450 * 10**9), Fraction(50 * 10**9)
S = 4096


def _fr(value: sp.Expr) -> Fraction:
    r = sp.Rational(value)
    return Fraction(int(r.p), int(r.q))


def _run(**train: object):
    train = {"seq": S, **train}
    return solve_training("llama-3-8b", chip="h100", **train).analysis


def test_a_hierarchical_all_reduce_on_16_nodes_of_8_gpus():
    """DP over 128 devices, 8 GPUs on NVLink inside 16 nodes on InfiniBand: the gradients'
    all-reduce reduce-scatters inside the node, all-reduces 1/8 of them across the nodes and
    all-gathers back: 2·7/8·V/β_gpu + 2·15/16·V/(8·β_node)."""
    a = _run(
        dp=128,
        recompute="none",
        batch_tokens=128 * S,
        mesh="gpu=8@450GB/s,node=16@50e9",
    )
    grads = 2 * P_8B  # bf16
    by_hand = 2 * Fraction(7, 8) * grads / NVLINK + 2 * Fraction(15, 16) * grads / (8 * IB)
    assert _fr(a.comms.time_of("dp")) == by_hand
    assert _fr(a.comms.of("dp")) == grads * (2 * Fraction(7, 8) + 2 * Fraction(15, 16) / 8)
    assert _fr(a.t_comms) == by_hand  # no other dim sends
    gpu = Axis("gpu", 8, sp.Integer(450 * 10**9), "450e9")
    node = Axis("node", 16, sp.Integer(50 * 10**9), "50e9")
    levels = (Level(gpu, 8), Level(node, 16))
    assert _fr(time_per_byte(Exchange.ALL_REDUCE, levels)) * grads == by_hand
    assert 2 * time_per_byte(Exchange.ALL_GATHER, levels) == time_per_byte(
        Exchange.ALL_REDUCE, levels
    )


def test_one_axis_mesh_is_the_link():
    """A mesh of one axis at β is the run on --link-bandwidth β: the same numbers."""
    common = {"dp": 2, "tp": 4, "zero": 1, "batch_tokens": 2 * 8 * S}
    link = _run(link_bandwidth="4.5e11", **common)
    mesh = _run(mesh="all=8@4.5e11", **common)
    for key in ("t_comms", "t_lower", "t_upper", "critical_tokens_per_device"):
        assert getattr(link, key) == getattr(mesh, key), key
    assert link.comms.total == mesh.comms.total


@pytest.mark.parametrize("placement", ["tp=gpu,dp=node", "tp=node,dp=gpu"])
def test_tp_inside_dp_across_and_reversed(placement):
    """tp = 8, dp = 8 on gpu=8@450e9 × node=8@50e9; no recomputation, M = 2."""
    m = 2
    a = _run(
        dp=8,
        tp=8,
        recompute="none",
        batch_tokens=8 * m * S,
        mesh="gpu=8@450e9,node=8@50e9",
        place=placement,
    )
    beta_tp, beta_dp = (NVLINK, IB) if placement.startswith("tp=gpu") else (IB, NVLINK)
    act = 2 * S * D  # one micro-batch's activations
    tp_bytes = (2 + 2) * m * L * 2 * Fraction(7, 8) * act
    params = Fraction(_fr(a.params.total))
    dp_bytes = 2 * Fraction(7, 8) * 2 * params
    assert _fr(a.comms.of("tp")) == tp_bytes and _fr(a.comms.of("dp")) == dp_bytes
    assert _fr(a.comms.time_of("tp")) == tp_bytes / beta_tp
    assert _fr(a.comms.time_of("dp")) == dp_bytes / beta_dp
    assert _fr(a.t_comms) == tp_bytes / beta_tp + dp_bytes / beta_dp


def test_the_default_placement_is_tp_innermost():
    a = _run(dp=8, tp=8, batch_tokens=8 * S, mesh="gpu=8@450e9,node=8@50e9")
    assert a.problem.placement is not None
    assert a.problem.placement.text() == "tp=gpu,dp=node"
    b = _run(dp=16, tp=4, batch_tokens=16 * S, mesh="gpu=8@450e9,node=8@50e9")
    assert b.problem.placement is not None
    assert b.problem.placement.text() == "tp=gpu:4,dp=gpu:2*node"
    # a placement as derive prints it is one --place takes back, unchanged
    for text in ("tp=gpu:4,dp=gpu:2*node", "tp=node:4,dp=gpu*node:2"):
        c = _run(dp=16, tp=4, batch_tokens=16 * S, mesh="gpu=8@450e9,node=8@50e9", place=text)
        assert c.problem.placement is not None and c.problem.placement.text() == text


@pytest.mark.parametrize("zero", [2, 3])
def test_zero_2_and_3_bytes_with_16_micro_batches(zero):
    m = 16
    a = _run(dp=8, zero=zero, recompute="none", batch_tokens=8 * m * S, link_bandwidth="4.5e11")
    ring = Fraction(7, 8) * 2 * P_8B  # one all-gather (or reduce-scatter) of the bf16 weights
    if zero == 2:  # a reduce-scatter every micro-batch, one all-gather of the updated weights
        assert _fr(a.comms.of("dp")) == m * ring + ring
        assert _fr(a.comms.forward.dp) == 0
    else:  # gather forward, gather backward, reduce-scatter, every micro-batch
        assert _fr(a.comms.of("dp")) == 3 * m * ring
        assert _fr(a.comms.forward.dp) == m * ring
    assert _fr(a.t_comms) == _fr(a.comms.of("dp")) / NVLINK
    kept = _run(
        dp=8,
        zero=3,
        recompute="none",
        batch_tokens=8 * m * S,
        keep_gathered_weights="true",
    )
    assert _fr(kept.comms.of("dp")) == 2 * ring
    # kept weights and gradients are whole; only the optimizer state is sharded
    assert _fr(kept.memory.weights) == 2 * P_8B and _fr(kept.memory.grads) == 2 * P_8B


def test_zero_3_on_a_mesh_gathers_level_by_level():
    m = 4
    a = _run(
        dp=16, zero=3, recompute="none", batch_tokens=16 * m * S, mesh="gpu=8@450e9,node=2@50e9"
    )
    w = 2 * P_8B
    gather = Fraction(7, 8) * w / NVLINK + Fraction(1, 2) * w / (8 * IB)
    assert _fr(a.comms.time_of("dp")) == 3 * m * gather


def _stage_params(layers: int, first: bool, last: bool) -> int:
    return layers * BLOCK + (V * D if first else 0) + (V * D + D if last else 0)


def test_an_uneven_5_stage_pipeline_of_32_layers():
    """32 layers on 5 stages: 6, 7, 7, 6, 6 (the extra layers on the middle stages). Stage i
    keeps 5 − i micro-batches of its layers (full recomputation: 2·S·d bytes per layer)."""
    m = 10
    a = _run(pp=5, zero=1, batch_tokens=m * S, link_bandwidth="4.5e11")
    p = a.problem
    assert p.stage_layers == (6, 7, 7, 6, 6)
    act = 2 * S * D
    stages = [
        16 * _stage_params(n, i == 0, i == 4) + (5 - i) * n * act
        for i, n in enumerate(p.stage_layers)
    ]
    assert _fr(a.memory.total) == max(stages)
    assert a.params.stage == stages.index(max(stages))
    # the slowest stage (7 layers) sets the pace: compute stretched by 5·7/32 and (M+4)/M
    assert _fr(a.stretch) == Fraction(m + 4, m) * Fraction(5 * 7, 32)
    assert _fr(a.bubble_fraction) == Fraction(4, m + 4)  # GPipe's, of the total
    assert _fr(a.bubble_over_ideal) == Fraction(4, m)  # Narayanan's, of the ideal
    given = _run(
        pp=5, zero=1, batch_tokens=m * S, link_bandwidth="4.5e11", stage_layers="8,6,6,6,6"
    )
    assert given.problem.stage_layers == (8, 6, 6, 6, 6)
    assert _fr(given.memory.total) == max(
        16 * _stage_params(n, i == 0, i == 4) + (5 - i) * n * act
        for i, n in enumerate((8, 6, 6, 6, 6))
    )


def test_interleaved_1f1b_bubble():
    a = _run(pp=4, virtual_stages=2, batch_tokens=8 * S)
    assert _fr(a.bubble_fraction) == Fraction(3, 2 * 8 + 3)
    assert _fr(a.bubble_over_ideal) == Fraction(3, 2 * 8)
    plain = _run(pp=4, batch_tokens=8 * S)
    # each micro-batch crosses every stage boundary v times; Korthikanti's 1 + (p−1)/(p·v)
    assert a.comms.of("pp") == 2 * plain.comms.of("pp")
    assert _fr(a.memory.activations) == _fr(plain.memory.activations) * (1 + Fraction(3, 8))


LLAMA_405B = str(Path(__file__).parents[1] / "data" / "configs" / "llama-3.1-405b" / "config.json")


def _stretch(out: dict) -> Fraction:
    """The pipeline's stretch of the compute, read back: T_upper = stretch · t_math + t_comms."""
    t_math, t_upper, t_comms = (Fraction(out[k]) for k in ("t_math", "t_upper", "t_comms"))
    return (t_upper - t_comms) / t_math


@pytest.mark.parametrize("v", [1, 2, 8])
def test_llama_3_405b_interleaved_on_uneven_stages(cli, v):
    # Meta's 405B: 126 layers on 16 stages, one layer fewer on the first and the last
    stages = [7] + [8] * 14 + [7]
    layers, pp, m = sum(stages), len(stages), 16
    r = cli(
        ["train", LLAMA_405B, "--chip", "h100", "--tp", "8", "--pp", str(pp), "--dp", "128"]
        + [
            "--zero",
            "1",
            "--batch-tokens",
            str(128 * m * 8192),
            "--seq",
            "8192",
            "--format",
            "json",
        ]
        + ["--stage-layers", ",".join(map(str, stages)), "--virtual-stages", str(v)]
    )
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert Fraction(out["bubble_fraction"]) == Fraction(pp - 1, v * m + pp - 1)
    # each slot lasts as long as the largest chunk: stage 8 cut in v, 7 into 4 and 3 at v = 2
    chunk = max(-(-n // v) for n in stages)
    assert _stretch(out) == Fraction(v * m + pp - 1, v * m) * Fraction(pp * v * chunk, layers)


def test_interleaving_that_cuts_equal_stages_unequally(cli):
    # 8 layers a stage in 3 chunks: 3, 3 and 2; the 3-layer chunks set every slot's pace
    base = BASE + ["--pp", "4", "--format", "json"]
    r = cli(base + ["--virtual-stages", "3"])
    assert r.code == 0, r.err
    m = 4194304 // 4096
    assert _stretch(json.loads(r.out)) == Fraction(3 * m + 3, 3 * m) * Fraction(4 * 3 * 3, L)
    even = json.loads(cli(base + ["--virtual-stages", "2"]).out)
    assert _stretch(even) == Fraction(2 * m + 3, 2 * m)


def test_cp_4_quarters_the_activations_and_rings_k_and_v():
    m = 2
    one = _run(dp=1, recompute="none", batch_tokens=m * S)
    four = _run(cp=4, recompute="none", batch_tokens=m * S, link_bandwidth="4.5e11")
    assert four.problem.devices == 4
    assert _fr(four.memory.activations) == _fr(one.memory.activations) / 4
    # ring attention: each layer's forward sends its K and V blocks of S/4 tokens 3 times;
    # the backward pass K, V and their gradients (twice that)
    block = 2 * 2 * (S // 4) * KV * DH
    forward = 3 * m * L * block
    assert _fr(four.comms.forward.cp) == forward
    assert _fr(four.comms.of("cp")) == 3 * forward
    # the gradients are reduced over the 4 context-parallel ranks (they hold the same weights)
    assert _fr(four.comms.of("dp")) == 2 * Fraction(3, 4) * 2 * P_8B


def test_a_suggested_dp_runs_when_given_back():
    a = _run(dp=1, zero=1, batch_tokens=2 * 3 * 5 * S, capacity="40e9")
    dp = a.smallest_dp
    assert dp is not None and (2 * 3 * 5) % dp == 0
    again = _run(dp=dp, zero=1, batch_tokens=2 * 3 * 5 * S, capacity="40e9")
    assert again.fits


def test_mesh_units_and_latency():
    mesh = parse_mesh("gpu=8@0.45TB/s+1us,node=2@50GB/s")
    assert mesh.axes[0].bandwidth == 450 * 10**9
    assert mesh.axes[0].latency == sp.Rational(1, 10**6)


BASE = ["train", "llama-3-8b", "--chip", "h100", "--batch-tokens", "4194304", "--seq", "4096"]


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--dp", "8", "--mesh", "gpu=8@450e9,node=2@50e9"], "--mesh"),
        (["--dp", "8", "--mesh", "gpu=8"], "--mesh"),
        (["--dp", "8", "--mesh", "gpu=8@fast"], "--mesh"),
        (["--dp", "8", "--mesh", "gpu=8@450GB"], "--mesh"),
        (["--dp", "8", "--mesh", "tp=8@450e9"], "--mesh"),
        (
            [
                "--dp",
                "8",
                "--tp",
                "2",
                "--mesh",
                "gpu=8@4e11,node=2@5e10",
                "--place",
                "tp=gpu,dp=gpu",
            ],
            "--place",
        ),
        (["--dp", "8", "--mesh", "gpu=8@4e11", "--place", "dp=rack"], "--place"),
        (["--dp", "8", "--mesh", "gpu=8@4e11", "--place", "xp=gpu"], "--place"),
        (["--dp", "8", "--place", "dp=gpu"], "--place"),
        (["--dp", "8", "--mesh", "gpu=8@4e11", "--link-bandwidth", "5e10"], "--link-bandwidth"),
        (["--dp", "4", "--tp", "2", "--mesh", "gpu=8@4e11", "--place", "tp=gpu:3"], "--place"),
        (["--dp", "4", "--tp", "2", "--mesh", "gpu=8@4e11", "--place", "tp=gpu:x"], "--place"),
        (["--pp", "4", "--stage-layers", "8,8,8,9"], "--stage-layers"),
        (["--pp", "4", "--stage-layers", "8,8,16"], "--stage-layers"),
        (["--pp", "2", "--zero", "3"], "--zero 3"),
        (["--cp", "3"], "--cp 3"),
        (["--pp", "4", "--virtual-stages", "9"], "--virtual-stages 9"),
        (["--dp", "8", "--keep-gathered-weights"], "--keep-gathered-weights"),
    ],
)
def test_bad_cluster_input_is_one_line_naming_the_flag(cli, extra, flag):
    r = cli(BASE + extra)
    assert r.code == 2 and r.out == "", r
    assert r.err.count("\n") == 1 and r.err.startswith(f"error: {flag}"), r.err


def test_without_a_mesh_the_json_has_no_mesh_keys(cli):
    import json

    r = cli(BASE + ["--dp", "8", "--format", "json"])
    report = json.loads(r.out)
    assert "mesh" not in report and set(report["comms_bytes_per_device"]) == {
        "dp",
        "tp",
        "pp",
        "ep",
    }
    r = cli(
        BASE
        + ["--dp", "8", "--tp", "2", "--mesh", "gpu=8@450GB/s,node=2@50GB/s", "--format", "json"]
    )
    report = json.loads(r.out)
    assert [a["name"] for a in report["mesh"]] == ["gpu", "node"]
    assert report["placement"]["tp"] == [{"axis": "gpu", "size": 2}]
    times = report["comms_time_per_device"]
    assert set(times) == {"dp", "tp", "pp", "ep", "cp"}
    assert sum(Fraction(v) for v in times.values()) == Fraction(report["t_comms"])


def test_the_builtin_two_node_problem_by_hand():
    """Llama 3 8B, tp = 8 over a node's NVLink, dp = 2 across two nodes' InfiniBand, ZeRO-1,
    selective recomputation, M = 1048576 / (2 · 4096) = 128 micro-batches."""
    from pathlib import Path

    from derive.checking.training_claims import training_analysis_for
    from derive.problem.sets.problem_set import load_problem_set

    root = Path(__file__).resolve().parents[2]
    builtin = load_problem_set(root / "derive" / "data" / "problems" / "rooflines.toml")
    entry = next(e for e in builtin.models if e.id == "train-8b-two-nodes")
    a = training_analysis_for(entry)
    attn = D * H * DH + 2 * D * KV * DH + H * DH * D
    p_dev = L * (Fraction(attn + 3 * D * F, 8) + 2 * D) + 2 * Fraction(V * D, 8) + D
    dp = 2 * Fraction(1, 2) * 2 * p_dev / IB  # an all-reduce over the 2 nodes
    m, act = 128, 2 * S * D
    tp = (2 + 2) * m * L * 2 * Fraction(7, 8) * act / NVLINK  # 4 all-reduces per layer
    assert _fr(a.comms.time_of("dp")) == dp and _fr(a.comms.time_of("tp")) == tp
    assert _fr(a.t_comms) == dp + tp == Fraction(dict(entry.expect)["t_comms"])


def test_the_critical_batch_three_ways_and_the_largest_tp():
    """DP 8, ZeRO-1, no recomputation: b* = 7/8 · π/β · 4P/(4P + 2A) per rank (A: the forward's
    causal attention FLOPs per token); per chip over tp·pp·cp = 1; the step's b*·8. The
    largest TP degree: 1 + ⌊P_layer·β/(4·d·π)⌋ and the book's f·β/π."""
    a = _run(dp=8, zero=1, recompute="none", batch_tokens=8 * S, link_bandwidth="4.5e11")
    peak = Fraction(989 * 10**12)
    attention = Fraction(L * 4 * H * DH * (S + 1), 2)  # S(S+1)/2 pairs over S tokens
    star = Fraction(7, 8) * peak / NVLINK * 4 * P_8B / (4 * P_8B + 2 * attention)
    assert _fr(a.critical_tokens_per_rank) == star == _fr(a.critical_tokens_per_chip)
    assert _fr(a.critical_batch_tokens) == 8 * star
    layer = BLOCK - 2 * D  # the matmul parameters of a layer (norms out)
    assert a.tp_max_exact == 1 + int(Fraction(layer) * NVLINK / (4 * D * peak))
    assert _fr(a.tp_max_scaling_book) == F * NVLINK / peak
    two = _run(dp=2, tp=4, zero=1, recompute="none", batch_tokens=2 * S, link_bandwidth="4.5e11")
    if two.critical_tokens_per_device:
        assert _fr(two.critical_tokens_per_chip) == _fr(two.critical_tokens_per_device) / 4


@pytest.mark.parametrize(
    ("model", "devices", "mesh", "capacity"),
    [
        ("llama-3-8b", 8, "gpu=4@450e9,node=2@50e9", "80e9"),
        ("llama-3-8b", 8, "gpu=4@450e9,node=2@50e9", "40e9"),
        ("llama-3-8b", 4, "gpu=2@450e9+2us,node=2@25e9+10us", "60e9"),
    ],
)
def test_the_search_finds_the_brute_force_best(model, devices, mesh, capacity):
    """Every factorization, every ZeRO stage, every recomputation, every placement, each
    derived in full: the search's best t_lower (of the rows that fit) is the brute force's."""
    from dataclasses import replace

    from derive.training.binding import Recompute, ZeroStage
    from derive.training.mesh import placements
    from derive.training.search import _bind, degrees_of, search_strategies

    run = solve_training(
        model,
        chip="h100",
        capacity=capacity,
        dp=devices,
        batch_tokens=devices * 2 * S,
        seq=S,
        mesh=mesh,
    ).analysis.problem
    best = None
    for degrees in degrees_of(run):
        base = _bind(run, degrees)
        if base is None or base.placement is None:
            continue
        dims = {**degrees, "dp": degrees["dp"] // degrees["ep"]}
        for zero in ZeroStage:
            if zero is ZeroStage.WEIGHTS and base.pp > 1:
                continue
            for recompute in Recompute:
                for placement in placements(base.placement.mesh, dims):
                    a = analyse_training(
                        replace(base, zero=zero, recompute=recompute, placement=placement)
                    )
                    if a.fits and (best is None or a.t_lower < best):
                        best = a.t_lower
    rows = search_strategies(run)
    fitting = [r.analysis for r in rows if r.analysis is not None and r.analysis.fits]
    assert best is not None and fitting and fitting[0].t_lower == best


def test_the_megatron_recipe_is_18_bytes_per_parameter():
    """Megatron-LM keeps fp32 gradients: 2 + 4 + 12 = 18 bytes per parameter, and with its
    distributed optimizer (ZeRO-1 over dp·cp) 6 + 12/(dp·cp)."""
    plain = solve_training(
        "llama-3-8b", chip="h100", state_bytes="megatron", dp=1, batch_tokens=S, seq=S
    ).analysis
    state = plain.memory.weights + plain.memory.grads + plain.memory.optimizer
    assert _fr(state) == 18 * P_8B
    sharded = solve_training(
        "llama-3-8b",
        chip="h100",
        state_bytes="megatron",
        dp=4,
        cp=2,
        zero=1,
        batch_tokens=4 * S,
        seq=S,
    ).analysis
    state = sharded.memory.weights + sharded.memory.grads + sharded.memory.optimizer
    assert _fr(state) == (6 + Fraction(12, 4 * 2)) * P_8B


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 16), min_size=1, max_size=4),
    bandwidths=st.lists(st.integers(1, 10**6), min_size=4, max_size=4),
)
def test_hierarchical_collectives_against_their_ring_forms(sizes, bandwidths):
    """Over levels (g_i, β_i): the all-reduce is two all-gathers; the bytes of a level's share
    sum to the flat ring's fraction of the whole group when every β is one; an all-to-all's
    shares are its chunks' hops, level by level; one level is the ring formula."""
    axes = [
        Axis(f"a{i}", g, sp.Integer(b), str(b)) for i, (g, b) in enumerate(zip(sizes, bandwidths))
    ]
    levels = tuple(Level(a, a.size) for a in axes if a.size > 1)
    group = 1
    for g in sizes:
        group *= g
    ar, ag = time_per_byte(Exchange.ALL_REDUCE, levels), time_per_byte(Exchange.ALL_GATHER, levels)
    assert ar == 2 * ag
    # an all-to-all, counted peer by peer from device 0: V/G to each peer, over the axis of the
    # outermost coordinate where it differs, crossing as many of that ring's links as its distance
    coords = [(0,)]
    for lv in levels:
        coords = [(*c, x) for c in coords for x in range(lv.size)]
    hops = [0] * len(levels)
    for peer in coords[1:]:
        outer = max(i for i in range(len(levels)) if peer[i + 1])
        hops[outer] += peer[outer + 1]
    shares = [c.load for c in level_costs(Exchange.ALL_TO_ALL, levels)]
    assert shares == [sp.Rational(h, group) for h in hops]
    ones = tuple(Level(Axis(lv.axis.name, lv.size, sp.Integer(1), "1"), lv.size) for lv in levels)
    # the hierarchical all-gather moves (G−1)/G of V in all when every link is equally fast
    assert time_per_byte(Exchange.ALL_GATHER, ones) == sp.Rational(group - 1, group)
    if len(levels) == 1:
        g, beta = levels[0].size, levels[0].axis.bandwidth
        assert ar == sp.Rational(2 * (g - 1), g) / beta


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    capacity=st.integers(18, 120),
    micro=st.sampled_from([1, 2, 4]),
    sequences=st.sampled_from([12, 30, 48, 70, 96]),
)
def test_a_suggested_dp_and_zero_always_run(capacity, micro, sequences):
    """Whatever dp or ZeRO stage the run suggests, given back to derive train, binds and fits."""
    from derive.errors import ProblemError

    common = {"batch_tokens": sequences * micro * 1024, "seq": 1024, "micro_batch_size": micro}
    try:
        a = solve_training(
            "llama-3-8b", chip="h100", capacity=f"{capacity}e9", dp=1, zero=1, **common
        ).analysis
    except ProblemError:
        return
    if a.smallest_dp is not None:
        again = solve_training(
            "llama-3-8b", chip="h100", capacity=f"{capacity}e9", dp=a.smallest_dp, zero=1, **common
        ).analysis
        assert again.fits
    if a.smallest_zero is not None:
        again = solve_training(
            "llama-3-8b",
            chip="h100",
            capacity=f"{capacity}e9",
            dp=1,
            zero=int(a.smallest_zero),
            **common,
        ).analysis
        assert again.fits


def test_counted_logits_are_a_gigabyte_per_4k_tokens_at_a_128k_vocabulary():
    """One micro-batch's bf16 logits, S·b·V/tp: 2 · 4096 · 128256 bytes with tp = 1, a quarter
    of that with tp 2 and cp 2; not counted unless asked."""
    base = {"batch_tokens": 8 * S, "recompute": "full"}
    plain = _run(dp=8, **base)
    counted = _run(dp=8, count_logits="true", **base)
    assert _fr(counted.memory.activations - plain.memory.activations) == 2 * S * V
    split = _run(dp=2, tp=2, cp=2, count_logits="true", **base)
    assert _fr(split.memory.logits) == Fraction(2 * S * V, 4)


def test_the_search_reuses_only_what_no_placement_changes():
    """The search derives each layout's memory once and reuses it on its other placements
    (benchmarks/search.py): every row is the same as a fresh derivation of its run."""
    from derive.training.search import search_strategies

    run = solve_training(
        "llama-3-8b",
        chip="h100",
        capacity="60e9",
        dp=8,
        batch_tokens=8 * 2 * S,
        seq=S,
        mesh="gpu=4@450e9+2us,node=2@25e9+10us",
    ).analysis.problem
    rows = search_strategies(run)
    assert len({r.placement for r in rows}) > 2
    for row in rows:
        a = row.analysis
        assert a is not None
        fresh = analyse_training(a.problem)
        assert fresh.memory == a.memory and fresh.terms == a.terms and fresh.params == a.params
        assert (fresh.smallest_dp, fresh.smallest_zero) == (a.smallest_dp, a.smallest_zero)
        assert (fresh.t_lower, fresh.t_upper, fresh.fits) == (a.t_lower, a.t_upper, a.fits)


def test_the_expert_all_to_all_is_the_one_collective_derive_solve_times(cli, tmp_path):
    """Mixtral 8x7B at ep 8 on one axis of 8: the dispatch and combine all-to-alls of a step,
    V per device (k = 2 routed copies of each token's d = 4096 bf16 activations, per layer of
    32, per micro-batch, twice forward and twice backward) are the all-to-all of an 8·V tensor
    that `derive solve` times on the same link: one formula, on the ring's busiest link."""
    import json

    argv = ["train", "mixtral-8x7b", "--chip", "h100", "--dp", "8", "--ep", "8", "--zero", "1"]
    argv += [
        "--recompute",
        "none",
        "--batch-tokens",
        "4194304",
        "--seq",
        "4096",
        "--mesh",
        "gpu=8@450e9",
    ]
    run = json.loads(cli([*argv, "--format", "json"]).out)
    copies = 2 * 2 * int(run["microbatches"]) * 32  # (dispatch + combine) × passes × layers
    elements = copies * 2 * 4096 * int(run["micro_batch_size"]) * 4096  # k · S · b · d, per device
    path = tmp_path / "ops.py"
    path.write_text(
        "from derive import Collective, Operator, Tensor, dims\nB, = dims('B')\n"
        "dispatch = Operator(name='dispatch', flops=0, "
        "comms=[Collective('all_to_all', Tensor('X', (B,)), group=8)])\n"
    )
    solve = ["solve", "dispatch", "--operators", str(path), "--dtype", "bf16"]
    solve += ["--link-bandwidth", "450e9", "--set", f"B={8 * elements}", "--format", "json"]
    alone = json.loads(cli(solve).out)
    assert Fraction(run["comms_time_per_device"]["ep"]) == Fraction(alone["t_comms"])
    # each byte of V crosses (P−1)/2 links on average: 7/2 · 2·V / β
    assert Fraction(alone["t_comms"]) == Fraction(7, 2) * 2 * elements / NVLINK


GPT3_175B = {  # Brown et al. (2020), Table 2.1: 96 layers of 96 heads, d = 12288, 2048 tokens
    "model_type": "gpt2",
    "n_layer": 96,
    "n_embd": 12288,
    "n_head": 96,
    "vocab_size": 50257,
    "n_positions": 2048,
}


def test_the_search_keeps_tp_inside_a_node_for_gpt3_175b(cli, tmp_path):
    """TP's all-reduces sit on each layer's critical path: across the 5e10 node links they
    lose to TP on NVLink (or none), where hiding every dim's traffic put tp on gpu:4*node:2."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(GPT3_175B))
    mesh = "gpu=8@4.5e11:switch,node=128@5e10"
    args = ["train", str(config), "--chip", "h100", "--dp", "1024", "--batch-tokens", "4194304",
            "--seq", "2048", "--mesh", mesh, "--compare-strategies", "--format", "json"]  # fmt: skip
    r = cli(args)
    assert r.code == 0, r.err
    best = json.loads(r.out)["best"]
    tp = [part for part in best["placement"].split(",") if part.startswith("tp=")]
    assert best["fits"] and all("node" not in part for part in tp), best
    overlapped = json.loads(cli([*args, "--overlap-tp"]).out)["best"]
    assert Fraction(overlapped["t_lower"]) <= Fraction(best["t_lower"])


def test_tp_traffic_is_exposed_unless_overlapped(cli):
    """Llama 3 8B at tp 8 in one NVLink node (dp 1: TP is the only traffic, the compute
    above it): T_lower is the compute plus TP's time; with --overlap-tp, the compute alone."""
    args = ["train", "llama-3-8b", "--chip", "h100", "--tp", "8", "--dp", "1", "--recompute",
            "none", "--batch-tokens", "65536", "--seq", "8192", "--format", "json"]  # fmt: skip
    plain, hidden = (json.loads(cli(args + extra).out) for extra in ([], ["--overlap-tp"]))
    m, d, layers, tp = 65536 // 8192, 4096, 32, 8
    all_reduce = Fraction(2 * (tp - 1), tp) * 2 * 8192 * d  # bf16 activations of S·b·d
    tp_bytes = (2 + 2) * layers * m * all_reduce  # two all-reduces a layer, each way
    assert Fraction(plain["comms_bytes_per_device"]["tp"]) == tp_bytes
    exposed = tp_bytes / Fraction(450 * 10**9)  # NVLink, chips.toml's 4.5e11 one way
    assert Fraction(hidden["t_lower"]) == Fraction(hidden["t_math"])
    assert Fraction(plain["t_lower"]) == Fraction(hidden["t_lower"]) + exposed


def test_the_verdict_and_b_star_count_tps_exposed_all_reduces(cli):
    """Without --overlap-tp, TP's all-reduces are on the compute's critical path (T_lower's
    max(T + E, C)): the backward pass's compute is below its traffic here, compute plus E
    above it, so T_lower is the compute plus TP's time and the step is compute-bound; the
    critical batch lies below b. With --overlap-tp, E hides and the same step is not."""
    argv = ["train", "llama-3-70b", "--chip", "h100", "--dp", "16", "--tp", "8", "--zero", "1"]
    argv += ["--batch-tokens", str(16 * 16384), "--seq", "4096", "--format", "json"]
    argv += ["--mesh", "gpu=8@450GB/s,node=16@50GB/s"]
    out = json.loads(cli(argv).out)
    t_math, t_lower = Fraction(out["t_math"]), Fraction(out["t_lower"])
    exposed = Fraction(out["comms_time_per_device"]["tp"])
    assert t_lower == t_math + exposed  # pp = 1: each pass's bound is its compute plus E
    assert out["compute_bound"] is True
    assert Fraction(out["critical_tokens_per_device"]) <= Fraction(out["tokens_per_device"])
    hidden = json.loads(cli([*argv, "--overlap-tp"]).out)
    assert hidden["compute_bound"] is False
    assert Fraction(hidden["critical_tokens_per_device"]) > Fraction(hidden["tokens_per_device"])
