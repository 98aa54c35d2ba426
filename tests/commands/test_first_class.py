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


COMPOSITE_WITH_A_COLLECTIVE = """
from derive import Collective, Composite, Operator, Tensor, dims
B, F = dims("B F")
all_reduce = Operator(name="tp_all_reduce", flops=0,
                      comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=8)])
copy = Operator(name="copy", flops=B * F, reads=[Tensor("X", (B, F))], writes=[Tensor("Y", (B, F))])
copy_then_reduce = Composite(name="copy_then_reduce",
                             parts=[("copy", copy, {}), ("reduce", all_reduce, {})])
"""


def test_16_a_composite_with_a_collective_reads_true(tmp_path):
    """The per-part table times the all-reduce (it dominates), the link roofline compares
    two numbers instead of setting them equal, and the link (not memory) binds there."""
    path = tmp_path / "ops.py"
    path.write_text(COMPOSITE_WITH_A_COLLECTIVE)
    argv = ["copy_then_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set", "B=8192", "--set", "F=8192", "--link-latency", "2us"]
    text = _solve(*argv, fmt="md")
    size = 8192 * 8192 * 2
    reduce_time = Fraction(14, 8) * size / Fraction(45 * 10**10) + 14 * Fraction(2, 10**6)
    copy_time = max(Fraction(8192 * 8192, 989 * 10**12), Fraction(2 * size, 335 * 10**10))
    share = reduce_time / (reduce_time + copy_time)
    assert share > Fraction(1, 2)  # the premise: the all-reduce is most of the runtime
    assert "reduce (dominant)" in text and "reduce dominates" in text
    assert f"{float(100 * share):.3g} %" in text
    assert r"\frac{2}{7} = \frac{19780}{9}" not in text  # a false equation, once printed
    assert r"\frac{2}{7} < \frac{19780}{9}" in text
    assert "Network: link-bound for every B" in text and "Network: memory-bound" not in text


def test_17_a_collectives_group_may_be_a_dim(tmp_path):
    """Collective(group=P) with P a dim: `--set P=8` gives what group=8 gives; P = 1 is
    refused; left free, P stays in the formulas (no traceback, no root 'B* = 0')."""
    path = tmp_path / "ops.py"
    path.write_text(
        COMPOSITE_WITH_A_COLLECTIVE.replace(
            'B, F = dims("B F")', 'B, F, P = dims("B F P")'
        ).replace("group=8", "group=P")
    )
    argv = ["copy_then_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set", "B=8192", "--set", "F=8192", "--link-latency", "2us"]
    data = json.loads(_solve(*argv, "--set", "P=8"))
    (reduce,) = data["collectives"]
    size = 8192 * 8192 * 2
    assert (reduce["group"], reduce["steps"]) == (8, 14)
    assert Fraction(reduce["sent"]) == Fraction(2 * 7, 8) * size
    refused = run_cli(["solve", *argv, "--set", "P=1"])
    assert refused.code == 2 and refused.err.count("\n") == 1 and "--set P=1" in refused.err
    free = _solve(*argv[:-4], "--link-latency", "2us", fmt="md")  # B, F and P free
    assert "B^{*} = 0" not in free and "P is the dim P" in free
    free_json = json.loads(_solve(*argv[:-4], "--link-latency", "2us"))
    assert free_json["collectives"][0]["group"] == "P"


def test_a_collective_with_free_dims_has_no_traceback(tmp_path):
    path = tmp_path / "ops.py"
    path.write_text(COMPOSITE_WITH_A_COLLECTIVE)
    argv = ["copy_then_reduce", "--operators", str(path), "--dtype", "bf16", "--chip", "h100"]
    text = _solve(*argv, "--link-latency", "2us", fmt="md")
    assert r"\frac{7 B F}{9 \times 10^{11}}" in text  # T of the all-reduce, in B and F
