"""Answers read as students write them (issue 47, item 2): one reader for the CLI, the
grading CSV, the workbook's preview and its check.

Math delimiters, a ratio's ``x``, cents, ``US$``, thousands separators and yes/no sentences
are read the same by every door; the preview (``POST /api/read``) says what the check reads,
or that it cannot. Every value here is computed from the problem's own numbers.
"""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction
from functools import cache

import pytest
from conftest import ROOT, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

import derive
from derive.formula.answer import read_answer
from derive.formula.reader import parse_formula
from derive.problem.sets.problem_set import load_problem_set
from derive.questions.read import read_formula
from derive.web.grading import UNREADABLE
from derive.web.pool import grader_of

SET = ROOT / "derive" / "data" / "problems" / "rooflines.toml"
GRADED = ROOT / "tests" / "sets" / "graded.toml"
RIGHT = ("correct", "correct-leading-order")


@cache
def _pset(path=SET):
    return load_problem_set(path)


@cache
def _grader(path=SET):
    return grader_of(_pset(path))


# -- the spellings derive prints, read back -----------------------------------------------


def _cases():
    """Every answer box of the built-in set's workbook: (problem, quantity)."""
    from derive.web.book import build_workbook

    pages = build_workbook(_pset(), hints=False).pages
    return [(pid, box.quantity) for pid, page in pages.items() for box in page.asked]


def _spellings(expected: str, latex: str | None) -> list[str]:
    """Every form the check prints of the exact value: each side of ``a ≈ b = c`` (a decimal
    without its unit takes the first side's), the LaTeX, and the LaTeX as Markdown math."""
    note = re.compile(r"\s+\((?=[^()]*(?:[a-z]{3}|%))([^()]*)\)")  # (… integer: 137), (77.8%)
    notes = note.findall(expected)
    sides = [s.strip() for s in re.split(r" ≈ | = ", note.sub("", expected))]
    sides += [n.rsplit(": ", 1)[-1] for n in notes if re.fullmatch(r"[^:]*: ?[0-9.]+|[0-9.]+%", n)]
    sides = [s for s in sides if not re.search(r"[a-z]{3,} [a-z]{3,}", s)]  # a sentence
    unit = re.search(r" ((?:[a-z$]|FLOP)[A-Za-z/$]*)$", sides[0])
    unit = unit.group(1) if unit else ""
    out = list(sides) + ([expected] if expected.startswith(("yes", "no")) else [])
    out += [f"{s} {unit}" for s in sides[1:] if unit and " " not in s]
    if latex:
        out += [latex, f"${latex}$", f"$${latex}$$", f"\\({latex}\\)", f"\\[{latex}\\]"]
    return out


@pytest.mark.parametrize("entry_id,quantity", _cases())
def test_every_spelling_derive_prints_is_read_back_as_right(entry_id, quantity):
    grader = _grader()
    first = grader.check(entry_id, quantity, "1")
    if first.verdict == UNREADABLE:  # a yes/no quantity
        first = grader.check(entry_id, quantity, "yes")
    if first.expected is None:
        pytest.skip("no expected value printed")
    for claim in _spellings(first.expected, first.expected_latex):
        r = grader.check(entry_id, quantity, claim)
        assert r.verdict in RIGHT, (claim, r)


# -- each door reads them: the CLI, the grading CSV, the workbook -------------------------

GRADED_SET = load_problem_set(GRADED)


def _exact(problem: str, quantity: str):
    """The exact value derive derives for the graded set's problem (the reader is under test)."""
    from derive.checking.model_claims import model_quantity

    entry = next(e for e in GRADED_SET.entries() if e.id == problem)
    detail = derive.check(entry, quantity, "1", operators=GRADED_SET.operators).detail
    return Fraction(str(model_quantity(detail.analysis, quantity).value))


def _grouped(n: int) -> str:
    return f"{n:,}"


def _written() -> list[tuple[str, str, str]]:
    """(problem, quantity, claim): right answers written as students write them."""
    params = int(_exact("qwen-params", "params"))
    kv = int(_exact("qwen-params", "kv_bytes_per_token"))
    step = _exact("qwen-decode", "t_lower")
    cost = _exact("qwen-cost", "cost_per_million_tokens")
    memory = int(_exact("train-8b", "memory_per_device"))
    return [
        ("qwen-params", "params", f"${params}$"),
        ("qwen-params", "params", f"\\({params}\\)"),
        ("qwen-params", "params", f"$${params / 1e9:.4f} \\times 10^9$$"),
        ("qwen-params", "params", f"\\[{params / 1e9:.4f}B\\]"),
        ("qwen-params", "params", _grouped(params)),
        ("qwen-params", "kv_bytes_per_token", f"${kv}\\text{{ bytes}}$"),
        ("qwen-decode", "t_lower", f"${float(step) * 1000:.4f}\\text{{ ms}}$"),
        ("qwen-cost", "cost_per_million_tokens", f"$\\${float(cost):.4f}$"),
        ("qwen-cost", "cost_per_million_tokens", f"{float(cost) * 100:.3f} cents"),
        ("qwen-cost", "cost_per_million_tokens", f"{float(cost) * 100:.3f}\u00a2"),
        ("qwen-cost", "cost_per_million_tokens", f"US${float(cost):.4f}"),
        ("qwen-cost", "cost_per_million_tokens", f"${float(cost) * 100:.3f}\\text{{ cents}}$"),
        ("qwen-cost", "cost_per_million_tokens", f"{float(cost):.4f} USD"),
        ("train-8b", "memory_per_device", f"{_grouped(memory)} bytes"),
    ]


@pytest.mark.parametrize("problem,quantity,claim", _written())
def test_the_cli_reads_answers_as_students_write_them(problem, quantity, claim):
    argv = ["check", "--problem-set", str(GRADED), "--problem", problem, "--quantity", quantity]
    r = run_cli([*argv, "--claim", claim, "--format", "json"])
    assert r.code == 0, r
    assert json.loads(r.out)["verdict"] == "correct", (claim, r.out)


def test_the_grading_csv_reads_them_too(tmp_path):
    rows = _written()
    answers = tmp_path / "answers.csv"
    with answers.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["who", "problem", "quantity", "claim"])
        w.writerows(("ana", *row) for row in rows)
    out = tmp_path / "verdicts.csv"
    r = run_cli(["check", "--problem-set", str(GRADED), "--answers", str(answers), "-o", str(out)])
    assert r.code == 0, r
    got = list(csv.DictReader(io.StringIO(out.read_text("utf-8"))))
    assert [g["verdict"] for g in got] == ["correct"] * len(rows), got


def test_latex_parentheses_are_delimiters_not_an_unsupported_construct():
    r = run_cli(
        [
            "check",
            "matmul",
            "--dtype",
            "bf16",
            "--chip",
            "h100",
            "--quantity",
            "flops",
            "--claim",
            "\\(2BDF\\)",
        ]
    )
    assert r.code == 0 and "correct" in r.out, r
    # one pair around the whole answer only: a dollar inside is still refused
    r = run_cli(
        [
            "check",
            "matmul",
            "--dtype",
            "bf16",
            "--chip",
            "h100",
            "--quantity",
            "flops",
            "--claim",
            "2$BDF$",
            "--format",
            "json",
        ]
    )
    assert json.loads(r.out)["verdict"] == "unreadable"


def test_a_ratio_may_end_in_x():
    grader = _grader()
    exact = Fraction(grader.check("mm-a100", "slowdown", "1").expected.split()[0])
    for claim in (f"{float(exact):.3f}x", f"{float(exact):.3f} \u00d7", f"{float(exact):.3f}"):
        assert grader.check("mm-a100", "slowdown", claim).verdict == "correct", claim
    assert grader.check("mm-a100", "slowdown", f"{float(exact) * 2:.3f}x").verdict == "incorrect"


def test_thousands_separators_group_three_digits():
    grader = _grader()
    bad = grader.check("model-gpt2-params", "params", "1,24,439,808")
    assert bad.verdict == UNREADABLE and "comma" in bad.diagnosis[0]


def test_yes_and_no_sentences():
    grader = _grader()
    fits = grader.check("model-70b-v5e-fit", "fits", "yes").verdict == "correct"
    right, wrong = ("yes", "no") if fits else ("no", "yes")
    sentence = {"yes": "yes, it fits", "no": "no, it does not fit"}
    for claim in (
        right,
        f"{right.title()}.",
        sentence[right],
        f"{right} (it {'fits' if fits else 'does not fit'})",
    ):
        assert grader.check("model-70b-v5e-fit", "fits", claim).verdict == "correct", claim
    assert grader.check("model-70b-v5e-fit", "fits", sentence[wrong]).verdict == "incorrect"
    # a sentence that says both is not read
    mixed = f"{wrong}, {sentence[right].split(', ')[1]}"
    assert grader.check("model-70b-v5e-fit", "fits", mixed).verdict == UNREADABLE


# -- the preview says what the check reads ------------------------------------------------


_PREVIEWED = [
    ("mm-a100", "slowdown", "1.72x"),
    ("mm-a100", "slowdown", "5.2 furlongs"),
    ("amdahl-step", "what_if_time", "$50.7\\text{ ms}$"),
    ("amdahl-step", "what_if_time", "5.2 cents"),
    ("amdahl-step", "what_if_time", "5.2 furlongs"),
    ("chinchilla", "params", "69,282,032,302"),
    ("cost-of-serving", "cost_per_million_tokens", "5.2 cents"),
    ("cost-of-serving", "cost_per_million_tokens", "US$1.08"),
    ("cost-of-serving", "cost_per_million_tokens", "$0.14"),
    ("cost-of-serving", "cost_per_million_tokens", "5.2 furlongs"),
    ("q1", "flops", "$2BDF$"),
    ("model-70b-v5e-fit", "fits", "no, it does not fit"),
]


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from derive.web.app import LOOPBACK_HOSTS, create_app
    from derive.web.book import build_workbook, load_source
    from derive.web.pool import PoolSettings, WorkerPool

    _, pset = load_source(None)
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=20.0), False)
    app = create_app(build_workbook(pset), pool, LOOPBACK_HOSTS)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c
    pool.close()


@pytest.mark.parametrize("problem,quantity,answer", _PREVIEWED)
def test_the_preview_says_what_the_check_reads(client, problem, quantity, answer):
    body = {"problem": problem, "quantity": quantity, "answer": answer}
    read = client.post("/api/read", json=body).json()
    check = client.post("/api/check", json=body).json()
    assert read["ok"] is (check["verdict"] != UNREADABLE), (read, check)
    if read["ok"]:
        assert read["read_as"] == check["read_as"], (read, check)
    else:
        assert read["reason"].endswith(check["diagnosis"][0]), (read, check)


@pytest.mark.parametrize("claim", ["inf", "∞", "$\\infty$", "oo", "Infinity"])
def test_an_infinite_value_is_read(tmp_path, claim):
    # a kernel of FLOPs alone moves no bytes: its intensity FLOPs/bytes has no finite value
    path = tmp_path / "set.toml"
    path.write_text(
        'title = "t"\n[[problem]]\nid = "k"\nkernel = { flops = "1e12" }\nchip = "h100"\n'
    )
    argv = ["check", "--problem-set", str(path), "--problem", "k", "--quantity", "intensity"]
    r = run_cli([*argv, "--claim", claim, "--format", "json"])
    assert json.loads(r.out)["verdict"] == "correct", r
    r = run_cli([*argv, "--claim", "1e30", "--format", "json"])
    assert json.loads(r.out)["verdict"] == "incorrect", r


@pytest.mark.parametrize("claim", ["inf", "B >= \\infty"])
def test_an_infinite_claim_of_an_operator_is_judged(claim):
    # read without the formula parser, it once had no parse to report (a KeyError)
    argv = ["check", "matmul", "--chip", "h100", "--dtype", "bf16", "--set", "B=1,D=1,F=1"]
    quantity = "crossover" if ">" in claim else "intensity"
    r = run_cli([*argv, "--quantity", quantity, "--claim", claim, "--format", "json"])
    out = json.loads(r.out)
    assert (out["verdict"], out["syntax"], r.code) == ("incorrect", "plain", 1), r
    assert "∞" in out["read_as"] and "oo" not in out["read_as"]  # the sign, not sympy's word


# -- the two readers of a number agree on every spelling ----------------------------------

_WRAPS = ("{}", "${}$", "$${}$$", "\\({}\\)", "\\[{}\\]")


def _claim_reader(text: str):
    answer = read_answer(text, lambda t, what: (parse_formula(t, {}, "auto", what).expr, "plain"))
    return answer.expr * (answer.unit.factor if answer.unit is not None else 1)


@settings(max_examples=150, deadline=None)
@given(
    whole=st.integers(0, 10**12),
    frac=st.one_of(st.none(), st.integers(0, 999)),
    grouped=st.booleans(),
    unit=st.sampled_from(["", " ms", " s", " GB", " µs"]),
    wrap=st.sampled_from(_WRAPS),
)
def test_claims_and_formulas_read_a_number_alike(whole, frac, grouped, unit, wrap):
    number = f"{whole:,}" if grouped else str(whole)
    decimal = Fraction(whole) + (Fraction(frac, 1000) if frac is not None else 0)
    if frac is not None:
        number += f".{frac:03d}"
    written = wrap.format(number + unit)
    value = read_formula(written, {}).value
    assert _claim_reader(written) == value
    scale = {"": 1, " ms": Fraction(1, 1000), " s": 1, " GB": 10**9, " µs": Fraction(1, 10**6)}
    assert value == decimal * scale[unit]


@settings(max_examples=100, deadline=None)
@given(
    cents=st.integers(0, 10**6),
    places=st.integers(0, 3),
    sign=st.sampled_from(["cents", "¢", " ¢", " cent"]),
)
def test_cents_are_dollars_with_the_point_moved(cents, places, sign):
    number = str(Fraction(cents, 10**places)) if places == 0 else f"{cents / 10**places:.{places}f}"
    exact = Fraction(number) / 100
    assert read_formula(f"{number}{' ' if sign[0] not in ' ¢' else ''}{sign}", {}).value == exact


def _printed_forms(value, seconds: bool) -> list[str]:
    """The forms derive's printers give a number: exact LaTeX, rounded decimal (text and
    LaTeX), and for a time the reading in its unit (text and LaTeX), each also in ``$…$``."""
    from derive.formula.decimals import fmt_decimal, fmt_exact_decimal
    from derive.formula.durations import time_tex, time_text
    from derive.solution.notation import tex, tex_decimal

    forms = [tex(value), tex_decimal(value), fmt_decimal(value), fmt_exact_decimal(value)]
    if seconds:
        forms += [time_text(value), time_tex(value)]
    return forms + [f"${form}$" for form in forms]


@pytest.mark.parametrize("entry_id,quantity", _cases())
def test_every_form_derives_printers_give_reads_back_as_right(entry_id, quantity):
    import sympy as sp
    from test_hidden import _numeric

    grader = _grader()
    expected = grader.check(entry_id, quantity, "1").expected or ""
    if any(e.id == entry_id for e in _pset().entries()):
        value = _numeric(entry_id, quantity)
    else:  # a budget, a what-if, a problem of givens and equations: its printed exact value
        head = expected.split(" ")[0]
        value = sp.Rational(head) if re.fullmatch(r"[0-9./e+]+", head) else None
    if value is None:
        pytest.skip("not a number here")
    seconds = " s " in f"{expected} "
    for claim in _printed_forms(value, seconds):
        r = grader.check(entry_id, quantity, claim)
        assert r.verdict in RIGHT, (claim, r)
