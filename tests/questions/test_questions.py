"""Givens with units, defined quantities and equations (issue 23).

Every expected value is computed here independently, with Fractions and the textbook
formulas (T_math = 2BDF/π, T_mem = 2(BD + DF + BF)/β for a bf16 matmul), from the
hardware numbers the problem gives, never copied from derive's output.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from derive.pipeline import answer_set_questions, solve, solve_questions
from derive.problem.sets.problem_set import parse_problem_set
from tests.conftest import run_cli

MS = Fraction(1, 1000)


def _rate(analysis) -> tuple[Fraction, Fraction]:
    p = analysis.problem
    return Fraction(str(p.peak.value)), Fraction(str(p.bandwidth.value))


def _t_lower(b: int, d: int, f: int, peak: Fraction, bw: Fraction) -> Fraction:
    return max(Fraction(2 * b * d * f) / peak, Fraction(2 * (b * d + d * f + b * f)) / bw)


def test_piecewise_solve_takes_the_branch_that_binds():
    d = solve(
        "matmul",
        dtype="bf16",
        chip="h100",
        set={"D": 8192, "F": 8192},
        equations=["t_lower <= 1 ms"],
        unknowns=["B"],
    )
    peak, bw = _rate(d.analysis)
    largest = max(
        b for b in range(1, 20000) if _t_lower(b, 8192, 8192, peak, bw) <= MS
    )  # by hand: every batch tried
    answer = d.questions.answer("B")
    assert answer.value == largest
    assert _t_lower(largest + 1, 8192, 8192, peak, bw) > MS
    math_root = MS * peak / (2 * 8192 * 8192)
    mem_root = (MS * bw / 2 - 8192 * 8192) / (2 * 8192)
    binds = "t_math" if math_root < mem_root else "t_mem"
    assert f"branch {binds}" in answer.note
    assert answer.formula == sp.Rational(min(math_root, mem_root))


def test_two_equation_system():
    q = solve_questions(
        given={"C": "5.76e23"}, equations=["C = 6*N*D", "D = 20*N"], unknowns=["N", "D"]
    )
    n, d = q.answer("N").value, q.answer("D").value
    c = Fraction(576 * 10**21)
    assert n > 0 and d > 0
    assert sp.Rational(c) == 6 * n * d and d == 20 * n  # exact, sqrt included
    assert n**2 == sp.Rational(c / 120)
    assert "other roots" in q.answer("N").note  # the negative pair is named


def test_cross_problem_ratio():
    text = """
[[problem]]
id = "mm-h100"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 4096, D = 8192, F = 8192 }

[[problem]]
id = "mm-a100"
operator = "matmul"
dtype = "bf16"
chip = "a100"
set = { B = 4096, D = 8192, F = 8192 }
define = { slowdown = "t_lower / mm-h100.t_lower" }
"""
    pset = parse_problem_set(text, "ratio.toml")
    answered = answer_set_questions(pset)
    h100 = solve("matmul", dtype="bf16", chip="h100", set={"B": 4096, "D": 8192, "F": 8192})
    a100 = solve("matmul", dtype="bf16", chip="a100", set={"B": 4096, "D": 8192, "F": 8192})
    want = _t_lower(4096, 8192, 8192, *_rate(a100.analysis)) / _t_lower(
        4096, 8192, 8192, *_rate(h100.analysis)
    )
    got = answered["mm-a100"].answer("slowdown")
    assert got.value == sp.Rational(want) and got.unit == ""


def test_units_convert_exactly():
    q = solve_questions(
        given={"price": "2.49 $/h", "t": "3 days", "mem": "2 GiB", "p": "700 W"},
        define={
            "cost": "price * t",
            "ratio": "mem / (1 GB)",
            "energy": "p * t",
            "per_ms": "cost / (1 ms)",
        },
    )
    cost = Fraction(249, 100) * 3 * 24  # $ per hour × hours
    assert q.answer("cost").value == sp.Rational(cost) and q.answer("cost").unit == "$"
    assert q.answer("ratio").value == sp.Rational(2 * 2**30, 10**9)
    assert q.answer("energy").value == 700 * 3 * 86400 and q.answer("energy").unit == "J"
    assert q.answer("per_ms").value == sp.Rational(cost * 1000) and q.answer("per_ms").unit == "$/s"


def test_model_quantities_by_json_name():
    from derive.pipeline import solve_model

    m = solve_model(
        "llama-3-8b",
        chip="h100",
        devices=1024,
        train_tokens="15e12",
        mfu="0.4",
        given={"price": "2.49 $/h"},
        define={"cost": "price * devices * train_seconds"},
    )
    seconds = Fraction(str(m.analysis.value("train_seconds")))
    assert m.questions.answer("cost").value == sp.Rational(
        Fraction(249, 100) / 3600 * 1024 * seconds
    )
    assert m.as_json()["defined"]["cost"]["unit"] == "$"


def test_a_free_dim_as_unknown():
    from derive.pipeline import solve_model

    m = solve_model(
        "llama-3-8b",
        chip="h100",
        set={"B": 16},
        equations=["memory_total <= 80 GB"],
        unknowns=["S"],
    )
    fits = solve_model(
        "llama-3-8b", chip="h100", set={"B": 16, "S": int(m.questions.answer("S").value)}
    )
    over = solve_model(
        "llama-3-8b", chip="h100", set={"B": 16, "S": int(m.questions.answer("S").value) + 1}
    )
    assert fits.analysis.value("memory_total") <= 80 * 10**9 < over.analysis.value("memory_total")


def test_refused_unit_mismatch():
    with pytest.raises(ValueError, match=r"units do not add up.*a time \(s\).*a byte count"):
        solve_questions(given={"t": "1 s", "b": "1 GB"}, define={"x": "t + b"})


def test_no_solution_is_a_verdict():
    q = solve_questions(equations=["x^2 + 1 = 0"], unknowns=["x"])
    assert q.solving.verdict == "no solution"


BASE = """
[[problem]]
id = "p"
{body}
"""


@pytest.mark.parametrize(
    ("body", "key", "why"),
    [
        ('define = { a = "b * 2" }', "define", r"unknown name 'b'.*names here"),
        ('define = { a = "b", b = "a" }', "define", r"a cycle of definitions: a -> b -> a"),
        (
            'given = { x = "2" }\nequations = ["x = 2"]\nunknowns = ["y"]',
            "equations",
            r"names no unknown",
        ),
        ('equations = ["x = 2"]\nunknowns = ["x", "y"]', "unknowns", r"appears in no equation"),
        ('equations = ["x + 1 = 0"]\nunknowns = ["x"]', "unknowns", r"no positive real solution"),
        ('given = { t = "1 s" }\ndefine = { a = "t + 2 GB" }', "define", r"units do not add up"),
        ('define = { a = "' + "1" * 100_000 + '" }', "define", r"100000 characters"),
    ],
)
def test_bad_input_is_one_line_naming_file_problem_and_key(tmp_path: Path, body, key, why):
    path = tmp_path / "set.toml"
    path.write_text(BASE.format(body=body), encoding="utf-8")
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 2, result
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert str(path) in lines[0] and "problem 'p'" in lines[0] and f"key {key!r}" in lines[0]
    assert re.search(why, lines[0]), lines[0]
    assert not (tmp_path / "out").exists()


def test_a_cycle_of_references_between_problems(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(
        '[[problem]]\nid = "a"\ndefine = { x = "b.y" }\n\n[[problem]]\nid = "b"\ndefine = { y = "a.x" }\n',
        encoding="utf-8",
    )
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert result.code == 2 and "a cycle of references: a -> b -> a" in result.err


def test_command_line_shape_without_an_operator():
    result = run_cli(
        [
            "solve",
            "--given",
            "step=70 ms",
            "--given",
            "share=62 %",
            "--define",
            "new_step=step * (1 - share) + step * share / 1.8",
            "--format",
            "json",
        ]
    )
    assert result.code == 0, result
    got = json.loads(result.out)["defined"]["new_step"]
    want = Fraction(70, 1000) * (1 - Fraction(62, 100)) + Fraction(70, 1000) * Fraction(
        62, 100
    ) / Fraction(18, 10)
    assert sp.Rational(got["exact"]) == sp.Rational(want) and got["unit"] == "s"
    assert math.isclose(got["value"], float(want))


def test_the_docs_toml_block_is_a_valid_set():
    block = re.search(
        r"```toml\n(.*?)```",
        (Path(__file__).parents[2] / "docs" / "questions.md").read_text(encoding="utf-8"),
        re.S,
    ).group(1)
    pset = parse_problem_set(block, "questions.toml")
    answered = answer_set_questions(pset)
    assert answered["chinchilla"].answer("N").value > 0
    assert answered["mm-a100"].answer("speedup").value > 1


BUILTIN = str(Path(__file__).parents[2] / "derive" / "data" / "problems" / "rooflines.toml")


def _train_cost() -> Fraction:
    from derive.pipeline import solve_model

    # the built-in cost-of-training names model-70b-training's quantities: Llama 3 70B, 2048 H100s
    m = solve_model("llama-3-70b", chip="h100", devices=2048, train_tokens="15e12", mfu="0.4")
    params = Fraction(str(m.analysis.value("params_active")))
    peak = Fraction(str(m.analysis.problem.peak.value))
    seconds = 6 * params * 15 * 10**12 / (2048 * peak * Fraction(4, 10))  # T = 6ND / (N_dev π η)
    return Fraction(249, 100) / 3600 * 2048 * seconds


# the bill of model-70b-training as defined quantities (the built-in set now asks it by the
# model's own keys, price_per_hour and power: tests/model/test_money_and_energy.py)
TRAIN_BILL = """
[[problem]]
id = "model-70b-training"
model = "llama-3-70b"
chip = "h100"
devices = 2048
train_tokens = "15e12"
mfu = "0.4"

[[problem]]
id = "cost-of-training"
given = { price = "2.49 $/h", power = "700 W" }
define = { cost = "price * model-70b-training.devices * model-70b-training.train_seconds" }
"""


def _bill_set(tmp_path: Path) -> str:
    path = tmp_path / "bill.toml"
    path.write_text(TRAIN_BILL, encoding="utf-8")
    return str(path)


def test_the_builtin_bill_is_the_models_own_cost_of_run():
    cost = _train_cost()
    argv = ["check", "--problem-set", BUILTIN, "--problem", "cost-of-training"]
    right = run_cli([*argv, "--quantity", "cost_of_run", "--claim", f"{float(cost):.6e}"])
    assert right.code == 0, right


def test_check_a_defined_quantity_and_name_a_forgotten_conversion(tmp_path: Path):
    BUILTIN = _bill_set(tmp_path)
    cost = _train_cost()
    right = run_cli(
        [
            "check",
            "--problem-set",
            BUILTIN,
            "--problem",
            "cost-of-training",
            "--quantity",
            "cost",
            "--claim",
            f"{float(cost):.6e} $",
        ]
    )
    assert right.code == 0, right
    hours_as_seconds = run_cli(
        [
            "check",
            "--problem-set",
            BUILTIN,
            "--problem",
            "cost-of-training",
            "--quantity",
            "cost",
            "--claim",
            f"cost = {float(cost * 3600):.6e} $",
        ]
    )
    assert hours_as_seconds.code == 1 and "an hour taken as a second" in hours_as_seconds.out
    wrong_unit = run_cli(
        [
            "check",
            "--problem-set",
            BUILTIN,
            "--problem",
            "cost-of-training",
            "--quantity",
            "cost",
            "--claim",
            f"{float(cost):.6e} s",
        ]
    )
    assert wrong_unit.code == 1 and "a time (s)" in wrong_unit.out


def test_answers_grading_reads_defined_quantities(tmp_path: Path):
    BUILTIN = _bill_set(tmp_path)
    cost = _train_cost()
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ana,cost-of-training,cost,{float(cost):.6e} $\n"
        f"bo,cost-of-training,cost,{float(cost) / 3600:.6e} $\n",
        encoding="utf-8",
    )
    result = run_cli(["check", "--problem-set", BUILTIN, "--answers", str(answers)])
    assert result.code == 0, result
    rows = result.out.strip().splitlines()[1:]
    assert rows[0].split(",")[4] == "correct" and rows[1].split(",")[4] == "incorrect"


AMDAHL = """
[[problem]]
id = "amdahl"
title = "An Amdahl update"
given = { step = "70 ms", share = "62 %" }
define = { new_step = "step * (1 - share) + step * share / 1.8" }
EXPECT
"""


def _amdahl() -> Fraction:
    return Fraction(70, 1000) * (1 - Fraction(62, 100)) + Fraction(70, 1000) * Fraction(
        62, 100
    ) / Fraction(18, 10)


def test_key_shows_the_step_the_glance_and_a_sheet_without_the_value(tmp_path: Path):
    from derive.commands.key import build_key

    files = build_key(parse_problem_set(AMDAHL.replace("EXPECT", ""), "amdahl.toml"), "amdahl")
    value = f"{float(_amdahl()) * 1000:.4g} ms"  # a time reads in the unit a person uses
    number = f"{float(_amdahl()) * 1000:.4g}"
    glance = r"$\mathrm{new\_step} = " + number + r"\ \text{ms}$"  # the glance is math
    assert "new\\_step" in files["amdahl.md"] and glance in files["amdahl.md"]  # step and glance
    sheet = files["amdahl-questions.md"]
    assert "new\\_step" in sheet and value not in sheet and "step = 70 ms" in sheet


def test_expect_of_a_defined_quantity_is_checked(tmp_path: Path):
    from derive.commands.key import build_key
    from derive.errors import ProblemError

    good = AMDAHL.replace("EXPECT", f'expect = {{ new_step = "{float(_amdahl()) * 1000:.6g} ms" }}')
    build_key(parse_problem_set(good, "amdahl.toml"), "amdahl")
    bad = AMDAHL.replace("EXPECT", 'expect = { new_step = "46 ms" }')
    with pytest.raises(ProblemError, match=r"key 'expect' \(new_step\): expected 46 ms"):
        build_key(parse_problem_set(bad, "amdahl.toml"), "amdahl")


def test_a_kernel_problem_takes_questions(tmp_path: Path):
    path = tmp_path / "k.toml"
    path.write_text(
        '[[problem]]\nid = "k"\nkernel = { flops = "1e12", bytes = "2.5e9" }\nchip = "h100"\n'
        'given = { runs = "1000" }\ndefine = { total = "runs * t_lower" }\nask = ["intensity", "total"]\n',
        encoding="utf-8",
    )
    pset = parse_problem_set(path.read_text(encoding="utf-8"), str(path))
    peak = Fraction(str(solve("matmul", dtype="bf16", chip="h100").analysis.problem.peak.value))
    bw = Fraction(str(solve("matmul", dtype="bf16", chip="h100").analysis.problem.bandwidth.value))
    want = 1000 * max(Fraction(10**12) / peak, Fraction(25 * 10**8) / bw)
    assert answer_set_questions(pset)["k"].answer("total").value == sp.Rational(want)
    claim = run_cli(
        [
            "check",
            "--problem-set",
            str(path),
            "--problem",
            "k",
            "--quantity",
            "total",
            "--claim",
            f"{float(want) * 1000:.6g} ms",
        ]
    )
    assert claim.code == 0, claim


def test_the_workbook_boxes_and_grades_a_defined_quantity():
    from derive.web.book import build_workbook
    from derive.web.grading import Grader

    pset = parse_problem_set(
        '[[problem]]\nid = "mm"\noperator = "matmul"\ndtype = "bf16"\nchip = "h100"\n'
        'set = { B = 4096, D = 8192, F = 8192 }\ngiven = { runs = "1000" }\n'
        'define = { total = "runs * t_lower" }\nask = ["times", "total"]\n',
        "mm.toml",
    )
    page = build_workbook(pset).pages["mm"]
    assert "total" in [a.quantity for a in page.asked]
    assert "total" in [a["quantity"] for a in page.detail["asked"]]
    peak, bw = _rate(solve("matmul", dtype="bf16", chip="h100").analysis)
    want = 1000 * _t_lower(4096, 8192, 8192, peak, bw)
    grader = Grader({e.id: e for e in pset.entries()}, problem_set=pset)
    assert grader.check("mm", "total", f"{float(want):.6g} s").verdict == "correct"
    assert grader.check("mm", "total", f"{float(want) * 1000:.6g} s").verdict == "incorrect"


def test_intensity_equals_ridge_is_the_crossover():
    """Two paths to one number: the crossover derive solves, and the equation I = π/β."""
    d = solve(
        "matmul",
        dtype="bf16",
        chip="h100",
        set={"D": 8192, "F": 8192},
        equations=["intensity = ridge"],
        unknowns=["B"],
    )
    b = d.questions.answer("B")
    assert b.formula == d.crossover.exact and b.value == d.crossover.min_compute_bound


def test_solving_is_bounded_by_the_time_budget(tmp_path: Path):
    path = tmp_path / "hard.toml"
    path.write_text(
        '[[problem]]\nid = "hard"\nequations = ["x^61 + 3*x^17 + 5 = 2*y^13", "y^7 + x^3 = 11"]\n'
        'unknowns = ["x", "y"]\n',
        encoding="utf-8",
    )
    result = run_cli(["key", str(path), "-o", str(tmp_path / "out"), "--time-limit", "1"])
    assert result.code == 2 and "time limit" in result.err and str(path) in result.err
    assert len(result.err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_an_equation_names_a_defined_quantity_that_uses_the_unknown():
    """docs/questions.md: equations may name defined quantities. One that uses the unknown
    (peak = units · flops_per_clock · clock) is solved through (it was 'unknown name');
    the clock comes out exactly, and the defined peak is the target again."""
    r = run_cli(
        ["solve", "--given", "units=132", "--given", "flops_per_clock=4096 FLOP"]
        + ["--define", "peak_parts=units*flops_per_clock*clock"]
        + ["--equation", "peak_parts = 989.4e12 FLOP/s", "--unknown", "clock", "--format", "json"]
    )
    assert r.code == 0, r
    answers = json.loads(r.out)["defined"]
    clock = Fraction("989.4e12") / (132 * 4096)
    assert Fraction(answers["clock"]["exact"]) == clock
    assert Fraction(answers["peak_parts"]["exact"]) == Fraction("989.4e12")


def test_a_latex_definition_solved_through_keeps_its_backslashes():
    """The definition is written into the equation as it was typed: a LaTeX one (``\\frac``,
    ``\\cdot``) is read, not taken for regex escapes (``\\c`` was an error)."""
    r = run_cli(
        ["solve", "--given", "units=132", "--given", "flops_per_clock=4096 FLOP"]
        + ["--define", r"p=\frac{units \cdot flops_per_clock \cdot clock}{2}"]
        + ["--equation", "p = 989.4e12 FLOP/s", "--unknown", "clock", "--format", "json"]
    )
    assert r.code == 0, r
    clock = 2 * Fraction("989.4e12") / (132 * 4096)
    assert Fraction(json.loads(r.out)["defined"]["clock"]["exact"]) == clock


@pytest.mark.parametrize(
    "flags",
    [["--equation", "y = 2 x", "--unknown", "y"], ["--define", "y=2 x"], ["--define", "y=2x"]],
)
def test_a_number_then_a_known_x_is_a_product_not_a_ratio(flags):
    # "1.72x" is a ratio as students write one; with a name x the formula may use, 2 x is 2·x
    # (it once read "y = 2 x" as y = 2, x dropped)
    out = json.loads(run_cli(["solve", "--given", "x=3", *flags, "--format", "json"]).out)
    assert Fraction(out["defined"]["y"]["exact"]) == 2 * 3


def test_a_ratio_as_written_is_still_read_where_x_is_no_name():
    out = json.loads(
        run_cli(["solve", "--given", "k=1.72x", "--define", "t=2 k", "--format", "json"]).out
    )
    assert Fraction(out["given"]["k"]["exact"]) == Fraction(172, 100)
    assert Fraction(out["defined"]["t"]["exact"]) == 2 * Fraction(172, 100)
