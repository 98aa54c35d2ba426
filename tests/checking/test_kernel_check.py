"""derive check judges a kernel given by its numbers (``--flops``/``--bytes`` or ``--intensity``).

Every expected value is computed here with Fractions from the counts and the datasheet
figures (H100: 989e12 FLOP/s bf16 dense, 1.979e15 sparse, 3.35e12 B/s; A100: 312e12
dense, 624e12 sparse, 2.039e12 B/s), the efficiency, the launch overhead and the measured
time: T_math = FLOPs/(π·η), T_mem = bytes/(β·η), T_lower = max(T_math, T_mem) + launch,
T_upper = T_math + T_mem + launch, attainable = min(π·η, I·β·η), MFU = FLOPs/(t·π).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import derive
from derive.errors import ProblemError
from derive.problem.timing import TimingSpec
from tests.conftest import run_cli

PEAK, SPARSE, HBM = Fraction(989 * 10**12), Fraction(1979 * 10**12), Fraction(335 * 10**10)
FLOPS, BYTES = Fraction(10**12), Fraction(25 * 10**8)
ETA, LAUNCH, MEASURED = Fraction(4, 5), Fraction(1, 10**4), Fraction(3, 1000)
KERNEL = ["--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100"]
ROOFLINES = Path(derive.__file__).parent / "data" / "problems" / "rooflines.toml"
TIMED = [*KERNEL, "--efficiency", "0.8", "--launch-overhead", "100us", "--measured-time", "3ms"]

T_MATH, T_MEM = FLOPS / (PEAK * ETA), BYTES / (HBM * ETA)
EXPECTED = {
    "intensity": FLOPS / BYTES,
    "ridge": PEAK / HBM,
    "effective_ridge": PEAK * ETA / (HBM * ETA),
    "attainable": min(PEAK * ETA, FLOPS / BYTES * HBM * ETA),
    "fraction_of_peak": min(PEAK * ETA, FLOPS / BYTES * HBM * ETA) / PEAK,
    "t_math": T_MATH,
    "t_mem": T_MEM,
    "t_lower": max(T_MATH, T_MEM) + LAUNCH,
    "t_upper": T_MATH + T_MEM + LAUNCH,
    "mfu": FLOPS / MEASURED / PEAK,
    "mbu": BYTES / MEASURED / HBM,
}


def _check(argv: list[str]) -> tuple[int, dict]:
    result = run_cli(["check", *argv, "--format", "json"])
    assert result.code in (0, 1), result
    return result.code, json.loads(result.out)


def _diagnosis(argv: list[str], quantity: str, claim: Fraction | str) -> list[str]:
    text = claim if isinstance(claim, str) else f"{float(claim):.9g}"
    code, out = _check([*argv, "--quantity", quantity, "--claim", text])
    assert code == 1 and out["verdict"] == "incorrect", out
    return out["diagnosis"]


@pytest.mark.parametrize("quantity", sorted(EXPECTED))
def test_every_quantity_of_a_timed_measured_kernel_is_judged_exactly(quantity):
    value = EXPECTED[quantity]
    code, out = _check([*TIMED, "--quantity", quantity, "--claim", f"{float(value):.9g}"])
    assert code == 0 and out["verdict"] == "correct", out
    assert Fraction(out["expected"]) == value
    assert out["kernel"]["chip"] == "h100" and Fraction(out["kernel"]["flops"]) == FLOPS
    code, off = _check([*TIMED, "--quantity", quantity, "--claim", f"{float(value * 3):.9g}"])
    assert code == 1 and off["verdict"] == "incorrect" and off["diagnosis"], off


def test_the_command_of_the_issue_is_judged_not_refused():
    result = run_cli(["check", *KERNEL, "--quantity", "t_lower", "--claim", "1"])
    assert result.code == 1 and result.err == ""
    assert "verdict: incorrect" in result.out and "expected: 1/989" in result.out
    assert Fraction(1, 989) == FLOPS / PEAK and FLOPS / PEAK > BYTES / HBM


def test_units_are_read_as_for_other_claims():
    t_lower = FLOPS / PEAK  # no efficiency, no overhead: compute-bound
    for claim in (f"{float(t_lower) * 1e3:.6g} ms", f"{float(t_lower) * 1e6:.6g} µs"):
        code, out = _check([*KERNEL, "--quantity", "t_lower", "--claim", claim])
        assert code == 0, (claim, out)
    code, out = _check([*KERNEL, "--quantity", "attainable", "--claim", "989 TFLOP/s"])
    assert code == 0 and out["matched"] == "exact" and Fraction(out["expected"]) == PEAK
    code, out = _check([*KERNEL, "--quantity", "t_math", "--claim", "\\frac{10^{12}}{\\pi}"])
    assert code == 0 and out["matched"] == "exact"
    code, out = _check([*KERNEL, "--quantity", "intensity", "--claim", "I = 400 FLOPs/byte"])
    assert code == 0
    wrong = _diagnosis(KERNEL, "t_lower", "5 GB")
    assert wrong == ["the unit GB is a byte count; the lower bound T_lower is a time in s"]
    seconds = _diagnosis(KERNEL, "t_lower", f"{float(t_lower) * 1e3:.6g} s")
    assert seconds[0].startswith("the number is right in ms, but you wrote s")
    named = _diagnosis(KERNEL, "t_lower", "T_{upper} = 1.0111 ms")
    assert "names the upper bound T_upper, but the quantity asked is the lower bound" in named[0]
    code, out = _check(
        [*TIMED, "--quantity", "mfu", "--claim", f"{float(EXPECTED['mfu']) * 100:.4f}%"]
    )
    assert code == 0, out


def test_one_flop_per_multiply_add_is_named():
    mac = "MACs counted as one FLOP"
    assert mac in _diagnosis(TIMED, "t_math", T_MATH / 2)[-1]
    assert mac in _diagnosis(KERNEL, "intensity", FLOPS / 2 / BYTES)[0]
    assert any(mac in d for d in _diagnosis(TIMED, "mfu", FLOPS / 2 / MEASURED / PEAK))
    halved = max(T_MATH / 2, T_MEM) + LAUNCH
    assert any(mac in d for d in _diagnosis(TIMED, "t_lower", halved))


def test_the_serial_sum_given_for_the_overlapped_bound_is_named():
    said = _diagnosis(TIMED, "t_lower", T_MATH + T_MEM + LAUNCH)
    assert said[0].startswith("this is T_upper, every time added with nothing overlapped"), said
    said = _diagnosis(TIMED, "t_upper", max(T_MATH, T_MEM) + LAUNCH)
    assert said[0].startswith("this is the lower bound"), said


def test_the_launch_overhead_and_the_efficiency_left_out_are_named():
    said = _diagnosis(TIMED, "t_lower", max(T_MATH, T_MEM))
    assert said[0].startswith("the launch overhead is left out"), said
    assert not any("single roofline" in d for d in said)  # one kernel: its own roofline
    nominal = max(FLOPS / PEAK, BYTES / HBM) + LAUNCH
    assert "nominal ceilings" in _diagnosis(TIMED, "t_lower", nominal)[0]
    assert "nominal ceilings" in _diagnosis(TIMED, "t_math", FLOPS / PEAK)[0]
    half = [*KERNEL, "--compute-efficiency", "0.5"]
    code, out = _check(
        [*half, "--quantity", "effective_ridge", "--claim", f"{float(PEAK / 2 / HBM):.9g}"]
    )
    assert code == 0 and Fraction(out["expected"]) == PEAK / 2 / HBM
    assert "the nominal ridge" in _diagnosis(half, "effective_ridge", PEAK / HBM)[0]
    assert "derated ridge" in _diagnosis(half, "ridge", PEAK / 2 / HBM)[0]
    assert "derated peak" in _diagnosis(TIMED, "mfu", FLOPS / MEASURED / (PEAK * ETA))[0]


def test_a_sparse_peak_is_named():
    a100 = ["--flops", "1e12", "--bytes", "2.5e9", "--chip", "a100", "--measured-time", "5ms"]
    dense, sparse = Fraction(312 * 10**12), Fraction(624 * 10**12)
    assert any(
        "sparse figure" in d for d in _diagnosis(a100, "mfu", FLOPS / Fraction(5, 1000) / sparse)
    )
    assert any("sparse figure" in d for d in _diagnosis(a100, "t_math", FLOPS / sparse))
    code, out = _check([*a100, "--quantity", "t_math", "--claim", f"{float(FLOPS / dense):.9g}"])
    assert code == 0 and Fraction(out["expected"]) == FLOPS / dense


def test_roofline_slips_are_named():
    ridge = PEAK / HBM
    assert "inverse of the ridge point" in _diagnosis(KERNEL, "ridge", 1 / ridge)[0]
    assert "inverse of the intensity" in _diagnosis(KERNEL, "intensity", BYTES / FLOPS)[0]
    # memory-bound at I = 20: attainable is I·β, and π is the larger ceiling
    low = ["--intensity", "20", "--chip", "h100"]
    code, out = _check([*low, "--quantity", "attainable", "--claim", f"{float(20 * HBM):.9g}"])
    assert code == 0 and Fraction(out["expected"]) == 20 * HBM
    assert "the larger of the two ceilings" in _diagnosis(low, "attainable", PEAK)[0]
    percent = _diagnosis(low, "fraction_of_peak", 20 * HBM / PEAK * 100)
    assert "percentage written without the % sign" in percent[0]
    assert "power of ten" in _diagnosis(KERNEL, "intensity", Fraction(4000))[0]


def test_hide_expected_keeps_the_answer_back():
    value = T_MATH + T_MEM + LAUNCH
    result = run_cli(
        ["check", *TIMED, "--quantity", "t_lower", "--claim", f"{float(value):.9g}",
         "--hide-expected", "--format", "json"]
    )  # fmt: skip
    out = json.loads(result.out)
    assert result.code == 1 and out["expected"] is None and out["expected_hidden"]
    assert out["diagnosis"] and not any("exact is" in d for d in out["diagnosis"])


def test_python_api_checks_a_kernel_spec():
    spec = derive.KernelSpec(
        flops="1e12",
        bytes="2.5e9",
        chip="h100",
        timing=TimingSpec(efficiency="0.8", launch_overhead="100us", measured_time="3ms"),
    )
    result = derive.check(spec, "t_lower", f"{float(EXPECTED['t_lower']):.9g} s")
    assert result.verdict is derive.Verdict.CORRECT
    result = derive.check(spec, "mbu", "0.5")
    assert result.verdict is derive.Verdict.INCORRECT and result.expected is not None
    assert derive.check(spec, "ridge", "1 +").verdict is derive.Verdict.UNREADABLE
    with pytest.raises(ProblemError, match="needs both counts"):
        derive.check(derive.KernelSpec(intensity="20", chip="h100"), "t_lower", "1")
    with pytest.raises(ProblemError, match="only single claims"):
        derive.check_derivation(spec, "T = 1")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["matmul", *KERNEL, "--quantity", "t_lower", "--claim", "1"], "not both"),
        ([*KERNEL, "--quantity", "crossover", "--claim", "1"], "its quantities are intensity"),
        (["--intensity", "20", "--chip", "h100", "--quantity", "t_mem", "--claim", "1"], "both counts"),
        ([*KERNEL, "--quantity", "mfu", "--claim", "0.3"], "measured run"),
        (["matmul", "--chip", "h100", "--quantity", "effective_ridge", "--claim", "1"], "a kernel by its numbers"),
        ([*KERNEL, "--set", "B=3", "--quantity", "t_lower", "--claim", "1"], "has no dims"),
        ([*KERNEL, "--chain", "steps.tex"], "one quantity at a time"),
        ([*KERNEL, "--problem-set", "x.toml", "--problem", "q1", "--quantity", "t_lower", "--claim", "1"], "not both"),
        ([*KERNEL, "--quantity", "t_lower", "--claim", "1 +"], "position"),
        ([*KERNEL, "--quantity", "t_lower", "--claim", "B"], "no dims"),
        (["--flops", "0", "--bytes", "0", "--chip", "h100", "--quantity", "t_lower", "--claim", "1"], "--flops 0 --bytes 0"),
        ([*KERNEL, "--quantity", "t_lower"], "exactly one of --claim"),
        ([*KERNEL, "--link-latency", "1us", "--quantity", "t_lower", "--claim", "1"], "no collective"),
        (["--problem-set", str(ROOFLINES), "--problem", "kernel-h100-measured", "--quantity", "t_lower",
          "--claim", "1/989 s", "--efficiency", "0.5"], "fixes the problem's numbers"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(argv, says):
    result = run_cli(["check", *argv])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert says in result.err


def test_a_kernel_spec_without_timing_is_one_with_none():
    """``timing=None`` is "no timing": the same kernel, the same value, no traceback."""
    untimed = derive.KernelSpec(flops="1e12", bytes="2.5e9", chip="h100", timing=None)
    assert untimed == derive.KernelSpec(flops="1e12", bytes="2.5e9", chip="h100")
    assert untimed.timing == TimingSpec()


@pytest.mark.parametrize(
    ("timing", "what", "says"),
    [
        (TimingSpec(measured_tokens_per_s="5"), "--measured-tokens-per-s", "no tokens"),
        (TimingSpec(link_latency="1us"), "--link-latency", "no collective"),
        ("0.8", "KernelSpec timing", "expected a TimingSpec"),
    ],
)
def test_a_kernel_spec_refuses_timing_it_cannot_use(timing, what, says):
    """A kernel has no tokens and no collective: such timing would be silently ignored."""
    with pytest.raises(ProblemError) as caught:
        derive.KernelSpec(flops="1e12", bytes="2.5e9", chip="h100", timing=timing)
    assert caught.value.what == what and says in caught.value.why
    assert "\n" not in str(caught.value)


def test_a_measured_time_of_a_kernel_by_its_intensity_alone_is_refused():
    """With only I, a time divides no count; a measured rate still gives MFU or MBU."""
    with pytest.raises(ProblemError, match="intensity alone"):
        derive.KernelSpec(intensity="20", chip="h100", timing=TimingSpec(measured_time="1ms"))
    spec = derive.KernelSpec(
        intensity="20", chip="h100", timing=TimingSpec(measured_flops_per_s="1e13")
    )
    mfu = Fraction(10**13) / PEAK
    assert derive.check(spec, "mfu", str(mfu)).verdict.value == "correct"
