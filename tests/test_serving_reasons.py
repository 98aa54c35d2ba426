"""Serving reads configs and flags completely, and says what it did (issue 46, item 7).

Each test goes through the command line and computes its expected numbers from the
inputs here (parameter counts from the model's shapes, widths from the formats' layouts).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

CONFIGS = Path(__file__).parent / "data" / "configs"
LLAMA_8B_PARAMS = (
    32 * (4096 * 4096 * 2 + 2 * 4096 * 8 * 128 + 3 * 4096 * 14336 + 2 * 4096)
    + 2 * 128256 * 4096
    + 4096
)


def _json(cli, argv: list[str]) -> dict:
    result = cli([*argv, "--format", "json"])
    assert result.code == 0, result.err
    return json.loads(result.out)


def _quantized_llama(tmp_path: Path, quantization: dict) -> str:
    config = json.loads((CONFIGS / "llama-3-8b" / "config.json").read_text())
    config["quantization_config"] = quantization
    path = tmp_path / "quantized" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config))
    return str(path)


# -- 1. a config's quantization_config sets the weights' dtype ---------------------------


def test_deepseek_v3s_fp8_weights_fit_on_8_h200s(cli):
    argv = ["model", str(CONFIGS / "deepseek-v3"), "--chip", "h200", "--devices", "8"]
    argv += ["--set", "B=1", "--set", "S=4096"]
    report = _json(cli, argv)
    assert report["dtypes"]["weights"] == "fp8_e4m3"
    params = int(report["params"]["exact"])
    width = 1 + Fraction(4, 128 * 128)  # e4m3 values and a fp32 scale per 128×128 block
    assert Fraction(report["weights_bytes"]["exact"]) == params * width
    assert report["fits"]["exact"] is True
    text = cli(argv).out.replace("\\_", "_")
    assert "weights fp8_e4m3" in text and "quantization_config" in text
    assert "Does not fit" not in text


def test_a_typed_weights_dtype_still_wins_over_the_config(cli):
    argv = ["model", str(CONFIGS / "deepseek-v3"), "--dtype", "weights=bf16"]
    report = _json(cli, argv)
    assert report["dtypes"]["weights"] == "bf16"
    assert Fraction(report["weights_bytes"]["exact"]) == 2 * int(report["params"]["exact"])


@pytest.mark.parametrize(
    ("quantization", "name", "width"),
    [
        ({"quant_method": "fp8", "fmt": "e5m2"}, "fp8_e5m2", Fraction(1)),
        # packed 4-bit values, a fp16 scale and a 4-bit zero per group of 128 inputs
        (
            {"quant_method": "gptq", "bits": 4, "group_size": 128},
            "int4",
            Fraction(1, 2) + (2 + Fraction(1, 2)) / 128,
        ),
        (
            {"quant_method": "awq", "bits": 4, "group_size": 64},
            "int4",
            Fraction(1, 2) + (2 + Fraction(1, 2)) / 64,
        ),
        ({"quant_method": "gptq", "bits": 8, "group_size": -1}, "int8", Fraction(1)),
        ({"quant_method": "bitsandbytes", "load_in_8bit": True}, "int8", Fraction(1)),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True}, "int4", Fraction(1, 2)),
    ],
)
def test_quantized_formats_set_the_weights_width(cli, tmp_path, quantization, name, width):
    report = _json(cli, ["model", _quantized_llama(tmp_path, quantization)])
    assert int(report["params"]["exact"]) == LLAMA_8B_PARAMS
    assert report["dtypes"]["weights"] == name
    assert Fraction(report["weights_bytes"]["exact"]) == LLAMA_8B_PARAMS * width


def test_an_unknown_quant_method_is_refused_naming_it(cli, tmp_path):
    result = cli(["model", _quantized_llama(tmp_path, {"quant_method": "hqq", "nbits": 4})])
    assert result.code == 2
    assert result.err.startswith("error: ") and result.err.count("\n") == 1
    assert "'hqq'" in result.err and "quantization_config" in result.err
