"""Day one in class (issue 26), in the workbook: an operator that only communicates is served.

Item 17 made ``derive solve``, ``derive key`` and ``derive check`` time a bare all-reduce on
its link; ``derive serve`` refused a set holding one. Its page (tests/sets/comms.toml, whose
operators file needs ``--trust``) gives the collectives, the link and the group P, boxes
what the problem asks among ``t_comms``, ``t_lower`` and ``t_upper``, shows the worked steps
as hints and judges answers as ``derive check`` does.

Expected times are computed here with fractions from the decimal figures (the H100's
NVLink: 4.5e11 bytes/s one way; the set's given link: 1e11 bytes/s) and the ring's bytes
counted by hand, never copied from derive's output.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from derive.web.app import LOOPBACK_HOSTS, create_app
from derive.web.book import build_workbook, load_source
from derive.web.pool import PoolSettings, WorkerPool
from tests.conftest import ROOT, run_cli

SET = ROOT / "tests" / "sets" / "comms.toml"
BF16 = 2


def _ring(kind: str, elements: int, group: int) -> tuple[Fraction, int]:
    """Bytes one device sends in a ring collective of a bf16 tensor, and the ring's steps."""
    size = Fraction(BF16 * elements)
    if kind == "all_reduce":  # a reduce-scatter, then an all-gather
        return 2 * size * (group - 1) / group, 2 * (group - 1)
    return size * (group - 1) / group, group - 1  # all-gather, reduce-scatter


def _all_reduce_time() -> Fraction:
    """ar-h100: Y[8192, 8192] all-reduced over 8 H100s on NVLink, 2 µs a ring step."""
    sent, steps = _ring("all_reduce", 8192 * 8192, 8)
    return sent / Fraction(45 * 10**10) + steps * Fraction(2, 10**6)


def _gather_scatter_time() -> Fraction:
    """sp-given: an all-gather then a reduce-scatter of [4096, 4096] over 4 devices, 1e11 B/s."""
    gather, _ = _ring("all_gather", 4096 * 4096, 4)
    scatter, _ = _ring("reduce_scatter", 4096 * 4096, 4)
    return (gather + scatter) / Fraction(10**11)


def _client(path: Path, show: bool = True):
    _, pset = load_source(str(path), trust=True)
    book = build_workbook(pset, hints=True, show_expected=show)
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0), not show)
    return TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1"), pool


@pytest.fixture(scope="module")
def client():
    c, pool = _client(SET)
    with c:
        yield c
    pool.close()


def _check(client, problem: str, quantity: str, answer: str) -> dict:
    r = client.post("/api/check", json={"problem": problem, "quantity": quantity, "answer": answer})
    assert r.status_code == 200, r.text
    return r.json()


# ---- the page ----------------------------------------------------------------------


def test_serve_needs_trust_for_the_sets_operators_file():
    err = run_cli(["serve", str(SET), "--port", "0"])
    assert err.code == 2 and err.out == "" and err.err.count("\n") == 1, err
    assert "comms_ops.py" in err.err and "--trust" in err.err


def test_the_set_is_served_with_its_comms_only_problems(client):
    index = client.get("/api/problems").json()
    asked = {p["id"]: p["asked"] for p in index["problems"]}
    assert asked == {"ar-h100": ["t_comms"], "sp-given": ["t_lower", "t_upper"]}
    assert all(p["kind"] == "operator" and p["steps"] == 2 for p in index["problems"])


def test_the_page_gives_the_collective_the_link_and_the_group(client):
    data = client.get("/api/problems/ar-h100").json()
    assert data["only_communicates"] is True and data["derivation"] is False
    assert data["operator"] == "tp_all_reduce" and data["solve_for"] is None
    givens = data["givens"]
    (reduce,) = givens["collectives"]
    assert reduce == {
        "kind": "all-reduce",
        "tensor": "Y",
        "shape": r"B \times F",
        "dtype": "bf16",
        "width": "2",
        "group": "8",  # P at the bound dims
    }
    assert givens["bound"] == ["B = 8192", "F = 8192", "P = 8"]
    link, latency = givens["hardware"]
    assert link["symbol"] == r"\beta_{\text{link}}" and link["value"] == r"4.5 \times 10^{11}"
    assert "NVLink" in link["name"] and link["source"] != "given"  # the chip's, with its source
    assert latency["value"] == r"2\ \mu\text{s}" and latency["source"] == "given"
    html = data["givens_html"]
    assert "all-reduce" in html and "<th>group P</th>" in html and r"<td>\(8\)</td>" in html
    (box,) = data["asked"]
    assert box["latex"] == r"T_{\text{comms}}" and "unit" in box["placeholder"]


def test_a_given_link_and_bounds_are_boxed(client):
    data = client.get("/api/problems/sp-given").json()
    assert [c["kind"] for c in data["givens"]["collectives"]] == ["all-gather", "reduce-scatter"]
    (link,) = data["givens"]["hardware"]  # no latency given: no row
    assert link["value"] == "10^{11}" and link["source"] == "given"
    assert [a["latex"] for a in data["asked"]] == [r"T_{\text{lower}}", r"T_{\text{upper}}"]


def test_the_hints_are_the_worked_steps(client):
    first = client.get("/api/problems/ar-h100/steps/1").json()
    assert first["title"] == "Collectives" and r"\frac{2(P-1)}{P}" in first["markdown"]
    last = client.get("/api/problems/ar-h100/steps/2").json()
    assert last["markdown"].startswith("## Step 2 — Time of the step")
    assert "Link-bound (the interconnect binds)" in last["html"]
    assert client.get("/api/problems/ar-h100/steps/3").status_code == 404


# ---- judging -----------------------------------------------------------------------


def test_a_time_with_its_unit_is_judged_as_derive_check_judges_it(client):
    exact = _all_reduce_time()
    assert abs(Fraction(550, 10**6) - exact) / exact < Fraction(1, 100)  # 550 us is right
    got = _check(client, "ar-h100", "t_comms", "550 us")
    assert got["verdict"] == "correct", got
    assert got["read_as"] == "550 µs = 0.00055 s"  # the unit as derive spells it
    assert got["read_as_latex"] == r"550\,\text{µs} = 0.00055\ \text{s}"
    assert got["expected_latex"].endswith(r"\ \text{s}") and got["expected"]
    argv = ["check", "--problem-set", str(SET), "--trust", "--problem", "ar-h100"]
    cli = run_cli([*argv, "--quantity", "t_comms", "--claim", "550 us", "--format", "json"])
    assert cli.code == 0 and json.loads(cli.out)["verdict"] == got["verdict"]
    assert list(json.loads(cli.out)["diagnosis"]) == got["diagnosis"]
    seconds = _check(client, "ar-h100", "t_comms", f"{float(exact):.6g}")
    assert seconds["verdict"] == "correct" and seconds["read_as"].endswith(" s")


def test_a_unit_slip_and_a_wrong_time_are_named(client):
    exact = _all_reduce_time()
    slip = _check(client, "ar-h100", "t_comms", f"{float(exact) * 1e3:.4g} us")
    assert slip["verdict"] == "incorrect" and "right in ms" in slip["diagnosis"][0]
    off = _check(client, "ar-h100", "t_comms", f"{float(2 * exact) * 1e6:.4g} us")
    assert off["verdict"] == "incorrect" and "% high" in off["diagnosis"][0]
    unread = _check(client, "ar-h100", "t_comms", "fast")
    assert unread["verdict"] == "unreadable" and unread["read_as"] is None
    order = _check(client, "ar-h100", "t_comms", "T >= 500 us")
    assert order["verdict"] == "unreadable" and "inequality" in order["diagnosis"][0]


def test_the_bounds_of_a_transfer_alone_are_its_link_time(client):
    exact = _gather_scatter_time()
    for quantity in ("t_lower", "t_upper"):
        right = _check(client, "sp-given", quantity, f"{float(exact) * 1e6:.5g} us")
        assert right["verdict"] == "correct", (quantity, right)
        half = _check(client, "sp-given", quantity, f"{float(exact / 2) * 1e6:.5g} us")
        assert half["verdict"] == "incorrect", quantity


def test_the_preview_reads_a_time(client):
    r = client.post(
        "/api/read", json={"problem": "ar-h100", "answer": "0.55 ms", "quantity": "t_comms"}
    )
    assert r.json() == {
        "ok": True,
        "read_as": "0.55 ms = 0.00055 s",
        "latex": r"0.55\,\text{ms} = 0.00055\ \text{s}",
        "reason": None,
    }
    bad = client.post("/api/read", json={"problem": "ar-h100", "answer": "2 +"}).json()
    assert bad["ok"] is False and bad["reason"]


def test_a_derivation_is_not_asked_of_a_transfer(client):
    r = client.post("/api/check-derivation", json={"problem": "ar-h100", "lines": ["T = 1"]})
    data = r.json()
    assert data["verdict"] == "unreadable" and "one quantity at a time" in data["diagnosis"][0]


def test_hidden_expected_answers_stay_hidden():
    c, pool = _client(SET, show=False)
    try:
        with c:
            wrong = _check(c, "ar-h100", "t_comms", "1 s")
            assert wrong["verdict"] == "incorrect" and "expected" not in wrong
            assert not any("exact is" in d for d in wrong["diagnosis"])
    finally:
        pool.close()


# ---- what the page refuses, and a time left as a formula ---------------------------


def _copy(tmp_path: Path, problems: str) -> Path:
    (tmp_path / "comms_ops.py").write_text((SET.parent / "comms_ops.py").read_text())
    path = tmp_path / "set.toml"
    path.write_text('title = "t"\noperators = ["comms_ops.py"]\n' + problems)
    return path


def test_asking_a_crossover_of_a_transfer_is_refused_in_one_line(tmp_path: Path):
    path = _copy(
        tmp_path,
        '[[problem]]\nid = "x"\noperator = "tp_all_reduce"\ndtype = "bf16"\nchip = "h100"\n'
        'ask = ["crossover"]\n',
    )
    err = run_cli(["serve", str(path), "--trust", "--port", "0"])
    assert err.code == 2 and err.out == "" and err.err.count("\n") == 1, err
    assert "problem 'x'" in err.err and "'ask'" in err.err and "only communicates" in err.err


def test_a_time_left_in_the_dims_gets_hints_and_no_box(tmp_path: Path):
    path = _copy(
        tmp_path,
        '[[problem]]\nid = "free"\noperator = "tp_all_reduce"\ndtype = "bf16"\nchip = "h100"\n',
    )
    _, pset = load_source(str(path), trust=True)
    page = build_workbook(pset).pages["free"]
    assert page.asked == () and len(page.steps_html) == 2
    assert page.detail["givens"]["bound"] == []
    assert page.detail["givens"]["collectives"][0]["group"] == "P"  # free: the dim


# ---- a decode with no batch: its crossover alone, keyed and served --------------------

DECODE = ROOT / "tests" / "sets" / "decode_crossover.toml"


def _crossover() -> tuple[Fraction, int]:
    from tests.solution.test_comms_only_steps import _matmul_crossover

    exact = _matmul_crossover()  # 2·W·B/π = (2·W + 2·a·B)/β, counted from the model's shape
    return exact, math.ceil(exact)


def test_a_decode_without_a_batch_is_keyed_as_derive_model_gives_it(tmp_path: Path):
    exact, first = _crossover()
    out = tmp_path / "key"
    r = run_cli(["key", str(DECODE), "-o", str(out)])
    assert r.code == 0, r
    key = (out / "decode_crossover.md").read_text()
    assert key.count("### Decode crossover") == 2
    assert f"compute-bound for B ≥ {first}" in key
    assert f"compute-bound matmuls from B = {first} (no batch given, no step timed)" in key
    section = key.split("## Problem 1")[1].split("## Problem 2")[0]
    assert "S free" in section and "Time of the step" not in section
    questions = (out / "decode_crossover-questions.md").read_text()
    assert "the batch at which decode becomes compute-bound" in questions
    assert str(first) not in questions and f"{float(exact):.5g}" not in questions


def test_a_decode_without_a_batch_asking_its_rate_is_refused_in_one_line(tmp_path: Path):
    path = tmp_path / "set.toml"
    path.write_text(
        '[[problem]]\nid = "rate"\nmodel = "llama-3-8b"\nchip = "h100"\nphase = "decode"\n'
        'ask = ["tokens_per_s"]\n'
    )
    for argv in (
        ["key", str(path), "-o", str(tmp_path / "key")],
        ["serve", str(path), "--port", "0"],
    ):
        r = run_cli(argv)
        assert r.code == 2 and r.out == "" and r.err.count("\n") == 1, r
        assert "problem 'rate'" in r.err and "tokens_per_s" in r.err and "B" in r.err
    assert not (tmp_path / "key").exists()


@pytest.fixture(scope="module")
def decode_client():
    c, pool = _client(DECODE)
    with c:
        yield c
    pool.close()


def test_a_decode_without_a_batch_is_served_with_its_crossover(decode_client):
    exact, first = _crossover()
    data = decode_client.get("/api/problems/cross").json()
    assert "crossover" in [a["quantity"] for a in data["asked"]]
    assert "decode with B free" in data["givens_html"]
    last = decode_client.get(f"/api/problems/cross/steps/{data['steps']}").json()
    assert last["title"] == "Crossover" and f"B ≥ {first}" in last["html"]
    right = _check(decode_client, "cross", "crossover", f"B >= {first}")
    assert right["verdict"] == "correct", right
    assert (
        _check(decode_client, "cross", "crossover", f"{float(exact):.5g}")["verdict"] == "correct"
    )
    wrong = _check(decode_client, "cross", "crossover", f"{first + 40}")
    assert wrong["verdict"] == "incorrect"
    at_128 = _check(decode_client, "cross-128", "crossover", f"B >= {first}")
    assert at_128["verdict"] == "correct"  # the matmuls' crossover holds no S


def test_the_question_sheet_gives_the_link_latency_the_time_needs(tmp_path: Path):
    """Without the 2 µs a ring step, a student computes 522 µs, not the key's 550 µs."""
    sent, _ = _ring("all_reduce", 8192 * 8192, 8)
    without = sent / Fraction(45 * 10**10)
    assert abs(_all_reduce_time() - without) / _all_reduce_time() > Fraction(1, 100)
    out = tmp_path / "key"
    assert run_cli(["key", str(SET), "--trust", "-o", str(out)]).code == 0
    sheet = (out / "comms-questions.md").read_text().split("## 2.")[0]
    assert r"| link latency (a step of the ring) | $t_{\text{hop}}$ | $2\ \mu\text{s}$" in sheet
    assert "link latency" not in (out / "comms-questions.md").read_text().split("## 2.")[1]
