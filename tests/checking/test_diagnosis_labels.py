"""Diagnoses speak the answer box's label and the value in its unit (issue 47, item 5).

Through the CLI, for a model, a decode step, a cost, a training run and a what-if: the
diagnosis of a wrong number names the quantity as its box does (never its JSON name),
states the value in the box's unit (never a raw rational) and says by how much the claim
is low or high; the exact rational stays in the JSON (``expected``), on request.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from conftest import ROOT, run_cli

GRADED = ROOT / "tests" / "sets" / "graded.toml"
WHAT_IF = """
[[problem]]
id = "amdahl"
what_if = { profile = "gemm=0.62,attention=0.2,other=0.18", speedup = "gemm=1.8", measured_time = "70 ms" }
"""
_RATIONAL = re.compile(r"\d+/\d+")


def _check(*argv: str) -> tuple[int, str, dict]:
    r = run_cli(["check", *argv])
    data = json.loads(run_cli(["check", *argv, "--format", "json"]).out)
    return r.code, r.out, data


@pytest.mark.parametrize(
    "problem, quantity, label, unit",
    [
        ("qwen-params", "params", "the total number of parameters is", "parameters"),
        (
            "qwen-params",
            "kv_bytes_per_token",
            "the KV-cache bytes per token of context is",
            "kB/token",
        ),
        ("qwen-decode", "t_lower", "the lower bound of the step's time is", " ms"),
        ("qwen-decode", "tokens_per_s", "the decode rate is", "tokens/s"),
        ("qwen-cost", "cost_per_million_tokens", "the cost per million tokens is $", ""),
        ("train-8b", "memory_per_device", "the memory per device is", " GB"),
        ("train-8b", "t_lower", "the lower bound of the step's time is", " s;"),
    ],
)
def test_a_wrong_number_is_told_in_the_box_words(problem, quantity, label, unit):
    where = ("--problem-set", str(GRADED), "--problem", problem, "--quantity", quantity)
    exact = Fraction(_check(*where, "--claim", "1")[2]["expected"])
    claim = f"{float(exact) * 0.9:.4g}"  # 10 % low, as a bare number in the quantity's unit
    code, _, data = _check(*where, "--claim", claim)
    (said,) = data["diagnosis"]
    assert code == 1 and said.startswith(label) and unit in said, said
    assert quantity not in said and not _RATIONAL.search(said), said
    assert said.endswith(f"; {claim} is {data['relative_error']} low"), said
    assert Fraction(data["expected"]) == exact  # the exact value, on request
    right = _check(*where, "--claim", str(exact))
    assert right[0] == 0 and quantity not in right[2]["diagnosis"][0], right[2]["diagnosis"]
    hidden = run_cli(["check", *where, "--claim", claim, "--hide-expected"])
    assert (
        "%" not in hidden.out and label.removesuffix(" is") not in hidden.out.split("diagnosis")[-1]
    )


def test_a_what_if_states_its_value_and_its_side(tmp_path):
    path = tmp_path / "what-if.toml"
    path.write_text(WHAT_IF)
    where = ("--problem-set", str(path), "--problem", "amdahl", "--quantity", "what_if_time")
    time = Fraction(70, 1000) * (Fraction(62, 100) / Fraction(18, 10) + Fraction(38, 100))
    code, _, data = _check(*where, "--claim", f"{float(time) * 1000 * 1.1:.2f} ms")
    (said,) = data["diagnosis"]
    assert code == 1 and said.startswith(f"the new step time is {float(time) * 1000:.2f} ms; ")
    assert said.endswith(f"is {data['relative_error']} high") and "what_if_time" not in said
    near = _check(*where, "--claim", f"{float(time) * 1000:.3f} ms")[2]["diagnosis"][0]
    assert near.startswith("right to 1%: the exact new step time is") and "ms" in near, near
