"""The class server under abuse: a flood from one client, cross-origin requests, slow connections.

Nothing here asserts a time: the flood test checks the order in which verdicts come back
(another client's check is answered while the flood still waits), the slow-connection tests
that the server closes or answers 408 (the socket's own timeout only bounds the test).
benchmarks/load_workbook.py --flood measures the latencies.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from conftest import live_server
from starlette.testclient import TestClient

from derive.web import app as web_app
from derive.web.app import LOOPBACK_HOSTS, create_app
from derive.web.book import build_workbook, load_source
from derive.web.pool import PoolSettings, ServerBusyError, WorkerPool
from derive.web.protocol import TimedH11Protocol

SLOW = "(B+D+F+{k})^{{12}}"  # a wrong claim whose diagnosis takes tens of ms
RIGHT = r"\frac{2BDF}{BD+DF+BF}"


@pytest.fixture(scope="module")
def setup():
    _, pset = load_source(None)
    book = build_workbook(pset)
    # max_wait: the service estimate starts from the 30 s limit; this test is about order
    pool = WorkerPool(pset, PoolSettings(workers=2, timeout=30.0, client_queue=6, max_wait=600))
    yield book, pool
    pool.close()


def test_a_flood_from_one_client_leaves_a_worker_to_another(setup):
    _, pool = setup

    async def scenario():
        flood = [
            asyncio.ensure_future(
                pool.run("check", "q1", "intensity", SLOW.format(k=k), client="flooder")
            )
            for k in range(6)
        ]
        await asyncio.sleep(0)  # every flood job is queued or running
        with pytest.raises(ServerBusyError) as refused:
            await pool.run("check", "q1", "intensity", SLOW.format(k=99), client="flooder")
        probe = await pool.run("check", "q1", "intensity", RIGHT, client="student")
        finished_first = sum(f.done() for f in flood)
        verdicts = [r.verdict for r in await asyncio.gather(*flood)]
        return refused.value, probe, finished_first, verdicts

    refused, probe, finished_first, verdicts = asyncio.run(scenario())
    assert refused.retry_after >= 1 and "waiting" in refused.why
    assert probe.verdict == "correct"
    assert finished_first < 6  # the student did not wait behind the whole flood
    assert verdicts == ["incorrect"] * 6  # and the flood itself was judged


def test_a_check_whose_client_has_gone_is_stopped(setup):
    _, pool = setup

    async def scenario():
        running = asyncio.ensure_future(
            pool.run("check", "q1", "intensity", SLOW.format(k=1000), client="gone")
        )
        queued = asyncio.ensure_future(
            pool.run("check", "q1", "intensity", SLOW.format(k=1001), client="gone")
        )
        await asyncio.sleep(0)
        pids = {w.pid for w in pool._workers}
        queued.cancel()
        running.cancel()
        await asyncio.gather(running, queued, return_exceptions=True)
        after = await pool.run("check", "q1", "intensity", RIGHT + " ", client="back")
        return pids, {w.pid for w in pool._workers}, after

    before, after_pids, after = asyncio.run(scenario())
    assert before != after_pids  # the worker of the abandoned check was replaced
    assert after.verdict == "correct"
    assert pool._waiting == 0 and not pool._queues and not pool._running


# ---- cross-origin requests ------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(setup):
    book, pool = setup
    with TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1") as c:
        yield c


BODY = {"problem": "q1", "quantity": "ridge", "answer": "1"}


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "http://127.0.0.1:9999"},
        {"origin": "null"},
        {"origin": "https://127.0.0.1"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},
    ],
)
def test_cross_origin_posts_are_refused(client, headers):
    r = client.post("/api/check", json=BODY, headers=headers)
    assert r.status_code == 403 and "other sites" in r.json()["error"]


@pytest.mark.parametrize("media", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_a_post_must_be_json(client, media):
    r = client.post("/api/check", content=b'{"problem": "q1"}', headers={"content-type": media})
    assert r.status_code == 415 and "application/json" in r.json()["error"]


def test_same_origin_and_non_browser_posts_are_judged(client):
    for headers in ({}, {"origin": "http://127.0.0.1"}, {"origin": "HTTP://127.0.0.1:80"}):
        r = client.post(
            "/api/check", json=BODY, headers={**headers, "sec-fetch-site": "same-origin"}
        )
        assert r.status_code == 200, (headers, r.text)


@pytest.mark.parametrize("host", ["LOCALHOST", "Localhost:8000", "127.0.0.1:8000", "[::1]:80"])
def test_host_names_ignore_case(client, host):
    assert client.get("/api/problems", headers={"host": host}).status_code == 200


def test_the_page_gives_each_browser_a_client_cookie(client):
    r = client.get("/")
    assert r.status_code == 200 and "derive_client=" in r.headers["set-cookie"]
    assert "httponly" in r.headers["set-cookie"].lower()


# ---- slow connections (a real uvicorn on a loopback port) -------------------------------------


class _QuickHeaders(TimedH11Protocol):
    header_seconds = 0.5


@pytest.fixture
def live(setup, monkeypatch):
    monkeypatch.setattr(web_app, "BODY_SECONDS", 0.5)
    book, pool = setup
    with live_server(create_app(book, pool, LOOPBACK_HOSTS), http=_QuickHeaders) as port:
        yield port


def _read_all(conn: socket.socket) -> bytes:
    conn.settimeout(20)  # bounds the test; the server acts long before
    out = b""
    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return out
        out += chunk


def test_headers_that_trickle_in_are_cut_off(live):
    with socket.create_connection(("127.0.0.1", live)) as conn:
        conn.sendall(b"GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        assert _read_all(conn) == b""  # closed without an answer


def test_a_body_that_never_comes_is_408(live):
    with socket.create_connection(("127.0.0.1", live)) as conn:
        conn.sendall(
            b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\nConnection: close\r\n\r\n{"
        )
        answer = _read_all(conn)
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive" in answer


def test_a_normal_request_still_works(live):
    with socket.create_connection(("127.0.0.1", live)) as conn:
        conn.sendall(b"GET /api/problems HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert _read_all(conn).startswith(b"HTTP/1.1 200")
