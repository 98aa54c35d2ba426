"""Serving reads configs and flags completely, and says what it did (issue 46, item 7).

Each test goes through the command line and computes its expected numbers from the
inputs here (parameter counts from the model's shapes, widths from the formats' layouts).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

CONFIGS = Path(__file__).parents[1] / "data" / "configs"
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


@pytest.mark.parametrize(
    "quantization",
    [
        {"quant_method": "fp8", "fmt": "e3m4"},
        {"quant_method": "fp8", "weight_block_size": 128},
        {"quant_method": "gptq", "bits": 3, "group_size": 128},
        {"quant_method": "bitsandbytes"},
    ],
)
def test_a_format_derive_cannot_size_is_refused_in_one_line(cli, tmp_path, quantization):
    result = cli(["model", _quantized_llama(tmp_path, quantization)])
    assert result.code == 2 and result.err.count("\n") == 1
    assert result.err.startswith("error: ") and "quantization_config" in result.err


def test_an_unknown_quant_method_is_refused_naming_it(cli, tmp_path):
    result = cli(["model", _quantized_llama(tmp_path, {"quant_method": "hqq", "nbits": 4})])
    assert result.code == 2
    assert result.err.startswith("error: ") and result.err.count("\n") == 1
    assert "'hqq'" in result.err and "quantization_config" in result.err


# -- 2. a flag that a given number overrides is refused ----------------------------------


def test_a_cache_dtype_beside_its_size_in_bytes_is_refused(cli):
    argv = ["model", "--params", "70e9", "--kv-bytes-per-token", "327680", "--chip", "h100"]
    result = cli([*argv, "--dtype", "kv=int8", "--set", "B=8", "--set", "S=4096"])
    assert result.code == 2 and result.err.count("\n") == 1
    assert result.err == (
        "error: --dtype kv=int8: has no effect: --kv-bytes-per-token gives the cache's size\n"
    )


def test_a_size_only_model_shows_no_cache_dtype_as_applied(cli):
    argv = ["model", "--params", "70e9", "--kv-bytes-per-token", "327680", "--chip", "h100"]
    result = cli([*argv, "--dtype", "fp8", "--set", "B=8", "--set", "S=4096"])
    assert result.code == 0, result.err
    given = next(line for line in result.out.splitlines() if line.startswith("**Given.**"))
    assert "weights fp8" in given and "kv " not in given
    assert "w_{\\mathrm{kv}}" not in result.out


# -- 3. --link-latency on a point-to-point send ------------------------------------------

SEND = """from derive import Operator, Tensor, dims
B, F = dims("B F")
send = Operator(name="stage_send", flops=2 * B * F, reads=[Tensor("x", (B, F))],
                writes=[Tensor("y", (B, F))], comms=[Tensor("x", (B, F))])
"""


def test_a_point_to_point_send_pays_the_link_latency_once(cli, tmp_path):
    """A plain comms tensor is one send to a neighbour: latency + bytes/β_link (one hop)."""
    ops = tmp_path / "send.py"
    ops.write_text(SEND)
    argv = ["solve", "stage_send", "--operators", str(ops), "--chip", "h100", "--dtype", "bf16"]
    argv += ["--set", "B=8,F=4096"]
    step = _json(cli, [*argv, "--link-latency", "5us"])["step"]
    sent = 8 * 4096 * 2  # x in bf16
    t_comms = Fraction(sent, 450 * 10**9) + Fraction(5, 10**6)  # H100 NVLink, one way
    assert Fraction(step["kernels"][0]["t_comms"]) == t_comms
    assert Fraction(step["t_lower"]) == t_comms  # the send outlasts the compute and memory
    without = _json(cli, argv)["step"]
    assert Fraction(without["t_comms"]) == Fraction(sent, 450 * 10**9)


# -- 4. a zero KV cache is allowed ------------------------------------------------------


def test_a_model_with_no_kv_cache_is_sized_and_served(cli):
    argv = ["model", "--params", "7e9", "--kv-bytes-per-token", "0", "--chip", "h100"]
    argv += ["--set", "B=8", "--set", "S=4096"]
    report = _json(cli, argv)
    assert Fraction(report["kv_bytes"]["exact"]) == 0
    assert Fraction(report["memory_per_device"]["exact"]) == 2 * 7 * 10**9
    assert report["max_batch"] is None and "no KV cache" in report["left_out"]["max_batch"]
    assert "unbounded" in report["left_out"]["max_batch"]
    step = _json(cli, [*argv, "--phase", "decode"])["serving"]["step"]
    # the weights streamed once: 2·P bytes over the H100's bandwidth, nothing for the cache
    assert Fraction(step["t_lower"]) == Fraction(2 * 7 * 10**9, 335 * 10**10)


# -- 5. max_batch for a model known by its size -----------------------------------------


def test_a_size_only_model_gets_its_largest_batch_and_context(cli):
    argv = ["model", "--params", "70e9", "--kv-bytes-per-token", "327680", "--chip", "h100"]
    report = _json(cli, [*argv, "--devices", "8", "--set", "B=8", "--set", "S=4096"])
    room = 8 * 80 * 10**9 - 2 * 70 * 10**9  # N·C less the bf16 weights
    assert int(report["max_batch"]["exact"]) == room // (327680 * 4096)
    assert int(report["max_context"]["exact"]) == room // (327680 * 8)
    text = cli([*argv, "--devices", "8", "--set", "B=8", "--set", "S=4096"]).out
    assert f"= {room // (327680 * 4096)}$$" in text


def test_a_size_only_model_says_which_input_its_largest_batch_needs(cli):
    report = _json(cli, ["model", "--params", "70e9", "--chip", "h100", "--set", "S=4096"])
    assert "--kv-bytes-per-token" in report["left_out"]["max_batch"]
    argv = ["model", "--params", "70e9", "--kv-bytes-per-token", "327680", "--chip", "h100"]
    report = _json(cli, [*argv, "--set", "B=8"])
    assert "needs a context S" in report["left_out"]["max_batch"]


# -- 6. fits on the layout the step uses ------------------------------------------------

LLAMA_70B_PARAMS = (
    80 * (8192 * 64 * 128 * 2 + 2 * 8192 * 8 * 128 + 3 * 8192 * 28672 + 2 * 8192)
    + 2 * 128256 * 8192
    + 8192
)


def test_fits_holds_the_cache_as_the_step_replicates_it(cli):
    """16 TPU v5e chips, Llama 3 70B's 8 KV heads: each chip holds one head's cache (1/8 of
    it, replicated twice) and 1/16 of the weights; spread evenly it would seem to fit."""
    argv = ["model", "llama-3-70b", "--chip", "tpu-v5e", "--devices", "16"]
    report = _json(cli, [*argv, "--set", "B=32", "--set", "S=8192"])
    weights, cache, capacity = 2 * LLAMA_70B_PARAMS, 2 * 80 * 8 * 128 * 2 * 32 * 8192, 16 * 10**9
    assert (weights + cache) / Fraction(16) <= capacity  # the even spread that fitted
    per_device = Fraction(weights, 16) + Fraction(cache, 8)
    assert Fraction(report["memory_per_device"]["exact"]) == per_device
    assert report["fits"]["exact"] is (per_device <= capacity) is False
    room = 16 * capacity - weights
    assert int(report["max_batch"]["exact"]) == room * 8 // (2 * 80 * 8 * 128 * 2 * 8192 * 16)


def test_fits_on_as_many_devices_as_kv_heads_is_the_even_spread(cli):
    argv = ["model", "llama-3-70b", "--chip", "tpu-v5e", "--devices", "8"]
    report = _json(cli, [*argv, "--set", "B=1", "--set", "S=8192"])
    total = 2 * LLAMA_70B_PARAMS + 2 * 80 * 8 * 128 * 2 * 8192
    assert Fraction(report["memory_per_device"]["exact"]) == Fraction(total, 8)


def test_a_declared_model_gives_its_stored_dtype_as_a_dtype(cli, tmp_path):
    models = tmp_path / "models.py"
    models.write_text(
        "from derive import Transformer\n"
        "m = Transformer(name='odd', layers=2, d_model=64, heads=4, d_ff=128, vocab=100,"
        " stored_as='fp8')\n"
    )
    result = cli(["model", "odd", "--operators", str(models)])
    assert result.code == 2 and result.err.count("\n") == 1 and "stored_as" in result.err
