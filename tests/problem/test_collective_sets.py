"""A set's problem may carry ``collective = "AllGather_y(A[E_y, F])"`` (issue 45, item 7): the
collective in the book's notation on the problem's ``mesh`` is that problem's operator, so the
key derives it, ``derive check`` and the grading CSV judge its time (with the ring's and the
book's slips named), as ``derive solve --collective`` does."""

from __future__ import annotations

import csv
import json
from fractions import Fraction

SET = """title = "Collectives in the book's notation"

[[problem]]
id = "ag"
title = "An all-gather on a torus"
text = "Gather E over y."
{head}
dtype = "bf16"
mesh = "x=4@4.5e10:torus,y=4@4.5e10:torus"
set = {{ E = 2048, F = 8192 }}
ask = ["collectives", "step"]
"""
# E·F bf16 over y's 4 devices both ways: 3/4 of V across 2 links of 4.5e10 B/s
EXACT = Fraction(3, 4) * 2 * 2048 * 8192 / (2 * 45 * 10**9)


def _set(tmp_path, head: str = 'collective = "AllGather_y(A[E_y, F])"'):
    path = tmp_path / "c.toml"
    path.write_text(SET.format(head=head))
    return path


def test_a_sets_collective_is_checked_keyed_and_graded(cli, tmp_path):
    path = _set(tmp_path)
    claim = f"{float(EXACT) * 1e6:.4g} us"
    r = cli(["check", "--problem-set", str(path), "--problem", "ag", "--quantity", "t_comms",
             "--claim", claim, "--format", "json"])  # fmt: skip
    assert r.code == 0 and Fraction(json.loads(r.out)["expected"]) == EXACT, r.out + r.err
    alone = cli(["solve", "--collective", "AllGather_y(A[E_y, F])", "--dtype", "bf16", "--mesh",
                 "x=4@4.5e10:torus,y=4@4.5e10:torus", "--set", "E=2048,F=8192", "--format", "json"])  # fmt: skip
    assert Fraction(json.loads(alone.out)["t_comms"]) == EXACT  # the same one collective
    book = f"{float(EXACT * 4 / 3) * 1e6:.4g} us"  # V/W: the book's approximation
    answers = tmp_path / "a.csv"
    answers.write_text(
        f"who,problem,quantity,claim\nann,ag,t_comms,{claim}\nbob,ag,t_comms,{book}\n"
    )
    out = tmp_path / "v.csv"
    r = cli(["check", "--problem-set", str(path), "--answers", str(answers), "-o", str(out)])
    rows = list(csv.DictReader(out.open()))
    assert [row["verdict"] for row in rows] == ["correct", "incorrect"]
    assert "Scaling Book's approximation" in rows[1]["diagnosis"]
    r = cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 0 and "279.6" in (tmp_path / "out" / "c.md").read_text()


def test_a_bad_collective_or_two_operators_is_refused_naming_the_problem(cli, tmp_path):
    r = cli(["key", str(_set(tmp_path, 'collective = "Foo(A[E])"')), "-o", str(tmp_path / "o")])
    assert r.code == 2 and "problem 'ag': key 'collective'" in r.err and r.err.count("\n") == 1
    both = _set(tmp_path, 'operator = "matmul"\ncollective = "AllGather_y(A[E_y, F])"')
    r = cli(["key", str(both), "-o", str(tmp_path / "o")])
    assert r.code == 2 and "give 'operator' or 'collective', not both" in r.err


def test_a_sets_problem_takes_the_books_convention(cli, tmp_path):
    """``convention = "scaling-book"`` beside a problem's mesh: its collectives timed as the
    book's Sharding chapter does, V/W with W both ways on a torus axis; a bad one named."""
    path = _set(tmp_path, 'collective = "AllGather_y(A[E_y, F])"\nconvention = "scaling-book"')
    book = Fraction(2 * 2048 * 8192, 2 * 45 * 10**9)
    r = cli(["check", "--problem-set", str(path), "--problem", "ag", "--quantity", "t_comms",
             "--claim", f"{float(book) * 1e6:.4g} us", "--format", "json"])  # fmt: skip
    assert r.code == 0 and Fraction(json.loads(r.out)["expected"]) == book, r.out + r.err
    bad = _set(tmp_path, 'collective = "AllGather_y(A[E_y, F])"\nconvention = "book"')
    r = cli(["key", str(bad), "-o", str(tmp_path / "o")])
    assert r.code == 2 and "key 'convention': derive or scaling-book" in r.err


def test_a_sets_collective_is_read_once(cli, tmp_path, monkeypatch):
    """The set's reader parses ``collective`` once and keeps the operator on the entry: the
    registry, the key and the checker reuse it (a bad one is still refused naming the problem,
    above)."""
    from derive.problem import collective_text
    from derive.problem.sets.problem_set import load_problem_set
    from derive.problem.sets.registry import set_operators

    calls = []
    parse = collective_text.parse_collective
    monkeypatch.setattr(
        collective_text, "parse_collective", lambda *a: calls.append(a) or parse(*a)
    )
    pset = load_problem_set(_set(tmp_path))
    (entry,) = pset.problems
    assert entry.declared is not None and entry.declared.name == entry.spec.operator
    assert len(calls) == 1
    set_operators(pset, False)
    assert len(calls) == 1  # the registry takes the entry's operator
    claim = f"{float(EXACT) * 1e6:.4g} us"
    r = cli(["check", "--problem-set", str(_set(tmp_path)), "--problem", "ag", "--quantity",
             "t_comms", "--claim", claim])  # fmt: skip
    assert r.code == 0, r.out + r.err
    assert len(calls) <= 2  # the check may read the set again (once), nothing else parses it
