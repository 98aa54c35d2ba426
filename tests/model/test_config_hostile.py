"""Hostile config.json files: one line on stderr, exit 2, nothing on stdout (issue 24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

GOOD = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "hidden_size": 64,
    "num_attention_heads": 4,
    "intermediate_size": 128,
    "vocab_size": 100,
}


def _refused(path: Path, *fragments: str) -> None:
    result = run_cli(["model", str(path)])
    assert result.code == 2, result
    assert result.err.count("\n") == 1 and result.err.startswith("error: "), result
    assert result.out == "" and "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in result.err, result


CASES = {
    "wrong type": ({**GOOD, "hidden_size": "4096"}, "field 'hidden_size'", "got string"),
    "a float size": ({**GOOD, "num_hidden_layers": 2.0}, "'num_hidden_layers'", "positive integer"),
    "a bool size": ({**GOOD, "vocab_size": True}, "'vocab_size'", "positive integer"),
    "negative": ({**GOOD, "num_hidden_layers": -3}, "'num_hidden_layers'", "got -3"),
    "zero": ({**GOOD, "intermediate_size": 0}, "'intermediate_size'", "positive integer"),
    "huge size": ({**GOOD, "hidden_size": 10**12}, "'hidden_size'", "at most 1000000000"),
    "a flag as text": ({**GOOD, "attention_bias": "yes"}, "'attention_bias'", "true or false"),
    "unknown field": ({**GOOD, "num_extra_experts": 4}, "'num_extra_experts'", "not modelled"),
    "unknown type": ({**GOOD, "model_type": "bert"}, "unknown model_type 'bert'", "llama"),
    "no type": ({k: v for k, v in GOOD.items() if k != "model_type"}, "'model_type'", "missing"),
    "long type": ({**GOOD, "model_type": "x" * 10**4}, "'model_type'", "10000 characters"),
    "heads": ({**GOOD, "num_key_value_heads": 3}, "'num_key_value_heads'", "multiple"),
    "missing": ({**GOOD, "vocab_size": None}, "'vocab_size'", "positive integer"),
    "a list": ([GOOD], "JSON object"),
    "layer types": (
        {**GOOD, "model_type": "qwen2", "layer_types": ["full_attention"]},
        "'layer_types'",
        "2 entries",
    ),
    "moe_layer_freq": (
        {
            **GOOD,
            "model_type": "deepseek_v3",
            "moe_intermediate_size": 8,
            "n_routed_experts": 4,
            "num_experts_per_tok": 2,
            "kv_lora_rank": 8,
            "qk_rope_head_dim": 4,
            "qk_nope_head_dim": 4,
            "v_head_dim": 4,
            "q_lora_rank": None,
            "n_shared_experts": None,
            "moe_layer_freq": 2,
        },
        "'moe_layer_freq'",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_config_is_one_line(tmp_path, case):
    data, *fragments = CASES[case]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    _refused(path, *fragments)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"model_type": "llama", "hidden_size": ' + "9" * 5000 + "}", "5000 digits"),
        ("[" * 100000 + "]" * 100000, "nested deeper"),
        ('{"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}', "nested deeper"),
        ('{"model_type": "llama", "rope_theta": NaN}', "NaN"),
        ('{"model_type": "llama", "model_type": "gpt2"}', "given twice"),
        ('model_type = "llama"', "not JSON"),
        ("\x00\x01", "NUL"),
    ],
)
def test_hostile_text_is_one_line(tmp_path, text, fragment):
    path = tmp_path / "config.json"
    path.write_text(text)
    _refused(path, fragment)


def test_a_10_mb_config_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "x": "' + "a" * (10 * 1024 * 1024) + '"}')
    _refused(path, "larger than 1000000 bytes")


def test_a_folder_without_a_config_and_a_missing_file(tmp_path):
    _refused(tmp_path, "no such file")
    _refused(tmp_path / "nope.json", "no such file")
