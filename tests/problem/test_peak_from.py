"""A peak from the parts (issue 36): --peak-from units × FLOPs per clock × clock, exact."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from derive.errors import DeriveError
from derive.problem.peak_parts import read_peak_parts
from tests.conftest import run_cli

_PARTS = "units=132,flops_per_clock=1024,clock=1.83e9"
_PEAK = 132 * 1024 * 183 * 10**7  # 1.83e9 Hz


def test_the_peak_is_the_exact_product():
    assert read_peak_parts(_PARTS).peak == _PEAK
    assert read_peak_parts("clock=1830 MHz,units=132,flops_per_clock=1024").peak == _PEAK


def test_a_1e12_flop_kernel_at_a_peak_from_the_parts():
    r = run_cli(["solve", "--flops", "1e12", "--bandwidth", "3.35e12", "--peak-from", _PARTS,
                 "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert Fraction(out["peak"]) == _PEAK
    assert Fraction(out["step"]["t_lower"]) == Fraction(10**12, _PEAK)
    assert out["peak_from"] == {"units": "132", "flops_per_clock": "1024",
                                "clock": str(183 * 10**7), "peak": str(_PEAK)}  # fmt: skip


def test_the_steps_show_the_product_on_solve_and_model():
    r = run_cli(["solve", "matmul", "--dtype", "bf16", "--bandwidth", "3.35e12",
                 "--peak-from", _PARTS, "--set", "B=64", "--set", "D=64", "--set", "F=64"])  # fmt: skip
    assert r.code == 0 and "Peak from the parts" in r.out
    r = run_cli(["model", "--params", "7e9", "--peak-from", _PARTS, "--train-tokens", "1e12",
                 "--mfu", "0.5", "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    out = json.loads(r.out)
    seconds = Fraction(6 * 7 * 10**9 * 10**12) / (_PEAK * Fraction(1, 2))
    assert Fraction(out["train_seconds"]["exact"]) == seconds
    assert out["peak_from"]["peak"] == str(_PEAK)


@pytest.mark.parametrize(
    "text",
    ["units=132", "units=132,flops_per_clock=1024,clock=0", "cores=1,flops_per_clock=1,clock=1",
     "units=1,units=2,flops_per_clock=1,clock=1"],
)  # fmt: skip
def test_bad_parts_are_one_line_naming_the_flag(text):
    with pytest.raises(DeriveError):
        read_peak_parts(text)
    r = run_cli(["solve", "--flops", "1e12", "--bandwidth", "1e12", "--peak-from", text])
    assert r.code == 2 and "--peak-from" in r.err and r.err.count("\n") == 1, r.err


def test_peak_from_beside_a_chip_is_refused():
    r = run_cli(["solve", "--flops", "1e12", "--chip", "h100", "--peak-from", _PARTS])
    assert r.code == 2 and "--peak-from" in r.err
