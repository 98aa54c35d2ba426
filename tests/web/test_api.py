"""The workbook's HTTP API (issue 17): every endpoint, every error status, hostile bodies.

Runs the real app (real worker processes) through starlette's TestClient. Expected
values are computed here from the set's own numbers with naive sympy, never copied.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time
from importlib import resources
from pathlib import Path

import pytest
import sympy as sp

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from conftest import ROOT
from starlette.testclient import TestClient

from derive.web.app import LOOPBACK_HOSTS, create_app
from derive.web.book import BUILTIN_SET, build_workbook, load_source
from derive.web.pool import PoolSettings, WorkerPool

B, D, F = sp.symbols("B D F", positive=True, integer=True)
SET = tomllib.loads(resources.files("derive").joinpath(BUILTIN_SET).read_text("utf-8"))
BY_ID = {p["id"]: p for p in SET["problem"]}
JSON = {"content-type": "application/json"}
ERROR_STATUSES = {400, 403, 404, 405, 413, 415, 422}


def _client(hints: bool = True, show: bool = True, timeout: float = 5.0, workers: int = 1):
    _, pset = load_source(None)
    book = build_workbook(pset, hints=hints, show_expected=show)
    pool = WorkerPool(pset, PoolSettings(workers=workers, timeout=timeout), not show)
    # previews unlimited: these tests send thousands from one address (tests/web/test_fairness.py limits them)
    app = create_app(book, pool, LOOPBACK_HOSTS, previews_per_second=10**9)
    return TestClient(app, base_url="http://127.0.0.1"), pool


@pytest.fixture(scope="module")
def client():
    c, pool = _client(workers=2)
    with c:
        yield c
    pool.close()


@pytest.fixture(scope="module")
def client_hidden():
    c, pool = _client(hints=False, show=False)
    with c:
        yield c
    pool.close()


def _is_error(response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and response.headers["content-type"] == "application/json"
    line = body["error"]
    assert line and "\n" not in line and "Traceback" not in line
    return line


def _q1_crossover() -> sp.Rational:
    """q1: int8 everywhere, I ≈ 2BDF/DF = 2B under B ≪ D, F, so B* = (π/β)/2."""
    q1 = BY_ID["q1"]
    return sp.Rational(q1["peak"]) / sp.Rational(q1["bandwidth"]) / 2


# ---- GET ----------------------------------------------------------------------------


def test_problems_lists_the_set(client):
    r = client.get("/api/problems")
    assert r.status_code == 200
    data = r.json()
    assert data["title"] == SET["title"]
    # every problem of the set, whatever its kind (operators, kernels, whole models with
    # their serving steps, budgets and what-ifs, givens alone), in the file's order (issue 47)
    assert [p["id"] for p in data["problems"]] == [p["id"] for p in SET["problem"]]
    # a problem of givens and equations alone has boxes and no steps (issue 33)
    assert all(
        p["asked"] and (p["steps"] > 0) == (p["kind"] != "questions") for p in data["problems"]
    )
    kinds = {p["id"]: p["kind"] for p in data["problems"]}
    assert kinds["q1"] == "operator" and kinds["model-gpt2-params"] == "model"
    assert kinds["kernel-h100-measured"] == "kernel"
    assert data["hints"] is True and data["expected_shown"] is True


def test_problem_detail(client):
    r = client.get("/api/problems/q1")
    assert r.status_code == 200
    data = r.json()
    assert data["id"] == "q1" and data["title"] == BY_ID["q1"]["title"]
    assert data["question"] == BY_ID["q1"]["text"]
    quantities = [a["quantity"] for a in data["asked"]]
    assert {"flops", "bytes", "intensity", "crossover"} <= set(quantities)
    assert "8.2 \\times 10^{11}" in data["givens_html"]  # the set's bandwidth, as given
    givens = data["givens"]
    assert givens["operator"] == BY_ID["q1"]["operator"] and givens["compute_dtype"] == "int8"
    assert [t["name"] for t in givens["tensors"]] == ["X", "Y", "Z"]
    assert {h["symbol"] for h in givens["hardware"]} == {"\\pi", "\\beta"}
    assert "<script" not in data["givens_html"] + data["question_html"]
    assert data["steps"] >= 5


def test_network_problem_asks_for_link_quantities(client):
    data = client.get("/api/problems/network-sharded").json()
    assert next(a["quantity"] for a in data["asked"]) == "flops"
    assert any(a["quantity"].startswith("network") for a in data["asked"])


def test_every_step_of_every_problem(client):
    for p in client.get("/api/problems").json()["problems"]:
        for k in range(1, p["steps"] + 1):
            r = client.get(f"/api/problems/{p['id']}/steps/{k}")
            assert r.status_code == 200, (p["id"], k)
            step = r.json()
            assert step["k"] == k and step["steps"] == p["steps"]
            assert step["html"].startswith(f"<h3>Step {k} ")
            assert step["markdown"].startswith(f"## Step {k} ")


@pytest.mark.parametrize("k", ["0", "99", "abc", "1e3", "-1", "01x", "9" * 30])
def test_step_out_of_range_is_404(client, k):
    assert "no such step" in _is_error(client.get(f"/api/problems/q1/steps/{k}"), 404)


def test_steps_are_403_when_hints_are_off(client_hidden):
    _is_error(client_hidden.get("/api/problems/q1/steps/1"), 403)
    assert client_hidden.get("/api/problems").json()["hints"] is False


@pytest.mark.parametrize(
    "pid",
    [
        "nope",
        "Q1",
        "..",
        "..%2F..%2Fetc%2Fpasswd",
        "q1%2F..%2Fq2",
        "%00",
        "q1%00",
        "a" * 300,
        "%2e%2e",
        "~root",
        "q1.toml",
    ],
)
def test_unknown_and_path_like_ids_are_404(client, pid):
    _is_error(client.get(f"/api/problems/{pid}"), 404)
    r = client.post("/api/check", json={"problem": pid, "quantity": "flops", "answer": "1"})
    assert r.status_code in (404, 422)  # 422: an id longer than any id can be
    _is_error(r, r.status_code)


def test_unknown_route_and_wrong_method_are_json(client):
    _is_error(client.get("/api/nothing"), 404)
    _is_error(client.get("/api/check"), 405)
    _is_error(client.delete("/api/problems"), 405)


def test_page_and_assets_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "workbook.js" in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    for path in (
        "/static/workbook.js",
        "/static/workbook.css",
        "/static/katex/katex.min.js",
        "/static/katex/katex.min.css",
        "/static/katex/contrib/auto-render.min.js",
        "/static/katex/fonts/KaTeX_Main-Regular.woff2",
    ):
        assert client.get(path).status_code == 200, path
    _is_error(client.get("/static/../pyproject.toml"), 404)


def test_foreign_host_header_is_refused(client):
    _is_error(client.get("/api/problems", headers={"host": "evil.example"}), 400)
    assert client.get("/api/problems", headers={"host": "localhost:8000"}).status_code == 200


# ---- POST /api/check -----------------------------------------------------------------


def test_check_right_answers(client):
    flops = client.post(
        "/api/check", json={"problem": "q1", "quantity": "flops", "answer": str(2 * B * D * F)}
    ).json()
    assert flops["verdict"] == "correct"
    assert flops["read_as"] in ("2BDF", str(2 * B * D * F))  # the checker's compact form
    assert flops["diagnosis"] and "expected" in flops
    threshold = int(sp.ceiling(_q1_crossover()))
    cross = client.post(
        "/api/check", json={"problem": "q1", "quantity": "crossover", "answer": str(threshold)}
    ).json()
    assert cross["verdict"] in ("correct", "correct-leading-order")


def test_check_wrong_answer_has_a_diagnosis(client):
    wrong = 2 * _q1_crossover()  # the ridge point, a classic slip
    r = client.post(
        "/api/check",
        json={"problem": "q1", "quantity": "crossover", "answer": str(sp.ceiling(wrong))},
    )
    data = r.json()
    assert r.status_code == 200 and data["verdict"] == "incorrect"
    assert data["diagnosis"] and data["expected"]


def test_check_unreadable_is_a_verdict(client):
    data = client.post(
        "/api/check", json={"problem": "q1", "quantity": "flops", "answer": "2BDF +"}
    ).json()
    assert data["verdict"] == "unreadable" and data["read_as"] is None
    assert len(data["diagnosis"]) == 1 and "\n" not in data["diagnosis"][0]


def test_check_never_evaluates(client):
    for answer in ("__import__('os').system('true')", "exec('1')", "B.__class__", "lambda: 1"):
        data = client.post(
            "/api/check", json={"problem": "q1", "quantity": "flops", "answer": answer}
        ).json()
        assert data["verdict"] == "unreadable", answer


def test_check_hides_expected(client_hidden):
    data = client_hidden.post(
        "/api/check", json={"problem": "q1", "quantity": "crossover", "answer": "7"}
    ).json()
    assert data["verdict"] == "incorrect"
    assert "expected" not in data and "expected_latex" not in data
    d = client_hidden.post(
        "/api/check-derivation", json={"problem": "q1", "lines": ["I = 2B"]}
    ).json()
    assert "expected" not in d


def test_hidden_diagnosis_does_not_give_the_answer_away(client, client_hidden):
    body = {"problem": "q1", "quantity": "crossover", "answer": "481"}
    shown, hidden = (c.post("/api/check", json=body).json() for c in (client, client_hidden))
    assert shown["verdict"] == hidden["verdict"] == "incorrect"
    leading = _q1_crossover()  # printed by the checker as p/q ≈ decimal
    # 481 is the ridge π/β (q1's crossover is half of it): that slip is said alone
    assert any("the ridge point" in d for d in shown["diagnosis"])
    assert not any(str(leading) in d or str(2 * leading) in d for d in hidden["diagnosis"])
    assert "expected" not in hidden


def test_unknown_quantity_is_422(client):
    line = _is_error(
        client.post("/api/check", json={"problem": "q1", "quantity": "speed", "answer": "1"}), 422
    )
    assert "known: flops" in line


def test_read_previews(client):
    ok = client.post("/api/read", json={"problem": "q1", "answer": "\\frac{2BDF}{2BD}"}).json()
    assert ok == {"ok": True, "read_as": "F", "latex": "F", "reason": None}
    bad = client.post("/api/read", json={"problem": "q1", "answer": "2BDQ"}).json()
    assert bad["ok"] is False and bad["reason"]


# ---- POST /api/check-derivation ------------------------------------------------------


def test_derivation_marks_first_wrong_line(client):
    lines = [f"I = {sp.latex(2 * B * D * F / (B * D + D * F + B * F))}", "\\approx 2B", "= 3B"]
    data = client.post("/api/check-derivation", json={"problem": "q1", "lines": lines}).json()
    assert data["verdict"] == "incorrect" and data["first_wrong_line"] == 3
    assert [s["ok"] for s in data["steps"]][-1] is False


def test_derivation_right(client):
    lines = [f"I = {sp.latex(2 * B * D * F / (B * D + D * F + B * F))}", "\\approx 2B"]
    data = client.post("/api/check-derivation", json={"problem": "q1", "lines": lines}).json()
    assert data["verdict"] in ("correct", "correct-leading-order")
    assert data["first_wrong_line"] is None


def test_derivation_empty_or_unreadable(client):
    empty = client.post("/api/check-derivation", json={"problem": "q1", "lines": ["", "  "]})
    assert empty.json()["verdict"] == "unreadable"
    bad = client.post("/api/check-derivation", json={"problem": "q1", "lines": ["I = 2B +"]})
    assert bad.json()["verdict"] == "unreadable"


# ---- hostile bodies -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/check", "/api/read", "/api/check-derivation"])
@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"", 400),
        (b"{", 400),
        (b"\xff\xfe", 400),
        (b"NaN-ish", 400),
        (b"[" * 30000 + b"]" * 30000, 400),
        (b'{"a":' * 10000 + b"1" + b"}" * 10000, 400),
        (b"[]", 422),
        (b'"text"', 422),
        (b"null", 422),
        (b"{}", 422),
        (b'{"problem": 1, "quantity": "flops", "answer": "1", "lines": []}', 422),
    ],
)
def test_bad_bodies(client, path, body, status):
    _is_error(client.post(path, content=body, headers=JSON), status)


@pytest.mark.parametrize(
    "body",
    [
        {"problem": "q1", "quantity": "flops", "answer": 2},
        {"problem": "q1", "quantity": "flops", "answer": None},
        {"problem": "q1", "quantity": "flops", "answer": ["2BDF"]},
        {"problem": ["q1"], "quantity": "flops", "answer": "1"},
        {"problem": "q1", "quantity": {"x": 1}, "answer": "1"},
        {"problem": "q1", "quantity": "flops"},
        {"problem": "q1", "quantity": "flops", "answer": "1", "extra": 1},
        {"problem": "q1", "quantity": "flops", "answer": "1" * 2001},
    ],
)
def test_wrong_types_are_422(client, body):
    _is_error(client.post("/api/check", json=body), 422)


@pytest.mark.parametrize(
    "lines", ["I = 2B", [1, 2], [["I = 2B"]], ["x"] * 201, ["1" * 2001], None, {"0": "I"}]
)
def test_derivation_wrong_types_are_422(client, lines):
    _is_error(client.post("/api/check-derivation", json={"problem": "q1", "lines": lines}), 422)


def test_one_megabyte_answer_is_413(client):
    body = json.dumps({"problem": "q1", "quantity": "flops", "answer": "B" * 1_000_000})
    line = _is_error(client.post("/api/check", content=body, headers=JSON), 413)
    assert "64 KiB" in line


def test_oversize_streamed_body_is_413_without_content_length(client):
    def chunks():
        for _ in range(100):
            yield b"x" * 4096

    _is_error(client.post("/api/check", content=chunks(), headers=JSON), 413)


def test_lying_content_length(client):
    r = client.post("/api/check", content=b"{}", headers={**JSON, "content-length": "999999999"})
    _is_error(r, 413)


def test_a_bounded_loop_of_garbage(client):
    """2,000 random bodies: every answer is a result or a one-line JSON error, never a 5xx."""
    rng = random.Random(17)
    alphabet = '{}[]":,\\ 0123456789abcdefBDF^_+-*/()=.\x00\xff' + "é≈∞"
    keys = ["problem", "quantity", "answer", "lines", "x", ""]
    values = ["q1", "flops", "2BDF", "../q1", 1, None, [], {}, "\\frac{", "B" * 50, True]
    paths = ["/api/check", "/api/read", "/api/check-derivation"]
    for i in range(2000):
        if i % 2:
            body = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 80))).encode(
                "utf-8", "surrogatepass"
            )
        else:
            obj = {rng.choice(keys): rng.choice(values) for _ in range(rng.randrange(0, 5))}
            body = json.dumps(obj).encode()
        r = client.post(rng.choice(paths), content=body, headers=JSON)
        assert r.status_code == 200 or r.status_code in ERROR_STATUSES, (body, r.text)
        if r.status_code != 200:
            _is_error(r, r.status_code)


# ---- the hard time limit and worker restarts -----------------------------------------


def test_time_limit_kills_and_replaces_the_worker():
    c, pool = _client(timeout=1e-6)
    with c:
        line = _is_error(
            c.post("/api/check", json={"problem": "q2", "quantity": "flops", "answer": "2BDF"}),
            422,
        )
        assert "longer than" in line
        pool.settings = PoolSettings(workers=1, timeout=30.0)
        r = c.post("/api/check", json={"problem": "q2", "quantity": "flops", "answer": "2BDF"})
        assert r.status_code == 200 and r.json()["verdict"] == "correct"
    pool.close()


def test_a_full_queue_is_429_with_retry_after():
    c, pool = _client()
    # the expected wait over its bound (a full queue refuses only an address that already has
    # a check waiting: tests/web/test_fairness.py)
    pool.settings = PoolSettings(workers=1, timeout=5.0, max_wait=-1.0)
    with c:
        body = {"problem": "q2", "quantity": "flops", "answer": "2BDF"}
        r = c.post("/api/check", json=body)
        assert "try again" in _is_error(r, 429)
        assert int(r.headers["retry-after"]) >= 1
    pool.close()


def test_a_dead_worker_is_replaced():
    c, pool = _client()
    with c:

        def body(answer: str) -> dict:
            return {"problem": "q2", "quantity": "flops", "answer": answer}

        assert c.post("/api/check", json=body("2BDF")).status_code == 200
        os.kill(pool._workers[0].pid, signal.SIGKILL)
        os.waitpid(pool._workers[0].pid, 0)
        # issue 37: a worker that died idle is replaced before a check reaches it (no 422)
        assert c.post("/api/check", json=body("2 B D F")).json()["verdict"] == "correct"
        pid = pool._workers[0].pid
        os.kill(pid, signal.SIGKILL)  # dead, not yet reaped by anyone
        while Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z":
            time.sleep(0.01)
        assert c.post("/api/check", json=body("2*B*D*F")).json()["verdict"] == "correct"
        assert c.post("/api/check", json=body("2BDF")).json()["verdict"] == "correct"  # remembered
    pool.close()


# ---- whole-model problems -------------------------------------------------------------
# GPT-2 small and Llama 3 70B counted naively from their architecture numbers.


def _gpt2_small_params() -> int:
    L, d, f, V, positions = 12, 768, 3072, 50257, 1024
    block = (4 * d * d + 4 * d) + (2 * d * f + f + d) + 2 * (2 * d)  # attention, MLP, 2 layernorms
    return L * block + V * d + positions * d + 2 * d  # tied head, learned positions, final norm


def _llama3_70b_params() -> int:
    L, d, heads, kv, dh, f, V = 80, 8192, 64, 8, 128, 28672, 128256
    return L * (2 * d * heads * dh + 2 * d * kv * dh + 3 * d * f + 2 * d) + 2 * V * d + d


def test_a_model_problem_has_givens_answer_boxes_and_steps(client):
    data = client.get("/api/problems/model-gpt2-params").json()
    assert data["kind"] == "model" and data["model"] == "gpt2-small"
    assert data["derivation"] is False
    assert [a["quantity"] for a in data["asked"]] == BY_ID["model-gpt2-params"]["ask"]
    sizes = {row["meaning"]: row["value"] for row in data["givens"]["sizes"]}
    assert sizes["blocks"] == "12" and sizes["vocabulary"] == "50257"
    assert "50257" in data["givens_html"] and "<script" not in data["givens_html"]
    step = client.get(f"/api/problems/model-gpt2-params/steps/{data['steps']}").json()
    assert str(_gpt2_small_params()) in step["html"] + step["markdown"]
    fit = client.get("/api/problems/model-70b-v5e-fit").json()
    assert {h["symbol"] for h in fit["givens"]["hardware"]} == {"C"}
    assert fit["givens"]["chip"] == "tpu-v5e" and fit["givens"]["devices"] == 16


def test_a_model_problem_checks_a_right_and_a_wrong_answer(client):
    params = _gpt2_small_params()
    right = client.post(
        "/api/check",
        json={"problem": "model-gpt2-params", "quantity": "params", "answer": str(params)},
    ).json()
    assert right["verdict"] == "correct" and right["expected"].startswith(str(params))
    assert right["expected_latex"] == str(params)
    wrong = client.post(
        "/api/check",
        json={"problem": "model-gpt2-params", "quantity": "params", "answer": "85e6"},
    ).json()
    assert wrong["verdict"] == "incorrect" and str(params) in wrong["diagnosis"][0]
    unreadable = client.post(
        "/api/check",
        json={"problem": "model-gpt2-params", "quantity": "params", "answer": "__import__('os')"},
    ).json()
    assert unreadable["verdict"] == "unreadable" and len(unreadable["diagnosis"]) == 1


def test_a_model_problem_names_a_gb_gib_slip(client):
    kv_per_token = (
        2 * 32 * 8 * 128 * 2
    )  # Llama 3 8B: 2 (K, V) · layers · kv heads · head dim · bf16
    total = kv_per_token * 16 * 8192  # B = 16 sequences of S = 8192
    in_gib = sp.Rational(total, 2**30)
    body = {"problem": "model-gqa-kv", "quantity": "kv_bytes", "answer": f"{in_gib} GiB"}
    assert client.post("/api/check", json=body).json()["verdict"] == "correct"
    slip = client.post("/api/check", json={**body, "answer": f"{in_gib} GB"}).json()
    assert slip["verdict"] == "incorrect"
    assert any("read as GiB it would be right" in d for d in slip["diagnosis"])
    # 16 chips, 8 KV heads: each chip holds 1/8 of the cache and 1/16 of the weights
    room = 16 * 16 * 10**9 - 2 * _llama3_70b_params()
    largest = room * 8 // (2 * 80 * 8 * 128 * 2 * 8192 * 16)
    body = {"problem": "model-70b-v5e-fit", "quantity": "max_batch", "answer": str(largest)}
    fits = client.post("/api/check", json=body).json()
    assert fits["verdict"] == "correct"


def test_a_model_problem_reads_previews_and_refuses_derivations(client):
    ok = client.post(
        "/api/read", json={"problem": "model-gqa-kv", "answer": "128 KiB", "quantity": "kv_bytes_per_token"}
    ).json()  # fmt: skip
    assert ok["ok"] is True and ok["read_as"] == "128 KiB = 131072 B/token"
    bad = client.post("/api/read", json={"problem": "model-gqa-kv", "answer": "2+"}).json()
    assert bad["ok"] is False and bad["reason"]
    d = client.post("/api/check-derivation", json={"problem": "model-gqa-kv", "lines": ["P = 1"]})
    assert d.status_code == 200 and d.json()["verdict"] == "unreadable"
    line = _is_error(
        client.post(
            "/api/check", json={"problem": "model-gqa-kv", "quantity": "flops", "answer": "1"}
        ),
        422,
    )
    assert "known: params" in line


def test_a_model_problem_hides_the_expected_answer(client_hidden):
    body = {"problem": "model-gpt2-params", "quantity": "params", "answer": "85e6"}
    data = client_hidden.post("/api/check", json=body).json()
    assert data["verdict"] == "incorrect" and "expected" not in data
    assert not any(str(_gpt2_small_params()) in d for d in data["diagnosis"])


def test_a_serving_problem_has_boxes_and_checks_a_right_and_a_wrong_rate(client):
    from tests.model.test_serving import _step

    data = client.get("/api/problems/serve-70b-decode").json()
    boxes = [a["quantity"] for a in data["asked"]]
    # the step's quantities, as its question sheet's "Find:" asks (the bytes the step reads
    # are steps of the solution, not boxes, unless the set asks for them)
    assert boxes == [
        "t_lower",
        "tokens_per_s",
        "inter_token_latency",
        "crossover",
    ]
    assert data["steps"] > 0
    problem = BY_ID["serve-70b-decode"]
    batch, context = problem["set"]["B"], problem["set"]["S"]
    lower, _ = _step(batch, batch, context)  # t_lower per device, kernel by kernel
    rate = batch / lower
    body = {"problem": "serve-70b-decode", "quantity": "tokens_per_s"}
    right = client.post("/api/check", json={**body, "answer": f"{float(rate):.6g} tokens/s"}).json()
    assert right["verdict"] == "correct", right
    wrong = client.post("/api/check", json={**body, "answer": f"{float(rate) / 2:.6g}"}).json()
    assert wrong["verdict"] == "incorrect" and wrong["diagnosis"], wrong
    ttft = client.get("/api/problems/serve-70b-prefill").json()
    assert [a["quantity"] for a in ttft["asked"]] == [
        "ttft",
        "prefill_tokens_per_s",
    ]


def test_a_training_problem_has_boxes_steps_and_checks_the_critical_batch(client):
    from fractions import Fraction

    data = client.get("/api/problems/train-8b-network").json()
    boxes = [a["quantity"] for a in data["asked"]]
    assert boxes == ["critical_tokens_per_device", "t_lower", "comms_bytes_per_device"]
    assert data["steps"] > 3
    train = BY_ID["train-8b-network"]["train"]
    dp = train["dp"]
    # ZeRO-3, no recomputation: b* = (dp − 1)/dp · π/β_link · 4P/(4P + 2A), the H100's bf16
    # peak 9.89e14, P Llama 3 8B's parameters, A the forward's causal attention FLOPs per
    # token (32 layers of 32 heads of 128 over S(S+1)/2 pairs)
    s, p = train["seq"], 8030261248
    a = Fraction(32 * 4 * 32 * 128 * (s + 1), 2)
    star = Fraction(dp - 1, dp) * Fraction("9.89e14") / Fraction(train["link_bandwidth"])
    star *= Fraction(4 * p) / (4 * p + 2 * a)
    body = {"problem": "train-8b-network", "quantity": "critical_tokens_per_device"}
    right = client.post("/api/check", json={**body, "answer": f"{float(star):.6g}"}).json()
    assert right["verdict"] == "correct", right
    wrong = client.post("/api/check", json={**body, "answer": f"{float(star) * 8 / 7:.6g}"}).json()
    assert wrong["verdict"] == "incorrect", wrong


# ---- kernels given by their numbers ----------------------------------------------------
# Values computed here with Fractions from the set's own counts and the chip's datasheet
# numbers (H100 SXM: dense bf16 9.89e14 FLOP/s, 3.35e12 bytes/s).


def _kernel_truths() -> dict:
    from fractions import Fraction

    kernel = BY_ID["kernel-h100-measured"]
    flops, moved = Fraction(kernel["kernel"]["flops"]), Fraction(kernel["kernel"]["bytes"])
    peak, bandwidth = Fraction("9.89e14"), Fraction("3.35e12")
    measured = Fraction(13, 10_000)  # "1.3ms"
    assert kernel["measured_time"] == "1.3ms"
    return {
        "intensity": flops / moved,
        "t_lower": max(flops / peak, moved / bandwidth),
        "mfu": flops / measured / peak,
    }


def test_a_kernel_problem_has_its_boxes_givens_and_steps(client):
    data = client.get("/api/problems/kernel-h100-measured").json()
    assert data["kind"] == "kernel" and data["derivation"] is False
    assert [a["quantity"] for a in data["asked"]] == BY_ID["kernel-h100-measured"]["ask"]
    assert data["givens"]["chip"] == "h100" and data["givens"]["kernel"]["flops"] == "1e12"
    assert data["givens"]["timing"] == {"measured_time": "1.3ms"}
    assert data["steps"] == 3  # the roofline, the bounds, the measured run
    step = client.get(f"/api/problems/kernel-h100-measured/steps/{data['steps']}").json()
    assert "MFU" in step["markdown"]


def test_a_kernel_problem_checks_right_and_wrong_answers(client):
    truths = _kernel_truths()
    body = {"problem": "kernel-h100-measured"}
    t_lower_ms = float(truths["t_lower"] * 1000)
    right = client.post(
        "/api/check", json={**body, "quantity": "t_lower", "answer": f"{t_lower_ms:.6g} ms"}
    ).json()
    assert right["verdict"] == "correct", right
    mfu = client.post(
        "/api/check", json={**body, "quantity": "mfu", "answer": f"{float(truths['mfu']):.4f}"}
    ).json()
    assert mfu["verdict"] == "correct", mfu
    wrong = client.post(
        "/api/check",
        json={**body, "quantity": "intensity", "answer": str(truths["intensity"] * 2)},
    ).json()
    assert wrong["verdict"] == "incorrect" and wrong["diagnosis"]
    read = client.post("/api/read", json={**body, "quantity": "mfu", "answer": "78%"}).json()
    assert read["ok"] is True and read["read_as"].startswith("78%")
    chain = client.post("/api/check-derivation", json={**body, "lines": ["I = 400"]}).json()
    assert chain["verdict"] == "unreadable" and "one quantity at a time" in chain["diagnosis"][0]
    line = _is_error(
        client.post("/api/check", json={**body, "quantity": "params", "answer": "1"}), 422
    )
    assert "kernel" in line


def test_a_kernel_problem_hides_the_expected_answer(client_hidden):
    body = {"problem": "kernel-h100-measured", "quantity": "t_lower", "answer": "1 s"}
    data = client_hidden.post("/api/check", json=body).json()
    assert data["verdict"] == "incorrect" and "expected" not in data
    assert not any("989" in d for d in data["diagnosis"])


# ---- issue 26: the workbook as a class meets it on day one --------------------------

CHIPS = tomllib.loads(resources.files("derive").joinpath("data/chips.toml").read_text("utf-8"))


def _tex_number(text: str) -> sp.Rational:
    """A number as the givens print it (``9.89 \\times 10^{14}``), read back exactly."""
    mantissa, _, power = text.partition(" \\times 10^{")
    return sp.Rational(mantissa) * sp.Integer(10) ** int(power.rstrip("}") or 0)


def test_a_serving_problem_gives_the_ceilings_its_step_time_needs(client):
    """Item 1: the peak, the HBM bandwidth and the link bandwidth, with their sources."""
    data = client.get("/api/problems/serve-70b-decode").json()
    h100 = CHIPS["h100"]
    rows = {h["symbol"]: h for h in data["givens"]["hardware"]}
    for symbol, key in (
        ("\\pi", "peak_bf16_flop_per_s"),
        ("\\beta", "hbm_bytes_per_s"),
        ("\\beta_{\\text{link}}", "link_bytes_per_s"),
    ):
        value = rows[symbol]["value"].split("\\ \\text")[0]
        assert _tex_number(value) == sp.Rational(h100[key]["value"]), symbol
        assert rows[symbol]["source"]
        assert f"\\({symbol}\\)" in data["givens_html"]


@pytest.mark.parametrize(
    ("problem", "quantity", "answer", "shown"),
    [
        # typed with a unit: the unit echoed, the exact value in the quantity's unit beside it
        ("serve-70b-decode", "t_lower", "12.5 ms", ("12.5", "ms", "0.0125", "s")),
        ("model-gqa-kv", "kv_bytes", "16 GiB", ("16", "GiB", str(16 * 2**30), "bytes")),
        ("kernel-h100-measured", "t_lower", "1.2 ms", ("1.2", "ms", "0.0012")),
        ("q2", "t_mem", "1.2 ms", ("1.2", "ms", "0.0012")),
        # a relation is echoed with its left side
        ("serve-70b-decode", "crossover", "B >= 121", ("B \\geq 121",)),
        ("q2", "crossover", "B >= 121", ("B \\geq 121",)),
    ],
)
def test_the_echo_keeps_what_was_typed_with_its_unit(client, problem, quantity, answer, shown):
    """Item 2: the check and the preview both echo the answer as typed, not a bare value."""
    body = {"problem": problem, "quantity": quantity, "answer": answer}
    checked = client.post("/api/check", json=body).json()["read_as_latex"]
    preview = client.post("/api/read", json=body).json()["latex"]
    assert checked == preview
    for part in shown:
        assert part in checked, (part, checked)


def test_a_number_for_a_formula_says_a_formula_is_expected(client):
    """Item 3: no invented slip; the dims the formula is in, and those the question binds."""
    body = {"problem": "q2", "quantity": "t_mem", "answer": "1.2 ms"}
    data = client.post("/api/check", json=body).json()
    assert data["verdict"] == "incorrect"
    (sentence,) = data["diagnosis"]
    assert "formula in B, D, F" in sentence
    assert "tensor" not in sentence and "leave" not in sentence
    q3 = BY_ID["q3-d4096"]["set"]
    body = {"problem": "q3-d4096", "quantity": "t_mem", "answer": "1.2 ms"}
    (sentence,) = client.post("/api/check", json=body).json()["diagnosis"]
    assert "formula in B " in sentence and f"gives D = {q3['D']}" in sentence
    assert "--set" not in sentence


def test_a_leading_order_number_is_still_judged(client):
    """Item 3's guard: under a regime that makes the quantity a number, a number is judged."""
    body = {"problem": "q1", "quantity": "crossover", "answer": f"B >= {_q1_crossover_int()}"}
    assert client.post("/api/check", json=body).json()["verdict"] == "correct-leading-order"


def _q1_crossover_int() -> int:
    return int(sp.ceiling(_q1_crossover()))


def test_the_derivation_example_answers_no_problem(client, client_hidden):
    """Item 4: the placeholder and the empty-derivation message show syntax, not q2's answer."""
    script = client.get("/static/workbook.js").text
    example = script.split("const DERIVATION_EXAMPLE = ", 1)[1].split(";\n", 1)[0]
    message = client_hidden.post(
        "/api/check-derivation", json={"problem": "q2", "lines": [""]}
    ).json()["diagnosis"][0]
    for shown in (example, message):
        assert "\\frac" in shown and "BDF" not in shown and "2B" not in shown
        assert not {"B", "D", "F"} & set(re.findall(r"\b([A-Z])\b", shown))


def test_every_quantity_the_question_sheet_finds_has_a_box(client):
    """Item 5: a serving problem's "Find:" (the weights' and KV bytes, the step's quantities)."""
    from derive.checking.serving_claims import SERVING_ASKED
    from derive.present.key.serving import SERVING_PHRASES
    from derive.present.model_view import ASK_PHRASES

    sheet = (ROOT / "out" / "rooflines-questions.md").read_text("utf-8")
    by_phrase = {v: k for k, v in ASK_PHRASES.items()} | {v: k for k, v in SERVING_PHRASES.items()}
    titles = {p["title"]: p["id"] for p in client.get("/api/problems").json()["problems"]}
    sections = re.split(r"\n## \d+\. ", sheet)[1:]
    checked = 0
    for section in sections:
        pid = titles.get(section.splitlines()[0].replace("\\", ""))
        if pid is None or not pid.startswith("serve-"):
            continue
        finds = re.findall(r"^- (.*)$", section.split("Find:")[-1], re.M)
        boxes = {a["quantity"] for a in client.get(f"/api/problems/{pid}").json()["asked"]}
        for phrase in finds:
            key = by_phrase[phrase]
            assert set(SERVING_ASKED.get(key, (key,))) <= boxes, (pid, phrase, boxes)
        checked += 1
    assert checked == sum(1 for p in SET["problem"] if p["id"].startswith("serve-"))


def test_the_manual_counts_the_built_in_set_right(client):
    """Item 5: docs/workbook.md's count of the built-in set's problems is the set's."""
    page = (ROOT / "docs" / "workbook.md").read_text("utf-8")
    (said,) = re.findall(r"serves the built-in one \((\d+) problems", page)
    # every problem has a page, those of givens and equations alone too (issue 33)
    assert int(said) == len(client.get("/api/problems").json()["problems"]) == len(SET["problem"])


def test_a_training_page_gives_the_run_it_asks_about(client):
    """A training problem's page gives the run as the sheet does (its parallel degrees, ZeRO
    stage, batch, the peak and the link): the model's table alone could not time a step."""
    data = client.get("/api/problems/train-8b-zero").json()
    givens = data["givens_html"]
    assert "Training run." in givens
    assert "dp = 8" in givens and "ZeRO stage 1" in givens and "9.89e14 FLOP/s" in givens
