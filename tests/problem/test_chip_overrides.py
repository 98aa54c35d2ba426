"""A chip's numbers overridden (issue 45): ``--chip NAME`` with ``--peak``, ``--bandwidth``,
``--capacity`` and ``--link-bandwidth``, each exact from its decimal text and shown as an
override of the chip's own figure. Once refused ("give either a chip or … not both").

The chip's own figures are read here from chips.toml, as decimal text, never from derive's
output; each override is the typed decimal read with Fraction."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import tomllib

from tests.conftest import run_cli

CHIPS = tomllib.loads(
    (Path(__file__).resolve().parents[2] / "derive" / "data" / "chips.toml").read_text()
)


def _figure(chip: str, key: str) -> str:
    raw = CHIPS[chip][key]
    return raw["value"] if isinstance(raw, dict) else raw


def _ok(argv: list[str]) -> str:
    r = run_cli(argv)
    assert r.code == 0, r.err
    return r.out


MATMUL = ["solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v5e"]


def test_a_chips_bandwidth_overridden_on_solve():
    data = json.loads(_ok([*MATMUL, "--bandwidth", "8.1e11", "--format", "json"]))
    peak = Fraction(_figure("tpu-v5e", "peak_bf16_flop_per_s"))
    assert data["chip"] == "tpu-v5e"
    assert Fraction(data["bandwidth"]) == Fraction("8.1e11") and Fraction(data["peak"]) == peak
    assert Fraction(data["ridge"]) == peak / Fraction("8.1e11")
    text = " ".join(_ok([*MATMUL, "--bandwidth", "8.1e11", "--format", "text"]).split())
    was = _figure("tpu-v5e", "hbm_bytes_per_s")
    assert (
        f"HBM bandwidth; symbol: β; value: 8.1 × 10^11 B/s; source: override of tpu-v5e's {was}"
        in text
    )


OPERATOR = """
from derive import Collective, Composite, Operator, Tensor, dims
B, F = dims("B F")
reduce = Operator(name="reduce", flops=0,
                  comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=8)])
copy = Operator(name="copy", flops=B * F, reads=[Tensor("X", (B, F))], writes=[Tensor("Y", (B, F))])
copy_then_reduce = Composite(name="copy_then_reduce", parts=[("copy", copy, {}), ("reduce", reduce, {})])
"""


def test_peak_bandwidth_and_link_overridden_together(tmp_path):
    path = tmp_path / "ops.py"
    path.write_text(OPERATOR)
    argv = ["solve", "copy_then_reduce", "--operators", str(path), "--dtype", "bf16"]
    argv += ["--chip", "h100", "--peak", "5e14", "--bandwidth", "3e12", "--link-bandwidth", "9e11"]
    argv += ["--set", "B=8192", "--set", "F=8192"]
    data = json.loads(_ok([*argv, "--format", "json"]))
    peak, hbm, link = Fraction("5e14"), Fraction("3e12"), Fraction("9e11")
    assert (Fraction(data["peak"]), Fraction(data["bandwidth"])) == (peak, hbm)
    assert Fraction(data["link_bandwidth"]) == link
    size = 8192 * 8192 * 2
    copy, reduce = data["step"]["kernels"]
    assert Fraction(copy["t_lower"]) == max(Fraction(8192 * 8192) / peak, 2 * size / hbm)
    assert Fraction(reduce["t_comms"]) == Fraction(2 * 7, 8) * size / link
    text = " ".join(_ok([*argv, "--format", "md"]).split())
    for key in ("peak_bf16_flop_per_s", "hbm_bytes_per_s", "link_bytes_per_s"):
        assert f"override of h100's {_figure('h100', key)}" in text, key


def test_capacity_bandwidth_and_peak_overridden_on_a_serving_step():
    base = ["model", "llama-3-8b", "--chip", "h100", "--phase", "decode"]
    base += ["--set", "B=8", "--set", "S=4096", "--format", "json"]
    plain = json.loads(_ok(base))
    argv = [*base[:-2], "--capacity", "96e9", "--bandwidth", "3e12", "--peak", "5e14"]
    data = json.loads(_ok([*argv, "--format", "json"]))
    assert Fraction(data["capacity"]) == Fraction("96e9")
    assert Fraction(data["peak"]) == Fraction("5e14")
    # decode at B = 8 streams the same bytes: its time scales as the bandwidth's inverse
    hbm = Fraction(_figure("h100", "hbm_bytes_per_s"))
    latency = Fraction(data["serving"]["inter_token_latency"])
    assert latency * Fraction("3e12") == Fraction(plain["serving"]["inter_token_latency"]) * hbm
    text = " ".join(_ok([*argv, "--format", "text"]).split())
    for key in ("hbm_capacity_bytes", "hbm_bytes_per_s", "peak_bf16_flop_per_s"):
        assert f"override of h100's {_figure('h100', key)}" in text, key


def test_a_training_run_names_each_override_in_its_given():
    argv = ["train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--batch-tokens", "4194304"]
    argv += ["--seq", "4096", "--peak", "8e14", "--capacity", "96e9", "--link-bandwidth", "4e11"]
    data = json.loads(_ok([*argv, "--format", "json"]))
    flops = Fraction(data["flops_model"]) + Fraction(data["flops_recompute"])
    assert Fraction(data["t_math"]) == flops / (8 * Fraction("8e14"))
    used = Fraction(data["memory_per_device"]["total"])
    assert Fraction(data["headroom_per_device"]) == Fraction("96e9") - used
    text = " ".join(_ok([*argv, "--format", "text"]).split())
    assert (
        f"π = 8e14 FLOP/s per device (override of h100's {_figure('h100', 'peak_bf16_flop_per_s')})"
        in text
    )
    assert f"β_link = 4e11 B/s (override of h100's {_figure('h100', 'link_bytes_per_s')}" in text
    assert f"C = 96 GB of HBM (override of h100's {_figure('h100', 'hbm_capacity_bytes')})" in text


@pytest.mark.parametrize("flag", ["--peak", "--bandwidth", "--link-bandwidth"])
def test_a_bad_override_is_one_line_naming_its_flag(flag):
    r = run_cli([*MATMUL, flag, "-3"])
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r
    assert r.err.startswith(f"error: {flag}"), r.err
