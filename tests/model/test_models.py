"""Whole models (``derive model``): counts against naive computations done here, from the
architecture numbers of each model; properties of the expansion and of the limits; hostile input
(a count positive for every value of its dims); a set's model problems refused by file, problem
and key, every error at once.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import sympy as sp
from conftest import refused_in_one_line, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive import Transformer, dims
from derive.errors import DeclarationError
from derive.model.analysis import analyse_model
from derive.model.binding import ModelSpec, bind_model
from derive.model.expand import Role, expand
from derive.model.registry import load_models
from derive.model.symbols import context, sym

MODELS = load_models()
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def analysis(model: Transformer | str, **spec):
    m = MODELS.get(model) if isinstance(model, str) else model
    return analyse_model(bind_model(ModelSpec(m.name, **spec), m))


# --- independently computed values ---------------------------------------------------------


def test_gpt2_small_parameters():
    """GPT-2 small, counted by hand: biases, two layernorms per block, learned positions, tied head."""
    L, d, V, n_pos, f = 12, 768, 50257, 1024, 4 * 768
    attention = 3 * (d * d + d) + (d * d + d)  # q, k, v and o, each with a bias
    mlp = (d * f + f) + (f * d + d)
    norms = 2 * (d + d)
    want = L * (attention + mlp + norms) + V * d + n_pos * d + (d + d)
    a = analysis("gpt2-small")
    assert a.value("params") == want == a.value("params_active")
    assert a.value("params_embedding") == V * d + n_pos * d


def test_gated_gqa_parameters_and_kv_per_token():
    """Llama 3 8B: gated MLP, 32 query and 8 KV heads of 128, RMS norms, untied head."""
    L, d, h, kv, dh, f, V = 32, 4096, 32, 8, 128, 14336, 128256
    per_block = d * h * dh + 2 * d * kv * dh + h * dh * d + 3 * d * f + 2 * d
    want = L * per_block + V * d + d * V + d
    a = analysis("llama-3-8b", dtypes=("kv=fp8",))
    assert a.value("params") == want
    assert a.value("kv_bytes_per_token") == 2 * L * kv * dh * 1
    assert analysis("llama-3-8b").value("kv_bytes_per_token") == 2 * L * kv * dh * 2


def test_moe_total_and_active_parameters():
    """Mixtral 8x7B: 8 experts of a gated MLP, 2 active, a d·E router per layer."""
    L, d, h, kv, dh, f, V, E, k = 32, 4096, 32, 8, 128, 14336, 32000, 8, 2
    shared = d * h * dh + 2 * d * kv * dh + h * dh * d + 2 * d + d * E
    total = L * (shared + E * 3 * d * f) + 2 * V * d + d
    active = L * (shared + k * 3 * d * f) + 2 * V * d + d
    a = analysis("mixtral-8x7b")
    assert (a.value("params"), a.value("params_active")) == (total, active)


def test_fit_and_max_batch_on_a_16_chip_tpu_slice():
    """Llama 3 70B in bf16 on 16 TPU v5e (16 GB each) at 8k context."""
    L, d, h, kv, dh, f, V = 80, 8192, 64, 8, 128, 28672, 128256
    params = L * (2 * d * h * dh + 2 * d * kv * dh + 3 * d * f + 2 * d) + 2 * V * d + d
    weights, kv_token, room, S = 2 * params, 2 * L * kv * dh * 2, 16 * 16 * 10**9, 8192
    # 16 devices, 8 KV heads: as the step lays it out, each device holds one KV head's cache
    # (1/8 of it, replicated twice) and 1/16 of the weights (issue 46: fits on that layout)
    per_device = sp.Rational(weights, 16) + sp.Rational(kv_token * 32 * S, 8)
    want_batch = (room - weights) * 8 // (kv_token * S * 16)
    a = analysis("llama-3-70b", chip="tpu-v5e", devices="16", sets=("B=32", "S=8192"))
    assert a.value("max_batch") == want_batch
    assert a.value("memory_per_device") == per_device
    assert bool(a.value("fits")) == (per_device <= 16 * 10**9)
    assert a.value("min_devices") == math.ceil((weights + kv_token * 32 * S) / (16 * 10**9))
    assert a.value("headroom_per_device") == 16 * 10**9 - per_device


def test_training_time_at_an_mfu():
    """Llama 3 70B on 15T tokens, 6·N·D FLOPs, on 2048 H100s at 40% MFU."""
    L, d, h, kv, dh, f, V = 80, 8192, 64, 8, 128, 28672, 128256
    params = L * (2 * d * h * dh + 2 * d * kv * dh + 3 * d * f + 2 * d) + 2 * V * d + d
    tokens = 15 * 10**12
    seconds = sp.Rational(6 * params * tokens) / (
        2048 * sp.Rational(989 * 10**12) * sp.Rational(2, 5)
    )
    a = analysis("llama-3-70b", chip="h100", devices="2048", train_tokens="15e12", mfu="0.4")
    assert a.value("train_flops") == 6 * params * tokens
    assert a.value("train_seconds") == seconds
    assert a.value("train_days") == seconds / 86400


def test_implied_mfu_above_one_is_loud():
    """A measured rate no chip could reach: the implied MFU exceeds 1 and the output says so."""
    d = 768
    params = (
        12 * (4 * (d * d + d) + 2 * d * 4 * d + 4 * d + d + 4 * d) + 50257 * d + 1024 * d + 2 * d
    )
    rate = 10**6
    a = analysis("gpt2-small", chip="a100", measured_tokens_per_s=str(rate))
    assert a.value("mfu") == sp.Rational(6 * params * rate, 312 * 10**12)
    assert a.value("mfu") > 1 and a.warnings and "IMPOSSIBLE" in a.warnings[0]
    r = run_cli(["model", "gpt2-small", "--chip", "a100", "--measured-tokens-per-s", "1e6"])
    assert r.code == 0 and "IMPOSSIBLE" in r.out


def test_flops_per_token_parts_and_the_2n_shortcut():
    """GPT-2 small at S = 1024: matmuls 2·(P − lookup − norms + tied head), attention 4·L·h·d_h·S."""
    L, d, V, n_pos, S = 12, 768, 50257, 1024, 1024
    a = analysis("gpt2-small", sets=(f"S={S}",))
    params = a.value("params")
    norms = L * 2 * 2 * d + 2 * d  # two layernorms (γ, β) per block and the final one
    assert a.value("flops_matmuls") == 2 * (params - V * d - n_pos * d - norms + d * V)
    assert a.value("flops_attention") == 4 * L * 12 * 64 * S
    assert a.value("flops_per_token") == a.value("flops_matmuls") + a.value("flops_attention")
    assert a.value("flops_2n") == 2 * params


def test_llama_3_8b_flops_per_token_by_hand():
    """Llama-3-8B at S = 8192: 2 per matmul weight (q, k, v, o, gate, up, down, head), no norms."""
    L, d, h, kv, dh, f, V, S = 32, 4096, 32, 8, 128, 14336, 128256, 8192
    attn = d * h * dh + 2 * d * kv * dh + h * dh * d
    mlp = 3 * d * f
    matmuls = 2 * (L * (attn + mlp) + d * V)
    attention = 4 * L * h * dh * S
    a = analysis("llama-3-8b", sets=(f"S={S}",))
    assert a.value("flops_matmuls") == matmuls
    assert a.value("flops_per_token") == matmuls + attention
    norms = L * 2 * d + d  # 65 RMS scales: not matmul weights
    assert 2 * norms == 532480
    assert a.value("flops_2n") - a.value("flops_matmuls") == 2 * (norms + V * d)


# --- properties over random architectures ---------------------------------------------------


@st.composite
def transformers(draw):
    kv = draw(st.integers(1, 4))
    experts = draw(st.one_of(st.none(), st.integers(1, 8)))
    layers = draw(st.integers(1, 6))
    moe = {}
    if experts is not None:
        dense = draw(st.one_of(st.none(), st.integers(0, layers)))
        shared = draw(st.one_of(st.none(), st.integers(1, 2)))
        moe = dict(
            shared_experts=shared,
            dense_layers=None if dense == 0 else dense,
            d_ff_dense=None if not dense else draw(st.one_of(st.none(), st.integers(1, 64))),
            router_bias=draw(st.booleans()),
            # Qwen2-MoE's shared expert: its own width and a d → 1 gate (issue 34)
            d_ff_shared=None if shared is None else draw(st.one_of(st.none(), st.integers(1, 64))),
            shared_gate=shared is not None and draw(st.booleans()),
        )
    window = draw(st.one_of(st.none(), st.integers(1, 16)))
    mla = {}
    if draw(st.booleans()):
        mla = dict(
            q_lora_rank=draw(st.one_of(st.none(), st.integers(1, 16))),
            kv_lora_rank=draw(st.integers(1, 16)),
            qk_rope_head_dim=draw(st.integers(1, 8)),
            qk_nope_head_dim=draw(st.integers(1, 8)),
            v_head_dim=draw(st.integers(1, 8)),
        )
    qk_norm = draw(st.booleans()) and not mla
    return Transformer(
        name="random",
        layers=layers,
        d_model=draw(st.integers(1, 64)),
        heads=kv * draw(st.integers(1, 4)),
        kv_heads=kv,
        head_dim=None if mla else draw(st.integers(1, 32)),
        d_ff=draw(st.integers(1, 128)),
        mlp=draw(st.sampled_from(["gated", "plain"])),
        vocab=draw(st.integers(1, 500)),
        tied_embeddings=draw(st.booleans()),
        positions=draw(st.one_of(st.none(), st.integers(1, 64))),
        bias=draw(st.booleans()),
        norm=draw(st.sampled_from(["rms", "layernorm", None])),
        experts=experts,
        top_k=None if experts is None else draw(st.integers(1, experts)),
        qkv_bias=draw(st.booleans()),
        attention_bias=draw(st.booleans()),
        mlp_bias=draw(st.booleans()),
        qk_norm=qk_norm,
        qk_norm_full=qk_norm and draw(st.booleans()),  # OLMo 2's norms over every head
        norms_per_block=draw(st.sampled_from([2, 4])),
        window=window,
        windowed_layers=None if window is None else draw(st.integers(1, layers)),
        **moe,
        **mla,
    )


@SETTINGS
@given(transformers(), st.integers(1, 24))
def test_counts_equal_naive_sums_over_the_expanded_tensors(m, s):
    a = analysis(m, sets=(f"S={s}",))
    ex = expand(m)
    weights = ex.weights()
    assert a.value("params") == sum(t.elements * copies for t, copies in weights)
    assert a.value("params_active") == sum(t.active * copies for t, copies in weights)
    kv = sum(t.elements * copies for t, copies in ex.tensors(Role.KV_CACHE))
    assert sp.expand(a.value("kv_bytes") - 2 * kv.subs({context: s})) == 0  # bf16: 2 bytes
    (T,) = dims("T")
    flops = sum(k.flops * k.copies(m) for k in ex.kernels)
    assert a.value("flops_per_token") == sp.expand(flops.subs({T: 1, context: s}))


@SETTINGS
@given(
    transformers(),
    st.integers(1, 10**6),
    st.integers(1, 64),
    st.integers(1, 8),
    st.integers(1, 4096),
)
def test_max_batch_is_maximal_and_min_devices_minimal(m, capacity, devices, b, s):
    a = analysis(m, capacity=str(capacity), devices=str(devices), sets=(f"B={b}", f"S={s}"))
    weights, per_token = a.value("weights_bytes"), a.value("kv_bytes_per_token")

    def fits(batch_size: int, n: int, seq: int = s, as_served: bool = True) -> bool:
        """Weights over n devices; the cache over n too, or as the serving step holds it:
        one KV head per device beyond the KV heads, latent attention's latent on every one."""
        if m.window is None:
            cached = per_token * batch_size * seq
        else:
            full, windowed = m.layers - m.windowed_layers, m.windowed_layers
            cached = per_token / m.layers * (full * seq + windowed * min(seq, m.window))
            cached *= batch_size
        ways = (1 if m.is_mla else min(n, m.kv_heads)) if as_served else n
        return weights * ways + cached * n <= capacity * n * ways

    best = a.value("max_batch")
    if fits(0, devices):
        assert fits(best, devices) and not fits(best + 1, devices)
    else:
        assert best == 0 and a.verdicts
    longest = a.value("max_context")
    if longest is None:  # every layer windowed and the window fits: any context does
        assert m.windowed_layers == m.layers and fits(b, devices, 10**12)
    else:
        assert longest == 0 or fits(b, devices, longest)
        assert not fits(b, devices, longest + 1)
    n = a.value("min_devices")  # the cache spread evenly: the fewest devices it could take
    assert fits(b, n, as_served=False) and (n == 1 or not fits(b, n - 1, as_served=False))
    assert bool(a.value("fits")) == fits(b, devices)


def test_a_dim_stays_symbolic_until_bound():
    L = dims("L")[0]
    m = Transformer(name="deep", layers=L, d_model=64, heads=4, d_ff=256, vocab=1000)
    a = analysis(m)
    per_layer = 4 * 64 * 64 + 3 * 64 * 256 + 2 * 64
    assert sp.expand(a.value("params") - (L * per_layer + 2 * 1000 * 64 + 64)) == 0
    assert analysis(m, sets=("L=3",)).value("params") == 3 * per_layer + 2 * 1000 * 64 + 64


# --- declarations, the command and hostile input --------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field", "why"),
    [
        ({"layers": -2}, "layers", "positive integer"),
        ({"heads": 8, "kv_heads": 3}, "kv_heads", "multiple"),
        ({"experts": 4, "top_k": 5}, "top_k", "exceeds"),
        ({"experts": 4}, "top_k", "together"),
        ({"mlp": "swish"}, "mlp", "'gated' or 'plain'"),
        ({"norm": "batch"}, "norm", "'rms', 'layernorm' or None"),
        ({"d_ff": 1.5}, "d_ff", "float"),
        ({"vocab": dims("S")[0]}, "vocab", "reserved"),
        ({"bias": 1}, "bias", "True or False"),
        ({"layers": dims("L")[0] / 2}, "layers", "integer for every value"),  # issue 37
        ({"layers": dims("L")[0] ** -1}, "layers", "integer for every value"),
    ],
)
def test_invalid_declarations_name_model_and_field(fields, field, why):
    base = dict(name="bad", layers=2, d_model=64, heads=4, d_ff=128, vocab=100)
    with pytest.raises(DeclarationError) as err:
        Transformer(**{**base, **fields})
    assert err.value.what == f"model 'bad' {field}" and why in err.value.why


def _one_line_exit_2(argv, needle):
    r = run_cli(argv)
    assert r.code == 2 and r.out == "", r
    assert r.err.count("\n") == 1 and r.err.startswith("error: ") and needle in r.err, r.err


def test_a_model_file_with_negative_layers_is_one_line(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(
        "from derive import Transformer\n"
        "m = Transformer(name='mine', layers=-1, d_model=8, heads=2, d_ff=8, vocab=10)\n"
    )
    _one_line_exit_2(["model", "mine", "--operators", str(path)], "model 'mine' layers")


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--dtype", "kv=fp7"], "--dtype kv=fp7: unknown dtype"),
        (["--dtype", "optimizer=bf16"], "unknown role"),
        (["--peak", "1e14", "--capacity", "0"], "--capacity '0': must be a positive number"),
        (["--chip", "h100", "--devices", "0"], "--devices 0"),
        (["--chip", "h100", "--mfu", "1.5", "--train-tokens", "1e12"], "(0, 1]"),
        (["--chip", "h100", "--set", "S=-4"], "--set S"),
        (["--chip", "h100", "--set", "Q=3"], "no dim 'Q'"),
        (["--capacity", "80e9", "--mfu", "0.4"], "needs a peak"),
        (["--chip", "h100", "--train-tokens", "1e3x"], "--train-tokens"),
        (["--chip", "h100", "--state-bytes", "adamw"], "recipe"),
        (["--chip", "v100", "--mfu", "0.4", "--train-tokens", "1e9"], "--dtype activations="),
    ],
)
def test_hostile_flags_are_one_line_exit_2(flags, needle):
    _one_line_exit_2(["model", "llama-3-8b", *flags], needle)


def test_unknown_model_lists_the_known_ones():
    _one_line_exit_2(["model", "gpt5"], "known: gpt2-small")


def test_a_model_that_does_not_fit_gets_a_clear_verdict():
    r = run_cli(["model", "llama-3-70b", "--chip", "h100", "--set", "S=8192", "--set", "B=1"])
    assert r.code == 0 and "**Does not fit: the weights alone" in r.out
    data = json.loads(
        run_cli(
            ["model", "llama-3-70b", "--chip", "h100", "--set", "S=8192", "--format", "json"]
        ).out
    )
    assert data["max_batch"]["value"] == 0 and data["verdicts"][0].startswith("Does not fit")


def test_json_has_every_contract_key_with_exact_strings():
    r = run_cli(
        [
            "model",
            "mixtral-8x7b",
            "--chip",
            "h100",
            "--devices",
            "8",
            "--set",
            "B=16",
            "--set",
            "S=4096",
            "--train-tokens",
            "1e12",
            "--mfu",
            "0.5",
            "--state-bytes",
            "16",
            "--format",
            "json",
        ]
    )
    data = json.loads(r.out)
    keys = (
        "params params_active params_embedding weights_bytes kv_bytes_per_token kv_bytes "
        "flops_per_token memory_total memory_per_device fits headroom_per_device max_batch "
        "min_devices max_context train_state_bytes train_flops train_seconds train_days mfu"
    )
    for key in keys.split():
        assert key in data
    assert data["mfu"] is None and data["fits"]["exact"] is True
    assert set(data["flops_per_token"]["parts"]) == {"matmuls", "attention"}
    assert sp.Integer(data["params"]["exact"]) == analysis("mixtral-8x7b").value("params")
    assert data["train_state_bytes"]["exact"] == str(16 * sp.Integer(data["params"]["exact"]) / 8)


def test_markdown_lines_read_symbolic_numbers_result():
    out = run_cli(["model", "gpt2-small", "--chip", "a100", "--set", "B=8", "--set", "S=1024"]).out
    kv = next(line for line in out.splitlines() if line.startswith("$$m_{"))
    assert (
        kv
        == r"$$m_{\mathrm{kv}} = 2 d_{h} h_{\mathrm{kv}} L w_{\mathrm{kv}} = 2 \cdot 64 \cdot 12 \cdot 12 \cdot 2 = 36864$$"
    )
    assert "GB = 10⁹ B and GiB = 2³⁰ B" in out and r"\text{GiB}" in out
    assert "2N" in out


def test_capacity_overrides_the_chip():
    a = analysis("gpt2-small", chip="h100", capacity="40e9")
    assert a.problem.capacity.value == 40 * 10**9
    assert analysis("gpt2-small", chip="h100").problem.capacity.value == 80 * 10**9


def test_state_recipe_adam_mixed_is_16_bytes():
    a = analysis("gpt2-small", devices="4", state_bytes="adam-mixed")
    assert a.value("train_state_bytes") == 16 * a.value("params") / 4


def test_builtin_models_have_sources():
    for m in MODELS.models:
        assert m.doc and any(ch.isdigit() for ch in m.doc)
    assert {"gpt2-small", "llama-3-8b", "llama-3-70b", "mixtral-8x7b"} <= set(MODELS.names())


def test_shown_values_of_a_symbol_never_use_reserved_names():
    assert sym("layers") != dims("L")[0]  # the notation's L is not a user's dim L


# --- a model's count is positive for every value of its dims ------------------------------


@pytest.mark.parametrize("layers", ["-L", "L - 1", "0"])
def test_a_model_count_is_positive_for_every_dim(layers):
    import sympy as sp

    from derive import dims
    from derive.model.transformer import Transformer

    (L,) = dims("L")
    value = sp.sympify(layers, locals={"L": L}) if layers != "0" else 0  # test-written text
    with pytest.raises(DeclarationError, match="layers"):
        Transformer(name="x", layers=value, d_model=64, heads=4, d_ff=128, vocab=100)


# --- problem sets: model = "NAME" problems ----------------------------------------------------

MODEL_SET = """
title = "Models"

[[problem]]
id = "fit"
title = "70B on 16 v5e"
model = "llama-3-70b"
chip = "tpu-v5e"
devices = 16
set = { B = 32, S = 8192 }
ask = ["max_batch"]
"""


def test_a_problem_set_with_a_model_problem_writes_its_worked_solution():
    from derive.pipeline.key import build_key
    from derive.problem.sets.problem_set import parse_problem_set

    pset = parse_problem_set(MODEL_SET, "models.toml")
    assert not pset.problems and [m.id for m in pset.models] == ["fit"]
    files = build_key(pset, "models")
    want = analysis("llama-3-70b", chip="tpu-v5e", devices="16", sets=("B=32", "S=8192"))
    assert f"$B_{{\\max}}$ = {want.value('max_batch')}" in files["models.md"]
    assert "Training" not in files["models.md"]  # only the steps max_batch needs
    assert "the largest batch that fits" in files["models-questions.md"]
    assert "\\subsection{Problem 1 (fit)" in files["models-appendix.tex"]


def test_a_key_says_what_was_not_derived_without_cli_flags():
    """Issue 16: a key from a TOML set says why in the problem's terms, not ``--set B=…``."""
    from derive.pipeline.key import build_key
    from derive.problem.sets.problem_set import parse_problem_set

    text = MODEL_SET.replace(
        'set = { B = 32, S = 8192 }\nask = ["max_batch"]', "set = { S = 8192 }"
    )
    files = build_key(parse_problem_set(text, "models.toml"), "models")
    for name in ("models.md", "models.tex", "models-appendix.tex"):
        assert "needs a batch B" in files[name]
        assert "--set" not in files[name] and "-{}-set" not in files[name]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ('ask = ["ridge"]', "unknown quantity 'ridge'"),
        ('flops = "2"', "key 'flops': unknown key"),
    ],
)
def test_model_problem_keys_are_checked(extra, needle):
    from derive.errors import ProblemError
    from derive.problem.sets.problem_set import parse_problem_set

    text = 'title = "t"\n[[problem]]\nid = "a"\ntitle = "a"\nmodel = "gpt2-small"\n' + extra
    with pytest.raises(ProblemError) as err:
        parse_problem_set(text, "s.toml")
    assert needle in str(err.value)


def test_asking_what_cannot_be_derived_is_one_error(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        'title = "t"\n[[problem]]\nid = "a"\ntitle = "a"\nmodel = "gpt2-small"\nask = ["fits"]\n'
    )
    _one_line_exit_2(["key", str(path), "-o", str(tmp_path / "out")], "key 'ask' ('fits')")
    assert not (tmp_path / "out").exists()


def test_the_builtin_key_has_a_models_chapter():
    from conftest import ROOT

    from derive.commands.key import BUILTIN_SET
    from derive.problem.sets.problem_set import parse_problem_set

    pset = parse_problem_set((ROOT / "derive" / BUILTIN_SET).read_text(), "rooflines.toml")
    assert {"gpt2-small", "llama-3-70b", "mixtral-8x7b"} <= {m.spec.model for m in pset.models}


# --- a set's model-problem errors name file, problem and key (not a flag), all at once -----

MODEL = 'model = "llama-3-8b"\nchip = "h100"\n'


@pytest.fixture
def model_set(tmp_path: Path) -> Path:
    problems = [
        ('id = "fine"', 'ask = ["params"]'),
        ('id = "m-mfu"', 'mfu = "1.5"\ntrain_tokens = "1e12"\nask = ["train_days"]'),
        ('id = "m-set"', 'set = { B = 0 }\nask = ["kv_bytes"]'),
    ]
    text = 'title = "t"\n' + "".join(
        f"[[problem]]\n{head}\n{MODEL}{tail}\n" for head, tail in problems
    )
    path = tmp_path / "models.toml"
    path.write_text(text)
    return path


def test_key_names_every_bad_model_problem_by_file_problem_and_key(model_set: Path, tmp_path):
    r = run_cli(["key", str(model_set), "-o", str(tmp_path / "out")])
    assert r.code == 2 and r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 2, r.err
    assert lines[0].startswith(f"error: {model_set}: problem 'm-mfu': key 'mfu' (1.5): ")
    assert lines[1].startswith(f"error: {model_set}: problem 'm-set': key 'set' (B=0): ")
    assert "--" not in r.err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("problem", "quantity", "key"), [("m-mfu", "train_days", "mfu"), ("m-set", "kv_bytes", "set")]
)
def test_check_names_the_set_key_not_a_flag(model_set: Path, problem, quantity, key):
    argv = ["check", "--problem-set", str(model_set), "--problem", problem]
    line = refused_in_one_line(run_cli(argv + ["--quantity", quantity, "--claim", "3"]))
    assert f"problem {problem!r}: key {key!r}" in line and str(model_set) in line
    assert "--" not in line


# --- judging claims: derive model … --quantity Q --claim TEXT ------------------------------------


def test_a_right_claim_exits_0_and_a_wrong_one_1_with_a_hint():
    L, d, h, kv, dh, f, V = 80, 8192, 64, 8, 128, 28672, 128256
    params = L * (2 * d * h * dh + 2 * d * kv * dh + 3 * d * f + 2 * d) + 2 * V * d + d
    right = run_cli(["model", "llama-3-70b", "--quantity", "params", "--claim", str(params)])
    assert right.code == 0 and right.out.startswith("verdict: correct\n")
    assert "the claim equals" in right.out
    near = run_cli(["model", "llama-3-70b", "--quantity", "params", "--claim", "70.6e9"])
    assert near.code == 0 and "right to 1%: the exact total number of parameters is" in near.out
    gib = sp.Rational(2 * params, 2**30)  # the weights in GiB, typed as if GB
    wrong = run_cli(
        ["model", "llama-3-70b", "--quantity", "weights_bytes", "--claim", f"{float(gib):.6g}e9"]
    )
    assert wrong.code == 1 and "GiB" in wrong.out


def test_a_symbolic_claim_in_the_free_dims():
    r = run_cli(["model", "llama-3-8b", "--quantity", "kv_bytes", "--claim", "131072*B*S"])
    assert r.code == 0, r


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--claim", "3"], "--quantity"),
        (["--quantity", "ridge", "--claim", "3"], "unknown quantity"),
        (["--quantity", "fits", "--claim", "yes"], "not derived"),
        (["--quantity", "params", "--claim", "__import__('os')"], "claim"),
        (["--quantity", "params", "--claim", "1", "--rtol", "2"], "--rtol"),
    ],
)
def test_claim_refusals_are_one_line(flags, needle):
    _one_line_exit_2(["model", "gpt2-small", *flags], needle)


def test_chips_carry_their_hbm_capacity_exactly():
    from derive.problem.chips import load_chips

    want = {"tpu-v5e": 16, "tpu-v5p": 95, "tpu-v6e": 32, "v100": 32, "a100": 80, "h100": 80,
            "h200": 141, "b200": 192}  # fmt: skip
    chips = load_chips()
    for name, gb in want.items():
        cap = chips[name].capacity
        assert cap is not None and cap.value == gb * 10**9 and cap.source and cap.edition
    listing = json.loads(run_cli(["chips", "--format", "json"]).out)
    assert listing["h200"]["hbm_capacity_bytes"] == str(141 * 10**9)
    assert "| 80e9 |" in run_cli(["chips", "--format", "md"]).out
    assert " 80e9 " in run_cli(["chips"]).out


def test_int4_weights_are_half_a_byte():
    a = analysis("llama-3-8b", dtypes=("weights=int4",))
    assert a.value("weights_bytes") == a.value("params") / 2
    assert a.value("kv_bytes_per_token") == 2 * 32 * 8 * 128 * 2  # kv stays bf16


GOLDEN_MODEL = {
    "model-mixtral.md": ["model", "mixtral-8x7b", "--chip", "h100", "--devices", "8", "--set",
                         "B=16", "--set", "S=4096", "--train-tokens", "1e12", "--mfu", "0.5",
                         "--state-bytes", "adam-mixed", "--measured-tokens-per-s", "3000"],
    "model-gpt2.json": ["model", "gpt2-small", "--chip", "a100", "--set", "B=8", "--set", "S=1024",
                        "--format", "json"],
    "model-70b-v100.tex": ["model", "llama-3-70b", "--chip", "v100", "--set", "S=4096",
                           "--format", "tex"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GOLDEN_MODEL))
def test_model_golden(name: str, update_golden: bool):
    from conftest import ROOT

    r = run_cli(GOLDEN_MODEL[name])
    assert r.code == 0, r
    path = ROOT / "tests" / "golden" / name
    if update_golden:
        path.write_text(r.out, encoding="utf-8")
    assert path.exists(), "run pytest --update-golden and review the diff"
    assert r.out == path.read_text(encoding="utf-8"), (
        f"{name} differs from tests/golden: review, then pytest --update-golden"
    )


def test_solve_model_from_python_and_notebooks():
    import derive

    d = derive.solve_model("llama-3-70b", chip="tpu-v5e", devices=16, set={"B": 32, "S": 8192})
    want = analysis("llama-3-70b", chip="tpu-v5e", devices="16", sets=("B=32", "S=8192"))
    assert d.analysis.value("max_batch") == want.value("max_batch")
    assert d._repr_markdown_().startswith("## Model llama-3-70b") and "\\subsection" in d.latex()
    assert d.as_json()["max_batch"]["exact"] == str(want.value("max_batch"))


def test_a_context_beyond_the_learned_positions_is_flagged():
    assert analysis("gpt2-small", sets=("S=2048",)).warnings
    assert not analysis("gpt2-small", sets=("S=1024",)).warnings
