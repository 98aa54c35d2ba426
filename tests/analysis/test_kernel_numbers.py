"""Kernels by their numbers, efficiencies, overheads and measured runs (issue 14, items 4 and 5);
two measured rates read through the kernel's intensity.

Expected values are computed here from the chip's decimal figures (h100 bf16: 9.89e14 FLOP/s,
3.35e12 bytes/s) with fractions, never copied from derive's output.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import run_cli

PEAK, BANDWIDTH = Fraction(989 * 10**12), Fraction(335 * 10**10)


def _json(*argv: str) -> dict:
    result = run_cli(["solve", *argv, "--format", "json"])
    assert result.code == 0, result
    return json.loads(result.out)


def test_a_kernel_by_its_numbers_with_efficiency_and_launch_overhead():
    data = _json(
        "--flops",
        "1e12",
        "--bytes",
        "2.5e9",
        "--chip",
        "h100",
        "--efficiency",
        "0.8",
        "--launch-overhead",
        "5us",
    )
    eta, launch = Fraction(4, 5), Fraction(5, 10**6)
    t_math, t_mem = Fraction(10**12) / (PEAK * eta), Fraction(25 * 10**8) / (BANDWIDTH * eta)
    assert Fraction(data["intensity"]) == 400
    assert Fraction(data["step"]["t_lower"]) == max(t_math, t_mem) + launch
    assert Fraction(data["step"]["t_upper"]) == t_math + t_mem + launch
    assert data["binding"] == "compute"


def test_a_kernel_by_its_intensity_alone():
    data = _json("--intensity", "20", "--chip", "h100")
    assert Fraction(data["attainable"]) == min(PEAK, 20 * BANDWIDTH)
    assert data["binding"] == "memory" and data["step"] is None


def test_mfu_from_a_measured_time_and_the_identity():
    flops, moved, time = 2 * 4096**3, 2 * 3 * 4096**2, Fraction(200, 10**6)
    sets = ("--set", "B=4096", "--set", "D=4096", "--set", "F=4096")
    data = _json("matmul", "--dtype", "bf16", "--chip", "h100", *sets, "--measured-time", "200us")
    mfu, mbu = Fraction(flops) / time / PEAK, Fraction(moved) / time / BANDWIDTH
    assert Fraction(data["mfu"]) == mfu and Fraction(data["mbu"]) == mbu
    intensity = Fraction(data["measured"]["intensity"])
    assert intensity == Fraction(flops, moved)
    assert mfu == mbu * intensity / (PEAK / BANDWIDTH)  # MFU = MBU · I / ridge
    assert data["measured"]["verdict"] == "possible"


def test_an_impossible_measurement_names_the_ceiling_it_beats():
    sets = ("--set", "B=4096", "--set", "D=4096", "--set", "F=4096")
    fastest = Fraction(2 * 4096**3) / PEAK  # compute-bound: FLOPs / peak
    too_fast = f"{float(fastest) * 0.9:.6e}"
    data = _json("matmul", "--dtype", "bf16", "--chip", "h100", *sets, "--measured-time", too_fast)
    assert data["measured"]["verdict"] == "impossible"
    assert data["measured"]["beats"] == ["compute peak"]
    text = run_cli(
        ["solve", "matmul", "--dtype", "bf16", "--chip", "h100", *sets, "--measured-time", too_fast]
    ).out
    assert "Impossible: this measurement beats the compute peak" in text


def test_memory_rates_alone_give_mbu():
    data = _json(
        "--flops", "1e9", "--bytes", "1e9", "--chip", "h100", "--measured-bytes-per-s", "4e12"
    )
    assert Fraction(data["mbu"]) == Fraction(4 * 10**12) / BANDWIDTH
    assert data["measured"]["beats"] == ["memory bandwidth"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["matmul", "--dtype", "bf16", "--chip", "h100", "--measured-time", "0"],
            "must be positive",
        ),
        (["--flops", "0", "--chip", "h100"], "computes nothing and moves nothing"),
        (["--flops", "1e12", "--bytes", "1e9", "--intensity", "3", "--chip", "h100"], "not both"),
        (
            ["--flops", "1e12", "--bytes", "1e9", "--chip", "h100", "--efficiency", "1.2"],
            "in (0, 1]",
        ),
        (
            ["--flops", "1e12", "--bytes", "1e9", "--chip", "h100", "--launch-overhead", "5 min"],
            "not a duration",
        ),
        (["--chip", "h100"], "give an operator"),
        (
            ["--flops", "1e12", "--bytes", "1e9", "--chip", "h100", "--link-latency", "1us"],
            "--link-latency: a kernel by its numbers has no collective",
        ),
        (
            ["--intensity", "20", "--chip", "h100", "--measured-time", "1ms"],
            "--measured-time: a kernel given by its intensity alone",
        ),
    ],
)
def test_bad_timing_input_exits_2_with_one_line(argv, message):
    result = run_cli(["solve", *argv])
    assert result.code == 2 and result.err.count("\n") == 1, result
    assert message in result.err and not result.out


def test_a_measured_time_with_measured_rates_is_one_line():
    """Two measurements of one run could disagree; the worked step would print one and
    use the other. Refused, naming both flags."""
    result = run_cli(
        [
            "solve",
            "--flops",
            "1e12",
            "--bytes",
            "2.5e9",
            "--chip",
            "h100",
            "--measured-time",
            "1ms",
            "--measured-flops-per-s",
            "1e14",
        ]
    )
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1
    assert "--measured-time with --measured-flops-per-s" in result.err


def test_a_lone_rate_of_a_kernel_gives_the_other_through_its_intensity():
    """I = 20 on an H100: 1e14 FLOP/s needs 5e12 bytes/s, above β = 3.35e12: impossible,
    although 1e14 FLOP/s alone is below the compute peak."""
    data = _json("--intensity", "20", "--chip", "h100", "--measured-flops-per-s", "1e14")
    flops_per_s = Fraction(10**14)
    assert Fraction(data["mfu"]) == flops_per_s / PEAK
    assert Fraction(data["mbu"]) == flops_per_s / 20 / BANDWIDTH
    assert data["measured"]["verdict"] == "impossible"
    assert data["measured"]["beats"] == ["memory bandwidth"]
    text = run_cli(
        ["solve", "--intensity", "20", "--chip", "h100", "--measured-bytes-per-s", "1e12"]
    ).out
    assert r"\text{FLOP/s} = \text{bytes/s} \cdot I = 10^{12} \cdot 20" in text


# -- two measured rates are read through the kernel's intensity -----------------------------


def _solve(*argv: str, fmt: str = "json") -> str:
    result = run_cli(["solve", *argv, "--format", fmt])
    assert result.code == 0, result
    return result.out


def test_two_measured_rates_are_read_through_the_kernels_intensity():
    """15e12 FLOP/s at I = 1 needs 15e12 bytes/s, 4.5× the H100's bandwidth: impossible,
    and the kernel's I = 1 is kept (the rates' 75/14 is named, not substituted)."""
    argv = ("--intensity", "1", "--chip", "h100", "--compute", "fp16")
    rates = ("--measured-flops-per-s", "15e12", "--measured-bytes-per-s", "2.8e12")
    data = json.loads(_solve(*argv, *rates))
    flops_rate, bytes_rate = Fraction(15 * 10**12), Fraction(28 * 10**11)
    assert Fraction(data["intensity"]) == 1
    measured = data["measured"]
    assert Fraction(measured["intensity"]) == flops_rate / bytes_rate  # what the pair implies
    assert Fraction(measured["kernel_intensity"]) == 1
    assert Fraction(measured["needed_bytes_per_s"]) == flops_rate / 1
    assert flops_rate / 1 / BANDWIDTH > 4  # the premise: 4.5× the bandwidth
    assert measured["verdict"] == "impossible"
    text = _solve(*argv, *rates, fmt="md")
    assert "Possible" not in text and "Impossible" in text
    assert "not this kernel's I = 1" in text


def test_rates_that_agree_with_the_intensity_add_nothing():
    data = json.loads(
        _solve(
            "--intensity", "5", "--chip", "h100", "--compute", "fp16",
            "--measured-flops-per-s", "10e12", "--measured-bytes-per-s", "2e12",
        )
    )  # fmt: skip
    assert data["measured"]["kernel_intensity"] is None
    assert data["measured"]["verdict"] == "possible"
