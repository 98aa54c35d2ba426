"""derive train: every value computed here independently, with Fractions and counts by hand."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive import Transformer
from derive.model.analysis import analyse_model
from derive.model.binding import bind_model
from derive.pipeline import solve_training
from derive.problem.model_spec import ModelSpec
from derive.problem.train_spec import TrainSpec
from derive.training.analysis import analyse_training
from derive.training.binding import Recompute, ZeroStage, bind_training

# Llama 3 8B by hand: L = 32, d = 4096, 32 query and 8 KV heads of 128, f = 14336 (gated),
# V = 128256, untied head, RMS norms.
L, D, H, KV, DH, F, V = 32, 4096, 32, 8, 128, 14336, 128256
ATTN = D * H * DH + 2 * D * KV * DH + H * DH * D
MLP = 3 * D * F
NORMS = 2 * D
P_8B = L * (ATTN + MLP + NORMS) + V * D + D * V + D  # embedding, head, final norm
H100_PEAK = Fraction(989 * 10**12)  # 9.89e14
NVLINK = Fraction(450 * 10**9)  # 4.5e11, one way
NETWORK = Fraction(50 * 10**9)  # 50 GB/s
GB80 = 80 * 10**9


def _attn(s: int, layers: int = L, heads: int = H, head_dim: int = DH) -> Fraction:
    """A causal sequence's forward attention FLOPs per token, by hand: each layer's q·k and
    p·v (2 FLOPs per multiply-add, d_h each, every head) over the s(s+1)/2 pairs j ≤ i."""
    return Fraction(layers * 2 * heads * (head_dim + head_dim) * s * (s + 1) // 2, s)


def _dp_balance(link: Fraction, s: int = 4096, forward: int = 4) -> Fraction:
    """DP's critical batch with attention: (4P + 2A)·b/π = 2·(7/8)·2P/β, the backward's
    compute 4P + 2A per token (plus the recomputed forward 2P + A when ``forward`` is 6)."""
    a = _attn(s)
    return Fraction(7, 8) * H100_PEAK / link * 4 * P_8B / (forward * P_8B + forward * a / 2)


def _fr(value: sp.Expr) -> Fraction:
    rational = sp.Rational(value)
    return Fraction(int(rational.p), int(rational.q))


def _run(model: str = "llama-3-8b", **train: object):
    train = {"batch_tokens": 4194304, "seq": 4096, **train}
    return solve_training(model, chip="h100", **train).analysis


def test_llama_8b_parameter_count_by_hand():
    assert P_8B == 8030261248
    assert _fr(_run(dp=8).params.total) == P_8B


@pytest.mark.parametrize(
    ("zero", "weights", "grads", "optimizer"),
    [
        (0, Fraction(2 * P_8B), Fraction(2 * P_8B), Fraction(12 * P_8B)),
        (1, Fraction(2 * P_8B), Fraction(2 * P_8B), Fraction(12 * P_8B, 8)),
        (2, Fraction(2 * P_8B), Fraction(2 * P_8B, 8), Fraction(12 * P_8B, 8)),
        (3, Fraction(2 * P_8B, 8), Fraction(2 * P_8B, 8), Fraction(12 * P_8B, 8)),
    ],
)
def test_four_zero_stages_of_an_8b_model_on_8_devices(zero, weights, grads, optimizer):
    a = _run(dp=8, zero=zero, recompute="full")
    activations = L * 2 * 4096 * 1 * D  # full recomputation: each layer's input, bf16
    m = a.memory
    assert (_fr(m.weights), _fr(m.grads), _fr(m.optimizer)) == (weights, grads, optimizer)
    assert _fr(m.activations) == activations
    assert _fr(m.total) == weights + grads + optimizer + activations
    assert a.fits == (weights + grads + optimizer + activations <= GB80)


def test_full_recomputation_activations_with_tp_and_pp():
    # each layer's input S·b·d in bf16, on every TP rank (no sequence parallelism); the
    # first stage keeps pp micro-batches of L/pp layers in flight: L layers' worth
    a = _run(dp=2, tp=2, pp=4, micro_batch_size=2, recompute="full")
    assert _fr(a.memory.activations_per_layer) == 2 * 4096 * 2 * D
    assert _fr(a.memory.activations) == 4 * (L // 4) * 2 * 4096 * 2 * D


def _gpt(d: int = 1024, heads: int = 16) -> Transformer:
    return Transformer(
        name="gpt-like",
        layers=8,
        d_model=d,
        heads=heads,
        d_ff=4 * d,
        mlp="plain",
        vocab=50304,
        bias=True,
        norm="layernorm",
        tied_embeddings=True,
    )


@pytest.mark.parametrize("tp", [1, 2, 4])
def test_korthikanti_gpt_activations_term_by_term(tp):
    """With GPT's choices and dropout the terms sum to the paper's sbh(10 + 24/t + 5as/(ht))."""
    model = analyse_model(bind_model(ModelSpec(model="gpt-like", chip="h100"), _gpt()))
    s, b, h, a_heads = 2048, 2, 1024, 16
    spec = TrainSpec(tp=str(tp), batch_tokens=str(s * b * 4), seq=str(s), micro_batch_size=str(b))
    run = replace(bind_training(spec, model), dropout=True)
    none = analyse_training(replace(run, recompute=Recompute.NONE)).memory.activations_per_layer
    sel = analyse_training(replace(run, recompute=Recompute.SELECTIVE)).memory.activations_per_layer
    sbh = s * b * h
    assert _fr(none) == sbh * (10 + Fraction(24, tp) + Fraction(5 * a_heads * s, h * tp))
    assert _fr(sel) == sbh * (10 + Fraction(24, tp))


@pytest.mark.parametrize("tp", [2, 4])
def test_korthikanti_with_sequence_parallelism(tp):
    """Sequence parallelism splits the replicated terms too: sbh(34/t + 5as/(ht)), 34/t, 2/t."""
    model = analyse_model(bind_model(ModelSpec(model="gpt-like", chip="h100"), _gpt()))
    s, b, h, a_heads = 2048, 2, 1024, 16
    spec = TrainSpec(
        tp=str(tp),
        batch_tokens=str(s * b * 4),
        seq=str(s),
        micro_batch_size=str(b),
        sequence_parallel="true",
    )
    run = replace(bind_training(spec, model), dropout=True)
    sbh = s * b * h

    def per_layer(mode: Recompute) -> Fraction:
        return _fr(analyse_training(replace(run, recompute=mode)).memory.activations_per_layer)

    assert per_layer(Recompute.NONE) == sbh * (Fraction(34, tp) + Fraction(5 * a_heads * s, h * tp))
    assert per_layer(Recompute.SELECTIVE) == sbh * Fraction(34, tp)
    assert per_layer(Recompute.FULL) == Fraction(2 * sbh, tp)
    # the all-reduces become all-gathers and reduce-scatters: the same bytes
    plain = analyse_training(replace(run, sequence_parallel=False))
    assert analyse_training(run).comms.of("tp") == plain.comms.of("tp")


def test_dp_and_zero3_comms_per_step():
    ring = Fraction(7, 8)
    dp = _run(dp=8, zero=1)
    assert _fr(dp.comms.of("dp")) == 2 * ring * 2 * P_8B
    assert _fr(dp.comms.forward.dp) == 0
    # ZeRO-3 gathers per micro-batch: M = 4194304 / (8 · 4096) = 128 forward gathers, 128
    # backward gathers and 128 reduce-scatters (DeepSpeed, FSDP without no_sync)
    m = 4194304 // (8 * 4096)
    fsdp = _run(dp=8, zero=3)
    assert _fr(fsdp.comms.of("dp")) == 3 * m * ring * 2 * P_8B
    assert _fr(fsdp.comms.forward.dp) == m * ring * 2 * P_8B
    assert _fr(fsdp.t_comms) == 3 * m * ring * 2 * P_8B / NVLINK
    kept = _run(dp=8, zero=3, keep_gathered_weights="true")
    assert _fr(kept.comms.of("dp")) == 2 * ring * 2 * P_8B  # one gather, one reduce-scatter


@pytest.mark.parametrize(("link", "text"), [(NVLINK, "4.5e11"), (NETWORK, "5e10")])
def test_critical_batch_on_nvlink_and_on_a_network_link(link, text):
    """DP, ZeRO ≤ 2, no recomputation: 4·P·b/π = 2·(X−1)/X·2P/β gives b* = (X−1)/X·π/β
    without attention; its 2·A FLOPs per token in the backward lower b* by 4P/(4P + 2A)."""
    expected = _dp_balance(link)
    a = _run(dp=8, zero=1, recompute="none", link_bandwidth=text)
    assert _fr(a.critical_tokens_per_device) == expected
    assert a.compute_bound == (Fraction(4194304, 8) >= expected)
    # ZeRO-3 keeping its gathered weights: one gather forward, one reduce-scatter backward,
    # the same b*
    kept = _run(dp=8, zero=3, recompute="none", link_bandwidth=text, keep_gathered_weights="true")
    assert _fr(kept.critical_tokens_per_device) == expected
    # ZeRO-3 gathering per micro-batch: each micro-batch of S·b = 4096 tokens hides its own
    # gather iff (2P + A)·4096/π ≥ (X−1)/X·2P/β, i.e. 4096 ≥ b* above: any batch, or never
    star = _run(dp=8, zero=3, recompute="none", link_bandwidth=text).critical_tokens_per_device
    assert star == (0 if expected <= 4096 else None)


def test_a_small_batch_on_a_50_gb_link_is_communication_bound():
    # 4096 tokens per DP rank, below b* ≈ 7/8 · 9.89e14/5e10 = 17307.5 (less with attention)
    a = _run(dp=8, zero=1, recompute="none", link_bandwidth="5e10", batch_tokens=8 * 4096)
    assert not a.compute_bound
    backward_compute = (4 * P_8B + 2 * _attn(4096)) * 4096 / H100_PEAK
    backward_comms = Fraction(2 * 7, 8) * 2 * P_8B / NETWORK
    assert backward_comms > backward_compute
    assert _fr(a.t_lower) == (2 * P_8B + _attn(4096)) * 4096 / H100_PEAK + backward_comms


def test_pipeline_bubble():
    # pp = 4, dp = 2: M = 4194304 / (2 · 1 · 4096) = 512 micro-batches per DP rank
    a = _run(dp=2, pp=4)
    assert _fr(a.bubble_fraction) == Fraction(3, 512 + 3)
    assert _fr(a.stretch) == Fraction(512 + 3, 512)


def test_mfu_from_a_measured_step():
    a = _run(dp=8, zero=1, measured_step_time="40s")
    assert _fr(a.mfu) == (6 * P_8B + 3 * _attn(4096)) * 4194304 / (8 * H100_PEAK * 40)
    assert a.impossible is False
    fast = _run(dp=8, zero=1, measured_step_time="20s")  # below T_lower ≈ 34 s
    assert fast.impossible is True


def test_moe_expert_parallelism_splits_the_experts():
    dense = _run("mixtral-8x7b", dp=8, ep=1, zero=1)
    split = _run("mixtral-8x7b", dp=8, ep=8, zero=1)
    assert split.params.experts * 8 == dense.params.experts
    assert _fr(split.comms.of("ep")) > 0 and _fr(dense.comms.of("ep")) == 0


def _traffic(cli, model: str, recompute: str, *layout: str) -> dict[str, Fraction]:
    r = cli(["train", model, "--chip", "h100", *layout, "--recompute", recompute,
             "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    return {k: Fraction(v) for k, v in json.loads(r.out)["comms_bytes_per_device"].items()}


# Exchanges per layer and micro-batch, (forward, backward) with nothing recomputed: Megatron's
# TP two all-reduces each way; ring attention K and V once forward, K, V and their gradients
# backward; a MoE layer's dispatch and combine each way. Full recomputation runs each layer's
# forward again, selective only the attention core's (whose one exchange is CP's ring): the
# forward's exchanges of what runs again are sent once more in the backward pass.
FORWARD_BACKWARD = {"tp": (2, 2), "cp": (1, 2), "ep": (2, 2)}
RERUN = {"none": (), "selective": ("cp",), "full": ("tp", "cp", "ep")}


def _ratio(dim: str, recompute: str) -> Fraction:
    fwd, bwd = FORWARD_BACKWARD[dim]
    return Fraction(fwd + bwd + (fwd if dim in RERUN[recompute] else 0), fwd + bwd)


@pytest.mark.parametrize("recompute", ["selective", "full"])
def test_recomputation_sends_again_every_exchange_it_runs_again(cli, recompute):
    """Issue 46: Mixtral 8x7B at ep 8 kept its expert all-to-alls under full recomputation
    while TP's grew; every per-layer dim now follows one rule (CP's ring on Llama 3 8B)."""
    moe = ("--dp", "8", "--ep", "8", "--tp", "2", "--batch-tokens", "65536", "--seq", "4096")
    ring = ("--dp", "2", "--cp", "4", "--batch-tokens", "16384", "--seq", "8192")
    for model, layout, dims in (("mixtral-8x7b", moe, ("tp", "ep")), ("llama-3-8b", ring, ("cp",))):
        none, again = (
            _traffic(cli, model, "none", *layout),
            _traffic(cli, model, recompute, *layout),
        )
        for dim in dims:
            assert none[dim] > 0 and again[dim] == none[dim] * _ratio(dim, recompute), dim
        assert again["dp"] == none["dp"] and again["pp"] == none["pp"]  # not per layer


# --- bad input: one line, exit 2, naming the flag --------------------------------------

BASE = ["train", "llama-3-8b", "--chip", "h100", "--batch-tokens", "4194304", "--seq", "4096"]


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--dp", "3"], "--batch-tokens"),
        (["--zero", "4"], "--zero 4"),
        (["--tp", "3"], "--tp 3"),
        (["--pp", "33"], "--pp 33"),
        (["--pp", "4", "--batch-tokens", "8192"], "--batch-tokens 8192"),
        (["--pp", "4", "--batch-tokens", "8192", "--microbatches", "2"], "--microbatches 2"),
        (["--ep", "2"], "--ep 2"),
        (["--recompute", "half"], "--recompute half"),
        (["--tp", "2", "--pp", "40"], "--pp 40"),
        (["--measured-step-time", "fast"], "--measured-step-time"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(cli, extra, flag):
    r = cli(BASE + extra)
    assert r.code == 2 and r.out == ""
    assert r.err.count("\n") == 1 and r.err.startswith(f"error: {flag}")


def test_json_keys_are_the_contract(cli):
    r = cli(BASE + ["--dp", "8", "--zero", "1", "--format", "json", "--compare-strategies"])
    assert r.code == 0
    report = json.loads(r.out)
    assert set(report["memory_per_device"]) == {
        "weights",
        "grads",
        "optimizer",
        "activations",
        "total",
    }
    assert set(report["comms_bytes_per_device"]) == {"dp", "tp", "pp", "ep"}
    for key in (
        "t_math",
        "t_comms",
        "t_lower",
        "t_upper",
        "bubble_fraction",
        "mfu",
        "critical_tokens_per_device",
    ):
        assert key in report
    assert Fraction(report["memory_per_device"]["weights"]) == 2 * P_8B
    assert [row["strategy"] for row in report["strategies"]][:5] == [
        "DP",
        "FSDP",
        "TP",
        "FSDP+TP",
        "PP",
    ]
    searched = report["strategies"][5:]
    assert 0 < len(searched) <= 10
    for row in searched:  # each searched layout is a factorization of the 8 devices
        assert row["dp"] * row["tp"] * row["pp"] * row["cp"] == 8 and row["recompute"]
    assert report["best"]["strategy"] == report["winner"]


def test_markdown_and_tex(cli):
    md = cli(BASE + ["--dp", "8", "--zero", "1"])
    assert md.code == 0 and "Critical batch" in md.out and "Korthikanti" in md.out
    tex = cli(BASE + ["--dp", "8", "--zero", "1", "--format", "tex"])
    assert tex.code == 0 and r"\frac" in tex.out


# --- properties --------------------------------------------------------------------------

_MODEL = analyse_model(bind_model(ModelSpec(model="gpt-like", chip="h100"), _gpt(512, 8)))
_SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bound(**fields: object):
    spec = TrainSpec(**{k: str(v) for k, v in fields.items()})
    return bind_training(spec, _MODEL)


@_SLOW
@given(
    zero=st.integers(0, 2),
    dp_exp=st.integers(0, 3),
    tp=st.sampled_from([1, 2, 4]),
    recompute=st.sampled_from(["full", "selective", "none"]),
)
def test_more_sharding_never_raises_memory_per_device(zero, dp_exp, tp, recompute):
    dp = 2**dp_exp
    common = {"tp": tp, "recompute": recompute, "batch_tokens": 1024 * 16, "seq": 1024}
    base = analyse_training(_bound(dp=dp, zero=zero, **common)).memory.total
    more_zero = analyse_training(_bound(dp=dp, zero=zero + 1, **common)).memory.total
    more_dp = analyse_training(_bound(dp=2 * dp, zero=zero + 1, **common)).memory.total
    same_dp = analyse_training(_bound(dp=dp, zero=zero + 1, **common)).memory.total
    more_tp = analyse_training(_bound(dp=dp, zero=zero, **(common | {"tp": 2 * tp}))).memory.total
    assert more_zero <= base and more_dp <= same_dp and more_tp <= base


@_SLOW
@given(
    dp=st.sampled_from([1, 2, 4]),
    tp=st.sampled_from([1, 2]),
    pp=st.sampled_from([1, 2, 4]),
    zero=st.integers(0, 3),
    link=st.integers(1, 10**6),
)
def test_t_lower_never_exceeds_t_upper(dp, tp, pp, zero, link):
    a = analyse_training(
        _bound(
            dp=dp,
            tp=tp,
            pp=pp,
            zero=min(zero, 2) if pp > 1 else zero,  # ZeRO-3 with a pipeline is refused
            batch_tokens=1024 * 64,
            seq=1024,
            link_bandwidth=f"{link}e6",
        )
    )
    assert a.t_lower <= a.t_upper
    assert a.t_lower >= max(a.forward.compute + a.backward.compute, a.t_comms)


@_SLOW
@given(
    zero=st.sampled_from([0, 1, 3]),
    recompute=st.sampled_from(["full", "selective", "none"]),
    num=st.integers(1, 999),
)
def test_the_critical_batch_is_where_the_bound_switches(zero, recompute, num):
    """Choose the link that puts b* exactly at this batch: compute equals comms there, and a
    faster link makes the step compute-bound, a slower one communication-bound. (ZeRO-3 keeps
    its gathered weights, so its DP traffic is once per step as ZeRO-0/1's.)"""
    fields = {
        "dp": 4,
        "keep_gathered_weights": "true" if zero == 3 else "false",
        "zero": zero,
        "recompute": recompute,
        "batch_tokens": 4 * 1024 * 4,
        "seq": 1024,
    }
    probe = analyse_training(_bound(**fields, link_bandwidth="1e11"))
    b = probe.tokens_per_device
    # per pass: c·b = D/β  ⇒  β = D_bytes/(c·b); the step's b* is the larger pass's, so the
    # link is the largest of the two passes' (a pass without DP bytes has none)
    links = [
        c.comms_fixed * probe.problem.link / (c.compute_per_token * b)
        for c in probe.critical
        if c.comms_fixed
    ]
    link = max(links)
    at = analyse_training(replace(probe.problem, link=link))
    assert at.critical_tokens_per_device == b and at.compute_bound
    assert at.t_lower == at.forward.compute + at.backward.compute
    slower = analyse_training(replace(probe.problem, link=link * sp.Rational(1000, 1000 + num)))
    assert (
        not slower.compute_bound
        and slower.t_lower > slower.forward.compute + slower.backward.compute
    )
    faster = analyse_training(replace(probe.problem, link=link * sp.Rational(1000 + num, 1000)))
    assert (
        faster.compute_bound and faster.t_lower == faster.forward.compute + faster.backward.compute
    )


def test_zero_stage_enum_is_closed():
    assert [int(z) for z in ZeroStage] == [0, 1, 2, 3]


# --- problem sets ---------------------------------------------------------------------

SET = """title = "training"
[[problem]]
id = "t8b"
model = "llama-3-8b"
chip = "h100"
train = { dp = 8, zero = ZERO, recompute = "none", batch_tokens = 4194304, seq = 4096 }
ask = ["memory_per_device", "critical_tokens_per_device"]
"""


def _entry(zero: str = "1"):
    from derive.problem.sets.problem_set import parse_problem_set

    return parse_problem_set(SET.replace("ZERO", zero), "set.toml").models[0]


def test_a_set_problem_checks_training_quantities_through_the_api():
    import derive

    entry = _entry()
    right = derive.check(entry, "critical_tokens_per_device", f"{float(_dp_balance(NVLINK)):.0f}")
    assert right.verdict.value == "correct"
    weights = derive.check(entry, "memory_weights", f"{2 * P_8B} bytes")
    assert weights.verdict.value == "correct"
    wrong = derive.check(entry, "comms_dp", f"{4 * P_8B}")  # forgot the ring's 7/8
    assert wrong.verdict.value == "incorrect"
    # memory_per_device is the run's (weights, grads, optimizer, activations), not serving's
    total = 4 * P_8B + Fraction(12 * P_8B, 8) + L * _korthikanti_llama(4096, 1)
    assert Fraction(derive.check(entry, "memory_per_device", "1").expected.split()[0]) == total


def _korthikanti_llama(s: int, b: int) -> Fraction:
    """Llama 3 8B's layer without recomputation, tp = 1, bf16, no dropout, by hand."""
    replicated = 4 * 2 * s * b * D  # two norm inputs, QKV input, MLP input
    qk = 2 * s * b * (H + KV) * DH
    softmax = 2 * b * H * s * s
    v, out = 2 * s * b * KV * DH, 2 * s * b * H * DH
    mlp = 4 * 2 * s * b * F  # gate, up, act(gate), product
    return Fraction(replicated + qk + softmax + v + out + mlp)


def test_set_errors_name_the_file_problem_and_key(cli, tmp_path):
    path = tmp_path / "set.toml"
    path.write_text(SET.replace("ZERO", "4"))
    r = cli(
        [
            "check",
            "--problem-set",
            str(path),
            "--problem",
            "t8b",
            "--quantity",
            "t_lower",
            "--claim",
            "1",
        ]
    )
    assert r.code == 2 and r.err.count("\n") == 1
    assert "problem 't8b': train key 'zero'" in r.err
    path.write_text(SET.replace("ZERO", "1").replace("seq = 4096", "seq = 4096, warp = 2"))
    r = cli(
        [
            "check",
            "--problem-set",
            str(path),
            "--problem",
            "t8b",
            "--quantity",
            "t_lower",
            "--claim",
            "1",
        ]
    )
    assert r.code == 2 and "train key 'warp'" in r.err


def test_builtin_training_problems_meet_their_expectations():
    from conftest import ROOT

    from derive.checking.training_claims import training_analysis_for, training_values
    from derive.problem.sets.problem_set import load_problem_set

    builtin = load_problem_set(ROOT / "derive" / "data" / "problems" / "rooflines.toml")
    entries = [e for e in builtin.models if e.train is not None]
    assert len(entries) >= 3
    by_id = {e.id: e for e in entries}
    # independently: 7/8 · 9.89e14 / 5e10 · 4P/(4P + 2A) and (pp − 1)/(M + pp − 1) with
    # M = 4194304/(2·4096)
    assert Fraction(
        dict(by_id["train-8b-network"].expect)["critical_tokens_per_device"]
    ) == _dp_balance(NETWORK)
    assert Fraction(dict(by_id["train-70b-pipeline"].expect)["bubble_fraction"]) == Fraction(
        3, 512 + 3
    )
    for entry in entries:
        values = training_values(training_analysis_for(entry))
        for key, text in entry.expect:
            assert _fr(values[key]) == Fraction(text), (entry.id, key)


# --- golden files: the rendered output, reviewed in git ---------------------------------

GOLDEN_TRAIN = {
    "train-8b-zero1.md": BASE + ["--dp", "8", "--zero", "1", "--measured-step-time", "40s"],
    "train-70b-pipeline.json": [
        "train", "llama-3-70b", "--chip", "h100", "--dp", "2", "--tp", "8", "--pp", "4",
        "--zero", "1", "--recompute", "selective", "--batch-tokens", "4194304", "--seq", "4096",
        "--format", "json",
    ],
    "train-8b-strategies.tex": BASE + ["--dp", "8", "--compare-strategies", "--format", "tex"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GOLDEN_TRAIN))
def test_train_golden(name: str, update_golden: bool, cli):
    from conftest import ROOT

    r = cli(GOLDEN_TRAIN[name])
    assert r.code == 0, r
    path = ROOT / "tests" / "golden" / name
    if update_golden:
        path.write_text(r.out, encoding="utf-8")
    assert path.exists(), "run pytest --update-golden and review the diff"
    assert r.out == path.read_text(encoding="utf-8"), (
        f"{name} differs from tests/golden: review, then pytest --update-golden"
    )


_TEXT = st.one_of(
    st.sampled_from(["0", "1", "2", "3", "4", "8", "-1", "1.5", "1e3", "", " ", "x", "9" * 30]),
    st.text(max_size=6),
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    flag=st.sampled_from(
        [
            "--dp", "--tp", "--pp", "--ep", "--zero", "--recompute", "--batch-tokens", "--seq",
            "--micro-batch-size", "--microbatches", "--link-bandwidth", "--measured-step-time",
            "--state-bytes", "--capacity",
        ]
    ),
    value=_TEXT,
)  # fmt: skip
def test_any_flag_value_is_answered_or_refused_in_one_line(flag, value):
    from conftest import run_cli

    r = run_cli([*BASE, "--dp", "8", flag, value, "--format", "json"])
    assert r.code in (0, 2), r
    if r.code == 2:
        assert r.err.startswith("error: ") and r.err.count("\n") == 1, r
    assert "Traceback" not in r.err


def test_t_lower_at_the_run_s_own_batch_is_its_t_lower():
    from derive.training.analysis import t_lower_at

    for zero in (1, 3):
        a = _run(dp=8, zero=zero, recompute="none", link_bandwidth="5e10", batch_tokens=8 * 8192)
        assert t_lower_at(a, a.tokens_per_device) == a.t_lower


PLOT_SET = """title = "plot"
[[problem]]
id = "net"
title = "over a network"
model = "llama-3-8b"
chip = "h100"
train = { dp = 8, zero = 3, keep_gathered_weights = true, recompute = "none", batch_tokens = 65536, seq = 4096, link_bandwidth = "5e10" }
train_plot = { from = 1024, to = 1048576 }
ask = ["critical_tokens_per_device", "t_lower"]
"""


def test_the_key_draws_t_lower_for_dp_and_fsdp_with_the_critical_batches(cli, tmp_path):
    (tmp_path / "set.toml").write_text(PLOT_SET)
    r = cli(["key", str(tmp_path / "set.toml"), "-o", str(tmp_path / "out"), "--quiet"])
    assert r.code == 0, r
    svg = (tmp_path / "out" / "set-net-training.svg").read_text()
    assert "DP (ZeRO ≤ 2)" in svg and "FSDP (ZeRO-3)" in svg
    # both marks at 7/8 · 9.89e14 / 5e10 · 4P/(4P + 2A) tokens per DP rank
    assert svg.count(f"b* ≈ {float(_dp_balance(NETWORK)) / 1e4:.3f}e4") == 2
    tex = (tmp_path / "out" / "set.tex").read_text()
    assert "DP (ZeRO" in tex and "tikzpicture" in tex
    md = (tmp_path / "out" / "set.md").read_text()
    assert "set-net-training.svg" in md and "Critical batch" in md


def test_a_training_problem_is_its_own_kind():
    from derive.catalogue import ProblemKind
    from derive.pipeline.kinds import kind_of

    entry = _entry()
    assert entry.kind is ProblemKind.TRAINING
    kind = kind_of(entry)
    assert kind.asks(entry) == ("memory_per_device", "critical_tokens_per_device")
    derived = kind.derive(entry)
    assert "Critical batch" in derived.markdown()
    assert Fraction(derived.as_json()["memory_per_device"]["weights"]) == 2 * P_8B


# --- models as derive model takes them: a config.json, a size alone ----------------------


def test_a_config_json_trains_like_the_built_in_model(cli):
    from conftest import ROOT

    config = str(ROOT / "tests" / "data" / "configs" / "llama-3-8b" / "config.json")
    run = [
        "--chip",
        "h100",
        "--dp",
        "8",
        "--zero",
        "1",
        "--batch-tokens",
        "4194304",
        "--seq",
        "4096",
    ]
    from_config = cli(["train", config, *run, "--format", "json"])
    assert from_config.code == 0, from_config
    report = json.loads(from_config.out)
    assert Fraction(report["memory_per_device"]["weights"]) == 2 * P_8B  # counted by hand above
    assert Fraction(report["critical_tokens_per_device"]) == _dp_balance(NVLINK, forward=6)


def test_a_model_known_by_its_size_trains_with_dp_and_zero_only(cli):
    run = [
        "--chip",
        "h100",
        "--dp",
        "64",
        "--zero",
        "3",
        "--batch-tokens",
        "4194304",
        "--seq",
        "4096",
    ]
    r = cli(["train", "--params", "70e9", *run, "--format", "json"])
    assert r.code == 0, r
    report = json.loads(r.out)
    p = 70 * 10**9
    assert Fraction(report["memory_per_device"]["total"]) == Fraction(16 * p, 64)
    assert report["memory_per_device"]["activations"] is None  # no width, no layers
    m = 4194304 // (64 * 4096)  # ZeRO-3 gathers twice and reduce-scatters per micro-batch
    assert Fraction(report["comms_bytes_per_device"]["dp"]) == 3 * m * Fraction(63, 64) * 2 * p
    refused = cli(["train", "--params", "70e9", *run, "--tp", "2"])
    assert refused.code == 2 and refused.err.startswith("error: --tp 2: ")
    selective = cli(["train", "--params", "70e9", *run, "--recompute", "selective"])
    assert selective.code == 2 and selective.err.startswith("error: --recompute selective: ")


def test_a_moe_config_with_dense_first_layers_and_shared_experts_trains():
    """DeepSeek-V3 from its shipped config: the routed experts (58 MoE layers of 256 experts of
    3·d·f, by hand) are split over tp·ep; every other block weight over tp."""
    a = solve_training(
        "configs/deepseek-v3.json", chip="h100", dp=64, ep=64, tp=8, zero=1,
        batch_tokens=16777216, seq=4096,
    ).analysis  # fmt: skip
    routed = (61 - 3) * 256 * 3 * 7168 * 2048
    assert _fr(a.params.experts) * 8 * 64 == routed
    assert a.fits is not None and _fr(a.memory.total) > 0


def test_no_dp_fits_names_the_batch_when_the_batch_is_the_cause(cli):
    """Issue 46: "what it does not shard already exceeds C" was said where the unsharded part
    fits and only the batch's micro-batches do not split over the dp the memory needs."""
    capacity, layout = 40 * 10**9, ["--zero", "1", "--seq", "4096", "--capacity", "40e9"]
    unsharded = 4 * P_8B + 32 * 2 * 4096 * D  # ZeRO-1: bf16 weights and gradients; full recompute
    need = math.ceil(Fraction(12 * P_8B, capacity - unsharded))  # the optimizer over dp
    assert unsharded < capacity and need > 8
    r = cli(["train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--batch-tokens", "32768",
             *layout])  # fmt: skip
    assert r.code == 0, r.err
    assert "already exceeds C" not in r.out
    assert f"the memory needs dp ≥ {need}, and no dp from {need} up divides the step's 8" in r.out
    at = next(dp for dp in (16, 32, 64) if dp >= need)  # a batch that splits over it runs
    fits = cli(["train", "llama-3-8b", "--chip", "h100", "--dp", str(at), "--batch-tokens",
                str(at * 4096), *layout, "--format", "json"])  # fmt: skip
    assert json.loads(fits.out)["smallest_dp"] == at and json.loads(fits.out)["fits"] is True
    whole = cli(["train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--batch-tokens", "32768",
                 "--zero", "0", "--seq", "4096", "--capacity", "100e9"])  # fmt: skip
    assert "what it does not shard already exceeds C" in whole.out  # 16·P = 128 GB > 100 GB
