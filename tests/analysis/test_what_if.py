"""What-ifs on a measured step (issue 36): --profile and --speedup, Amdahl's law, against
hand computations with Fractions."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import run_cli

_MATMUL = ["solve", "matmul", "--dtype", "bf16", "--chip", "h100"]
_MATMUL += ["--set", "B=4096", "--set", "D=4096", "--set", "F=4096"]
_PROFILE = "gemm=0.62,attention=0.2,other=0.18"


def test_amdahl_update_of_a_70ms_step_on_solve():
    r = run_cli([*_MATMUL, "--measured-time", "70ms", "--profile", _PROFILE,
                 "--speedup", "gemm=1.8", "--format", "json"])  # fmt: skip
    assert r.code == 0, r.err
    w = json.loads(r.out)["what_if"]
    remaining = Fraction(62, 100) / Fraction(18, 10) + Fraction(20, 100) + Fraction(18, 100)
    assert Fraction(w["time"]) == Fraction(70, 1000) * remaining
    assert Fraction(w["speedup"]) == 1 / remaining
    assert Fraction(w["limit"]) == 1 / (1 - Fraction(62, 100))
    assert w["rate"] is None


def test_a_measured_rate_on_model_scales_by_the_speedup():
    r = run_cli(
        ["model", "llama-3-8b", "--chip", "h100", "--devices", "8", "--tp", "8", "--phase",
         "decode", "--set", "B=64", "--set", "S=4096", "--measured-tokens-per-s", "20000",
         "--profile", "gemm=62%,attention=20%,other=18%", "--speedup", "gemm=1.8,attention=2",
         "--format", "json"]
    )  # fmt: skip
    assert r.code == 0, r.err
    w = json.loads(r.out)["what_if"]
    remaining = Fraction(62, 100) / Fraction(9, 5) + Fraction(20, 100) / 2 + Fraction(18, 100)
    assert Fraction(w["rate"]) == 20000 / remaining
    assert Fraction(w["limit"]) == 1 / Fraction(18, 100)
    assert w["time"] is None


def test_every_class_sped_up_has_no_limit():
    r = run_cli([*_MATMUL, "--measured-time", "10ms", "--profile", "a=0.5,b=0.5",
                 "--speedup", "a=2,b=4", "--format", "json"])  # fmt: skip
    w = json.loads(r.out)["what_if"]
    assert w["limit"] is None
    assert Fraction(w["speedup"]) == 1 / (Fraction(1, 4) + Fraction(1, 8))


def test_the_steps_show_amdahl():
    r = run_cli(
        [*_MATMUL, "--measured-time", "70ms", "--profile", _PROFILE, "--speedup", "gemm=1.8"]
    )
    assert r.code == 0 and "What-if (Amdahl)" in r.out and "S_{\\max}" in r.out


@pytest.mark.parametrize(
    ("more", "flag"),
    [
        (["--profile", "gemm=0.6,other=0.3", "--speedup", "gemm=2"], "--profile"),
        (["--profile", "gemm=0.6,other=0.4", "--speedup", "tensor=2"], "--speedup"),
        (["--profile", "gemm=0.6,other=0.4"], "--profile"),
        (["--speedup", "gemm=2"], "--speedup"),
        (["--profile", "gemm=0.6,other=0.4", "--speedup", "gemm=0"], "--speedup"),
        (["--profile", "gemm=1,gemm=0", "--speedup", "gemm=2"], "--profile"),
        (["--profile", "gemm", "--speedup", "gemm=2"], "--profile"),
    ],
)
def test_bad_what_if_is_one_line_naming_the_flag(more, flag):
    r = run_cli([*_MATMUL, "--measured-time", "70ms", *more])
    assert r.code == 2 and flag in r.err and r.err.count("\n") == 1, r.err


def test_a_what_if_needs_a_measurement():
    r = run_cli([*_MATMUL, "--profile", _PROFILE, "--speedup", "gemm=2"])
    assert r.code == 2 and "--measured-time" in r.err
