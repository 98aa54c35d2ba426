"""``derive.check`` and ``derive.check_derivation``: records, units, relations, derivations, threads.

Expected numbers are rebuilt here with naive sympy from the chip data's decimal text
(TPU v5e: peak 1.97e14, HBM 8.2e11; bf16 2 bytes, int8 1 byte).
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest
import sympy as sp

import derive
from derive import Verdict
from derive.checking.api import ChainDetail
from derive.errors import ProblemError
from derive.problem.binding import ProblemSpec
from derive.problem.sets.problem_set import parse_problem_set

PEAK, HBM = sp.Rational(197 * 10**12), sp.Rational(82 * 10**10)
MIXED = ProblemSpec("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e")
MIXED_REGIME = dataclasses.replace(MIXED, regime="B << D, F")
CUBE = ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e", sets=("B=4096", "D=4096", "F=4096"))
RIDGE = PEAK / HBM
LEAD_CROSS = 1 * PEAK / (2 * HBM)  # int8 weights: B* = w_Y π / (2β)


def dec(q: sp.Rational, places: int) -> str:
    return f"{float(q):.{places}f}"


# ---- the record ------------------------------------------------------------------------------


def test_the_record_is_frozen_and_typed():
    r = derive.check(MIXED, "ridge", dec(RIDGE, 2))
    assert r.verdict is Verdict.CORRECT and r.verdict.value == "correct"
    assert isinstance(r, derive.CheckResult) and r.quantity == "ridge"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.verdict = Verdict.INCORRECT  # type: ignore[misc]
    exact = f"{RIDGE.p}/{RIDGE.q}"
    assert r.expected.startswith(exact) and r.expected.endswith("FLOPs/byte")
    assert [v.value for v in Verdict] == [
        "correct",
        "correct-leading-order",
        "incorrect",
        "unreadable",
    ]


def test_unreadable_is_a_verdict_with_reason_and_position():
    r = derive.check(MIXED, "intensity", r"\frac{2BDF}{2BD+")
    assert r.verdict is Verdict.UNREADABLE and r.read_as is None and r.expected is None
    assert r.reason and r.position is not None and r.position >= 1


def test_problem_errors_raise_not_unreadable():
    with pytest.raises(ProblemError):
        derive.check(MIXED, "speed", "1")
    with pytest.raises(ProblemError):
        derive.check(MIXED, "ridge", "1", rtol="2")
    with pytest.raises(ProblemError):
        derive.check("matmul", "ridge", "1")  # type: ignore[arg-type]


def test_a_problem_of_a_problem_set():
    pset = parse_problem_set(
        'title = "t"\n[[problem]]\nid = "q2"\ntitle = "q"\noperator = "matmul"\n'
        'dtypes = { X = "bf16", Y = "int8", Z = "bf16" }\nchip = "tpu-v5e"\nregime = "B << D, F"\n',
        "set.toml",
    )
    threshold = sp.ceiling(LEAD_CROSS)
    r = derive.check(pset.problems[0], "crossover", rf"B \geq {threshold}")
    assert r.verdict is Verdict.LEADING and r.read_as == f"B ≥ {threshold}"


# ---- reading answers as written ---------------------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        f"{dec(RIDGE, 1)} FLOPs/byte",
        f"{dec(RIDGE, 0)} FLOP/B",
        r"\pi/\beta",
        r"\frac{\pi}{\beta}",
        "pi/beta",
        f"~{dec(RIDGE, 0)}",
        f"≈ {dec(RIDGE, 0)}",
        rf"\approx {dec(RIDGE, 0)}",
        f"{dec(RIDGE, 0)}.",
        f"I_* = {dec(RIDGE, 2)}",
        "2.4·10²",
        "2.4 x 10^2",
        r"2.4 \times 10^{2}",
    ],
)
def test_ridge_as_written(claim):
    assert derive.check(MIXED, "ridge", claim).verdict is Verdict.CORRECT, claim


def test_units_are_converted_exactly():
    flops = 2 * 4096**3
    t_math = sp.Rational(flops) / PEAK
    r = derive.check(CUBE, "t_math", f"{float(t_math * 1000):.4g} ms")
    assert r.verdict is Verdict.CORRECT and " ms = " in r.read_as
    byts = 3 * 2 * 4096**2
    mib = sp.Rational(byts, 2**20)
    assert mib.is_Integer
    r = derive.check(CUBE, "bytes", f"{mib} MiB")
    assert r.verdict is Verdict.CORRECT and r.read_as == f"{mib} MiB = {byts} bytes"
    for unit, scale in (("\\mu s", 10**6), ("us", 10**6), ("µs", 10**6), ("ns", 10**9)):
        text = f"{float(t_math * scale):.4g} {unit}"
        assert derive.check(CUBE, "t_math", text).verdict is Verdict.CORRECT, text


def test_unit_confusions_are_named():
    byts = 3 * 2 * 4096**2
    r = derive.check(CUBE, "bytes", f"{sp.Rational(byts, 2**20)} MB")  # MiB written as MB
    assert r.verdict is Verdict.INCORRECT
    assert r.diagnosis[0].startswith("the number is right in MiB, but you wrote MB")
    t_math = sp.Rational(2 * 4096**3) / PEAK
    r = derive.check(CUBE, "t_math", f"{float(t_math * 1000):.4g} s")  # ms written as s
    assert r.verdict is Verdict.INCORRECT and "right in ms, but you wrote s" in r.diagnosis[0]


def test_a_unit_of_another_dimension_is_wrong_and_says_why():
    r = derive.check(MIXED, "ridge", f"{dec(RIDGE, 0)} ms")
    assert r.verdict is Verdict.INCORRECT
    assert r.diagnosis == ("the unit ms is a time; the ridge point is an intensity in FLOPs/byte",)
    for claim in ("2 TFLOP/s", "7071 tokens/s"):
        r = derive.check(CUBE, "t_math", claim)
        assert r.verdict is Verdict.INCORRECT and "the T_math is a time in s" in r.diagnosis[0]


def test_crossover_relations():
    threshold = int(sp.ceiling(LEAD_CROSS))
    for claim, want in (
        (rf"B \geq {threshold}", Verdict.LEADING),
        (f"B >= {threshold}", Verdict.LEADING),
        (f"B > {threshold - 1}", Verdict.LEADING),
        (f"B > {dec(LEAD_CROSS, 2)}", Verdict.LEADING),
        (f"B^* = {LEAD_CROSS.p}/{LEAD_CROSS.q}", Verdict.LEADING),
        (rf"B_{{crit}} \approx {dec(LEAD_CROSS, 0)}", Verdict.LEADING),
        (f"B = {threshold}", Verdict.LEADING),
        (rf"B \leq {threshold}", Verdict.INCORRECT),
        (f"B < {threshold}", Verdict.INCORRECT),
    ):
        r = derive.check(MIXED_REGIME, "crossover", claim)
        assert r.verdict is want, (claim, r.diagnosis)
    r = derive.check(MIXED_REGIME, "crossover", rf"B \leq {threshold}")
    assert "compute-bound for B above the crossover" in r.diagnosis[0]


def test_left_sides_must_name_the_quantity():
    r = derive.check(MIXED, "intensity", r"I = \frac{2BDF}{2BD+DF+2BF}")
    assert r.verdict is Verdict.CORRECT
    r = derive.check(MIXED, "intensity", "B = D")
    assert r.verdict is Verdict.UNREADABLE and "does not name the intensity" in r.reason
    r = derive.check(MIXED, "intensity", r"T_{math} = \frac{2BDF}{2BD+DF+2BF}")
    assert r.verdict is Verdict.INCORRECT and "names the T_math" in r.diagnosis[0]
    r = derive.check(MIXED, "ridge", rf"B \geq {dec(RIDGE, 0)}")
    assert r.verdict is Verdict.UNREADABLE and "inequality states a crossover" in r.reason


def test_hide_expected_keeps_the_answer_back():
    wrong = f"{dec(2 * RIDGE, 2)}"
    shown = derive.check(MIXED, "ridge", wrong)
    hidden = derive.check(MIXED, "ridge", wrong, hide_expected=True)
    assert hidden.verdict is shown.verdict is Verdict.INCORRECT and hidden.expected is None
    assert hidden.diagnosis, "the diagnosis stays"
    for sentence in hidden.diagnosis:
        assert str(RIDGE) not in sentence and dec(RIDGE, 2) not in sentence


def test_expected_prints_like_the_worked_solution():
    r = derive.check(MIXED, "t_math", "1")
    digits = str(int(PEAK / 2))  # 98500000000000: 1/(π/2) is the coefficient of BDF
    mantissa = digits.rstrip("0")
    assert r.expected == f"BDF / {mantissa[0]}.{mantissa[1:]}e{len(digits) - 1} s"


def test_sparse_figure_only_where_the_chip_records_one():
    r = derive.check(ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e"), "ridge", "480.5")
    assert not any("sparse" in d for d in r.diagnosis)
    h100 = ProblemSpec("matmul", dtypes=("bf16",), chip="h100")
    sparse = sp.Rational(1979 * 10**12) / sp.Rational(335 * 10**10)
    r = derive.check(h100, "ridge", dec(sparse, 2))
    assert "bf16 sparse figure (1.979e15" in r.diagnosis[0]


def test_macs_counted_as_one_flop_is_named():
    for quantity, claim in (
        ("flops", "BDF"),
        ("intensity", r"\frac{BDF}{2BD+DF+2BF}"),
        ("t_math", r"\frac{BDF}{\pi}"),
    ):
        r = derive.check(MIXED, quantity, claim)
        assert r.diagnosis[0].startswith("MACs counted as one FLOP"), (quantity, r.diagnosis)


def test_a_forgotten_write_back_with_bound_dims_is_not_a_regime():
    spec = ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e", sets=("D=4096", "F=4096"))
    r = derive.check(spec, "intensity", r"\frac{2BDF}{2BD+2DF}")
    assert r.diagnosis == ("your denominator leaves out the write-back of Z[B,F] (2BF bytes)",)


# ---- derivations -------------------------------------------------------------------------------

ALIGNED = (
    r"""\begin{align*}
\text{FLOPs} &= 2BDF \\
\text{bytes} &= 2BD + DF + 2BF \\
I &= \frac{\text{FLOPs}}{\text{bytes}} = \frac{2BDF}{2BD + DF + 2BF} \\
  &\approx \frac{2BDF}{DF} = 2B \\
B^* &= \frac{\pi}{2\beta} = \frac{<P>}{<Q>} \approx <R>
\end{align*}""".replace("<P>", str(LEAD_CROSS.p))
    .replace("<Q>", str(LEAD_CROSS.q))
    .replace("<R>", dec(LEAD_CROSS, 2))
)


def test_an_aligned_derivation_across_quantities_with_a_rounding_step():
    r = derive.check_derivation(MIXED_REGIME, ALIGNED)
    assert r.verdict is Verdict.LEADING, r.diagnosis
    assert r.wrong_lines == () and all(s.ok for s in r.steps)
    assert isinstance(r.detail, ChainDetail) and r.detail.chain.quantities == (
        "flops",
        "bytes",
        "intensity",
        "crossover",
    )
    rounding = [s for s in r.steps if s.why.startswith("rounded")]
    assert len(rounding) == 1 and rounding[0].line == 6


def test_every_wrong_line_is_reported_first_first():
    lines = [
        r"\text{bytes} = 2BD + 2DF + 2BF",
        r"I = \frac{2BDF}{2BD + DF + 2BF}",
        r"B^* = 240",
        r"T_{\text{math}} = \frac{2BDF}{\pi}",
    ]
    r = derive.check_derivation(MIXED_REGIME, lines)
    assert r.verdict is Verdict.INCORRECT
    assert r.wrong_lines == (1, 3) and r.first_wrong_line == 1
    assert [d.split(":")[0] for d in r.diagnosis] == ["line 1", "line 3"]


def test_an_unreadable_derivation_says_which_line():
    r = derive.check_derivation(MIXED, ["I = 2B", r"= \frac{2B}{"])
    assert r.verdict is Verdict.UNREADABLE and r.line == 2 and r.reason


# ---- threads ------------------------------------------------------------------------------------


def test_concurrent_checks_agree_with_serial_ones():
    cases = [
        (MIXED, "ridge", dec(RIDGE, 2)),
        (MIXED, "intensity", r"\frac{2BDF}{2BD+2DF+2BF}"),
        (MIXED_REGIME, "crossover", "B > 120"),
        (CUBE, "t_math", "0.7 ms"),
        (MIXED, "intensity", r"\frac{2BDF}{"),
    ] * 8
    serial = [derive.check(*c) for c in cases]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(lambda c: derive.check(*c), cases))
    assert parallel == serial


def test_hide_expected_in_a_derivation_keeps_every_value_back():
    lines = [r"\text{bytes} = 2BD + 2DF + 2BF", f"B^* = {2 * LEAD_CROSS}"]
    r = derive.check_derivation(MIXED_REGIME, lines, hide_expected=True)
    assert r.verdict is Verdict.INCORRECT and r.expected is None and r.wrong_lines == (1, 2)
    said = " ".join([s.why for s in r.steps] + list(r.diagnosis))
    assert "2BD + 2BF + DF" not in said and str(LEAD_CROSS) not in said


def test_concurrent_first_checks_bind_each_problem_safely():
    from derive.pipeline import cache

    cache.operator_analysis.cache_clear()
    cache.registry.cache_clear()
    specs = [ProblemSpec("matmul", dtypes=("bf16",), chip=c) for c in ("tpu-v5e", "h100", "a100")]
    with ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(lambda s: derive.check(s, "ridge", "1"), specs * 4))
    assert [r.expected for r in results] == [
        derive.check(s, "ridge", "1").expected for s in specs
    ] * 4


def test_a_budget_claim_is_judged_like_a_defined_quantity():
    from derive.problem.sets.natives import BudgetSpec

    r = derive.check(BudgetSpec(compute="5.76e23"), "params", "6.93e10", rtol="0.01")
    assert r.verdict is Verdict.CORRECT
