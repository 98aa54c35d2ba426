"""Exact where the answer is exact (issue 33, item 1): integer counts and thresholds have no tolerance.

A crossover is a real number judged within the tolerance; the smallest compute-bound
integer, and a count defined by a floor or a ceiling (the catalogue's
``Exactness.COUNT``), are judged exactly: the integer is right and its neighbours are wrong
however large the number. Thresholds here are recomputed from the textbook formulas
(FLOPs 2BDF, bytes Σ width × elements, ridge π/β) with Fractions.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from conftest import run_cli

import derive
from derive.catalogue import QUANTITIES, Exactness
from derive.checking.api import model_values
from derive.problem.binding import ProblemSpec
from derive.problem.model_spec import ModelSpec

V5E_PEAK, V5E_HBM, V5E_ICI = Fraction(197 * 10**12), Fraction(82 * 10**10), Fraction(45 * 10**9)
MIXED = ["check", "matmul", "--dtype", "bf16", "--dtype", "Y=int8", "--chip", "tpu-v5e"]
LEAD = MIXED + ["--regime", "B << D, F", "--quantity", "crossover"]


def _smallest(intensity, ridge) -> int:
    """The smallest positive integer x with intensity(x) ≥ ridge, by counting up."""
    x = 1
    while intensity(x) < ridge:
        x += 1
    return x


def _leading_threshold() -> int:
    """int8 weights, bf16 activations, B << D, F: I ≈ 2BDF/DF = 2B; B* = π/(2β)."""
    return math.ceil(V5E_PEAK / V5E_HBM / 2)


def _bound_threshold() -> int:
    """bf16 matmul with D = F = 4096 on a v5e: I(B) = 2BDF/(2BD + 2DF + 2BF)."""
    d = f = 4096
    return _smallest(
        lambda b: Fraction(2 * b * d * f, 2 * b * d + 2 * d * f + 2 * b * f), V5E_PEAK / V5E_HBM
    )


def _network_threshold() -> int:
    """The sharded matmul over P = 2 solved for D: its link intensity is D/2."""
    return math.ceil(2 * V5E_PEAK / V5E_ICI)


# Every integer answer derive has, with a problem that has it and the exact integer.
_OPERATOR_CASES = {
    "crossover": [
        (ProblemSpec("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F"), _leading_threshold),
        (ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e", sets=("D=4096", "F=4096")), _bound_threshold),
    ],
    "network_crossover": [
        (ProblemSpec("matmul_sharded", dtypes=("bf16",), chip="tpu-v5e", sets=("P=2",), solve_for="D"), _network_threshold),
    ],
}  # fmt: skip
_LLAMA = ModelSpec("llama-3-8b", chip="h100", sets=("S=8192", "B=16"))
_MODEL_CASES = {
    "max_batch": _LLAMA,
    "max_context": _LLAMA,
    "min_devices": ModelSpec("llama-2-70b", chip="h100", sets=("S=8192", "B=16")),
}


def test_every_integer_quantity_of_the_catalogue_has_a_case_here():
    integers = {q.name for q in QUANTITIES if q.exactness is not Exactness.MEASURE}
    assert integers == set(_OPERATOR_CASES) | set(_MODEL_CASES)


@pytest.mark.parametrize(
    "quantity,spec,threshold",
    [(q, s, t) for q, cases in _OPERATOR_CASES.items() for s, t in cases],
)
def test_a_threshold_is_exact_and_its_neighbours_wrong(quantity, spec, threshold):
    n = threshold()
    var = "D" if quantity == "network_crossover" else "B"
    right = derive.check(spec, quantity, rf"{var} \geq {n}").verdict
    assert right in (derive.Verdict.CORRECT, derive.Verdict.LEADING)
    assert derive.check(spec, quantity, rf"{var} > {n - 1}").verdict is right
    for wrong in (n - 1, n + 1):
        assert (
            derive.check(spec, quantity, rf"{var} \geq {wrong}").verdict is derive.Verdict.INCORRECT
        )


@pytest.mark.parametrize("quantity,spec", sorted(_MODEL_CASES.items()))
def test_a_count_is_exact_and_its_neighbours_wrong(quantity, spec):
    ((_, exact, _),) = model_values(spec, [quantity])
    n = int(exact)
    assert derive.check(spec, quantity, str(n)).verdict is derive.Verdict.CORRECT
    for wrong in (n - 1, n + 1):
        r = derive.check(spec, quantity, str(wrong))
        assert r.verdict is derive.Verdict.INCORRECT
        assert ("too large" if wrong > n else "too small") in r.diagnosis[0]


def test_the_smallest_compute_bound_batch_from_the_command_line():
    n = _leading_threshold()
    r = run_cli(LEAD + ["--claim", rf"B \geq {n - 1}", "--format", "json"])
    data = json.loads(r.out)
    assert r.code == 1 and data["verdict"] == "incorrect"
    reason = data["diagnosis"][0]
    ridge = V5E_PEAK / V5E_HBM
    assert f"at B = {n - 1} the intensity {2 * (n - 1)} is below the ridge point" in reason
    assert f"{float(ridge):.2f}" in reason
    assert run_cli(LEAD + ["--claim", rf"B \geq {n}"]).code == 0


def test_the_real_crossover_keeps_its_tolerance():
    crossover = V5E_PEAK / V5E_HBM / 2
    near = f"{float(crossover):.1f}"  # 1 decimal: within 1 %, not equal
    assert Fraction(near) != crossover
    assert run_cli(LEAD + ["--claim", rf"B^* \approx {near}"]).code == 0
    assert run_cli(LEAD + ["--claim", rf"B \geq {float(crossover):.2f}"]).code == 0


def test_a_stated_threshold_under_hide_expected_says_not_even_the_side():
    """A side lets a student bisect to the threshold (issue 47): one claim below and one above
    are told the same."""
    n = _leading_threshold()
    said = []
    for claim in (n - 1, n + 1):
        r = run_cli(LEAD + ["--claim", rf"B \geq {claim}", "--hide-expected", "--format", "json"])
        said.append(" ".join(json.loads(r.out)["diagnosis"]).replace(str(claim), "#"))
    assert said[0] == said[1] and "too" not in said[0] and str(n) not in said[0]
    assert "240" not in said[0]


def test_a_count_in_the_grading_csv(tmp_path):
    ((_, exact, _),) = model_values(_LLAMA, ["max_batch"])
    n = int(exact)
    sets = tmp_path / "set.toml"
    sets.write_text(
        'title = "t"\n[[problem]]\nid = "m"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        'set = { S = 8192, B = 16 }\nask = ["max_batch"]\n'
    )
    answers = tmp_path / "answers.csv"
    answers.write_text(
        f"who,problem,quantity,claim\nana,m,max_batch,{n}\nben,m,max_batch,{n + 1}\n"
    )
    r = run_cli(
        ["check", "--problem-set", str(sets), "--answers", str(answers), "--format", "json"]
    )
    rows = json.loads(r.out)["answers"]
    assert [row["verdict"] for row in rows] == ["correct", "incorrect"]


def test_a_solved_integer_unknown_is_exact():
    r = run_cli(
        ["check", "--problem-set", "derive/data/problems/rooflines.toml", "--problem",
         "largest-model", "--quantity", "N", "--claim", str(16 * 10**9 // 2 + 1)]
    )  # fmt: skip
    assert r.code == 1 and "too large" in r.out
    ok = run_cli(
        ["check", "--problem-set", "derive/data/problems/rooflines.toml", "--problem",
         "largest-model", "--quantity", "N", "--claim", str(16 * 10**9 // 2)]
    )  # fmt: skip
    assert ok.code == 0
