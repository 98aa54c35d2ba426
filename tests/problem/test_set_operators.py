"""Problem sets as data: [[operator]] tables read safely; Python files only with --trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp
from conftest import ROOT, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive import Operator, Tensor, dims
from derive.errors import DeriveError
from derive.problem.sets.problem_set import parse_problem_set
from derive.problem.sets.registry import set_registry

SETS = ROOT / "tests" / "sets"
PROBLEM = """
[[problem]]
id = "a"
title = "a"
operator = "mm2"
dtype = "bf16"
chip = "h100"
"""


def table(
    flops: str = '"2*B*D*F"',
    x_shape: str = '["B", "D"]',
    extra: str = "",
    dims_: str = '["B", "D", "F"]',
) -> str:
    return (
        'title = "t"\n[[operator]]\nname = "mm2"\n'
        f"dims = {dims_}\nflops = {flops}\n"
        f'reads = [ {{ name = "X", shape = {x_shape} }}, {{ name = "Y", shape = ["D", "F"] }} ]\n'
        'writes = [ { name = "Z", shape = ["B", "F"] } ]\n' + extra + PROBLEM
    )


def test_a_table_declares_what_python_would():
    op = set_registry(parse_problem_set(table(), "t.toml"), trust=False).get("mm2")
    B, D, F = dims("B D F")
    python = Operator(
        name="mm2",
        flops=2 * B * D * F,
        reads=[Tensor("X", (B, D)), Tensor("Y", (D, F))],
        writes=[Tensor("Z", (B, F))],
    )
    assert op == python
    assert op.bytes_expr() == python.bytes_expr()


def test_latex_fractions_and_widths():
    text = table(flops=r'"\\frac{2BDF}{P}"', x_shape='["B", "D/P"]', dims_='["B", "D", "F", "P"]')
    text = text.replace('shape = ["D", "F"] }', 'shape = ["D/P", "F"], width = "0.5" }')
    op = set_registry(parse_problem_set(text, "t.toml"), trust=False).get("mm2")
    B, D, F, P = dims("B D F P")
    assert op.flops == 2 * B * D * F / P
    assert op.reads[1].width == sp.Rational(1, 2) and op.reads[1].shape == (D / P, F)


def test_key_from_a_table(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(table())
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 0, r
    assert "mm2" in (tmp_path / "out" / "set.md").read_text()


@pytest.mark.parametrize(
    "text, fragment",
    [
        (table(flops="\"__import__('os').system('touch canary')\""), "flops"),
        (table(flops='"B.__class__.__mro__"'), "flops"),
        (table(flops=r'"\\input{/etc/passwd}"'), "flops"),
        (table(flops='"10^{10^{10}}"'), "flops"),
        (table(flops='"(((9**64)**64)**64)**64"'), "flops"),
        (table(flops='"2*B*D*Q"'), "unknown symbol 'Q'"),
        (table(flops='"B/0"'), "flops"),
        (table(flops='"B < D"'), "flops"),
        (table(flops='"2*B*D*F*G"', dims_='["B", "D", "F", "G"]'), "which no tensor shape has"),
        (table(x_shape='["B", "D+"]'), "shape entry 2"),
        (table(x_shape='["B", 0]'), "must be positive"),
        (table(x_shape='["B", true]'), "shape entry"),
        (table(x_shape='"B"'), "key 'shape'"),
        (table(dims_='["B", "D", "F", "B"]'), "listed twice"),
        (table(dims_='["B", "D", "F", "1x"]'), "dim '1x'"),
        (table(extra='colour = "red"\n'), "key 'colour'"),
        (table().replace('name = "mm2"', 'name = "../evil"'), "operator '../evil'"),
        (table().replace('name = "mm2"', 'name = "matmul"'), "exists already"),
        (table().replace('shape = ["D", "F"] }', 'shape = ["D", "F"], width = "fast" }'), "width"),
    ],
)
def test_hostile_tables_are_one_line(tmp_path: Path, text: str, fragment: str):
    path = tmp_path / "set.toml"
    path.write_text(text)
    canary = tmp_path / "canary"
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 2 and r.err.count("\n") == 1 and fragment in r.err, r
    assert str(path) in r.err
    assert not (tmp_path / "out").exists() and not canary.exists()


def test_python_only_with_trust(tmp_path: Path):
    out = tmp_path / "out"
    r = run_cli(["key", str(SETS / "unseen.toml"), "-o", str(out)])
    assert r.code == 2 and r.err.count("\n") == 1
    assert "my_ops.py" in r.err and "--trust" in r.err
    assert not out.exists()
    assert run_cli(["key", str(SETS / "unseen.toml"), "-o", str(out), "--trust"]).code == 0


def test_python_is_not_run_without_trust(tmp_path: Path):
    (tmp_path / "x.py").write_text(f"open({str(tmp_path / 'canary')!r}, 'w').write('ran')\n")
    (tmp_path / "set.toml").write_text('title = "t"\noperators = ["x.py"]\n' + PROBLEM)
    r = run_cli(["key", str(tmp_path / "set.toml"), "-o", str(tmp_path / "out")])
    assert r.code == 2 and "x.py" in r.err and "--trust" in r.err
    assert not (tmp_path / "canary").exists()


def test_builtin_set_needs_no_trust(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_cli([]).code == 0


PIECES = list("BDF0123456789+-*/^(){}_ .,<=!e") + ["\\frac", "\\sqrt", "\\cdot", "oo", "**"]
FORMULA = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flops=FORMULA, shape=FORMULA)
def test_fuzzed_formulas_never_crash(flops: str, shape: str):
    """Any formula text in a table is an Operator or one DeriveError line, never a traceback."""
    text = table(flops=json.dumps(flops), x_shape=f'[{json.dumps(shape)}, "D"]')
    try:
        set_registry(parse_problem_set(text, "fuzz.toml"), trust=False)
    except DeriveError as exc:
        assert "\n" not in exc.one_line()


def test_formula_count_is_capped(tmp_path: Path):
    shape = "[" + ", ".join(['"B"'] * 16) + "]"
    tensors = ", ".join(f'{{ name = "T{i}", shape = {shape} }}' for i in range(64))
    tables = "".join(
        f'[[operator]]\nname = "op{j}"\ndims = ["B"]\nflops = "B"\nreads = [ {tensors} ]\n'
        for j in range(8)
    )
    path = tmp_path / "many.toml"
    path.write_text('title = "t"\n' + tables + PROBLEM)
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 2 and "at most 4096" in r.err and r.err.count("\n") == 1, r


def test_tables_are_read_under_the_budget(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(table())
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out"), "--time-limit", "1e-9"])
    assert r.code == 2 and "[[operator]] tables" in r.err and "time limit" in r.err, r


# ---- one registry for every path (issue 49, item 2) ------------------------------------


def _docs_example(tmp_path: Path) -> Path:
    """docs/problem-sets.md's own [[operator]] example, as a set file."""
    import re

    text = (ROOT / "docs" / "problem-sets.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```toml\n(.*?)```", text, re.S) if "[[operator]]" in b)
    path = tmp_path / "shared.toml"
    path.write_text(block, encoding="utf-8")
    return path


def _flops_of_the_example() -> str:
    """The table's flops, 2·B·D·F/P, at the problem's P = 8, computed here."""
    b, d, f = sp.symbols("B D F", positive=True, integer=True)
    return str(2 * b * d * f / 8)


def test_a_table_set_is_checked_and_graded(tmp_path: Path):
    path = _docs_example(tmp_path)
    assert run_cli(["key", str(path), "-o", str(tmp_path / "key")]).code == 0
    one = ["check", "--problem-set", str(path), "--problem", "sharded", "--format", "json"]
    r = run_cli([*one, "--quantity", "flops", "--claim", _flops_of_the_example()])
    assert r.code == 0 and json.loads(r.out)["verdict"] == "correct", r
    answers = tmp_path / "answers.csv"
    answers.write_text(
        f'who,problem,quantity,claim\nann,sharded,flops,"{_flops_of_the_example()}"\n'
        "bob,sharded,flops,1\n",
        encoding="utf-8",
    )
    r = run_cli(
        ["check", "--problem-set", str(path), "--answers", str(answers), "--format", "json"]
    )
    verdicts = [row["verdict"] for row in json.loads(r.out)["answers"]]
    assert verdicts == ["correct", "incorrect"], r


def test_a_table_set_is_served(tmp_path: Path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from derive.web.app import LOOPBACK_HOSTS, create_app
    from derive.web.book import build_workbook, load_source
    from derive.web.pool import PoolSettings, WorkerPool

    _, pset = load_source(str(_docs_example(tmp_path)))
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=5.0), False)
    try:
        app = create_app(build_workbook(pset), pool, LOOPBACK_HOSTS)
        with TestClient(app, base_url="http://127.0.0.1") as client:
            claim = {"problem": "sharded", "quantity": "flops", "answer": _flops_of_the_example()}
            reply = client.post("/api/check", json=claim)
            assert reply.status_code == 200 and reply.json()["verdict"] == "correct", reply.text
    finally:
        pool.close()


def test_a_table_set_is_published_and_judged_as_the_browser_does(tmp_path: Path):
    from derive.web.in_browser import Judge

    site = tmp_path / "site"
    r = run_cli(["publish", str(_docs_example(tmp_path)), "-o", str(site)])
    assert r.code == 0, r
    judge = Judge.from_json((site / "python" / "set.json").read_text(), str(tmp_path / "fs"))
    claim = {"problem": "sharded", "quantity": "flops", "answer": _flops_of_the_example()}
    reply = json.loads(judge.answer("/api/check", json.dumps(claim)))
    assert reply["status"] == 200 and reply["data"]["verdict"] == "correct", reply
