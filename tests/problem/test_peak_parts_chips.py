"""Issue 36 item 6: a chip's units/clock rows (``--peak-from chip``) and ``--unknown clock``
with a target peak. Expected values are the products and quotients computed here."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from derive.problem.chips import get_chip
from tests.conftest import run_cli


@pytest.mark.parametrize(
    ("chip", "units", "per_clock", "clock"),
    [
        ("h100", 132, 4096, Fraction(183, 100) * 10**9),
        ("a100", 108, 2048, Fraction(141, 100) * 10**9),
    ],
)
def test_peak_from_the_chips_rows(chip, units, per_clock, clock):
    r = run_cli(
        [
            "solve",
            "--flops",
            "1e12",
            "--bytes",
            "1e9",
            "--chip",
            chip,
            "--peak-from",
            "chip",
            "--format",
            "json",
        ]
    )
    assert r.code == 0, r
    data = json.loads(r.out)
    assert Fraction(data["peak_from"]["peak"]) == units * per_clock * clock
    # within 0.1 % of the datasheet's rounded peak, which stays the chip's own figure
    datasheet = Fraction(str(dict(get_chip(chip).peaks)["bf16"].value))
    assert abs(units * per_clock * clock / datasheet - 1) < Fraction(1, 1000)
    rows = dict(get_chip(chip).parts)
    assert all(rows[k].source for k in ("units", "bf16_flops_per_clock", "clock_hz"))


def test_clock_solved_from_a_target_peak():
    argv = [
        "solve",
        "--peak-from",
        "units=132,flops_per_clock=4096",
        "--equation",
        "peak = 989.4e12 FLOP/s",
        "--unknown",
        "clock",
        "--format",
        "json",
    ]
    r = run_cli(argv)
    assert r.code == 0, r
    clock = Fraction(json.loads(r.out)["defined"]["clock"]["exact"])
    assert clock == Fraction(9894, 10) * 10**12 / (132 * 4096)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (
            ["solve", "--flops", "1e12", "--bytes", "1e9", "--chip", "v100", "--peak-from", "chip"],
            "--peak-from chip",
        ),
        (["solve", "--flops", "1e12", "--bytes", "1e9", "--peak-from", "chip"], "--peak-from chip"),
        (
            [
                "solve",
                "--peak-from",
                "units=132,flops_per_clock=4096,clock=1e9",
                "--equation",
                "peak = 1e15 FLOP/s",
                "--unknown",
                "clock",
            ],
            "--unknown clock",
        ),
        (
            ["solve", "--peak-from", "units=132,flops_per_clock=4096", "--unknown", "clock"],
            "--unknown clock",
        ),
        (
            [
                "solve",
                "--peak-from",
                "units=132",
                "--equation",
                "peak = 1e15 FLOP/s",
                "--unknown",
                "clock",
            ],
            "--peak-from",
        ),
    ],
)
def test_bad_peak_inputs_are_one_line(argv, named):
    r = run_cli(argv)
    assert r.code == 2 and r.out == "" and r.err.count("\n") == 1 and named in r.err, r
