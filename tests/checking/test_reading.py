"""Answers typed the way students type them (issue 26, items 6–8), through the CLI and ``derive.check``.

Item 6: size suffixes and words after a count (``8B``, ``124M``, ``8.03 billion``), ``tok/s``,
spelled-out units (``microseconds``), and which reading was taken when ``B`` is also a dim.
Item 7: the ridge as books write it (``I^* = 240.24``, ``I^* = \\frac{\\pi}{\\beta}``) and a
trailing full stop after a formula. Item 8: the slips named: the ridge given as the
crossover, a number right to 2 significant figures but outside the tolerance, a training
MFU with 2N FLOPs per token instead of 6N.

Every expected value is computed here from the problem's numbers (Fractions, the model
cards), never copied from derive's output.
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
import sympy as sp
from conftest import run_cli

import derive
from derive.formula.units import Dimension, parse_unit
from derive.problem.binding import ProblemSpec
from derive.problem.kernel_spec import KernelSpec
from derive.problem.model_spec import ModelSpec

V5E_PEAK, V5E_BW = Fraction("1.97e14"), Fraction("8.2e11")
H100_PEAK, H100_BW = Fraction("9.89e14"), Fraction("3.35e12")  # bf16 dense, HBM3


def gpt2_small_params() -> int:
    """GPT-2 small: 12 blocks of width 768, MLP 3072, biases, layernorms, 1024 positions, tied head."""
    L, d, f, V, positions = 12, 768, 3072, 50257, 1024
    block = (4 * d * d + 4 * d) + (2 * d * f + f + d) + 2 * (2 * d)
    return L * block + V * d + positions * d + 2 * d


def llama3_8b_params() -> int:
    """Llama 3 8B: 32 blocks, width 4096, 32 query and 8 KV heads of 128, MLP 14336, untied head."""
    L, d, heads, kv, dh, f, V = 32, 4096, 32, 8, 128, 14336, 128256
    block = 2 * d * heads * dh + 2 * d * kv * dh + 3 * d * f + 2 * d
    return L * block + 2 * V * d + d


def sig(value: Fraction, digits: int) -> Decimal:
    """``value`` rounded half-up to ``digits`` significant figures."""
    d = Decimal(value.numerator) / Decimal(value.denominator)
    return d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP)


def cli_json(argv: list[str]) -> tuple[int, dict]:
    r = run_cli(["check", *argv, "--format", "json"])
    assert not r.err, r.err
    return r.code, json.loads(r.out)


GPT2 = ModelSpec("gpt2-small", chip="a100")
LLAMA3 = ModelSpec("llama-3-8b", chip="h100")
MM_FREE = ProblemSpec("matmul", dtypes=("bf16",), chip="h100")
MM_BOUND = ProblemSpec("matmul", dtypes=("bf16",), chip="h100", sets=("B=256", "D=4096", "F=4096"))
BOUND_FLAGS = ["--set", "B=256", "--set", "D=4096", "--set", "F=4096"]


# -- item 6: size suffixes, words, tok/s, spelled-out units -------------------------------


def test_the_formula_layer_finds_suffixes_and_spelled_units():
    from derive.formula.scales import split_scale

    assert split_scale("8B").scale.factor == 10**9
    assert split_scale("1.2 trillion tokens").rest == "tokens"
    assert split_scale("215K tok/s").scale.factor == 10**3
    assert split_scale("2BDF") is None and split_scale("8 MB") is None
    assert parse_unit("tok/s").dimension is Dimension.TOKEN_RATE
    assert parse_unit("tokens per second").dimension is Dimension.TOKEN_RATE
    assert parse_unit("microseconds").factor == sp.Rational(1, 10**6)
    assert parse_unit("milliseconds").factor == sp.Rational(1, 1000)
    assert parse_unit("gigabytes").factor == 10**9


@pytest.mark.parametrize(
    "claim", ["124M", "124 million", "124M parameters", "0.1244B", "0.1244 billion params"]
)
def test_params_with_a_size_suffix_or_word_are_read_as_counts(claim):
    params = gpt2_small_params()
    r = derive.check(GPT2, "params", claim)
    assert r.verdict.value == "correct", (r.read_as, r.diagnosis)
    number = Fraction(claim.split()[0].rstrip("MB"))
    scale = 10**9 if "B" in claim or "billion" in claim else 10**6
    assert abs(number * scale - params) <= Fraction(1, 100) * params
    assert str(number * scale) in r.read_as


def test_8b_for_params_is_8_billion_and_says_b_is_not_the_batch_dim():
    params = llama3_8b_params()
    assert abs(8 * 10**9 - params) <= Fraction(1, 100) * params  # 8B is within 1 %
    r = derive.check(LLAMA3, "params", "8B")
    assert r.verdict.value == "correct"
    assert r.read_as.startswith("8B = 8000000000 parameters")
    assert "8B read as 8 billion" in r.read_as and "not the dim B" in r.read_as
    code, out = cli_json(["llama-3-8b", "--chip", "h100", "--quantity", "params", "--claim", "8B"])
    assert code == 0 and out["verdict"] == "correct" and "8 billion" in out["read_as"]
    text = run_cli(["check", "llama-3-8b", "--quantity", "params", "--claim", "8.03 billion"])
    assert text.code == 0 and "8.03 billion = 8030000000 parameters" in text.out


def test_8b_for_a_formula_quantity_keeps_the_dim_reading_and_says_so():
    r = derive.check(MM_FREE, "flops", "8B")
    assert r.verdict.value == "incorrect"  # 8·B is not 2BDF
    assert "8B read as 8 × the dim B" in r.read_as and "write 8e9" in r.read_as
    right = derive.check(MM_FREE, "flops", "2BDF")
    assert right.verdict.value == "correct" and "read as" not in right.read_as


@pytest.mark.parametrize("claim", ["8.59B", "8.59 billion FLOPs", "8.59 billion", "8590M"])
def test_a_bound_count_reads_its_suffix_as_a_scale(claim):
    flops = 2 * 256 * 4096 * 4096
    assert abs(Fraction("8.59e9") - flops) <= Fraction(1, 100) * flops
    r = derive.check(MM_BOUND, "flops", claim)
    assert r.verdict.value == "correct", (r.read_as, r.diagnosis)
    code, out = cli_json(
        ["matmul", "--dtype", "bf16", "--chip", "h100", *BOUND_FLAGS]
        + ["--quantity", "flops", "--claim", claim]
    )
    assert code == 0 and out["verdict"] == "correct"


def test_b_after_a_byte_count_stays_the_byte_unit():
    total = 2 * (256 * 4096 + 4096 * 4096 + 256 * 4096)
    r = derive.check(MM_BOUND, "bytes", f"{total} B")
    assert r.verdict.value == "correct" and "billion" not in r.read_as


def test_a_suffix_letter_is_never_a_scale_for_an_intensity():
    r = derive.check(ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e"), "intensity", "2B")
    assert "billion" not in r.read_as and "read as" not in r.read_as


def test_spelled_out_microseconds_read_as_a_time():
    t_math = Fraction(2 * 256 * 4096 * 4096) / H100_PEAK  # seconds
    micro = sig(t_math * 10**6, 5)
    claim = f"{micro} microseconds"
    r = derive.check(MM_BOUND, "t_math", claim)
    assert r.verdict.value == "correct" and "µs" in r.read_as
    code, out = cli_json(
        ["matmul", "--dtype", "bf16", "--chip", "h100", *BOUND_FLAGS]
        + ["--quantity", "t_math", "--claim", claim]
    )
    assert code == 0 and out["verdict"] == "correct"


SERVING_SET = """
title = "serving"
[[problem]]
id = "decode"
title = "decode"
model = "llama-2-70b"
chip = "h100"
devices = 8
tp = 8
phase = "decode"
set = { B = 64, S = 8192 }
"""


def test_tok_per_s_reads_as_tokens_per_second():
    from derive.problem.sets.problem_set import parse_problem_set

    (serving,) = parse_problem_set(SERVING_SET, "serving.toml").entries()
    one = derive.check(serving, "tokens_per_s", "5000 tok/s")
    other = derive.check(serving, "tokens_per_s", "5000 tokens/s")
    assert one.verdict is other.verdict and one.relative_error == other.relative_error
    assert one.read_as == "5000 tokens/s"
    scaled = derive.check(serving, "tokens_per_s", "5K tok/s")
    assert scaled.relative_error == one.relative_error
    time = derive.check(serving, "t_lower", "5000 tok/s")
    assert time.verdict.value == "incorrect" and "throughput" in time.diagnosis[0]
    argv = ["llama-2-70b", "--chip", "h100", "--devices", "8", "--tp", "8", "--set", "B=64"]
    argv += ["--set", "S=8192", "--phase", "decode", "--quantity", "tokens_per_s"]
    r = run_cli(["check", *argv, "--claim", "5000 tok/s", "--format", "json"])
    assert json.loads(r.out)["read_as"] == "5000 tokens/s"


# -- item 7: the ridge as books write it; a trailing full stop ---------------------------

V5E = ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e")


@pytest.mark.parametrize(
    "claim", ["I^* = 240.24", r"I^* = \frac{\pi}{\beta}", r"I^{*} = \pi/\beta.", "I^* = 240."]
)
def test_the_ridge_named_i_star_is_read(claim):
    ridge = V5E_PEAK / V5E_BW
    assert abs(Fraction("240.24") - ridge) <= Fraction(1, 100) * ridge
    r = derive.check(V5E, "ridge", claim)
    assert r.verdict.value == "correct", (r.reason, r.diagnosis)
    code, out = cli_json(
        ["matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--quantity", "ridge", "--claim", claim]
    )
    assert code == 0 and out["verdict"] == "correct"


def test_i_star_pi_over_beta_for_a_kernel_is_the_chips_ridge():
    kernel = KernelSpec(intensity="20", chip="h100")
    r = derive.check(kernel, "ridge", r"I^* = \frac{\pi}{\beta}")
    ridge = H100_PEAK / H100_BW
    assert r.verdict.value == "correct"
    assert f"{ridge.numerator}/{ridge.denominator}" in r.read_as and "β" in r.read_as


@pytest.mark.parametrize(
    ("quantity", "claim"),
    [
        ("intensity", r"\frac{2BDF}{2BD + 2DF + 2BF}."),
        ("intensity", r"I = \frac{BDF}{BD + DF + BF}."),
        ("flops", "2BDF."),
        ("crossover", r"B \geq 241."),
    ],
)
def test_a_trailing_full_stop_after_a_formula_is_read(quantity, claim):
    r = derive.check(V5E, quantity, claim)
    assert r.verdict.value != "unreadable", r.reason
    if quantity != "crossover":  # the exact crossover depends on D and F
        assert r.verdict.value == "correct"
    _, out = cli_json(
        ["matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--quantity", quantity]
        + ["--claim", claim]
    )
    assert out["verdict"] == r.verdict.value


def test_a_derivation_line_may_end_with_a_full_stop():
    r = derive.check_derivation(V5E, [r"I = \frac{2BDF}{2BD + 2DF + 2BF}."])
    assert r.verdict.value == "correct"


# -- item 8: the slips named --------------------------------------------------------------

MIXED = ProblemSpec("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")


@pytest.mark.parametrize("claim", [r"B \geq 241", "240.24", "B^* = 240"])
def test_the_ridge_given_as_the_crossover_is_named(claim):
    ridge = V5E_PEAK / V5E_BW  # 240.24 FLOPs/byte
    crossover = 1 * V5E_PEAK / (2 * V5E_BW)  # 2BDF/(1·DF) = π/β at leading order: B = π/(2β)
    assert crossover == ridge / 2
    r = derive.check(MIXED, "crossover", claim)
    assert r.verdict.value == "incorrect"
    assert r.diagnosis[0].startswith("this is the ridge point π/β"), r.diagnosis
    assert "not the crossover" in r.diagnosis[0]
    hidden = derive.check(MIXED, "crossover", claim, hide_expected=True)
    # the slip keeps its name, without the ridge's number (the answer is half of it here)
    assert hidden.diagnosis[0].startswith("this is the ridge point π/β, not the crossover")
    assert "240" not in " ".join(hidden.diagnosis)
    argv = ["matmul", "--dtype", "bf16", "--dtype", "Y=int8", "--chip", "tpu-v5e"]
    text = run_cli(
        ["check", *argv, "--regime", "B << D, F", "--quantity", "crossover"] + ["--claim", claim]
    )
    assert text.code == 1 and "this is the ridge point π/β" in text.out


def test_the_right_crossover_is_not_called_the_ridge():
    r = derive.check(MIXED, "crossover", r"B \geq 121")
    assert r.verdict.value == "correct-leading-order"
    assert not any("ridge point" in d for d in r.diagnosis)


def test_a_number_right_to_two_significant_figures_is_named():
    ridge = H100_PEAK / H100_BW  # 295.22
    two = sig(ridge, 2)
    assert abs(Fraction(str(two)) - ridge) > Fraction(1, 100) * ridge  # outside 1 %
    spec = ProblemSpec("matmul", dtypes=("bf16",), chip="h100")
    r = derive.check(spec, "ridge", str(two))
    assert r.verdict.value == "incorrect"
    assert r.diagnosis[0].startswith("right to 2 s.f., but outside the 1% tolerance")
    wide = derive.check(spec, "ridge", str(two), rtol="0.02")
    assert wide.verdict.value == "correct"  # judged as the tolerance says
    other = derive.check(spec, "ridge", str(two - 10))
    assert not any("s.f." in d for d in other.diagnosis)
    text = run_cli(
        ["check", "matmul", "--dtype", "bf16", "--chip", "h100"]
        + ["--quantity", "ridge", "--claim", str(two)]
    )
    assert text.code == 1 and "right to 2 s.f." in text.out


def test_right_to_two_significant_figures_for_a_kernel_and_a_model():
    t_lower = Fraction("1e12") / H100_PEAK  # compute-bound: 1e12 FLOPs over 2.5e9 bytes
    assert Fraction("2.5e9") / H100_BW < t_lower
    ms = sig(t_lower * 1000, 2)
    assert abs(Fraction(str(ms)) / 1000 - t_lower) > Fraction(1, 100) * t_lower
    kernel = KernelSpec(flops="1e12", bytes="2.5e9", chip="h100")
    r = derive.check(kernel, "t_lower", f"{ms} ms")
    assert r.verdict.value == "incorrect" and r.diagnosis[0].startswith("right to 2 s.f.")
    mfu = Fraction(6 * llama3_8b_params() * 3000) / H100_PEAK
    percent = sig(mfu * 100, 2)
    assert abs(Fraction(str(percent)) / 100 - mfu) > Fraction(1, 100) * mfu
    measured = ModelSpec("llama-3-8b", chip="h100", measured_tokens_per_s="3000")
    m = derive.check(measured, "mfu", f"{percent}%")
    assert m.verdict.value == "incorrect" and m.diagnosis[0].startswith("right to 2 s.f.")


def test_a_training_mfu_with_2n_instead_of_6n_is_named():
    params, rate = llama3_8b_params(), 3000
    right = Fraction(6 * params * rate) / H100_PEAK
    forward_only = Fraction(2 * params * rate) / H100_PEAK
    claim = f"{sig(forward_only * 100, 4)}%"
    measured = ModelSpec("llama-3-8b", chip="h100", measured_tokens_per_s=str(rate))
    r = derive.check(measured, "mfu", claim)
    assert r.verdict.value == "incorrect"
    assert "6N" in r.diagnosis[0] and "2N" in r.diagnosis[0] and "factor of 3" in r.diagnosis[0]
    ok = derive.check(measured, "mfu", f"{sig(right * 100, 4)}%")
    assert ok.verdict.value == "correct"
    argv = ["llama-3-8b", "--chip", "h100", "--measured-tokens-per-s", str(rate)]
    text = run_cli(["check", *argv, "--quantity", "mfu", "--claim", claim])
    assert text.code == 1 and "factor of 3" in text.out


def test_training_flops_with_2n_are_named_too():
    tokens = 15 * 10**12
    flops_2n = 2 * llama3_8b_params() * tokens
    spec = ModelSpec("llama-3-8b", chip="h100", train_tokens=str(tokens))
    r = derive.check(spec, "train_flops", f"{Decimal(flops_2n):.4e} FLOPs")
    assert r.verdict.value == "incorrect" and "factor of 3" in r.diagnosis[0]


def test_the_ridge_given_as_a_serving_crossover_is_named():
    ridge = H100_PEAK / H100_BW  # 295.22: B ≥ 296 states the ridge, not a batch
    claim = rf"B \geq {int(ridge) + 1}"
    argv = ["llama-2-70b", "--chip", "h100", "--devices", "8", "--tp", "8", "--set", "B=64"]
    argv += ["--set", "S=8192", "--phase", "decode", "--dtype", "weights=int8"]
    r = run_cli(["check", *argv, "--quantity", "crossover", "--claim", claim])
    assert r.code == 1 and "that is the ridge point π/β" in r.out


def test_the_ridge_is_not_a_slip_where_it_is_the_leading_order_crossover():
    """bf16 matmul: I ≈ B when B << D, F, so B* = π/β at leading order; the ridge is no slip there."""
    ridge = H100_PEAK / H100_BW
    r = derive.check(MM_FREE, "crossover", str(sig(ridge, 5)))
    assert not any(d.startswith("this is the ridge point") for d in r.diagnosis)
    assert any("leading-order crossover when B << D, F" in d for d in r.diagnosis)
