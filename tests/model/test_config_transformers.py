"""Configs as transformers writes them (issue 34, items 1 and 2).

For every supported model_type, transformers' own configuration class writes a default
configuration and two edited ones with ``save_pretrained``; derive reads each file and its
parameter count must equal a count written here by hand from the configuration object's
own attributes, module by module as transformers' ``modeling_<type>.py`` builds it (its
biases, norms, experts, a tied head stored once). The hand counts never call derive.

transformers is in the ``test`` extra (it installs without torch); without it these tests
are skipped. Counting transformers' modules on the meta device needs torch, which the test
extra does not install: that comparison runs only where torch is present and is skipped,
saying so, elsewhere.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from derive.errors import ProblemError
from derive.model.config_file import load_config_model
from derive.model.counts import block_parts, global_parts, substitutions

transformers = pytest.importorskip("transformers", reason="transformers is in the test extra")
logging.getLogger("transformers").setLevel(logging.ERROR)

TINY = dict(
    num_hidden_layers=3,
    hidden_size=64,
    num_attention_heads=4,
    num_key_value_heads=2,
    intermediate_size=96,
    vocab_size=300,
)

# model_type → two edits of the default configuration (the default is the third case)
EDITS: dict[str, tuple[dict, dict]] = {
    "llama": (
        {**TINY, "attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True},
        {**TINY, "head_dim": 24},
    ),
    "mistral": ({**TINY, "head_dim": 16, "sliding_window": None}, {**TINY, "head_dim": 40}),
    "mixtral": (
        {**TINY, "num_local_experts": 6, "num_experts_per_tok": 2},
        {**TINY, "head_dim": 24, "num_local_experts": 3, "num_experts_per_tok": 3},
    ),
    "qwen2": ({**TINY, "tie_word_embeddings": True}, {**TINY, "num_key_value_heads": 4}),
    "qwen2_moe": (
        {
            **TINY,
            "num_experts": 6,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 32,
            "shared_expert_intermediate_size": 80,
            "mlp_only_layers": [1],
        },
        {
            **TINY,
            "num_experts": 4,
            "num_experts_per_tok": 1,
            "moe_intermediate_size": 16,
            "shared_expert_intermediate_size": 48,
            "decoder_sparse_step": 2,
            "qkv_bias": False,
        },
    ),
    "qwen3": (
        {**TINY, "attention_bias": True, "head_dim": 20},
        {**TINY, "tie_word_embeddings": True},
    ),
    "qwen3_moe": (
        {
            **TINY,
            "num_experts": 8,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 32,
            "mlp_only_layers": [0],
        },
        {
            **TINY,
            "num_experts": 4,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 16,
            "decoder_sparse_step": 3,
            "head_dim": 32,
        },
    ),
    "gemma": (
        {**TINY, "head_dim": 32},
        {**TINY, "attention_bias": True, "tie_word_embeddings": False},
    ),
    "gemma2": ({**TINY, "head_dim": 32}, {**TINY, "num_hidden_layers": 4, "attention_bias": True}),
    "gemma3_text": (
        {**TINY, "head_dim": 32},
        {**TINY, "num_hidden_layers": 7, "attention_bias": True},
    ),
    "phi3": ({**TINY, "sliding_window": 32}, {**TINY, "num_key_value_heads": 4}),
    "olmo2": ({**TINY, "attention_bias": True}, {**TINY, "tie_word_embeddings": True}),
    "granite": (
        {**TINY, "embedding_multiplier": 12.0, "residual_multiplier": 0.22, "mlp_bias": True},
        {**TINY, "attention_bias": True, "logits_scaling": 8.0},
    ),
    "starcoder2": ({**TINY, "use_bias": False}, {**TINY, "sliding_window": 16}),
    "gpt2": (
        {"n_layer": 2, "n_embd": 48, "n_head": 4, "vocab_size": 300, "n_positions": 64},
        {"n_layer": 3, "n_embd": 64, "n_head": 2, "n_inner": 100, "vocab_size": 200},
    ),
    "deepseek_v2": (
        {
            **TINY,
            "moe_intermediate_size": 24,
            "n_routed_experts": 6,
            "num_experts_per_tok": 2,
            "n_shared_experts": 2,
            "first_k_dense_replace": 1,
            "q_lora_rank": None,
            "kv_lora_rank": 16,
            "qk_rope_head_dim": 8,
            "qk_nope_head_dim": 12,
            "v_head_dim": 10,
        },
        {
            **TINY,
            "moe_intermediate_size": 16,
            "n_routed_experts": 4,
            "num_experts_per_tok": 2,
            "n_shared_experts": 1,
            "q_lora_rank": 24,
            "kv_lora_rank": 16,
            "qk_rope_head_dim": 8,
            "qk_nope_head_dim": 8,
            "v_head_dim": 8,
        },
    ),
    "deepseek_v3": (
        {
            **TINY,
            "moe_intermediate_size": 24,
            "n_routed_experts": 6,
            "num_experts_per_tok": 2,
            "n_shared_experts": 1,
            "first_k_dense_replace": 2,
            "q_lora_rank": 32,
            "kv_lora_rank": 16,
            "qk_rope_head_dim": 8,
            "qk_nope_head_dim": 16,
            "v_head_dim": 12,
            "n_group": 2,
            "topk_group": 1,
        },
        {
            **TINY,
            "moe_intermediate_size": 16,
            "n_routed_experts": 4,
            "num_experts_per_tok": 1,
            "n_shared_experts": 2,
            "first_k_dense_replace": 0,
            "q_lora_rank": None,
            "kv_lora_rank": 8,
            "qk_rope_head_dim": 4,
            "qk_nope_head_dim": 4,
            "v_head_dim": 8,
            "n_group": 1,
            "topk_group": 1,
        },
    ),
}


def _attention(c, d: int, h: int, kv: int, dh: int, qkv_bias: bool, o_bias: bool) -> int:
    weights = d * h * dh + 2 * d * kv * dh + h * dh * d
    return weights + (h * dh + 2 * kv * dh if qkv_bias else 0) + (d if o_bias else 0)


def _gated(d: int, f: int, bias: bool = False) -> int:
    return 3 * d * f + (2 * f + d if bias else 0)


def _moe_layer(c, i: int) -> bool:
    """Qwen-MoE's rule (modeling_qwen2_moe / qwen3_moe): experts unless listed or off-step."""
    return i not in c.mlp_only_layers and (i + 1) % c.decoder_sparse_step == 0


def _deepseek(c) -> tuple[int, int]:
    d, h = c.hidden_size, c.num_attention_heads
    nope, rope, v, r_kv, r_q = (
        c.qk_nope_head_dim,
        c.qk_rope_head_dim,
        c.v_head_dim,
        c.kv_lora_rank,
        c.q_lora_rank,
    )
    q = d * h * (nope + rope) if r_q is None else d * r_q + r_q + r_q * h * (nope + rope)
    attention = q + d * (r_kv + rope) + r_kv + r_kv * h * (nope + v) + h * v * d
    experts = c.n_routed_experts
    shared = _gated(d, c.n_shared_experts * c.moe_intermediate_size)
    one = _gated(d, c.moe_intermediate_size)
    dense = c.first_k_dense_replace
    total = active = 0
    for i in range(c.num_hidden_layers):
        block = attention + 2 * d
        if i < dense:
            total += block + _gated(d, c.intermediate_size)
            active += block + _gated(d, c.intermediate_size)
        else:
            total += block + experts * one + shared + d * experts
            active += block + c.num_experts_per_tok * one + shared + d * experts
    rest = c.vocab_size * d * (1 if c.tie_word_embeddings else 2) + d
    return total + rest, active + rest


def by_hand(c) -> tuple[int, int]:
    """(parameters, parameters a token uses) of a transformers configuration object."""
    t = c.model_type
    if t.startswith("deepseek"):
        return _deepseek(c)
    if t == "gpt2":
        d, f = c.n_embd, c.n_inner or 4 * c.n_embd
        block = d * 3 * d + 3 * d + d * d + d + d * f + f + f * d + d + 2 * 2 * d
        total = c.n_layer * block + c.vocab_size * d + c.n_positions * d + 2 * d
        return total, total
    d, h, V, L = c.hidden_size, c.num_attention_heads, c.vocab_size, c.num_hidden_layers
    kv = c.num_key_value_heads or h
    dh = getattr(c, "head_dim", None) or d // h
    attention_bias = getattr(c, "attention_bias", False) and t != "phi3"
    qkv_bias = {"qwen2": True, "qwen2_moe": c.to_dict().get("qkv_bias", True)}.get(t, False)
    use_bias = t == "starcoder2" and c.use_bias
    attn = _attention(
        c, d, h, kv, dh, qkv_bias or attention_bias or use_bias, attention_bias or use_bias
    )
    norm = 2 * d if t == "starcoder2" else d  # LayerNorm: weight and bias
    norms = {"gemma2": 4, "gemma3_text": 4}.get(t, 2) * norm
    norms += {"qwen3": 2 * dh, "qwen3_moe": 2 * dh, "gemma3_text": 2 * dh}.get(t, 0)
    norms += (h * dh + kv * dh) if t == "olmo2" else 0
    total = active = 0
    for i in range(L):
        block = attn + norms
        if t == "starcoder2":
            mlp = used = 2 * d * c.intermediate_size + (c.intermediate_size + d if use_bias else 0)
        elif t == "mixtral":
            one = _gated(d, c.intermediate_size)
            mlp = c.num_local_experts * one + d * c.num_local_experts
            used = c.num_experts_per_tok * one + d * c.num_local_experts
        elif t in ("qwen2_moe", "qwen3_moe") and _moe_layer(c, i):
            one = _gated(d, c.moe_intermediate_size)
            E = c.num_experts
            router = d * E
            shared = _gated(d, c.shared_expert_intermediate_size) + d if t == "qwen2_moe" else 0
            mlp, used = E * one + router + shared, c.num_experts_per_tok * one + router + shared
        else:
            mlp = used = _gated(d, c.intermediate_size, getattr(c, "mlp_bias", False))
        total, active = total + block + mlp, active + block + used
    rest = V * d * (1 if c.tie_word_embeddings else 2) + norm
    return total + rest, active + rest


def _counted(path: Path) -> tuple[int, int]:
    """derive's parameter counts of a config file (its per-block parts, evaluated)."""
    m = load_config_model(str(path))
    values = substitutions(m)
    parts = block_parts(m)
    L, dense = int(m.layers), int(m.dense_layers or 0)
    total = active = 0
    for pt in parts:
        layers = (
            dense
            if pt.block.value == "mlp_dense"
            else (L - dense if pt.block.value == "mlp" else L)
        )
        total += layers * int(pt.formula.subs(values))
        active += layers * int(pt.active.subs(values))
    rest = sum(int(pt.formula.subs(values)) for _, pt in global_parts(m))
    return total + rest, active + rest


def _cases():
    for model_type in sorted(EDITS):
        yield model_type, "default", {}
        for n, edit in enumerate(EDITS[model_type], 1):
            yield model_type, f"edit{n}", edit


@pytest.mark.parametrize(("model_type", "case", "edit"), list(_cases()))
def test_a_config_saved_by_transformers_counts_as_by_hand(tmp_path, model_type, case, edit):
    config = transformers.CONFIG_MAPPING[model_type](**edit)
    config.save_pretrained(tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == model_type
    if config.to_dict().get("num_experts_per_tok", 1) is None:  # DeepseekV2Config's default
        with pytest.raises(ProblemError, match=r"'num_experts_per_tok': .* got null"):
            _counted(tmp_path)
        return
    assert _counted(tmp_path) == by_hand(config), (model_type, case)


def test_every_supported_model_type_is_round_tripped():
    from derive.model.config_map import tables

    assert set(EDITS) == set(tables().families)


def test_counts_equal_transformers_modules_on_the_meta_device(tmp_path):
    torch = pytest.importorskip(
        "torch", reason="transformers' modules need torch, which the test extra does not install"
    )
    for model_type, _case, edit in _cases():
        if not edit:
            continue
        config = transformers.CONFIG_MAPPING[model_type](**edit)
        with torch.device("meta"):
            model = transformers.AutoModelForCausalLM.from_config(config)
        theirs = sum(p.numel() for _, p in model.named_parameters())
        config.save_pretrained(tmp_path / model_type)
        assert _counted(tmp_path / model_type)[0] == theirs, model_type


# Published config.json files, field by field as their model cards' repositories ship them
# (ids and run-time fields included: derive must read the file people have).
_IDS = {"bos_token_id": 1, "eos_token_id": 2, "initializer_range": 0.02, "use_cache": True}
PUBLISHED: dict[str, dict] = {
    "gemma-2-9b": {
        **_IDS,
        "architectures": ["Gemma2ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "attn_logit_softcapping": 50.0,
        "cache_implementation": "hybrid",
        "final_logit_softcapping": 30.0,
        "head_dim": 256,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 3584,
        "intermediate_size": 14336,
        "max_position_embeddings": 8192,
        "model_type": "gemma2",
        "num_attention_heads": 16,
        "num_hidden_layers": 42,
        "num_key_value_heads": 8,
        "pad_token_id": 0,
        "query_pre_attn_scalar": 256,
        "rms_norm_eps": 1e-06,
        "rope_theta": 10000.0,
        "sliding_window": 4096,
        "sliding_window_size": 4096,
        "torch_dtype": "float32",
        "transformers_version": "4.42.0.dev0",
        "vocab_size": 256000,
    },
    "phi-3-mini-4k": {
        **_IDS,
        "_name_or_path": "Phi-3-mini-4k-instruct",
        "architectures": ["Phi3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "auto_map": {"AutoConfig": "configuration_phi3.Phi3Config"},
        "embd_pdrop": 0.0,
        "eos_token_id": 32000,
        "hidden_act": "silu",
        "hidden_size": 3072,
        "intermediate_size": 8192,
        "max_position_embeddings": 4096,
        "model_type": "phi3",
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 32,
        "original_max_position_embeddings": 4096,
        "pad_token_id": 32000,
        "resid_pdrop": 0.0,
        "rms_norm_eps": 1e-05,
        "rope_scaling": None,
        "rope_theta": 10000.0,
        "sliding_window": 2047,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.40.2",
        "vocab_size": 32064,
    },
    "qwen3-30b-a3b": {
        **_IDS,
        "architectures": ["Qwen3MoeForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "decoder_sparse_step": 1,
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "max_position_embeddings": 40960,
        "max_window_layers": 48,
        "mlp_only_layers": [],
        "model_type": "qwen3_moe",
        "moe_intermediate_size": 768,
        "norm_topk_prob": True,
        "num_attention_heads": 32,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 48,
        "num_key_value_heads": 4,
        "output_router_logits": False,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 1000000.0,
        "router_aux_loss_coef": 0.001,
        "sliding_window": None,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.51.0",
        "use_sliding_window": False,
        "vocab_size": 151936,
    },
    "deepseek-v2-lite": {
        **_IDS,
        "architectures": ["DeepseekV2ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "aux_loss_alpha": 0.001,
        "ep_size": 1,
        "first_k_dense_replace": 1,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 10944,
        "kv_lora_rank": 512,
        "max_position_embeddings": 163840,
        "model_type": "deepseek_v2",
        "moe_intermediate_size": 1408,
        "moe_layer_freq": 1,
        "n_group": 1,
        "n_routed_experts": 64,
        "n_shared_experts": 2,
        "norm_topk_prob": False,
        "num_attention_heads": 16,
        "num_experts_per_tok": 6,
        "num_hidden_layers": 27,
        "num_key_value_heads": 16,
        "pretraining_tp": 1,
        "q_lora_rank": None,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "rms_norm_eps": 1e-06,
        "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096},
        "rope_theta": 10000,
        "routed_scaling_factor": 1.0,
        "scoring_func": "softmax",
        "seq_aux": True,
        "tie_word_embeddings": False,
        "topk_group": 1,
        "topk_method": "greedy",
        "torch_dtype": "bfloat16",
        "transformers_version": "4.33.1",
        "v_head_dim": 128,
        "vocab_size": 102400,
    },
    "mixtral-8x7b": {
        **_IDS,
        "architectures": ["MixtralForCausalLM"],
        "attention_dropout": 0.0,
        "hidden_act": "silu",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "max_position_embeddings": 32768,
        "model_type": "mixtral",
        "num_attention_heads": 32,
        "num_experts_per_tok": 2,
        "num_hidden_layers": 32,
        "num_key_value_heads": 8,
        "num_local_experts": 8,
        "output_router_logits": False,
        "rms_norm_eps": 1e-05,
        "rope_theta": 1000000.0,
        "router_aux_loss_coef": 0.02,
        "sliding_window": None,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.36.0.dev0",
        "vocab_size": 32000,
    },
    "qwen2-7b": {
        **_IDS,
        "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0,
        "hidden_act": "silu",
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "max_position_embeddings": 131072,
        "max_window_layers": 28,
        "model_type": "qwen2",
        "num_attention_heads": 28,
        "num_hidden_layers": 28,
        "num_key_value_heads": 4,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0,
        "sliding_window": 131072,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.37.2",
        "use_sliding_window": False,
        "vocab_size": 152064,
    },
    # the new families: a real model each
    "qwen1.5-moe-a2.7b": {
        **_IDS,
        "architectures": ["Qwen2MoeForCausalLM"],
        "attention_dropout": 0.0,
        "decoder_sparse_step": 1,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 5632,
        "max_position_embeddings": 8192,
        "max_window_layers": 21,
        "model_type": "qwen2_moe",
        "moe_intermediate_size": 1408,
        "norm_topk_prob": False,
        "num_attention_heads": 16,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "num_hidden_layers": 24,
        "num_key_value_heads": 16,
        "output_router_logits": False,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0,
        "router_aux_loss_coef": 0.001,
        "shared_expert_intermediate_size": 5632,
        "sliding_window": 32768,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.39.0.dev0",
        "use_sliding_window": False,
        "vocab_size": 151936,
    },
    "gemma-3-1b": {
        **_IDS,
        "architectures": ["Gemma3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "attn_logit_softcapping": None,
        "cache_implementation": "hybrid",
        "final_logit_softcapping": None,
        "head_dim": 256,
        "hidden_activation": "gelu_pytorch_tanh",
        "hidden_size": 1152,
        "intermediate_size": 6912,
        "max_position_embeddings": 32768,
        "model_type": "gemma3_text",
        "num_attention_heads": 4,
        "num_hidden_layers": 26,
        "num_key_value_heads": 1,
        "pad_token_id": 0,
        "query_pre_attn_scalar": 256,
        "rms_norm_eps": 1e-06,
        "rope_local_base_freq": 10000,
        "rope_scaling": None,
        "rope_theta": 1000000,
        "sliding_window": 512,
        "sliding_window_pattern": 6,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.50.0.dev0",
        "vocab_size": 262144,
    },
    "olmo-2-1124-7b": {
        **_IDS,
        "architectures": ["Olmo2ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "eos_token_id": 100257,
        "hidden_act": "silu",
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "max_position_embeddings": 4096,
        "model_type": "olmo2",
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 32,
        "pad_token_id": 100277,
        "rms_norm_eps": 1e-06,
        "rope_scaling": None,
        "rope_theta": 500000,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
        "transformers_version": "4.47.0.dev0",
        "vocab_size": 100352,
    },
    "granite-3.0-2b": {
        **_IDS,
        "architectures": ["GraniteForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.1,
        "attention_multiplier": 0.015625,
        "embedding_multiplier": 12.0,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "logits_scaling": 8.0,
        "max_position_embeddings": 4096,
        "mlp_bias": False,
        "model_type": "granite",
        "num_attention_heads": 32,
        "num_hidden_layers": 40,
        "num_key_value_heads": 8,
        "pad_token_id": 0,
        "residual_multiplier": 0.22,
        "rms_norm_eps": 1e-05,
        "rope_scaling": None,
        "rope_theta": 10000.0,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.46.0.dev0",
        "vocab_size": 49155,
    },
    "starcoder2-3b": {
        **_IDS,
        "architectures": ["Starcoder2ForCausalLM"],
        "attention_dropout": 0.1,
        "embedding_dropout": 0.1,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_size": 3072,
        "initializer_range": 0.018042,
        "intermediate_size": 12288,
        "max_position_embeddings": 16384,
        "mlp_type": "default",
        "model_type": "starcoder2",
        "norm_epsilon": 1e-05,
        "norm_type": "layer_norm",
        "num_attention_heads": 24,
        "num_hidden_layers": 30,
        "num_key_value_heads": 2,
        "residual_dropout": 0.1,
        "rope_theta": 999999.4420358813,
        "sliding_window": 4096,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.37.0.dev0",
        "use_bias": True,
        "vocab_size": 49152,
    },
}

# The total each model card states, in billions to the digits it prints: checked as a claim
# against the exact count, never used as the expected value. (Cards count active parameters
# by differing conventions, with or without the embeddings: not checked.)
CARD = {
    "gemma-2-9b": "9.24",
    "qwen3-30b-a3b": "30.5",
    "deepseek-v2-lite": "15.7",
    "mixtral-8x7b": "46.7",
    "qwen1.5-moe-a2.7b": "14.3",
    "gemma-3-1b": "1.0",
    "olmo-2-1124-7b": "7.3",
    "granite-3.0-2b": "2.5",
    "starcoder2-3b": "3.0",
}


def _rounded(count: int, digits: str) -> bool:
    from decimal import ROUND_HALF_UP, Decimal

    places = Decimal(1).scaleb(-len(digits.partition(".")[2]))
    return (Decimal(count) / 10**9).quantize(places, ROUND_HALF_UP) == Decimal(digits)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_a_published_config_and_its_transformers_resave_count_as_by_hand(tmp_path, name):
    published = tmp_path / name
    published.mkdir()
    (published / "config.json").write_text(json.dumps(PUBLISHED[name], indent=2))
    config = transformers.AutoConfig.from_pretrained(published)
    expected = by_hand(config)
    assert _counted(published) == expected, name
    config.save_pretrained(tmp_path / "resaved")
    assert _counted(tmp_path / "resaved") == expected, name
    assert name not in CARD or _rounded(expected[0], CARD[name]), (name, expected)


@pytest.mark.parametrize("name", ["deepseek-v3", "gpt2", "llama-3-8b", "mistral-7b", "phi3-mini"])
def test_the_published_configs_of_the_suite_read_alike_when_resaved(tmp_path, name):
    published = Path(__file__).parents[1] / "data" / "configs" / name
    config = transformers.AutoConfig.from_pretrained(published)
    config.save_pretrained(tmp_path)
    assert _counted(published) == _counted(tmp_path) == by_hand(config), name


def test_every_field_transformers_defines_is_known():
    """Each field of a supported model_type's configuration class (its dataclass fields, the
    base class's, its attribute_map's names) is read, checked, an alias or ignored with why."""
    import dataclasses

    from derive.model.config_map import tables

    shipped = tables()

    for model_type, family in shipped.families.items():
        config_class = transformers.CONFIG_MAPPING[model_type]
        names = {f.name for f in dataclasses.fields(config_class)} | set(config_class.attribute_map)
        known = {f.config for f in family.fields} | {k for k, _ in shipped.ignored + family.ignored}
        known |= {c.config for c in shipped.checked + family.checked} | {
            a for a, _ in family.aliases
        }
        assert sorted(names - known) == [], model_type
