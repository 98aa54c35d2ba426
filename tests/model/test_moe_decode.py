"""A MoE decode step reads the experts its tokens touch (issue 24, item 5).

Mixtral 8x7B's shapes (32 layers, d = 4096, f = 14336, 8 experts, top 2, bf16) and the
convention derive states: each layer reads min(E, k·T) experts' weights for T tokens in
flight (at least k; uniform routing expects E·(1 − (1 − k/E)^T)). The expected bytes are
counted here by hand, in Fractions.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import run_cli

LAYERS, D, FF, E, K, W = 32, 4096, 14336, 8, 2, 2


def _serve(batch: int) -> dict:
    argv = ["model", "mixtral-8x7b", "--chip", "h100", "--phase", "decode"]
    argv += ["--set", f"B={batch}", "--set", "S=4096", "--format", "json"]
    result = run_cli(argv)
    assert result.code == 0, result.err
    return json.loads(result.out)["serving"]


def _expert_bytes(t: int) -> int:
    """Bytes of the three expert matmuls of every layer at T = t tokens, by hand."""
    read = min(E, K * t)
    gate = t * D * W + read * D * FF * W + t * K * FF * W
    up = gate
    down = t * FF * W + read * FF * D * W + t * K * D * W
    return LAYERS * (gate + up + down)


@pytest.mark.parametrize("batch", [1, 2, 4, 64])
def test_decode_reads_min_of_e_and_k_times_b_experts(batch):
    serving = _serve(batch)
    kernels = {k["parts"][0]: k for k in serving["step"]["kernels"]}
    moved = sum(int(kernels[f"experts_{n}"]["bytes"]) for n in ("gate", "up", "down"))
    assert moved == _expert_bytes(batch)
    read = serving["experts_read"]
    assert read["lower"] == str(K)
    assert read["upper"] == str(min(E, K * batch))
    uniform = E * (1 - (1 - Fraction(K, E)) ** batch)
    assert Fraction(read["uniform"]) == uniform
    assert K <= uniform <= min(E, K * batch)


def test_mixtral_decode_at_batch_1_reads_top_k_experts():
    serving = _serve(1)
    assert serving["experts_read"]["read"] == str(K)
    kernels = {k["parts"][0]: k for k in serving["step"]["kernels"]}
    moved = sum(int(kernels[f"experts_{n}"]["bytes"]) for n in ("gate", "up", "down"))
    activations = LAYERS * W * (2 * (D + K * FF) + FF + K * D)
    assert moved - activations == LAYERS * 3 * K * D * FF * W  # 2 of the 8 experts' weights
    # tokens/s follows: one token per step at the lower bound
    assert Fraction(serving["tokens_per_s"]) == 1 / Fraction(serving["step"]["t_lower"])


def test_the_step_names_both_bounds_and_the_uniform_expectation():
    result = run_cli(
        ["model", "mixtral-8x7b", "--chip", "h100", "--phase", "decode"]
        + ["--set", "B=1", "--set", "S=4096"]
    )
    assert result.code == 0, result.err
    assert "Experts read per layer" in result.out
    assert "at least k = 2" in result.out and "min(E, k·T)" in result.out
    assert "Uniform routing" in result.out


def test_the_decode_crossover_is_on_the_branch_that_reads_every_expert():
    serving = _serve(1)
    cross = serving["crossover"]
    assert cross["status"] == "crosses"
    assert int(cross["min_compute_bound"]) * K >= E
