"""The workbook serves every problem (issue 33, item 7), through its HTTP API.

``bounds`` gives its time boxes; a problem of givens and equations alone gets a page with a
box per asked name (its label, never its formula) whose answers are judged; an operator
page says what its operator computes and how its FLOPs are counted; with every dim bound a
box asks for a number with its unit, not a formula.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from starlette.testclient import TestClient

from derive.web.app import LOOPBACK_HOSTS, create_app
from derive.web.book import build_workbook, load_source
from derive.web.pool import PoolSettings, WorkerPool


@pytest.fixture(scope="module")
def client():
    _, pset = load_source(None)
    book = build_workbook(pset)
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=10.0), False)
    with TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1") as c:
        yield c
    pool.close()


def test_every_problem_of_the_set_is_served(client):
    _, pset = load_source(None)
    ids = {p["id"] for p in client.get("/api/problems").json()["problems"]}
    assert ids == {e.id for e in pset.every_entry()}


def test_bounds_give_their_time_boxes_and_bound_dims_ask_for_a_number(client):
    page = client.get("/api/problems/mm-h100").json()  # ask = ["times", "bounds"], all dims bound
    boxes = {a["quantity"]: a["placeholder"] for a in page["asked"]}
    assert {"t_lower", "t_upper"} <= set(boxes)
    assert not any("formula" in p for p in boxes.values()), boxes
    # B = 4096, D = F = 8192 in bf16 on an H100 (989 TFLOP/s, 3.35 TB/s): T_lower = max(T_math, T_mem)
    b, d, f = 4096, 8192, 8192
    t_math = Fraction(2 * b * d * f, 989 * 10**12)
    t_mem = Fraction(2 * (b * d + d * f + b * f), 335 * 10**10)
    lower = max(t_math, t_mem)
    body = {"problem": "mm-h100", "quantity": "t_lower", "answer": f"{float(lower) * 1000:.4g} ms"}
    assert client.post("/api/check", json=body).json()["verdict"] == "correct"


def test_a_problem_of_givens_and_equations_alone_is_served_and_judged(client):
    page = client.get("/api/problems/largest-model").json()
    assert page["kind"] == "questions" and page["steps"] == 0
    assert {a["quantity"] for a in page["asked"]} == {"N"}
    largest = Fraction(16 * 10**9, 2)  # 16 GB of bf16 weights, 2 bytes each
    body = {"problem": "largest-model", "quantity": "N", "answer": str(int(largest))}
    assert client.post("/api/check", json=body).json()["verdict"] == "correct"
    body["answer"] = str(int(largest) + 1)
    assert client.post("/api/check", json=body).json()["verdict"] == "incorrect"


def test_a_what_if_is_served_with_its_steps_and_judged(client):
    """Issue 36: amdahl-step is a native what-if, its quantities by their catalogue names."""
    page = client.get("/api/problems/amdahl-step").json()
    assert page["kind"] == "what_if" and page["steps"] == 1
    labels = {a["quantity"]: a["label"] for a in page["asked"]}
    assert set(labels) == {"what_if_time", "what_if_speedup", "what_if_limit"}
    new_step = Fraction(70, 1000) * (Fraction(38, 100) + Fraction(62, 100) / Fraction(18, 10))
    body = {
        "problem": "amdahl-step",
        "quantity": "what_if_time",
        "answer": f"{float(new_step) * 1000:.4g} ms",
    }
    assert client.post("/api/check", json=body).json()["verdict"] == "correct"
    body["answer"] = "1 ms"
    assert client.post("/api/check", json=body).json()["verdict"] == "incorrect"


def test_an_operator_page_says_what_it_computes(client):
    page = client.get("/api/problems/q1").json()
    assert "2 FLOPs per multiply-accumulate" in page["question_html"]
    assert page["operator_doc"]
