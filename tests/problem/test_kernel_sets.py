"""Problem sets with kernels given by their numbers (``kernel = { flops, bytes }``).

Every expected value is computed here with Fractions from the counts and the chips'
datasheet numbers, never copied from derive's output.
"""

from __future__ import annotations

from fractions import Fraction
from importlib import resources
from pathlib import Path

import pytest
from conftest import run_cli

import derive
from derive.analysis.kernel_numbers import kernel_of
from derive.checking.kernel_claims import KERNEL_QUANTITIES, kernel_value
from derive.commands.key import BUILTIN_SET
from derive.errors import DeriveError
from derive.pipeline.key import build_key
from derive.problem.sets.kernels import KERNEL_ASK_KEYS
from derive.problem.sets.problem_set import parse_problem_set

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

H100_PEAK, H100_BANDWIDTH = Fraction("9.89e14"), Fraction("3.35e12")  # dense bf16, HBM3
A100_PEAK, A100_BANDWIDTH = Fraction("3.12e14"), Fraction("2.039e12")

SET = """title = "Kernels"
[[problem]]
id = "gemm"
title = "A kernel by its counts"
text = "Is it compute-bound? What MFU does 1.3 ms imply?"
kernel = { flops = "1e12", bytes = "2.5e9" }
chip = "h100"
measured_time = "1.3ms"
ask = ["intensity", "ridge", "t_lower", "mfu"]

[[problem]]
id = "norm"
kernel = { flops = "4e9", bytes = "4e8" }
chip = "h100"
compute_efficiency = "0.9"
memory_efficiency = "0.75"
launch_overhead = "5us"

[[problem]]
id = "ew"
kernel = { intensity = "20" }
chip = "a100"
efficiency = "0.8"

[[problem]]
id = "typed"
kernel = { flops = "3e10", bytes = "1e9" }
peak = "1.97e14"
bandwidth = "8.2e11"
measured_flops_per_s = "1e14"
"""


def _truths() -> dict[str, dict[str, Fraction]]:
    """Each kernel's quantities, the plain way: I = F/Q, T = max(F/(π·η_c), Q/(β·η_m)) + t."""
    gemm_f, gemm_q = Fraction(10**12), Fraction(25 * 10**8)
    norm_f, norm_q = Fraction(4 * 10**9), Fraction(4 * 10**8)
    eta_c, eta_m, launch = Fraction(9, 10), Fraction(3, 4), Fraction(5, 10**6)
    ew_i, eta = Fraction(20), Fraction(4, 5)
    return {
        "gemm": {
            "intensity": gemm_f / gemm_q,
            "ridge": H100_PEAK / H100_BANDWIDTH,
            "t_math": gemm_f / H100_PEAK,
            "t_mem": gemm_q / H100_BANDWIDTH,
            "t_lower": max(gemm_f / H100_PEAK, gemm_q / H100_BANDWIDTH),
            "t_upper": gemm_f / H100_PEAK + gemm_q / H100_BANDWIDTH,
            "mfu": gemm_f / Fraction(13, 10_000) / H100_PEAK,
            "mbu": gemm_q / Fraction(13, 10_000) / H100_BANDWIDTH,
        },
        "norm": {
            "intensity": norm_f / norm_q,
            "effective_ridge": H100_PEAK * eta_c / (H100_BANDWIDTH * eta_m),
            "attainable": min(H100_PEAK * eta_c, norm_f / norm_q * H100_BANDWIDTH * eta_m),
            "t_lower": max(norm_f / (H100_PEAK * eta_c), norm_q / (H100_BANDWIDTH * eta_m))
            + launch,
            "t_upper": norm_f / (H100_PEAK * eta_c) + norm_q / (H100_BANDWIDTH * eta_m) + launch,
        },
        "ew": {
            "attainable": min(A100_PEAK * eta, ew_i * A100_BANDWIDTH * eta),
            "fraction_of_peak": min(A100_PEAK * eta, ew_i * A100_BANDWIDTH * eta) / A100_PEAK,
        },
        "typed": {
            "intensity": Fraction(30),
            "t_lower": max(Fraction(3 * 10**10) / Fraction("1.97e14"), 10**9 / Fraction("8.2e11")),
            "mfu": Fraction(10**14) / Fraction("1.97e14"),
        },
    }


def _fraction(value: object) -> Fraction:
    return Fraction(str(value))


@pytest.fixture(scope="module")
def pset():
    return parse_problem_set(SET, "kernels.toml")


def test_the_kernel_names_of_a_set_are_derive_checks(pset):
    assert KERNEL_ASK_KEYS == KERNEL_QUANTITIES
    assert [k.id for k in pset.kernels] == ["gemm", "norm", "ew", "typed"]
    assert pset.problems == () and pset.models == ()


def test_a_set_kernel_has_the_values_computed_by_hand(pset):
    by_id = {k.id: k for k in pset.kernels}
    for pid, truths in _truths().items():
        kernel = kernel_of(by_id[pid].spec)
        for quantity, want in truths.items():
            assert _fraction(kernel_value(kernel, quantity)) == want, (pid, quantity)


def test_the_key_shows_the_kernels_worked_solutions_and_figures(pset):
    files = build_key(pset, "k")
    key = files["k.md"]
    truths = _truths()
    gemm = truths["gemm"]
    for value in (gemm["t_lower"], gemm["mfu"], gemm["t_upper"], truths["norm"]["t_lower"]):
        assert f"{value.numerator}}}{{{value.denominator}}}" in key  # \frac{1}{989}
    assert "## Problem 1 (gemm): A kernel by its counts" in key
    assert "Is it compute-bound? What MFU does 1.3 ms imply?" in key
    assert "### Step 3 — Measured run" in key
    assert "Launch overhead 5us per kernel" in key or "launch overhead 5us per kernel" in key
    # one roofline per chip (the typed numbers have theirs), each kernel placed at its intensity
    assert {"k-roofline-h100.svg", "k-roofline-a100.svg"} <= set(files)
    assert ">gemm<" in files["k-roofline-h100.svg"] and ">ew<" in files["k-roofline-a100.svg"]
    questions = files["k-questions.md"]
    assert "the MFU the measurement implies" in questions and "1/989" not in questions
    assert r"\label{k:gemm}" in files["k-appendix.tex"]
    assert r"\subsection{Problem 4 (typed): typed}" in files["k-appendix.tex"]


def test_the_key_is_the_same_on_every_run_and_any_number_of_jobs(pset):
    first = build_key(pset, "k", jobs=1)
    assert build_key(pset, "k", jobs=1) == first
    assert build_key(pset, "k", jobs=2) == first


def test_the_builtin_set_kernels_meet_their_expect():
    text = resources.files("derive").joinpath(BUILTIN_SET).read_text("utf-8")
    raw = {p["id"]: p for p in tomllib.loads(text)["problem"] if "kernel" in p}
    kernels = parse_problem_set(text, "rooflines.toml").kernels
    assert len(kernels) == len(raw) >= 1
    for entry in kernels:
        kernel = kernel_of(entry.spec)
        for quantity, want in raw[entry.id]["expect"].items():
            assert _fraction(kernel_value(kernel, quantity)) == Fraction(want), quantity
    measured = raw["kernel-h100-measured"]
    flops, moved = Fraction(measured["kernel"]["flops"]), Fraction(measured["kernel"]["bytes"])
    assert Fraction(measured["expect"]["t_lower"]) == max(flops / H100_PEAK, moved / H100_BANDWIDTH)
    assert Fraction(measured["expect"]["mfu"]) == flops / Fraction(13, 10_000) / H100_PEAK


# ---- derive check --problem-set, --answers, derive.check ------------------------------


@pytest.fixture(scope="module")
def set_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kernels") / "kernels.toml"
    path.write_text(SET, encoding="utf-8")
    return path


def _check(set_file: Path, problem: str, quantity: str, claim: str, *more: str):
    return run_cli(
        [
            "check",
            "--problem-set",
            str(set_file),
            "--problem",
            problem,
            "--quantity",
            quantity,
            "--claim",
            claim,
            *more,
        ]
    )


def test_check_judges_a_set_kernel(set_file):
    t_lower = _truths()["gemm"]["t_lower"]
    right = _check(set_file, "gemm", "t_lower", f"{float(t_lower) * 1000:.5g} ms")
    assert right.code == 0 and "verdict: correct" in right.out, right
    wrong = _check(set_file, "gemm", "t_lower", f"{float(t_lower) * 2:.5g} s")
    assert wrong.code == 1 and "verdict: incorrect" in wrong.out
    mfu = _truths()["gemm"]["mfu"]
    assert _check(set_file, "gemm", "mfu", f"{float(mfu) * 100:.4g}%").code == 0
    # a kernel-only quantity through --problem-set (refused before without the flags)
    fraction = _truths()["ew"]["fraction_of_peak"]
    assert _check(set_file, "ew", "fraction_of_peak", f"{float(fraction):.5g}").code == 0
    hidden = _check(set_file, "gemm", "t_lower", "1 s", "--hide-expected", "--format", "json")
    assert hidden.code == 1 and "1/989" not in hidden.out and "0.0010111" not in hidden.out


@pytest.mark.parametrize(
    ("problem", "quantity", "claim", "says"),
    [
        ("gemm", "params", "1", "not a quantity of problem 'gemm'"),
        ("ew", "t_lower", "1 ms", "needs both counts"),
        ("nosuch", "t_lower", "1 ms", "no such problem"),
    ],
)
def test_check_refuses_what_a_set_kernel_does_not_have(set_file, problem, quantity, claim, says):
    result = _check(set_file, problem, quantity, claim)
    assert result.code == 2 and says in result.err
    assert result.err.count("\n") == 1 and result.out == ""


def test_a_kernel_is_not_checked_as_a_chain(set_file, tmp_path):
    chain = tmp_path / "chain.txt"
    chain.write_text("I = 400\n", encoding="utf-8")
    result = run_cli(
        ["check", "--problem-set", str(set_file), "--problem", "gemm", "--chain", str(chain)]
    )
    assert result.code == 2 and "one quantity at a time" in result.err


def test_answers_rows_may_name_a_set_kernel(set_file, tmp_path):
    intensity = _truths()["gemm"]["intensity"]
    answers = tmp_path / "answers.csv"
    answers.write_text(
        f"who,problem,quantity,claim\nann,gemm,intensity,{intensity}\nbob,ew,attainable,1e13\n",
        encoding="utf-8",
    )
    result = run_cli(["check", "--problem-set", str(set_file), "--answers", str(answers)])
    rows = result.out.splitlines()
    assert rows[1].startswith("ann,gemm,intensity,400,correct")
    assert rows[2].startswith("bob,ew,attainable,1e13,incorrect")
    bad = tmp_path / "bad.csv"
    bad.write_text("who,problem,quantity,claim\nann,ew,t_lower,1\n", encoding="utf-8")
    refused = run_cli(["check", "--problem-set", str(set_file), "--answers", str(bad)])
    assert refused.code == 1 and "kernel problem 'ew'" in refused.out
    assert refused.out.splitlines()[1].startswith("ann,ew,t_lower,1,refused")


def test_derive_check_takes_a_set_kernel(pset):
    entry = next(k for k in pset.kernels if k.id == "norm")
    attainable = _truths()["norm"]["attainable"]
    assert derive.check(entry, "attainable", f"{attainable} FLOP/s").verdict.value == "correct"
    with pytest.raises(DeriveError):
        derive.check_derivation(entry, ["I = 10"])


# ---- hostile set input ---------------------------------------------------------------

_HEAD = '[[problem]]\nid = "k"\nchip = "h100"\n'


@pytest.mark.parametrize(
    ("body", "key", "says"),
    [
        ('kernel = { flops = "1e12", bytes = "2.5e9", intensity = "3" }', "'kernel'", "not both"),
        ("kernel = { }", "'kernel'", "needs flops or bytes"),
        (
            'kernel = { flops = "1e12", bytes = "2.5e9", colour = "red" }',
            "'kernel.colour'",
            "unknown key",
        ),
        ('kernel = { flops = "-1e12", bytes = "2.5e9" }', "'kernel.flops'", "positive"),
        ('kernel = { flops = "lots", bytes = "2.5e9" }', "'kernel.flops'", "not a decimal"),
        ('kernel = { flops = "0", bytes = "2.5e9" }', "'kernel.flops'", "positive"),
        ('kernel = { flops = 1e12, bytes = "2.5e9" }', "'kernel.flops'", "must be a string"),
        ('kernel = { flops = "1e12", bytes = "nan" }', "'kernel.bytes'", "not a decimal"),
        ('kernel = "1e12"', "'kernel'", "must be a table"),
        ('kernel = { intensity = "20" }\noperator = "matmul"', "'operator'", "not two"),
        ('kernel = { intensity = "20" }\nmodel = "gpt2-small"', "'model'", "not two"),
        ('kernel = { intensity = "20" }\nset = { B = 1 }', "'set'", "unknown key"),
        ('kernel = { intensity = "20" }\nlink_latency = "1us"', "'link_latency'", "unknown key"),
        ('kernel = { intensity = "20" }\nask = ["crossover"]', "'ask'", "unknown quantity"),
        ('kernel = { intensity = "20" }\nask = ["t_lower"]', "'ask'", "has no 't_lower'"),
        ('kernel = { flops = "1e12", bytes = "2.5e9" }\nask = ["mfu"]', "'ask'", "has no 'mfu'"),
        ('kernel = { intensity = "20" }\nexpect = { t_upper = "1" }', "'expect'", "has no"),
        (
            'kernel = { intensity = "20" }\nexpect = { ridge = "about 295" }',
            "'expect'",
            "exact value",
        ),
        ('kernel = { intensity = "20" }\nefficiency = "1.5"', "'efficiency'", "(0, 1]"),
        (
            'kernel = { intensity = "20" }\nlaunch_overhead = "-5us"',
            "'launch_overhead'",
            "negative",
        ),
        ('kernel = { intensity = "20" }\nmeasured_time = "0s"', "'measured_time'", "positive"),
        (
            'kernel = { intensity = "20" }\nmeasured_time = "1ms"',
            "'measured_time'",
            "intensity alone",
        ),
        (
            'kernel = { flops = "1e12", bytes = "2.5e9" }\ndtype = "weights=fp8"',
            "'dtype'",
            "one dtype",
        ),
        ('kernel = { intensity = "20" }\ndtype = "bf17"', "'dtype'", "unknown dtype"),
        ('kernel = { intensity = "20" }\nchip = "h1000"', "", "chip"),
    ],
)
def test_hostile_kernel_tables_are_one_line_naming_file_problem_and_key(tmp_path, body, key, says):
    head = _HEAD if 'chip = "h1000"' not in body else '[[problem]]\nid = "k"\n'
    path = tmp_path / "bad.toml"
    path.write_text(head + body + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli(["key", str(path), "-o", str(out)])
    assert result.code == 2, result
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: problem 'k'"), lines
    assert f"key {key}" in lines[0] if key else True
    assert says in lines[0], lines[0]
    assert "Traceback" not in result.err and not out.exists()


def test_every_bad_kernel_of_a_file_is_reported_at_once(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        "\n".join(
            f'[[problem]]\nid = "k{i}"\nchip = "h100"\nkernel = {{ flops = "{bad}", bytes = "1" }}'
            for i, bad in enumerate(("x", "-1", "1e", "0"))
        ),
        encoding="utf-8",
    )
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 2
    assert [line.split(":")[2].strip() for line in result.err.splitlines()] == [
        f"problem 'k{i}'" for i in range(4)
    ]
