"""``derive check``: verdicts, exit codes and diagnoses, every expectation computed here with naive sympy.

Nothing is copied from the seed texts: intensities, ridges and crossovers are
rebuilt from the textbook formulas (FLOPs 2BDF; bytes Σ width × elements;
ridge = peak / bandwidth; crossover where FLOPs·β = bytes·π).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from conftest import run_cli

B, D, F = sp.symbols("B D F", positive=True, integer=True)
V5E_PEAK, V5E_HBM, V5E_ICI = (
    sp.Rational(197 * 10**12),
    sp.Rational(82 * 10**10),
    sp.Rational(45 * 10**9),
)
V5E_INT8_PEAK = sp.Rational(394 * 10**12)
MIXED = ["check", "matmul", "--dtype", "bf16", "--dtype", "Y=int8", "--chip", "tpu-v5e"]
BF16 = ["check", "matmul", "--dtype", "bf16", "--chip", "tpu-v5e"]


def intensity(wx, wy, wz):
    """Naive matmul intensity for widths of X, Y, Z."""
    return 2 * B * D * F / (wx * B * D + wy * D * F + wz * B * F)


def check_json(argv):
    r = run_cli(argv + ["--format", "json"])
    assert r.code in (0, 1), r
    return r.code, json.loads(r.out)


def decimal_text(q, places=2):
    """A rational written as a decimal with ``places`` digits, rounded half up, without floats."""
    f = Fraction(int(q.p), int(q.q))
    scaled = (f * 10**places + Fraction(1, 2)).__floor__()
    whole, frac = divmod(scaled, 10**places)
    return f"{whole}.{str(frac).rjust(places, '0')}"


# ---- exact expressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        r"\frac{2BDF}{2BD+DF+2BF}",
        "2*B*D*F/(2*B*D + D*F + 2*B*F)",
        r"\frac{2 B D F}{2BF + DF + 2BD}",
    ],
)
def test_correct_intensity_latex_and_plain(claim):
    code, data = check_json(MIXED + ["--quantity", "intensity", "--claim", claim])
    assert code == 0 and data["verdict"] == "correct"
    assert data["expected"] == str(sp.cancel(intensity(2, 1, 2)))
    assert data["claimed"] == str(intensity(2, 1, 2))
    assert data["syntax"] == ("latex" if "\\" in claim else "plain")
    assert data["syntax_decided"].startswith("auto: read as")


def test_plain_juxtaposition_2BDF_is_the_flops():
    code, data = check_json(MIXED + ["--quantity", "flops", "--claim", "2BDF"])
    assert code == 0 and data["verdict"] == "correct" and data["claimed"] == str(2 * B * D * F)


def test_text_output_says_how_the_claim_was_read():
    r = run_cli(MIXED + ["--quantity", "intensity", "--claim", r"\frac{2BDF}{2BD+DF+2BF}"])
    assert r.code == 0
    assert r.out.splitlines()[0] == "verdict: correct"
    assert "read as LaTeX" in r.out and "expected:" in r.out


def test_leading_order_with_and_without_regime():
    lead = sp.cancel(
        2 * B * D * F / (2 * D * F)
    )  # bf16 everywhere, B << D, F keeps the weight bytes only
    assert lead == B
    code, data = check_json(
        BF16 + ["--quantity", "intensity", "--claim", "B", "--regime", "B << D, F"]
    )
    assert code == 0 and data["verdict"] == "correct-leading-order"
    assert data["expected_leading_order"] == str(lead)
    code, data = check_json(BF16 + ["--quantity", "intensity", "--claim", "B"])
    assert code == 1 and data["verdict"] == "incorrect"
    said = " ".join(data["diagnosis"])
    assert "leading-order intensity when B << D, F" in said
    assert "exact intensity" in said


def test_leading_order_claim_under_another_regime_is_named():
    code, data = check_json(
        BF16 + ["--quantity", "intensity", "--claim", "B", "--regime", "B >> D, F"]
    )
    assert code == 1
    assert "B << D, F" in " ".join(data["diagnosis"]) and "not under the regime given" in " ".join(
        data["diagnosis"]
    )


def test_int8_weights_counted_as_two_bytes():
    code, data = check_json(
        MIXED + ["--quantity", "intensity", "--claim", r"\frac{2BDF}{2BD+2DF+2BF}"]
    )
    assert code == 1 and data["verdict"] == "incorrect"
    said = " ".join(data["diagnosis"])
    assert (
        "Y[D,F]" in said
        and "int8" in said
        and "1 byte per element" in said
        and "counts 2 bytes per element" in said
    )
    # the same number as an all-bf16 binding: a second finding of the same slip, left out
    assert "every tensor in bf16" not in said and len(data["diagnosis"]) == 1


def test_missing_write_back_names_Z():
    code, data = check_json(MIXED + ["--quantity", "bytes", "--claim", "2BD + DF"])
    assert code == 1
    assert data["diagnosis"][0] == "your bytes leave out the write-back of Z[B,F] (2BF bytes)"
    code, data = check_json(MIXED + ["--quantity", "intensity", "--claim", r"\frac{2BDF}{2BD+DF}"])
    assert code == 1 and "write-back of Z[B,F]" in data["diagnosis"][0]


def test_missing_read_names_X():
    code, data = check_json(MIXED + ["--quantity", "bytes", "--claim", "DF + 2BF"])
    assert code == 1 and "the read of X[B,D]" in " ".join(data["diagnosis"])


def test_factor_two_flops():
    code, data = check_json(MIXED + ["--quantity", "flops", "--claim", "4BDF"])
    assert code == 1
    said = " ".join(data["diagnosis"])
    assert "2×" in said and "multiply-accumulate" in said
    code, data = check_json(MIXED + ["--quantity", "flops", "--claim", "BDF"])
    assert code == 1 and "half" in " ".join(data["diagnosis"])


def test_bits_for_bytes():
    naive = sp.expand(8 * (2 * B * D + D * F + 2 * B * F))
    code, data = check_json(MIXED + ["--quantity", "bytes", "--claim", str(naive).replace("*", "")])
    assert code == 1 and "bits" in " ".join(data["diagnosis"])


# ---- numbers --------------------------------------------------------------------------------


def test_ridge_swapped_is_named():
    swapped = V5E_HBM / V5E_PEAK
    code, data = check_json(MIXED + ["--quantity", "ridge", "--claim", f"{V5E_HBM.p}/{V5E_PEAK.p}"])
    assert code == 1 and swapped != V5E_PEAK / V5E_HBM
    assert "β/π" in " ".join(data["diagnosis"]) and "inverse" in " ".join(data["diagnosis"])


def test_ridge_with_link_bandwidth_and_sparse_peak():
    code, data = check_json(
        MIXED + ["--quantity", "ridge", "--claim", decimal_text(V5E_PEAK / V5E_ICI)]
    )
    assert code == 1 and "link bandwidth" in " ".join(data["diagnosis"])
    # TPU v5e has no sparse figure: twice the bf16 ridge is the int8 peak's, and said so
    code, data = check_json(
        BF16 + ["--quantity", "ridge", "--claim", decimal_text(2 * V5E_PEAK / V5E_HBM)]
    )
    said = " ".join(data["diagnosis"])
    assert code == 1 and "int8 peak" in said and "sparse" not in said
    # the H100 datasheet's sparse bf16 figure (1,979 TFLOPS with sparsity) is the trap there
    h100_sparse, h100_hbm = sp.Rational(1979 * 10**12), sp.Rational(335 * 10**10)
    code, data = check_json(
        ["check", "matmul", "--dtype", "bf16", "--chip", "h100", "--quantity", "ridge"]
        + ["--claim", decimal_text(h100_sparse / h100_hbm)]
    )
    assert code == 1 and "bf16 sparse figure (1.979e15" in data["diagnosis"][0]


def test_number_within_and_outside_tolerance():
    ridge = V5E_PEAK / V5E_HBM
    near, far = sp.Integer(240), sp.Integer(236)
    assert abs(near - ridge) / ridge < sp.Rational(1, 100) < abs(far - ridge) / ridge
    code, data = check_json(MIXED + ["--quantity", "ridge", "--claim", "240"])
    assert (
        code == 0
        and data["verdict"] == "correct"
        and data["relative_error_exact"] == str(abs(near - ridge) / ridge)
    )
    code, data = check_json(MIXED + ["--quantity", "ridge", "--claim", "236"])
    assert code == 1 and data["verdict"] == "incorrect"
    assert data["relative_error_exact"] == str(abs(far - ridge) / ridge)
    assert data["relative_error"].endswith("%")
    code, data = check_json(MIXED + ["--quantity", "ridge", "--claim", "236", "--rtol", "0.05"])
    assert code == 0


def test_crossover_threshold_and_leading_order():
    # bf16 x int8: leading-order intensity 2BDF / DF = 2B; crossover where 2B = ridge
    cross = V5E_PEAK / V5E_HBM / 2
    threshold = int(sp.ceiling(cross))
    argv = MIXED + ["--quantity", "crossover", "--regime", "B << D, F"]
    code, data = check_json(argv + ["--claim", str(threshold)])
    assert (
        code == 0
        and data["verdict"] == "correct-leading-order"
        and data["expected_leading_order"] == str(cross)
    )
    assert data["expected_leading_order_threshold"] == threshold
    assert "smallest integer" in " ".join(data["diagnosis"])
    code, data = check_json(MIXED + ["--quantity", "crossover", "--claim", str(threshold)])
    assert code == 1  # without the regime the crossover is a formula in D and F


def test_exact_symbolic_crossover():
    P, W = V5E_PEAK, V5E_HBM
    b = sp.Symbol("b", positive=True)
    exact = sp.solve(sp.Eq(2 * b * D * F * W, (2 * b * D + D * F + 2 * b * F) * P), b)[0]
    n, d = sp.fraction(sp.cancel(exact))
    code, data = check_json(MIXED + ["--quantity", "crossover", "--claim", f"({n})/({d})"])
    assert code == 0 and data["verdict"] == "correct"


def test_rounding_of_the_peak_is_diagnosed():
    P, W = sp.Rational(1342, 10) * 10**12, sp.Rational(518, 100) * 10**11
    n = 4096

    def crossover(peak):
        b = sp.Symbol("b", positive=True)  # not integer: sp.solve would drop a non-integer root
        return sp.solve(sp.Eq(2 * b * n * n * W, (2 * b * n + 2 * n * n + 2 * b * n) * peak), b)[0]

    exact, rounded = crossover(P), crossover(sp.Rational(13, 10) * 10**14)
    assert int(sp.ceiling(exact)) != int(sp.ceiling(rounded))
    assert abs(rounded - exact) / exact > sp.Rational(1, 100)
    argv = [
        "check",
        "matmul",
        "--dtype",
        "bf16",
        "--peak",
        "1.342e14",
        "--bandwidth",
        "5.18e11",
        "--set",
        "D=4096",
        "--set",
        "F=4096",
        "--quantity",
        "crossover",
        "--claim",
        decimal_text(rounded),
    ]
    code, data = check_json(argv)
    assert code == 1 and data["expected"] == str(exact)
    assert "π rounded to 1.3e14" in " ".join(data["diagnosis"])


def test_t_math_with_bound_dims():
    subs = {B: 128, D: 4096, F: 4096}
    t = (2 * B * D * F).subs(subs) / V5E_PEAK
    argv = MIXED + ["--set", "B=128", "--set", "D=4096", "--set", "F=4096", "--quantity", "t_math"]
    code, data = check_json(argv + ["--claim", "2BDF/1.97e14"])
    assert code == 0 and data["expected"] == str(t)
    code, data = check_json(argv + ["--claim", "2BDF/3.94e14"])
    assert code == 1 and "peak" in " ".join(data["diagnosis"])


def test_network_quantities_of_sharded_matmul():
    P = sp.Symbol("P", positive=True, integer=True)
    net = sp.cancel((2 * B * D * F / P) / (2 * B * F)).subs(P, 2)
    argv = [
        "check",
        "matmul_sharded",
        "--dtype",
        "bf16",
        "--chip",
        "tpu-v5e",
        "--set",
        "P=2",
        "--solve-for",
        "D",
    ]
    code, data = check_json(argv + ["--quantity", "network_intensity", "--claim", str(net)])
    assert code == 0
    code, data = check_json(
        argv + ["--quantity", "network_ridge", "--claim", decimal_text(V5E_PEAK / V5E_HBM)]
    )
    assert code == 1 and "HBM bandwidth" in " ".join(data["diagnosis"])


# ---- JSON contract and argument errors ---------------------------------------------------------


def test_json_keys():
    _code, data = check_json(MIXED + ["--quantity", "intensity", "--claim", "2BDF"])
    for key in (
        "verdict",
        "quantity",
        "claimed",
        "expected",
        "diagnosis",
        "syntax_decided",
        "relative_error",
        "expected_leading_order",
    ):
        assert key in data
    assert isinstance(data["diagnosis"], list) and all(
        isinstance(s, str) for s in data["diagnosis"]
    )
    assert data["verdict"] in ("correct", "correct-leading-order", "incorrect")


@pytest.mark.parametrize(
    "extra, needle",
    [
        ([], "--claim"),
        (["--claim", "B", "--chain", "x.tex"], "--chain"),
        (["--claim", "B", "--rtol", "-0.01"], "--rtol"),
        (["--claim", "B", "--rtol", "1"], "--rtol"),
        (["--claim", "B", "--rtol", "one"], "--rtol"),
        (["--claim", "B", "--quantity", "speed"], "quantity"),
        (["--claim", "B", "--syntax", "tex"], "syntax"),
    ],
)
def test_argument_errors_exit_2(extra, needle):
    argv = MIXED + extra + (["--quantity", "intensity"] if "--quantity" not in extra else [])
    r = run_cli(argv)
    assert r.code == 2 and r.out == ""
    assert r.err.startswith("error: ") and r.err.count("\n") == 1 and needle in r.err


def test_claim_needs_quantity_and_quantities_must_apply():
    assert run_cli(MIXED + ["--claim", "B"]).code == 2
    assert (
        run_cli(MIXED + ["--quantity", "intensity_regime", "--claim", "B"]).code == 2
    )  # no regime
    assert (
        run_cli(MIXED + ["--quantity", "network_bytes", "--claim", "B"]).code == 2
    )  # matmul sends nothing


# ---- whole derivations ----------------------------------------------------------------------------

FP4 = ["check", "matmul", "--dtype", "bf16", "--dtype", "Y=fp4", "--chip", "tpu-v5e"]


def _chain(tmp_path: Path, text: str, extra=(), name="chain.tex") -> tuple[int, dict]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    r = run_cli(FP4 + ["--chain", str(path), "--format", "json", *extra])
    assert r.code in (0, 1), r
    return r.code, json.loads(r.out)


def test_chain_example_is_correct(tmp_path):
    lead = sp.cancel(2 * B * D * F / (sp.Rational(1, 2) * D * F))
    assert lead == 4 * B
    code, data = _chain(
        tmp_path,
        r"I = \frac{2BDF}{2BD+0.5DF+2BF} \approx \frac{2BDF}{0.5DF} = 4B" + "\n",
        ["--regime", "B << D, F"],
    )
    assert code == 0 and data["verdict"] == "correct-leading-order"
    assert data["quantity"] == "intensity" and data["first_wrong_line"] is None
    assert all(s["ok"] for s in data["steps"]) and len(data["steps"]) == 3
    assert data["expected"] == str(sp.cancel(intensity(2, sp.Rational(1, 2), 2)))
    assert {"line", "text", "ok", "why"} <= set(data["steps"][0])


def test_chain_wrong_middle_step_reports_its_line(tmp_path):
    text = "I = \\frac{2BDF}{2BD+0.5DF+2BF}\n\\approx \\frac{2BDF}{DF}\n= 2B\n"
    code, data = _chain(tmp_path, text, ["--regime", "B << D, F"])
    assert code == 1 and data["verdict"] == "incorrect" and data["first_wrong_line"] == 2
    assert "line 2" in data["diagnosis"][0]
    assert [s["ok"] for s in data["steps"]] == [True, False, True]


def test_chain_equals_where_approx_is_meant(tmp_path):
    code, data = _chain(tmp_path, r"I = \frac{2BDF}{2BD+0.5DF+2BF} = 4B", ["--regime", "B << D, F"])
    assert code == 1 and "\\approx" in data["diagnosis"][0]


def test_chain_approx_without_regime_is_wrong(tmp_path):
    code, data = _chain(tmp_path, r"I = \frac{2BDF}{2BD+0.5DF+2BF} \approx \frac{2BDF}{0.5DF} = 4B")
    assert code == 1 and "regime" in data["diagnosis"][0]


def test_chain_wrong_first_expression(tmp_path):
    code, data = _chain(tmp_path, r"I = \frac{2BDF}{2BD+DF+2BF}" + "\n")
    assert code == 1 and data["first_wrong_line"] == 1 and "Y[D,F]" in data["steps"][0]["why"]


def test_chain_named_quantities(tmp_path):
    code, data = _chain(tmp_path, "\\text{FLOPs} = 2BDF\n")
    assert code == 0 and data["quantity"] == "flops"
    code, data = _chain(tmp_path, "T_{\\text{math}} = \\frac{2BDF}{1.97e14}\n")
    assert code == 0 and data["quantity"] == "t_math"


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00bad",
        b"I = B\n" * 300,
        b"% only a comment\n",
        b"I = B" + b" " * 200_000,
        b"I = \\frac{B}{\n",
    ],
)
def test_chain_unreadable_exit_2(tmp_path, content):
    path = tmp_path / "bad.tex"
    path.write_bytes(content)
    r = run_cli(FP4 + ["--chain", str(path)])
    assert r.code == 2 and r.err.startswith("error: ") and r.err.count("\n") == 1 and r.out == ""


def test_chain_missing_file_exit_2(tmp_path):
    r = run_cli(FP4 + ["--chain", str(tmp_path / "nope.tex")])
    assert r.code == 2 and "no such file" in r.err


def test_leading_order_claim_with_bf16_weights_under_regime():
    # X bf16, Y int8, Z bf16 under B << D, F: 2BDF / (1·DF) = 2B; a claim of B is the all-bf16 answer
    lead = sp.cancel(2 * B * D * F / (1 * D * F))
    assert lead == 2 * B
    code, data = check_json(
        MIXED + ["--regime", "B << D, F", "--quantity", "intensity", "--claim", "B"]
    )
    assert code == 1 and data["expected_leading_order"] == str(lead)
    said = " ".join(data["diagnosis"])
    # one finding names it: Y counted as bf16 (the all-bf16 binding is the same slip, left out)
    assert "Y[D,F] is int8" in said and "as if it were bf16" in said
    assert len(data["diagnosis"]) == 1


def test_incorrect_text_output_lists_the_diagnosis():
    r = run_cli(MIXED + ["--quantity", "intensity", "--claim", r"\frac{2BDF}{2BD+2DF+2BF}"])
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0] == "verdict: incorrect" and "diagnosis:" in lines
    assert any(line.startswith("  - the tensor Y[D,F] is int8") for line in lines)


def test_chain_with_alignment_and_continuation_lines(tmp_path):
    text = "% comment\nI &= \\frac{2BDF}{2BD+0.5DF+2BF} \\\\\n  &\\approx \\frac{2BDF}{0.5DF} \\\\\n  &= 4B\n"
    code, data = _chain(tmp_path, text, ["--regime", "B << D, F"])
    assert code == 0 and [s["line"] for s in data["steps"]] == [2, 3, 4]


def test_chain_crossover_at_leading_order_and_rounded_number(tmp_path):
    cross = V5E_PEAK / V5E_HBM / 2  # bf16 x int8 under B << D, F: 2B = ridge
    path = tmp_path / "cross.tex"
    path.write_text(
        f"B^* = \\frac{{{cross.p}}}{{{cross.q}}} = {decimal_text(cross, 1)}\n", encoding="utf-8"
    )
    r = run_cli(MIXED + ["--regime", "B << D, F", "--chain", str(path), "--format", "json"])
    data = json.loads(r.out)
    assert (
        r.code == 0
        and data["verdict"] == "correct-leading-order"
        and data["quantity"] == "crossover"
    )
    assert "tolerance" in data["steps"][1]["why"]
