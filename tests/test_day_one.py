"""Day one in class (issue 26): each item a user met, pinned by a test that failed before.

Expected values are computed here with fractions from the chip's decimal figures (h100
fp16/bf16: 9.89e14 FLOP/s, 3.35e12 bytes/s), never copied from derive's output.
"""

from __future__ import annotations

import json
from fractions import Fraction

from tests.conftest import run_cli

PEAK, BANDWIDTH = Fraction(989 * 10**12), Fraction(335 * 10**10)


def _solve(*argv: str, fmt: str = "json") -> str:
    result = run_cli(["solve", *argv, "--format", fmt])
    assert result.code == 0, result
    return result.out


def test_14_two_measured_rates_are_read_through_the_kernels_intensity():
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


def test_14_rates_that_agree_with_the_intensity_add_nothing():
    data = json.loads(
        _solve(
            "--intensity", "5", "--chip", "h100", "--compute", "fp16",
            "--measured-flops-per-s", "10e12", "--measured-bytes-per-s", "2e12",
        )
    )  # fmt: skip
    assert data["measured"]["kernel_intensity"] is None
    assert data["measured"]["verdict"] == "possible"


def test_15_the_verdict_gives_the_steps_fraction_of_peak_with_launch_overhead():
    argv = ("--flops", "1e9", "--bytes", "1e6", "--chip", "h100", "--compute", "fp16")
    data = json.loads(_solve(*argv, "--launch-overhead", "500us"))
    t_math = Fraction(10**9) / PEAK
    t_lower = max(t_math, Fraction(10**6) / BANDWIDTH) + Fraction(1, 2000)
    fraction = t_math / t_lower
    assert Fraction(data["step"]["fraction_of_peak"]) == fraction
    verdict = _solve(*argv, "--launch-overhead", "500us", fmt="md").strip().splitlines()[-1]
    assert f"{float(100 * fraction):.4g} % of peak" in verdict
    assert "100 % of peak" not in verdict
