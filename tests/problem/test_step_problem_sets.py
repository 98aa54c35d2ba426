"""Problem sets take the timing keys and ask for the step, collectives and measured runs."""

from __future__ import annotations

from tests.conftest import run_cli

SET = """
title = "Steps"

[[problem]]
id = "block"
title = "A block, kernel by kernel"
operator = "transformer_block"
dtype = "bf16"
chip = "h100"
set = { B = 8, T = 512, S = 512, d_model = 4096, d_ff = 11008, N = 32, K = 32, H = 128 }
launch_overhead = "5us"
ask = ["step", "bounds"]

[[problem]]
id = "measured"
title = "What a measured time implies"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 4096, D = 4096, F = 4096 }
measured_time = "200us"
ask = ["measured"]
"""


def test_a_set_asks_for_the_step_and_a_measurement(tmp_path):
    path = tmp_path / "steps.toml"
    path.write_text(SET)
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 0, result
    key = (tmp_path / "out" / "steps.md").read_text()
    assert "Time of the step" in key and "up+act+down (fused)" in key
    assert "launch overhead" in key
    assert "Measured run" in key and r"\text{MFU}" in key
    assert "Crossover" not in key  # only what was asked


def test_a_bad_timing_key_names_the_problem(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(SET.replace('measured_time = "200us"', 'measured_time = "0"'))
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 2 and result.err.count("\n") == 1, result
    assert "problem 'measured': key 'measured_time' (0): " in result.err  # the key, not the flag
    assert "--" not in result.err
