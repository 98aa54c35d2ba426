"""Money and energy (issue 36): a price per device-hour and a power per device on a model's
training run and serving step, against hand computations with Fractions."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from derive.errors import ProblemError
from derive.problem.money import read_power, read_price
from tests.conftest import run_cli


@pytest.mark.parametrize(
    ("text", "dollars_per_hour"),
    [
        ("2.49", Fraction(249, 100)),
        ("$2.49", Fraction(249, 100)),
        ("2.49 $/h", Fraction(249, 100)),
        ("2.49 USD/hour", Fraction(249, 100)),
        ("$2.49/h", Fraction(249, 100)),
        ("0.05 $/min", Fraction(5, 100) * 60),
        ("0.001 $/s", Fraction(1, 1000) * 3600),
    ],
)
def test_price_is_read_exactly_as_dollars_per_device_hour(text, dollars_per_hour):
    assert Fraction(str(read_price(text, "--price-per-hour").value)) == dollars_per_hour


@pytest.mark.parametrize(("text", "watts"), [("700", 700), ("700 W", 700), ("0.7 kW", 700)])
def test_power_is_read_exactly_in_watts(text, watts):
    assert read_power(text, "--power").value == watts


@pytest.mark.parametrize(
    ("flag", "text"),
    [
        ("--price-per-hour", "-2.49"),
        ("--price-per-hour", "2.49 GB"),
        ("--price-per-hour", "cheap"),
        ("--power", "-700"),
        ("--power", "700 $"),
    ],
)
def test_bad_price_or_power_is_one_line_naming_the_flag(flag, text):
    with pytest.raises(ProblemError):
        (read_price if flag == "--price-per-hour" else read_power)(text, flag)
    r = run_cli(["model", "--params", "7e9", "--devices", "8", flag, text])
    assert r.code == 2
    assert r.err.count("\n") == 1 and flag in r.err and "Traceback" not in r.err


_N, _P, _D, _PEAK, _MFU = 1024, 70 * 10**9, 2 * 10**12, 989 * 10**12, Fraction(2, 5)
_PRICE, _WATTS = Fraction(249, 100), 700


def _training_json(*more: str) -> dict:
    argv = ["model", "--params", "70e9", "--peak", "9.89e14", "--devices", str(_N)]
    argv += ["--train-tokens", "2e12", "--mfu", "0.4", "--format", "json", *more]
    r = run_cli(argv)
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_training_bill_and_energy_by_hand():
    out = _training_json("--price-per-hour", "2.49 $/h", "--power", "700 W")
    seconds = Fraction(6 * _P * _D) / (_N * _PEAK * _MFU)
    cost = _PRICE * _N * seconds / 3600
    energy = _WATTS * _N * seconds
    assert Fraction(out["cost_of_run"]["exact"]) == cost
    assert out["cost_of_run"]["unit"] == "$"
    assert Fraction(out["cost_per_million_tokens"]["exact"]) == cost * 10**6 / _D
    assert Fraction(out["energy_of_run"]["exact"]) == energy
    assert out["energy_of_run"]["unit"] == "J"
    assert Fraction(out["energy_per_token"]["exact"]) == energy / _D


def test_without_a_price_the_keys_are_null():
    out = _training_json()
    assert out["cost_of_run"] is None and out["energy_of_run"] is None


def test_training_steps_name_the_bill():
    r = run_cli(
        ["model", "--params", "70e9", "--peak", "9.89e14", "--devices", "1024",
         "--train-tokens", "2e12", "--mfu", "0.4", "--price-per-hour", "$2.49"]
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "Cost and energy" in r.out and "3600" in r.out


_SERVE = [
    "model", "llama-3-8b", "--chip", "h100", "--devices", "8", "--tp", "8", "--phase", "decode",
    "--set", "B=64", "--set", "S=4096",
]  # fmt: skip


def test_serving_step_cost_per_million_tokens_by_hand():
    r = run_cli([*_SERVE, "--price-per-hour", "$2.49", "--power", "0.7 kW", "--format", "json"])
    assert r.code == 0, r.err
    serving = json.loads(r.out)["serving"]
    rate = Fraction(serving["tokens_per_s"])
    t_step = Fraction(serving["step"]["t_lower"])
    assert rate == 64 / t_step  # one token per sequence per step
    assert Fraction(serving["cost_per_million_tokens"]) == 10**6 * _PRICE * 8 / (3600 * rate)
    assert Fraction(serving["cost_per_step"]) == _PRICE * 8 * t_step / 3600
    assert Fraction(serving["energy_per_token"]) == Fraction(700 * 8) / rate


def test_serving_cost_is_checked_like_any_quantity():
    exact = 10**6 * _PRICE * 8 / 3600
    r = run_cli([*_SERVE, "--price-per-hour", "$2.49", "--format", "json"])
    rate = Fraction(json.loads(r.out)["serving"]["tokens_per_s"])
    claim = f"{float(exact / rate):.4g}"
    argv = ["check", *_SERVE[1:], "--price-per-hour", "$2.49"]
    ok = run_cli([*argv, "--quantity", "cost_per_million_tokens", "--claim", claim])
    assert ok.code == 0, ok.out + ok.err
    wrong = run_cli(
        [
            *argv,
            "--quantity",
            "cost_per_million_tokens",
            "--claim",
            f"{float(10 * exact / rate):.4g}",
        ]
    )
    assert wrong.code == 1


_TRAIN = [
    "train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--zero", "1",
    "--batch-tokens", "4194304", "--seq", "4096",
]  # fmt: skip


def test_train_bill_per_step_and_run_by_hand():
    r = run_cli(
        [*_TRAIN, "--train-tokens", "15e12", "--price-per-hour", "2.49 $/h", "--power", "700",
         "--format", "json"]
    )  # fmt: skip
    assert r.code == 0, r.err
    out = json.loads(r.out)
    t, tokens, steps = Fraction(out["t_lower"]), 4194304, Fraction(15 * 10**12, 4194304)
    per_step = _PRICE * 8 * t / 3600
    assert Fraction(out["cost_per_step"]) == per_step
    assert Fraction(out["cost_per_million_tokens"]) == 10**6 * per_step / tokens
    assert Fraction(out["cost_of_run"]) == steps * per_step
    assert Fraction(out["energy_per_token"]) == Fraction(700 * 8) * t / tokens
    assert Fraction(out["energy_of_run"]) == steps * 700 * 8 * t


def test_train_bill_uses_the_measured_step_and_has_no_run_without_its_tokens():
    r = run_cli(
        [*_TRAIN, "--measured-step-time", "40s", "--price-per-hour", "$2", "--format", "json"]
    )
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert Fraction(out["cost_per_step"]) == Fraction(2 * 8 * 40, 3600)
    assert out["cost_of_run"] is None and out["energy_per_token"] is None


def test_train_negative_power_is_one_line():
    r = run_cli([*_TRAIN, "--power", "-1 W"])
    assert r.code == 2 and "--power" in r.err and r.err.count("\n") == 1
