"""Text a teacher hands out as is (issue 16): every sentence right, nothing to fix by hand.

Each test reproduces one thing a teacher had to correct in a key; expected values are
computed here with plain sympy, never copied from derive's output.
"""

from __future__ import annotations

import json
import re

import sympy as sp

from derive.pipeline.key import build_key
from derive.problem.sets.problem_set import parse_problem_set
from tests.conftest import run_cli

ATTENTION = ["solve", "attention", "--dtype", "bf16", "--chip", "h100", "--regime", "S -> oo"]


def _solve(*argv: str) -> str:
    result = run_cli(["solve", *argv])
    assert result.code == 0, result.err
    return result.out


def test_dropped_terms_are_named_after_each_tensor_once():
    """q and o move the same bytes (2BHNT each): both are named, neither twice."""
    out = run_cli(ATTENTION).out
    assert "(bytes of q and o)" in out
    assert "o, o" not in out and "bytes of o)" not in out
    norm = _solve("layernorm", "--dtype", "bf16", "--chip", "a100", "--regime", "B -> oo")
    assert "(bytes of gamma and beta)" in norm
    assert "beta, beta" not in norm


def test_sums_are_collected_in_the_last_line():
    """2BHNT + 2BHKS + 2BHKS + 2BHNT ends as 4BHNT + 4BHKS (collected in tensor order)."""
    out = run_cli(ATTENTION).out
    bytes_line = next(line for line in out.splitlines() if line.startswith(r"$$\text{bytes}"))
    assert bytes_line.endswith(r"= 4 B H N T + 4 B H K S$$")
    # the intensity's denominator and the kept leading-order terms are collected too
    assert r"\frac{4 B H N S T}{4 B H N T + 4 B H K S}" in out
    assert r"\frac{4 B H N S T}{4 B H K S}" in out
    assert "2 B H K S + 2 B H K S}" not in out


def test_no_reordering_is_shown_as_a_step():
    """(2BD + DF/2 + 2BF)/β is not followed by the same sum in sympy's order."""
    out = _solve(
        "matmul",
        "--dtype",
        "bf16",
        "--dtype",
        "Y=fp4",
        "--chip",
        "tpu-v5e",
        "--regime",
        "B << D, F",
    )
    for line in out.splitlines():
        if line.startswith("$$"):
            forms = [form.strip() for form in line.strip("$").split(" = ")]
            assert len(forms) == len(set(forms)), line
    assert r"2 B D + 2 B F + \frac{D F}{2}" not in out


def test_widths_print_exactly():
    out = _solve("matmul", "--dtype", "bf16", "--dtype", "Y=fp4", "--chip", "tpu-v5e")
    assert "fp4, 0.5 B/element" in out
    assert "0.50000" not in out
    mx = _solve("matmul", "--dtype", "mxfp4", "--chip", "b200")
    assert f"mxfp4, {float(sp.Rational(17, 32))} B/element" in mx


def test_no_integer_is_approximated_by_itself():
    """A peak is 9.89 × 10^14, not 9.89 × 10^14 ≈ 989000000000000."""
    out = _solve(
        "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=4096", "--set", "D=4096",
        "--set", "F=4096",
    )  # fmt: skip
    assert not re.search(r"\\approx \d{10,}", out)


def test_the_intensity_step_ends_at_the_bound_dims():
    """The seed question: the intensity of a 4096³ bf16 matmul is 4096/3 ≈ 1365.3."""
    out = _solve(
        "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=4096", "--set", "D=4096",
        "--set", "F=4096",
    )  # fmt: skip
    n = sp.Integer(4096)
    expected = sp.Rational(2 * n**3, 2 * n * n * 3)
    step = out.split("Arithmetic intensity", 1)[1].split("## Step", 1)[0]
    last = [line for line in step.splitlines() if line.startswith("$$")][-1]
    assert last.endswith(rf"= \frac{{{expected.p}}}{{{expected.q}}} \approx 1365.3$$")


def test_json_has_the_intensities_at_the_bound_dims():
    argv = ["solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--regime", "B << D, F"]
    data = json.loads(
        run_cli(argv + ["--set", "D=4096", "--set", "F=4096", "--format", "json"]).out
    )
    B, D, F = sp.symbols("B D F", positive=True, integer=True)
    exact = (2 * B * D * F / (2 * B * D + 2 * D * F + 2 * B * F)).subs({D: 4096, F: 4096})
    assert sp.simplify(sp.sympify(data["intensity_bound"], locals={"B": B}) - exact) == 0
    assert sp.sympify(data["intensity_regime_bound"], locals={"B": B}) == B
    free = json.loads(run_cli(argv + ["--format", "json"]).out)
    assert free["intensity_bound"] == free["intensity"]


SET = """
title = "T"
[[problem]]
id = "fp8-compute"
title = "fp8 compute"
text = "t"
operator = "matmul"
dtype = "fp8"
compute = "fp8"
chip = "h100"
regime = "B << D, F"
"""


def test_documents_speak_no_cli():
    """No --compute, --set or --link-bandwidth in a key made from TOML (LaTeX makes -- a dash)."""
    files = build_key(parse_problem_set(SET, "t.toml"), "t")
    for name in ("t.md", "t.tex", "t-questions.md"):
        body = "\n".join(line for line in files[name].splitlines() if not line.startswith("%"))
        assert "--compute" not in body and "--set" not in body, name
        assert "given with" not in body, name


def test_a_leading_order_verdict_never_says_exact():
    files = build_key(parse_problem_set(SET, "t.toml"), "t")
    row = next(line for line in files["t.md"].splitlines() if line.startswith("| [fp8-compute]"))
    assert "(leading order)" in row and "exact crossover" not in row
    assert "crossover at leading order" in row


def test_memory_bound_problems_have_one_verdict():
    out = _solve("layernorm", "--dtype", "bf16", "--chip", "a100", "--regime", "B -> oo")
    assert out.count("**Verdict") == 1


def test_no_leading_order_verdict_after_the_regime_fails():
    """Warned that the regime does not hold, the verdict is the exact one."""
    out = _solve(
        "matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--regime", "B << D, F", "--set",
        "D=512", "--set", "F=512",
    )  # fmt: skip
    assert "WARNING" in out
    assert "Verdict (leading order" not in out
    assert "**Verdict: " in out


def test_an_intensity_free_of_the_dim_is_compared_not_solved():
    """I = 2 for every B: no "2 ≈ 19700/41", no "as B → ∞"."""
    out = _solve(
        "matmul_per_example", "--dtype", "int8", "--peak", "3.94e14", "--bandwidth", "8.2e11",
        "--regime", "D, F >> 1",
    )  # fmt: skip
    assert r"2 \approx \frac{19700}{41}" not in out
    assert "B → ∞" not in out
    assert "does not depend on B" in out


def test_bound_dims_do_not_stay_symbolic_in_the_leading_order_step():
    """T, N, K, H bound: the leading order N·T/K is also shown as its number, NT/K at the values."""
    out = _solve(
        "attention", "--dtype", "bf16", "--chip", "h200", "--regime", "S -> oo", "--set", "T=1",
        "--set", "N=32", "--set", "K=8", "--set", "H=128",
    )  # fmt: skip
    step = out.split("Leading order", 1)[1].split("## Step", 1)[0]
    assert rf"$$I \approx {sp.Rational(1 * 32, 8)}$$" in step


def test_a_memory_bound_problem_does_not_say_so_twice():
    out = _solve(
        "layernorm", "--dtype", "bf16", "--chip", "a100", "--set", "B=4096", "--set", "D=8192"
    )
    assert out.count("memory-bound") == 1


def test_latex_prose_keeps_double_hyphens():
    from derive.present.escape import tex_escape

    assert tex_escape("--compute") == "-{}-compute"


def test_a_measured_kernel_reads_without_nested_fractions_or_echoed_integers():
    """The measured time prints as typed (0.0013, not 13/10000 inside a fraction), an exact
    integer gets no '≈' copy of itself, and the givens name the measurement."""
    result = run_cli(
        [
            "solve",
            "--flops",
            "1e12",
            "--bytes",
            "2.5e9",
            "--chip",
            "h100",
            "--measured-time",
            "1.3ms",
        ]
    )
    assert result.code == 0, result
    text = result.out
    assert "Measured time 1.3ms" in text
    assert r"\frac{10^{12}}{0.0013}" in text
    assert r"{\frac" not in text  # no fraction set inside another
    assert r"9.89 \times 10^{14} \approx" not in text
    assert "989000000000000" not in text


def test_as_given_prints_ending_decimals_and_keeps_other_fractions():
    from derive.solution.measured_steps import as_given

    assert as_given(sp.Rational(13, 10000)) == "0.0013"
    assert as_given(sp.Rational(2, 125)) == "0.016"
    assert as_given(sp.Rational(1, 3)) == r"\frac{1}{3}"
    assert as_given(sp.Integer(3)) == "3"
