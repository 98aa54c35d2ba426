"""Budgets and what-ifs as problem-set problems (issue 36): read, derived, checked, keyed.

Expected values are computed here with Fractions and exact sympy surds, never copied.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import sympy as sp

from derive.catalogue import ProblemKind
from derive.checking.api import check
from derive.errors import ProblemError
from derive.pipeline.key import build_key
from derive.pipeline.kinds import KINDS, kind_of
from derive.problem.sets.problem_set import parse_problem_set
from derive.questions.natives import native_value

SET = """title = "natives"
[[problem]]
id = "chinchilla"
title = "A compute-optimal budget"
budget = { compute = "5.76e23" }
ask = ["params", "tokens"]

[[problem]]
id = "chinchilla-d"
budget = { compute = "5.76e23", params = "70e9" }

[[problem]]
id = "amdahl"
title = "An Amdahl update"
what_if = { profile = "gemm=0.62,attention=0.2,other=0.18", speedup = "gemm=1.8", measured_time = "70 ms" }

[[problem]]
id = "amdahl-rate"
what_if = { profile = "gemm=62%,other=38%", speedup = "gemm=1.8", measured_tokens_per_s = "1000" }
"""

C = sp.Integer(576) * sp.Integer(10) ** 21


def _entry(pset, pid):
    return next(e for e in pset.natives if e.id == pid)


@pytest.fixture(scope="module")
def pset():
    return parse_problem_set(SET, "natives.toml")


def _amdahl_time() -> Fraction:
    # 70 ms; 62 % GEMMs 1.8x faster, 20 % attention and 18 % other unchanged
    return Fraction(70, 1000) * (Fraction(62, 100) / Fraction(18, 10) + Fraction(38, 100))


def test_the_kinds_are_new_rows_of_every_table(pset):
    assert _entry(pset, "chinchilla").kind is ProblemKind.BUDGET
    assert _entry(pset, "amdahl").kind is ProblemKind.WHAT_IF
    assert set(KINDS) == set(ProblemKind)


def test_compute_optimal_n_and_d_exact(pset):
    entry = _entry(pset, "chinchilla")
    n = sp.sqrt(C / 120)  # C = 6·N·D, D = 20·N → N = √(C/120)
    assert sp.simplify(native_value(entry, "params") - n) == 0
    assert sp.simplify(native_value(entry, "tokens") - 20 * n) == 0
    assert native_value(entry, "training_compute") == C
    d = kind_of(entry).derive(entry)
    assert sp.sympify(d.as_json()["params"]["exact"]) == sp.sqrt(C / 120)
    assert "Chinchilla" in d.markdown() and "Kaplan" in d.markdown()


def test_params_given_gives_tokens(pset):
    entry = _entry(pset, "chinchilla-d")
    d = Fraction(576 * 10**21) / (6 * 70 * 10**9)
    assert native_value(entry, "tokens") == sp.Rational(d.numerator, d.denominator)


def test_amdahl_update_of_a_70ms_step(pset):
    entry = _entry(pset, "amdahl")
    t = _amdahl_time()
    assert native_value(entry, "what_if_time") == sp.Rational(t.numerator, t.denominator)
    s = Fraction(70, 1000) / t
    assert native_value(entry, "what_if_speedup") == sp.Rational(s.numerator, s.denominator)
    limit = 1 / (1 - Fraction(62, 100))
    assert native_value(entry, "what_if_limit") == sp.Rational(limit.numerator, limit.denominator)
    assert native_value(entry, "what_if_rate") is None  # no rate measured
    rate = native_value(_entry(pset, "amdahl-rate"), "what_if_rate")
    assert rate == sp.Integer(1000) * sp.Rational(s.numerator, s.denominator)


def test_claims_are_checked_by_catalogue_name(pset):
    entry = _entry(pset, "amdahl")
    t = float(_amdahl_time())
    assert check(entry, "what_if_time", f"{t * 1000:.4g} ms").verdict.value == "correct"
    wrong = check(entry, "what_if_time", f"{t * 1000:.4g} s")
    assert wrong.verdict.value == "incorrect" and "factor of 1000" in wrong.diagnosis[0]
    n = float(sp.sqrt(C / 120))
    assert check(_entry(pset, "chinchilla"), "params", f"{n:.3e}").verdict.value == "correct"


def test_derive_check_problem_set(tmp_path, capsys):
    from derive.commands.cli import main

    path = tmp_path / "natives.toml"
    path.write_text(SET)
    argv = ["check", "--problem-set", str(path), "--problem", "chinchilla"]
    n = float(sp.sqrt(C / 120))
    assert main([*argv, "--quantity", "params", "--claim", f"{n:.4g}", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "correct"
    assert main([*argv, "--quantity", "tokens", "--claim", f"{n:.4g}"]) == 1  # D is 20 N
    capsys.readouterr()
    assert main([*argv, "--quantity", "what_if_time", "--claim", "1 s"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "params, tokens" in err


def test_the_key_has_their_steps_and_glance(pset):
    files = build_key(pset, "natives")
    md = files["natives.md"]
    assert "Compute-optimal budget" in md and "What-if (Amdahl)" in md
    t = _amdahl_time()
    assert f"{float(t) * 1000:.4g}" in md  # 50.71 ms at a glance
    assert "the new step time" in files["natives-questions.md"]


@pytest.mark.parametrize(
    ("table", "key", "why"),
    [
        ('budget = { compute = "-5.76e23" }', "budget.compute", "positive"),
        (
            'what_if = { profile = "gemm=0.6,other=0.3", speedup = "gemm=2", measured_time = "70 ms" }',
            "what_if.profile",
            "sum to 9/10",
        ),
        (
            'what_if = { profile = "gemm=0.6,other=0.4", speedup = "attn=2", measured_time = "70 ms" }',
            "what_if.speedup",
            "not a class",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_file_problem_and_key(tmp_path, capsys, table, key, why):
    from derive.commands.cli import main

    path = tmp_path / "bad.toml"
    path.write_text(f'title = "t"\n[[problem]]\nid = "p"\n{table}\n')
    out = tmp_path / "out"
    code = main(["key", str(path), "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err.count("\n") == 0 and str(path) in err and "problem 'p'" in err
    assert f"key '{key}'" in err and why in err and "--" not in err
    assert not out.exists() or not any(out.iterdir())
    code = main(
        ["check", "--problem-set", str(path), "--problem", "p"]
        + ["--quantity", "params" if "budget" in table else "what_if_time", "--claim", "1"]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and f"key '{key}'" in err


def test_an_unknown_key_or_quantity_names_the_problem(tmp_path):
    with pytest.raises(ProblemError, match=r"problem 'p': key 'budget.computee'.*did you mean"):
        parse_problem_set('[[problem]]\nid = "p"\nbudget = { computee = "1" }\n', "s.toml")
    with pytest.raises(ProblemError, match=r"problem 'p': key 'ask'.*'tokens'"):
        parse_problem_set(
            '[[problem]]\nid = "p"\nbudget = { compute = "1e20" }\nask = ["tokenz"]\n', "s.toml"
        )


def test_expect_is_checked_when_the_key_is_built():
    # appended to the last problem, amdahl-rate: 1000 tokens/s measured, sped up by T/T'
    rate = 1000 * Fraction(70, 1000) / _amdahl_time()
    good = SET + f'expect = {{ what_if_rate = "{rate.numerator}/{rate.denominator}" }}\n'
    build_key(parse_problem_set(good, "natives.toml"), "natives")
    bad = SET + 'expect = { what_if_rate = "1000" }\n'
    with pytest.raises(ProblemError, match=r"problem 'amdahl-rate': key 'expect' \(what_if_rate\)"):
        build_key(parse_problem_set(bad, "natives.toml"), "natives")
    no_time = SET + 'expect = { what_if_time = "0.05" }\n'  # no time was measured
    with pytest.raises(ProblemError, match=r"has no 'what_if_time'"):
        build_key(parse_problem_set(no_time, "natives.toml"), "natives")


def test_answers_rows_grade_budgets_and_what_ifs(tmp_path, capsys):
    from derive.commands.cli import main

    path = tmp_path / "natives.toml"
    path.write_text(SET)
    n = float(sp.sqrt(C / 120))
    t = float(_amdahl_time())
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ann,chinchilla,params,{n:.4g}\n"
        f"ann,amdahl,what_if_time,{t * 1000:.4g} ms\n"
        "bob,amdahl,params,1\n"
    )
    main(["check", "--problem-set", str(path), "--answers", str(answers)])
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    assert [row[4] for row in rows] == ["correct", "correct", "refused"]
