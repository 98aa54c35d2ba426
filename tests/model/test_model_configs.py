"""Models read from Hugging Face config.json files (issue 24, items 1 and 4).

Each config in tests/data/configs/ was written for these tests with the field names of the
transformers config class of its model_type. The expected parameter counts below are
written out by hand from the architecture, module by module as transformers' modeling file
builds it (its nn.Linear biases, its norms, a tied head stored once), in plain integers:
they do not call derive's formulas. The counts were also cross-checked against transformers
itself on the meta device, outside the suite (see the branch's report).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from derive.checking.model_claims import model_analysis_for
from derive.problem.model_spec import ModelSpec
from tests.conftest import run_cli

CONFIGS = Path(__file__).parents[1] / "data" / "configs"


def _analysis(name: str, *sets: str):
    return model_analysis_for(ModelSpec(model=str(CONFIGS / name), sets=sets))


def _gqa(d: int, h: int, kv: int, dh: int, qkv_bias: bool = False, o_bias: bool = False) -> int:
    """q, k, v, o projections of one block (nn.Linear weights and optional biases)."""
    weights = d * h * dh + 2 * d * kv * dh + h * dh * d
    return weights + (h * dh + 2 * kv * dh if qkv_bias else 0) + (d if o_bias else 0)


def _gated(d: int, f: int, bias: bool = False) -> int:
    """gate, up (d → f) and down (f → d)."""
    return 3 * d * f + (2 * f + d if bias else 0)


def _llama_like(
    layers: int, d: int, h: int, kv: int, dh: int, f: int, vocab: int, tied: bool, **extra: int
) -> int:
    block = _gqa(d, h, kv, dh, extra.get("qkv_bias", 0), extra.get("o_bias", 0))
    block += _gated(d, f, extra.get("mlp_bias", 0)) + extra.get("norms", 2) * d
    block += extra.get("qk_norm", 0) * 2 * dh
    return layers * block + vocab * d * (1 if tied else 2) + d


EXPECTED_PARAMS = {
    "llama-3-8b": _llama_like(32, 4096, 32, 8, 128, 14336, 128256, False),
    "llama-biased.json": _llama_like(
        3, 96, 4, 2, 40, 200, 1000, True, qkv_bias=1, o_bias=1, mlp_bias=1
    ),
    "mistral-7b": _llama_like(32, 4096, 32, 8, 128, 14336, 32000, False),
    "phi3-mini": _llama_like(32, 3072, 32, 32, 96, 8192, 32064, False),
    "qwen2-tiny.json": _llama_like(4, 64, 4, 2, 16, 160, 300, True, qkv_bias=1),
    "qwen3-tiny.json": _llama_like(2, 64, 4, 2, 24, 96, 256, False, qk_norm=1),
    "gemma-tiny.json": _llama_like(2, 64, 2, 1, 256, 128, 400, True),
    "gemma2-tiny.json": _llama_like(3, 48, 2, 1, 32, 96, 300, True, norms=4),
    # mixtral: 8 experts of a gated MLP and a 64×8 router per block, no biases
    "mixtral-tiny.json": 2 * (_gqa(64, 8, 2, 8) + 8 * _gated(64, 112) + 64 * 8 + 2 * 64)
    + 2 * 500 * 64
    + 64,
    # qwen3_moe: layer 0 dense (intermediate_size 128), layers 1-2 have 8 experts of width 32
    "qwen3-moe-tiny.json": 3 * (_gqa(64, 4, 2, 16) + 2 * 16 + 2 * 64)
    + _gated(64, 128)
    + 2 * (8 * _gated(64, 32) + 64 * 8)
    + 2 * 256 * 64
    + 64,
    # gpt2: Conv1D c_attn (d → 3d) and c_proj with biases, c_fc/c_proj of the MLP, 2 layernorms
    "gpt2": 12 * (768 * 3 * 768 + 3 * 768 + 768 * 768 + 768 + 2 * 768 * 3072 + 3072 + 768 + 4 * 768)
    + 50257 * 768
    + 1024 * 768
    + 2 * 768,
}


def _deepseek(
    layers: int, d: int, h: int, vocab: int, mla: dict[str, int | None], moe: dict[str, int]
) -> tuple[int, int]:
    """(params, params_active) of a DeepSeek-V2/V3 config, module by module."""
    r_q, r_kv, rope, nope, v = (mla[k] for k in ("r_q", "r_kv", "rope", "nope", "v"))
    assert r_kv is not None and rope is not None and nope is not None and v is not None
    q = d * h * (nope + rope) if r_q is None else d * r_q + r_q + r_q * h * (nope + rope)
    attention = q + d * (r_kv + rope) + r_kv + r_kv * h * (nope + v) + h * v * d
    experts, top_k, shared, width = moe["E"], moe["k"], moe["shared"], moe["f"]
    routed = _gated(d, width)
    moe_block = experts * routed + _gated(d, shared * width) + d * experts
    moe_active = top_k * routed + _gated(d, shared * width) + d * experts
    dense_block = _gated(d, moe["f_dense"])
    norms = 2 * d
    dense, sparse = moe["dense"], layers - moe["dense"]
    base = layers * (attention + norms) + dense * dense_block + 2 * vocab * d + d
    return base + sparse * moe_block, base + sparse * moe_active


DEEPSEEK_V3 = _deepseek(
    61,
    7168,
    128,
    129280,
    {"r_q": 1536, "r_kv": 512, "rope": 64, "nope": 128, "v": 128},
    {"E": 256, "k": 8, "shared": 1, "f": 2048, "f_dense": 18432, "dense": 3},
)
DEEPSEEK_V2_TINY = _deepseek(
    3,
    64,
    4,
    320,
    {"r_q": None, "r_kv": 16, "rope": 8, "nope": 12, "v": 10},
    {"E": 6, "k": 2, "shared": 2, "f": 24, "f_dense": 160, "dense": 1},
)


@pytest.mark.parametrize("name", sorted(EXPECTED_PARAMS))
def test_parameter_counts_equal_counts_by_hand(name):
    a = _analysis(name)
    assert a.value("params") == EXPECTED_PARAMS[name]


def test_moe_active_parameters_count_top_k_and_shared_experts():
    for name, (params, active) in (
        ("deepseek-v3", DEEPSEEK_V3),
        ("deepseek-v2-tiny.json", DEEPSEEK_V2_TINY),
    ):
        a = _analysis(name)
        assert (a.value("params"), a.value("params_active")) == (params, active), name
    mixtral = _analysis("mixtral-tiny.json")
    expected = EXPECTED_PARAMS["mixtral-tiny.json"] - 2 * 6 * _gated(64, 112)  # 2 of 8 used
    assert mixtral.value("params_active") == expected


def test_a_config_counts_like_the_builtin_model_it_describes():
    for config, builtin in (("llama-3-8b", "llama-3-8b"), ("gpt2", "gpt2-small")):
        ours = _analysis(config)
        theirs = model_analysis_for(ModelSpec(model=builtin))
        for key in ("params", "params_active", "kv_bytes_per_token", "params_embedding"):
            assert ours.value(key) == theirs.value(key), (config, key)


def test_kv_bytes_per_token_gqa_mla_and_windows_below_and_above():
    w = 2  # bf16
    assert _analysis("llama-3-8b").value("kv_bytes_per_token") == 2 * 32 * 8 * 128 * w
    assert _analysis("deepseek-v3").value("kv_bytes_per_token") == (512 + 64) * 61 * w
    mistral = 2 * 8 * 128 * w  # per layer and position
    for s, kept in ((1000, 1000), (4096, 4096), (8192, 4096)):
        a = _analysis("mistral-7b", "B=1", f"S={s}")
        assert a.value("kv_bytes") == 32 * mistral * kept, s
    gemma2 = 2 * 1 * 32 * w  # layers 0 and 2 windowed (16 positions), layer 1 full
    for s in (10, 16, 100):
        a = _analysis("gemma2-tiny.json", "B=2", f"S={s}")
        assert a.value("kv_bytes") == 2 * gemma2 * (s + 2 * min(s, 16)), s
    qwen2 = 2 * 2 * 16 * w  # layers 1-3 windowed (32 positions) from max_window_layers 1
    a = _analysis("qwen2-tiny.json", "B=1", "S=100")
    assert a.value("kv_bytes") == qwen2 * (100 + 3 * 32)


def test_attention_flops_use_the_window_and_the_latent():
    a = _analysis("mistral-7b", "S=8192")
    assert a.value("flops_attention") == 4 * 32 * 128 * 32 * 4096
    a = _analysis("deepseek-v3", "S=1000")
    assert a.value("flops_attention") == 61 * 2 * 128 * (2 * 512 + 64) * 1000


def test_the_givens_name_the_configs_fields():
    result = run_cli(["model", str(CONFIGS / "deepseek-v3")])
    assert result.code == 0, result.err
    for field in ("kv_lora_rank", "moe_intermediate_size", "first_k_dense_replace", "hidden_size"):
        assert f"(config: {field})" in result.out.replace("\\_", "_"), field


def test_a_671b_moe_decode_step_reads_its_latent_cache():
    argv = ["model", str(CONFIGS / "deepseek-v3"), "--chip", "h100", "--devices", "8"]
    argv += ["--dtype", "weights=fp8", "--phase", "decode", "--set", "B=1", "--set", "S=4096"]
    result = run_cli(argv + ["--format", "json"])
    assert result.code == 0, result.err
    kernels = {k["parts"][0]: k for k in json.loads(result.out)["serving"]["step"]["kernels"]}
    attention = kernels["attention"]
    latent = 61 * 4096 * (512 + 64) * 2  # the cache of one sequence, bf16, every device
    assert int(attention["bytes"]) >= latent
    q_and_out = 61 * (128 * (512 + 64) + 128 * 512) * 2 // 8
    assert int(attention["bytes"]) == latent + q_and_out
    assert Fraction(attention["flops"]) == Fraction(61 * 2 * 128 * (2 * 512 + 64) * 4096, 8)


def test_the_mapping_page_is_current():
    """docs/model-configs.md is generated from the tables: regenerate it when they change."""
    from derive.present.model_configs_doc import model_configs_markdown

    page = Path(__file__).parents[2] / "docs" / "model-configs.md"
    assert page.read_text(encoding="utf-8") == model_configs_markdown(), (
        "run: python -m derive.present.model_configs_doc docs/model-configs.md"
    )


def test_every_supported_model_type_has_a_config_here():
    from derive.model.config_map import tables

    seen = set()
    for path in CONFIGS.rglob("*.json"):
        seen.add(json.loads(path.read_text())["model_type"])
    # the families issue 34 added have their real models' configs in test_config_transformers
    assert seen | {"qwen2_moe", "gemma3_text", "olmo2", "granite", "starcoder2"} == set(
        tables().families
    )


def _read(tmp_path, config: dict):
    from derive.model.config_file import load_config_model

    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return load_config_model(str(path))


_TINY = {
    "num_hidden_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 4,
    "intermediate_size": 96,
    "vocab_size": 100,
}


@pytest.mark.parametrize(
    ("config", "field", "said"),
    (
        ({"model_type": "phi3", "attention_bias": True}, "attention_bias", "true is not modelled"),
        (
            {"model_type": "gemma", "use_bidirectional_attention": True},
            "use_bidirectional_attention",
            "bidirectional",
        ),
        ({"model_type": "llama", "is_encoder_decoder": True}, "is_encoder_decoder", "encoder"),
        (
            {"model_type": "llama", "add_cross_attention": True},
            "add_cross_attention",
            "cross-attention",
        ),
        ({"model_type": "starcoder2", "mlp_type": "gated"}, "mlp_type", "'gated' is not"),
        (
            {
                "model_type": "mixtral",
                "num_experts": 4,
                "num_local_experts": 8,
                "num_experts_per_tok": 2,
            },
            "num_experts",
            "gives both",
        ),
    ),
)
def test_a_value_that_would_change_the_count_is_refused_naming_it(tmp_path, config, field, said):
    """Issue 34: a field read only at the value that changes no count; an alias that disagrees."""
    from derive.errors import ProblemError

    with pytest.raises(ProblemError) as caught:
        _read(tmp_path, {**_TINY, **config})
    assert f"field {field!r}" in str(caught.value) and said in str(caught.value)


def test_the_published_quirks_are_read():
    """Issue 34: Gemma 2's sliding_window_size, null use_bidirectional_attention, Phi-3's
    attention_bias false, DeepSeek's output_router_logits and qk_head_dim, qwen3_moe's
    num_local_experts; a qk_head_dim other than nope + rope is refused naming it."""
    import tempfile

    from derive.errors import ProblemError

    tmp = Path(tempfile.mkdtemp())
    gemma2 = _read(
        tmp,
        {
            **_TINY,
            "model_type": "gemma2",
            "sliding_window": 16,
            "sliding_window_size": 16,
            "use_bidirectional_attention": None,
        },
    )
    assert gemma2.window == 16
    phi3 = _read(tmp, {**_TINY, "model_type": "phi3", "attention_bias": False})
    assert not phi3.attention_bias
    moe = _read(
        tmp,
        {
            **_TINY,
            "model_type": "qwen3_moe",
            "num_local_experts": 8,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 16,
        },
    )
    assert moe.experts == 8
    mla = {
        "model_type": "deepseek_v3",
        "moe_intermediate_size": 16,
        "n_routed_experts": 4,
        "num_experts_per_tok": 2,
        "n_shared_experts": 1,
        "q_lora_rank": None,
        "kv_lora_rank": 8,
        "qk_rope_head_dim": 4,
        "qk_nope_head_dim": 12,
        "v_head_dim": 8,
        "output_router_logits": False,
    }
    assert _read(tmp, {**_TINY, **mla, "qk_head_dim": 16}).head_dim == 16
    with pytest.raises(ProblemError, match=r"'qk_head_dim'.*qk_nope_head_dim \+ qk_rope"):
        _read(tmp, {**_TINY, **mla, "qk_head_dim": 12})


def test_a_misspelt_key_of_the_families_file_is_refused_not_skipped():
    """A family table, a field row or a check row with a key the reader does not know (``layer``
    for ``layers``: the window rule silently lost) is refused, naming where it stands."""
    from derive.model import config_map

    with pytest.raises(ValueError, match=r"\[families\.x\]: unknown keys layer$"):
        config_map._family("x", {"fixed": {}, "fields": {}, "layer": ["window_all"]})
    field = {"target": "layers", "kind": "size", "defualt": 2}
    with pytest.raises(ValueError, match=r"\[families\.x\]\.fields\.n: unknown keys defualt$"):
        config_map._family("x", {"fixed": {}, "fields": {"n": field}})
    with pytest.raises(ValueError, match=r"\[checked\]\.c: unknown keys or_nul$"):
        config_map._checks({"c": {"allowed": [1], "why": "w", "or_nul": True}}, "[checked]")
