"""Every answer of tests/data/answers.toml is read, and every verdict is right.

The corpus holds answers as people write them (units, named left sides, relations,
superscripts, ``x 10^``, trailing dots) and, for each, only what it *means*: its value
in base units, or the matmul formula it writes. The expected verdict is computed here,
with naive sympy, from the problem's tensor widths and chip numbers (FLOPs 2BDF; bytes
wx·BD + wy·DF + wz·BF; ridge π/β; crossover where FLOPs·β = bytes·π; at leading order
under B << D, F the BD and BF terms drop; for GQA decode attention FLOPs 4BTSNH and bytes
(wq + wo)·BTNH + (wk + wv)·BSKH). Nothing is copied from derive's output.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
import tomllib

import derive
from derive.problem.binding import ProblemSpec

CORPUS = Path(__file__).parents[1] / "data" / "answers.toml"
DATA = tomllib.loads(CORPUS.read_text(encoding="utf-8"))
PROBLEMS = {p["id"]: p for p in DATA["problem"]}
ANSWERS = DATA["answer"]
RTOL = sp.Rational(1, 100)
B, D, F = sp.symbols("B D F", positive=True, integer=True)


def rational(text: str) -> sp.Rational:
    """A decimal or fraction written in the corpus, exactly (Fraction parses text; nothing is evaluated)."""
    f = Fraction(text)
    return sp.Rational(f.numerator, f.denominator)


def spec_of(problem: dict) -> ProblemSpec:
    return ProblemSpec(
        problem["operator"],
        dtypes=tuple(problem["dtypes"]),
        chip=problem["chip"],
        regime=problem.get("regime"),
        sets=tuple(problem.get("sets", ())),
    )


def bound_of(problem: dict) -> dict:
    pairs = (s.split("=") for s in problem.get("sets", ()))
    return {sp.Symbol(k, positive=True, integer=True): int(v) for k, v in pairs}


def _attention(problem: dict, quantity: str) -> sp.Expr:
    """Fused GQA attention, every dim bound: FLOPs 4·B·T·S·N·H (QKᵀ and PV, 2 per MAC each);
    bytes: q and o are B·T·N·H elements, k and v are B·S·K·H elements."""
    d = {k: int(v) for k, v in (s.split("=") for s in problem["sets"])}
    wq, wk, wv, wo = (rational(w) for w in problem["widths"])
    peak, bw = rational(problem["peak"]), rational(problem["bandwidth"])
    flops = sp.Integer(4 * d["B"] * d["T"] * d["S"] * d["N"] * d["H"])
    total = (wq + wo) * d["B"] * d["T"] * d["N"] * d["H"] + (wk + wv) * d["B"] * d["S"] * d[
        "K"
    ] * d["H"]
    return {
        "flops": flops,
        "bytes": total,
        "intensity": flops / total,
        "ridge": peak / bw,
        "t_math": flops / peak,
        "t_mem": total / bw,
    }[quantity]


def naive(problem: dict, quantity: str) -> tuple[sp.Expr, sp.Expr | None, int | None, int | None]:
    """(exact, leading order or None, threshold, leading threshold) of a quantity, naively."""
    if problem["operator"] == "attention":
        return _attention(problem, quantity), None, None, None
    wx, wy, wz = (rational(w) for w in problem["widths"])
    peak, bw = rational(problem["peak"]), rational(problem["bandwidth"])
    flops = 2 * B * D * F
    total = wx * B * D + wy * D * F + wz * B * F
    lead_bytes = wy * D * F if problem.get("regime") else None
    values = {
        "flops": (flops, None),
        "bytes": (total, None),
        "intensity": (flops / total, flops / lead_bytes if lead_bytes is not None else None),
        "ridge": (peak / bw, None),
        "t_math": (flops / peak, None),
        "t_mem": (total / bw, lead_bytes / bw if lead_bytes is not None else None),
    }
    sub = bound_of(problem)
    if quantity == "crossover":
        xs = sp.solve(
            sp.Eq(flops * bw, total.subs({k: v for k, v in sub.items() if k != B}) * peak), B
        )
        exact = sp.simplify(xs[0].subs(sub)) if xs else None
        lead = wy * peak / (2 * bw) if lead_bytes is not None else None
        thr = math.ceil(exact) if exact is not None and exact.is_number else None
        lead_thr = math.ceil(lead) if lead is not None else None
        return exact, lead, thr, lead_thr
    exact, lead = values[quantity]
    return (
        sp.simplify(exact.subs(sub)),
        sp.simplify(lead.subs(sub)) if lead is not None else None,
        None,
        None,
    )


def meaning(answer: dict, problem: dict) -> sp.Expr:
    """What the answer says, exactly, from the corpus's description of it."""
    if "means" in answer:
        return rational(answer["means"])
    wx, wy, wz = (rational(w) for w in answer.get("widths") or ("0", "0", "0"))
    flops = answer.get("flops")
    total = wx * B * D + wy * D * F + wz * B * F
    value = {
        "flops": flops * B * D * F if flops else None,
        "bytes": total,
        "intensity": flops * B * D * F / total if flops and total != 0 else None,
    }[answer["quantity"]]
    return value.subs(bound_of(problem))


def holds(value: sp.Expr, target: sp.Expr | None, threshold: int | None, relation: str) -> bool:
    if target is None:
        return False
    if (
        threshold is not None
        and value.is_Integer
        and (int(value) == threshold or (relation == ">" and int(value) + 1 == threshold))
    ):
        return True
    if value.is_number and target.is_number:
        return abs(value - target) <= RTOL * abs(target)
    return sp.simplify(value - target) == 0


def expected_verdict(answer: dict) -> str:
    if answer.get("unreadable"):
        return "unreadable"
    if answer.get("wrong_unit"):
        return "incorrect"
    problem = PROBLEMS[answer["problem"]]
    relation = answer.get("relation", "=")
    if relation in ("<=", "<"):
        return "incorrect"  # the memory-bound side of the crossover
    exact, lead, thr, lead_thr = naive(problem, answer["quantity"])
    value = meaning(answer, problem)
    if holds(value, exact, thr, relation):
        return "correct"
    if holds(value, lead, lead_thr, relation):
        return "correct-leading-order"
    return "incorrect"


def test_the_corpus_is_large_and_varied():
    assert len(ANSWERS) >= 150
    verdicts = {expected_verdict(a) for a in ANSWERS}
    assert verdicts == {"correct", "correct-leading-order", "incorrect", "unreadable"}
    assert len({a["problem"] for a in ANSWERS}) == len(PROBLEMS) >= 5
    assert len({PROBLEMS[p]["chip"] for p in PROBLEMS}) >= 5
    assert {PROBLEMS[p]["operator"] for p in PROBLEMS} == {"matmul", "attention"}


@pytest.mark.parametrize(
    "answer", ANSWERS, ids=[f"{a['problem']}:{a['quantity']}:{a['claim']}" for a in ANSWERS]
)
def test_every_answer_gets_its_verdict(answer):
    r = derive.check(spec_of(PROBLEMS[answer["problem"]]), answer["quantity"], answer["claim"])
    want = expected_verdict(answer)
    assert r.verdict.value == want, (r.read_as, r.diagnosis, r.reason)
    if want == "unreadable":
        assert r.reason and r.read_as is None and r.expected is None
    else:
        assert r.read_as and r.expected and r.diagnosis


def test_refusals_say_how_to_write_it():
    """A refused answer names what is wrong and what to write instead (or what is allowed)."""
    refused = [a for a in ANSWERS if a.get("unreadable")]
    for a in refused:
        r = derive.check(spec_of(PROBLEMS[a["problem"]]), a["quantity"], a["claim"])
        assert any(
            hint in r.reason
            for hint in (
                "write",
                "as in",
                "expected",
                "allowed",
                "known",
                "dims are",
                "division by zero",
            )
        ), (a["claim"], r.reason)
