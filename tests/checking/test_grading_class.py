"""Grading a class (issue 33, item 6): a bad row is a row, a tally per student, answers as written.

Rows naming a problem or a quantity the set lacks are refused one by one (the rest graded,
exit 1); ``--format json`` gives ``{"answers": [...], "students": {who: {right, answered,
asked}}}``; the text output ends with the per-student table; a model's answer may use the
givens table's symbols (``2*L*h_kv*d_h*2``) and name a time ``T = …`` or ``t_lower = …``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction

from conftest import ROOT, run_cli

import derive
from derive.checking.api import model_values
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.problem_set import load_problem_set

_LLAMA = ModelSpec("llama-3-8b", chip="h100", sets=("S=8192", "B=16"))


def _class_files(tmp_path):
    ((_, exact, _),) = model_values(_LLAMA, ["max_batch"])
    sets = tmp_path / "set.toml"
    sets.write_text(
        'title = "t"\n[[problem]]\nid = "m"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        'set = { S = 8192, B = 16 }\nask = ["max_batch", "params"]\n'
    )
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ana,m,max_batch,{exact}\n"
        "ana,q9,params,8e9\n"  # no such problem
        "ben,m,ridge,1\n"  # not a quantity of a model problem
        "ben,m,params,\\frac{2\n"  # unreadable
        "ben,m,params,8.03e9\n"
    )
    return sets, answers


def test_a_bad_row_is_a_row_and_the_rest_is_graded(tmp_path):
    sets, answers = _class_files(tmp_path)
    r = run_cli(
        ["check", "--problem-set", str(sets), "--answers", str(answers), "--format", "json"]
    )
    assert r.code == 1, r
    data = json.loads(r.out)
    verdicts = [row["verdict"] for row in data["answers"]]
    assert verdicts == ["correct", "refused", "refused", "unreadable", "correct"]
    assert "no such problem" in data["answers"][1]["reason"]
    assert "line 3" in data["answers"][1]["reason"] and "'ridge'" in data["answers"][2]["reason"]
    assert data["students"] == {
        "ana": {"right": 1, "answered": 1, "asked": 2},
        "ben": {"right": 1, "answered": 2, "asked": 2},
    }


def test_the_text_output_ends_with_a_per_student_table(tmp_path):
    sets, answers = _class_files(tmp_path)
    out = tmp_path / "verdicts.csv"
    r = run_cli(["check", "--problem-set", str(sets), "--answers", str(answers), "-o", str(out)])
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0].split() == ["who", "right", "answered", "asked"]
    assert lines[1].split() == ["ana", "1", "1", "2"] and lines[2].split() == ["ben", "1", "2", "2"]
    assert out.read_text("utf-8").count("refused") == 2


def test_a_model_answer_may_use_the_givens_symbols():
    # Llama 3 8B: 32 blocks, 8 KV heads of 128, bf16: K and V, 2 bytes each
    per_token = 2 * 32 * 8 * 128 * 2
    spec = ModelSpec("llama-3-8b")
    for claim in ("2*L*h_kv*d_h*2", r"2 L h_{kv} d_h w_{kv}", str(per_token)):
        assert derive.check(spec, "kv_bytes_per_token", claim).verdict is derive.Verdict.CORRECT
    assert (
        derive.check(spec, "kv_bytes_per_token", "L*h_kv*d_h*2").verdict is derive.Verdict.INCORRECT
    )


def test_a_time_may_be_named_t_or_by_its_name(tmp_path):
    """The reading is tested, not the value: the same number with and without a left side."""
    sets = tmp_path / "set.toml"
    sets.write_text(
        'title = "t"\n[[problem]]\nid = "d"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        'phase = "decode"\nset = { B = 8, S = 1024 }\nask = ["step"]\n'
    )
    entry = load_problem_set(sets).entries()[0]
    ((_, exact, _),) = model_values(entry, ["t_lower"])  # the engine's value, as a fraction
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ana,d,t_lower,T = {exact} s\nben,d,t_lower,t_lower = {exact} s\n"
        f"cy,d,t_lower,{exact} s\ndi,d,t_lower,I = {exact} s\n"
    )
    out = run_cli(
        ["check", "--problem-set", str(sets), "--answers", str(answers), "--format", "json"]
    )
    verdicts = [a["verdict"] for a in json.loads(out.out)["answers"]]
    assert verdicts == ["correct", "correct", "correct", "unreadable"], out


def test_the_graded_assignment_reads_bytes_and_dollars_as_students_write_them(tmp_path):
    """tests/sets/graded.toml as a class answers it: ``57344 B`` for a cache's bytes per token
    is bytes (the batch is not set and the quantity does not depend on it; it was read as
    57344·B and marked wrong), ``$X`` is read as ``X $`` and ``X USD`` (it was unreadable:
    "unknown symbol 'UD'"), and a refused row lists every problem of the set."""
    from pathlib import Path

    graded = Path(__file__).parents[1] / "sets" / "graded.toml"
    layers, kv_heads, head, width = 28, 4, 3584 // 28, 2  # Qwen2-7B's config.json, bf16
    per_token = 2 * layers * kv_heads * head * width  # K and V
    config = Path(__file__).parents[1] / "sets" / "configs" / "qwen2-7b.json"
    step = run_cli(
        ["model", str(config), "--chip", "h100", "--set", "B=32,S=4096", "--phase", "decode"]
        + ["--price-per-hour", "2.49 $/h", "--format", "json"]
    )
    cost = Fraction(json.loads(step.out)["serving"]["cost_per_million_tokens"])
    typed = f"{float(cost):.4g}"
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "who,problem,quantity,claim\n"
        f"ana,qwen-params,kv_bytes_per_token,{per_token} B\n"
        f"ana,qwen-cost,cost_per_million_tokens,${typed}\n"
        f"ben,qwen-cost,cost_per_million_tokens,{typed} $\n"
        f"cy,qwen-cost,cost_per_million_tokens,USD {typed}\n"
        "cy,nosuch,params,1\n"
    )
    r = run_cli(
        ["check", "--problem-set", str(graded), "--answers", str(answers), "--format", "json"]
    )
    assert r.code == 1, r  # the refused row
    rows = json.loads(r.out)["answers"]
    assert [row["verdict"] for row in rows] == ["correct"] * 4 + ["refused"]
    assert "largest-model" in rows[-1]["reason"]


# -- a CSV you can trust (issue 47, item 3) -----------------------------------------------

GRADED = ROOT / "tests" / "sets" / "graded.toml"


def _grade(tmp_path, lines, *extra):
    answers = tmp_path / "answers.csv"
    answers.write_text("who,problem,quantity,claim\n" + "".join(line + "\n" for line in lines))
    out = tmp_path / "verdicts.csv"
    argv = ["check", "--problem-set", str(GRADED), "--answers", str(answers), "-o", str(out)]
    r = run_cli([*argv, *extra])
    rows = list(csv.DictReader(io.StringIO(out.read_text("utf-8")))) if out.exists() else None
    return r, rows


def test_asked_is_the_number_of_answer_boxes(tmp_path):
    from derive.web.book import build_workbook

    # graded.toml asks: crossover; params, kv_bytes_per_token; step (its t_lower and
    # tokens_per_s boxes), tokens_per_s; cost_per_million_tokens; memory_per_device,
    # t_lower; and the unknown N of the givens-and-equations problem
    boxes = sum(len(p.asked) for p in build_workbook(load_problem_set(GRADED)).pages.values())
    assert boxes == 1 + 2 + 2 + 1 + 2 + 1
    answers = tmp_path / "answers.csv"
    answers.write_text("who,problem,quantity,claim\nana,qwen-params,params,1\n")
    argv = ["check", "--problem-set", str(GRADED), "--answers", str(answers), "--format", "json"]
    assert json.loads(run_cli(argv).out)["students"]["ana"]["asked"] == boxes


def test_a_row_with_a_fifth_field_is_refused_and_the_rest_graded(tmp_path):
    params = _qwen_params()
    r, rows = _grade(tmp_path, [f"ana,qwen-params,params,{params}", "ana,mm-v5e,crossover,B, 121",
                                f"ben,qwen-params,params,{params}"])  # fmt: skip
    assert r.code == 1
    assert [row["verdict"] for row in rows] == ["correct", "refused", "correct"]
    assert rows[1]["reason"] == (
        'line 3: 5 fields where the header has 4: quote a claim that holds a comma ("2BD, F")'
    )
    assert "\n" not in rows[1]["reason"]
    # the same text on a row of four fields is graded; the row of five stays refused, and
    # the JSON has no key of its own for it
    answers = tmp_path / "answers.csv"
    answers.write_text(
        'who,problem,quantity,claim\nana,mm-v5e,crossover,"B, 121"\nben,mm-v5e,crossover,B, 121\n'
        "cy,mm-v5e,crossover,B\n"  # what ben's row holds in its first four fields
    )
    argv = ["check", "--problem-set", str(GRADED), "--answers", str(answers), "--format", "json"]
    records = json.loads(run_cli(argv).out)["answers"]
    assert [rec["verdict"] for rec in records][:2] == ["unreadable", "refused"]
    assert records[2]["verdict"] != "refused"
    assert set(records[1]) == set(records[0]) == set(records[2])


def _qwen_params() -> int:
    from derive.checking.model_claims import model_quantity

    pset = load_problem_set(GRADED)
    entry = next(e for e in pset.entries() if e.id == "qwen-params")
    detail = derive.check(entry, "params", "1", operators=pset.operators).detail
    return int(model_quantity(detail.analysis, "params").value)


def test_one_name_per_quantity_with_did_you_mean(tmp_path):
    r, rows = _grade(tmp_path, ["ana,mm-v5e,crossover_regime,121", "ana,qwen-decode,tokens_per_sec,1",
                                "ana,qwen-params,parameters,1", "ana,qwen-params,flux,1"])  # fmt: skip
    assert rows[0]["verdict"] == "correct-leading-order", rows[0]  # the box ask shows
    assert "(did you mean 'tokens_per_s'?)" in rows[1]["reason"]
    assert "(did you mean 'params'?)" in rows[2]["reason"]
    assert "did you mean" not in rows[3]["reason"]
    # the same name is the same quantity for --quantity
    argv = ["check", "--problem-set", str(GRADED), "--problem", "mm-v5e"]
    r = run_cli([*argv, "--quantity", "crossover_regime", "--claim", "121", "--format", "json"])
    assert json.loads(r.out)["verdict"] == "correct-leading-order", r


def test_the_time_limit_is_per_answer(tmp_path, monkeypatch):
    import time

    from derive.commands import grade

    judge = grade._judge_row

    def slow_on_one(args, pset, operators, row):
        if row["claim"] == "42":
            time.sleep(30)
        return judge(args, pset, operators, row)

    monkeypatch.setattr(grade, "_judge_row", slow_on_one)  # the workers fork with it
    params = _qwen_params()
    lines = [f"s{i},qwen-params,params,{params}" for i in range(30)] + ["t,qwen-params,params,42"]
    started = time.monotonic()
    r, rows = _grade(tmp_path, lines, "--time-limit", "2")
    assert time.monotonic() - started < 20
    assert r.code == 1 and rows is not None and len(rows) == 31, r
    assert [row["verdict"] for row in rows[:30]] == ["correct"] * 30
    assert rows[30]["verdict"] == "refused" and "time limit of 2 s" in rows[30]["reason"]
    assert rows[30]["reason"].startswith("line 32: claim '42'")


def test_a_class_of_300_rows_is_graded_whole_with_progress(tmp_path):
    params = _qwen_params()
    # 30 students, 10 answers each; many of them the same text (judged once)
    lines = [f"s{s},qwen-params,params,{params + (s * 10 + a) % 250}" for s in range(30) for a in range(10)]  # fmt: skip
    r, rows = _grade(tmp_path, lines)
    assert rows is not None and len(rows) == 300
    assert "graded 250 of 250 distinct answers" in r.err
    right = sum(row["verdict"] == "correct" for row in rows)
    assert right == 300  # within 1 % of the parameter count


# -- grade files are data (issue 49, item 4) ----------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def test_no_cell_of_the_verdicts_is_a_formula(tmp_path):
    hostile = ['=HYPERLINK("http://example.invalid","click")', "+1+1", "-2+3+cmd|' /C calc'!A0",
               "@SUM(A1:A9)", "\t=1", "\r=1", "=1", "-3"]  # fmt: skip
    answers = tmp_path / "answers.csv"
    with answers.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["who", "problem", "quantity", "claim"])
        for text in hostile:
            w.writerow([text, "qwen-params", "params", text])  # a name and a claim
            w.writerow(["ana", text, "params", "1"])  # a problem the set lacks (its reason)
            w.writerow(["ana", "qwen-params", text, "1"])  # a quantity it lacks
    out = tmp_path / "verdicts.csv"
    run_cli(["check", "--problem-set", str(GRADED), "--answers", str(answers), "-o", str(out)])
    with out.open(newline="", encoding="utf-8") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    risky = [c for c in cells if c.startswith(_FORMULA_START) and not _NUMBER.fullmatch(c)]
    assert not risky, risky
    assert '\'=HYPERLINK("http://example.invalid","click")' in cells and "'=1" in cells
    assert "-3" in cells  # a plain number stays a number (it runs nothing)


def test_a_misspelt_expect_of_a_training_run_gets_did_you_mean(tmp_path):
    path = tmp_path / "set.toml"
    path.write_text(
        'title = "t"\n[[problem]]\nid = "t"\nmodel = "llama-3-8b"\nchip = "h100"\n'
        "train = { dp = 8, zero = 1, batch_tokens = 4194304, seq = 4096 }\n"
        'expect = { memory_per_devic = "1" }\n'
    )
    r = run_cli(["key", str(path), "-o", str(tmp_path / "key")])
    assert r.code == 2 and "(did you mean 'memory_per_device'?)" in r.err, r


def test_deriving_the_set_is_bounded_too(tmp_path):
    # the set is derived once (for its box count) before the answers are judged
    answers = tmp_path / "answers.csv"
    answers.write_text("who,problem,quantity,claim\nana,qwen-params,params,1\n")
    argv = ["check", "--problem-set", str(GRADED), "--answers", str(answers), "-o", str(tmp_path / "v.csv")]  # fmt: skip
    r = run_cli([*argv, "--time-limit", "1e-9"])
    assert r.code == 2 and r.err.count("\n") == 1 and "time limit" in r.err, r
    assert "--problem-set" in r.err
