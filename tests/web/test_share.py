"""Issue 37: a share no identity can multiply, previews off the event loop, workers replaced.

H1 of the fault campaign: a script that sends a fresh ``derive_client`` cookie with each
request was a new student each time, and 20 connections of a slow claim left every other
student waiting 49 s or refused. Here the same script runs against a real server (uvicorn on
a loopback port, two workers) for 20 s while a student with the page's cookie checks
a right answer; the student's median must stay under a second. The same for a flood of
previews (``/api/read``), which ran in the event loop.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from conftest import live_server
from starlette.testclient import TestClient

from derive.web.app import CLIENT_COOKIE, LOOPBACK_HOSTS, create_app
from derive.web.book import build_workbook, load_source
from derive.web.grading import Grader
from derive.web.identity import Identities
from derive.web.pool import PoolSettings, ServerBusyError, WorkerPool

H1 = "(B^{{1/99}}+D^{{1/97}}+F^{{1/89}}+{k})^{{20}}"  # issue 37's slow claim, on q3a intensity
RIGHT = r"\frac{2BDF}{BD+DF+BF}"
SECONDS = 20.0  # issue 37: 20 connections of the slow claim for 20 s


# ---- identities --------------------------------------------------------------------------------


def test_a_cookie_the_server_did_not_sign_counts_for_nothing():
    ids = Identities(per_minute=5, secret=b"k" * 32)
    token = ids.issue("10.0.0.1", now=0.0)
    assert token is not None and ids.verify(token)
    assert not ids.verify(token[:-1] + ("A" if token[-1] != "A" else "B"))
    assert not ids.verify(secrets.token_urlsafe(32))  # a made-up cookie of the right shape
    assert not Identities(secret=b"other" * 8).verify(token)  # another server's (a restart)


def test_an_address_gets_a_few_new_identities_a_minute():
    ids = Identities(per_minute=3, secret=b"k" * 32)
    issued = [ids.issue("10.0.0.1", now=t) for t in (0.0, 1.0, 2.0, 3.0)]
    assert [t is not None for t in issued] == [True, True, True, False]
    assert ids.issue("10.0.0.2", now=3.0) is not None  # another address has its own share
    assert ids.issue("10.0.0.1", now=60.5) is not None  # a minute later, one more


# ---- the pool's shares -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def pset():
    return load_source(None)[1]


def test_many_identities_on_one_address_share_that_address(pset):
    """Ten invented clients on one address, one student elsewhere: the student is next."""
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0, max_wait=600))
    order: list[str] = []

    async def scenario():
        async def one(answer: str, client: tuple[str, str]) -> None:
            await pool.run("check", "q1", "intensity", answer, client=client)
            order.append(client[0])

        jobs = [one(f"{k}*B", ("10.0.0.9", f"id{k}")) for k in range(10)]
        jobs.append(one(RIGHT, ("10.0.0.7", "student")))
        await asyncio.gather(*jobs)

    try:
        asyncio.run(scenario())
    finally:
        pool.close()
    assert "10.0.0.7" in order[:2]  # behind at most the job already running


def test_of_two_new_addresses_the_one_that_had_a_check_is_heavier_whenever_each_came(
    pset, monkeypatch
):
    """The order must not depend on when an address was first seen: here the student's
    address arrives 10 s (of the pool's clock) after the other's first check started, as on a
    machine that stalls the server. A new address's prior, booked when it was first seen and
    decaying from then, made the later one look heavier, and the ten came first (a flake)."""
    check = Grader.check

    def slow_first(self, problem, quantity, answer):  # in the worker: the first check runs on
        if answer == "0*B":
            time.sleep(1.0)
        return check(self, problem, quantity, answer)

    monkeypatch.setattr(Grader, "check", slow_first)  # before the workers fork
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0, max_wait=600))
    now = [1000.0]

    def clock() -> float:  # a millisecond each reading, and the jumps the test makes
        now[0] += 1e-3
        return now[0]

    pool.clock = clock
    order: list[str] = []

    async def one(answer: str, client: tuple[str, str]) -> None:
        await pool.run("check", "q1", "intensity", answer, client=client)
        order.append(client[0])

    async def scenario():
        first = asyncio.ensure_future(one("0*B", ("10.0.0.9", "id0")))
        await asyncio.sleep(0)  # dispatched: it runs for a second
        now[0] += 10.0
        jobs = [one(f"{k}*B", ("10.0.0.9", f"id{k}")) for k in range(1, 10)]
        await asyncio.gather(first, *jobs, one(RIGHT, ("10.0.0.7", "student")))

    try:
        asyncio.run(scenario())
    finally:
        pool.close()
    assert order[:2] == ["10.0.0.9", "10.0.0.7"], order  # right after the job that was running


def test_alike_students_behind_one_address_take_turns(pset, monkeypatch):
    """Within an address, use counts in half time limits: a student whose last check took a
    few milliseconds is not passed over by every student who has not checked yet (the
    lightest first by a millisecond starved a class's unlucky students for seconds: the
    30-client benchmark's tail), while a check stopped at the limit still weighs."""
    check = Grader.check

    def slow_first(self, problem, quantity, answer):  # the worker is busy for a second
        if answer == "0*B":
            time.sleep(1.0)
        return check(self, problem, quantity, answer)

    monkeypatch.setattr(Grader, "check", slow_first)  # before the workers fork
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0, max_wait=600))
    order: list[str] = []

    async def one(answer: str, who: str) -> None:
        await pool.run("check", "q1", "intensity", answer, client=("10.0.0.5", who))
        order.append(who)

    async def scenario():
        await pool.run("check", "q1", "intensity", RIGHT, client=("10.0.0.5", "checked"))
        busy = asyncio.ensure_future(one("0*B", "busy"))
        await asyncio.sleep(0)  # it holds the only worker for a second
        jobs = [one("1*B", "checked"), *(one(f"{k}*B", f"new{k}") for k in range(2, 6))]
        await asyncio.gather(busy, *jobs)

    try:
        asyncio.run(scenario())
    finally:
        pool.close()
    assert order[:2] == ["busy", "checked"], order  # in turn: it asked first


def test_an_address_has_a_cap_on_its_checks(pset):
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0, max_wait=600, address_queue=3))

    async def scenario():
        jobs = [
            asyncio.ensure_future(
                pool.run("check", "q1", "intensity", f"{k}*B", client=("10.0.0.9", f"id{k}"))
            )
            for k in range(3)
        ]
        await asyncio.sleep(0)
        with pytest.raises(ServerBusyError) as refused:
            await pool.run("check", "q1", "intensity", "7*B", client=("10.0.0.9", "id9"))
        other = await pool.run("check", "q1", "intensity", RIGHT, client=("10.0.0.8", ""))
        await asyncio.gather(*jobs)
        return refused.value, other

    try:
        refused, other = asyncio.run(scenario())
    finally:
        pool.close()
    assert "network address" in refused.why and "--address-checks" in refused.why
    assert other.verdict == "correct"


def test_a_timed_out_check_weighs_more_than_a_quick_one(pset):
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=1e-6, slow_weight=4.0))

    async def scenario():
        with pytest.raises(Exception, match="longer than"):
            await pool.run("check", "q1", "intensity", "3*B", client=("a", "slow"))

    try:
        asyncio.run(scenario())
        now = time.monotonic()
        used = pool._used(("client", ("a", "slow")), now)
    finally:
        pool.close()
    assert used >= 4 * 1e-6 * 0.99
    # the address also carries the prior a new address starts with: one check stopped at the limit
    assert pool._used(("address", "a"), now) == pytest.approx(used + 4 * 1e-6, rel=1e-3)


def test_one_clients_queue_does_not_refuse_another_client(pset):
    """The wait is the new job's place in the rotation, not the whole queue: a client with a
    backlog is refused on its own wait while another client, next in turn, is admitted
    (a flood of made-up cookies, all one client, refused the first student check in CI)."""
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0, max_wait=60.0))

    async def scenario():
        flood = [
            asyncio.ensure_future(
                pool.run("check", "q1", "intensity", f"{k}*B", client=("10.0.0.9", ""))
            )
            for k in range(4)
        ]
        await asyncio.sleep(0)  # one running, three waiting: 3 x 30 s for the flood's next
        with pytest.raises(ServerBusyError, match="too many checks waiting"):
            await pool.run("check", "q1", "intensity", "9*B", client=("10.0.0.9", ""))
        student = await pool.run("check", "q1", "intensity", RIGHT, client=("10.0.0.7", "s"))
        await asyncio.gather(*flood)
        return student

    try:
        student = asyncio.run(scenario())
    finally:
        pool.close()
    assert student.verdict == "correct"


def test_the_wait_estimate_starts_from_the_time_limit(pset):
    pool = WorkerPool(pset, PoolSettings(workers=2, timeout=5.0))
    try:
        assert pool._service == 5.0
    finally:
        pool.close()


# ---- H1 and the preview flood against a real server ------------------------------------------


class _Raw:
    """One keep-alive HTTP/1.1 connection with its own cookie (a script, not a browser)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.cookie = ""

    async def request(self, method: str, path: str, body: object = None) -> int:
        if self.streams is None:
            self.streams = await asyncio.open_connection("127.0.0.1", self.port)
        reader, writer = self.streams
        payload = b"" if body is None else json.dumps(body).encode()
        cookie = f"Cookie: {CLIENT_COOKIE}={self.cookie}\r\n" if self.cookie else ""
        writer.write(
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"{cookie}Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            if name.lower() == "set-cookie":
                self.cookie = value.strip().split(";")[0].partition("=")[2]
        await reader.readexactly(length)
        return status

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()


@pytest.fixture
def live(pset):
    """A server of its own per test: the minting flood uses up the address's new cookies."""
    book = build_workbook(pset)
    pool = WorkerPool(pset, PoolSettings(workers=2, timeout=5.0))
    with live_server(create_app(book, pool, LOOPBACK_HOSTS)) as port:
        yield port
    pool.close()


def _flooded(port: int, flood, connections: int) -> tuple[list[float], list[int]]:
    """The student's check times while ``connections`` run ``flood(conn, n, deadline)``."""

    async def scenario():
        student = _Raw(port)
        assert await student.request("GET", "/") == 200 and student.cookie
        deadline = time.perf_counter() + SECONDS
        times: list[float] = []
        statuses: list[int] = []

        async def probe() -> None:
            await asyncio.sleep(1.0)  # the flood is under way
            k = 0
            while time.perf_counter() < deadline:
                k += 1  # a new answer each time: none is answered from the server's memory
                body = {"problem": "q3a", "quantity": "intensity", "answer": f"{RIGHT} + 0*{k}"}
                started = time.perf_counter()
                statuses.append(await student.request("POST", "/api/check", body))
                times.append(time.perf_counter() - started)
                await asyncio.sleep(0.2)

        conns = [_Raw(port) for _ in range(connections)]
        await asyncio.gather(probe(), *(flood(c, n, deadline) for n, c in enumerate(conns)))
        for c in [student, *conns]:
            c.close()
        return times, statuses

    return asyncio.run(scenario())


async def _rotating_h1(conn: _Raw, n: int, deadline: float) -> None:
    k = 0
    while time.perf_counter() < deadline:
        k += 1
        conn.cookie = secrets.token_urlsafe(16)  # a new "student" with every request
        body = {"problem": "q3a", "quantity": "intensity", "answer": H1.format(k=1000 * n + k)}
        await conn.request("POST", "/api/check", body)


async def _minting_h1(conn: _Raw, n: int, deadline: float) -> None:
    k = 0
    while time.perf_counter() < deadline:
        k += 1
        conn.cookie = ""
        await conn.request("GET", "/")  # a cookie the server signed, while the address may
        body = {"problem": "q3a", "quantity": "intensity", "answer": H1.format(k=1000 * n + k)}
        await conn.request("POST", "/api/check", body)


async def _previews(conn: _Raw, n: int, deadline: float) -> None:
    k = 0
    while time.perf_counter() < deadline:
        k += 1
        conn.cookie = secrets.token_urlsafe(16)
        answer = H1.format(k=1000 * n + k)
        await conn.request("POST", "/api/read", {"problem": "q3a", "answer": answer})


@pytest.mark.parametrize("flood", [_rotating_h1, _minting_h1], ids=["made-up", "minted"])
def test_h1_rotating_cookies_leave_another_student_under_a_second(live, flood):
    times, statuses = _flooded(live, flood, connections=20)
    assert statuses and set(statuses) == {200}, statuses
    assert statuses and statistics.median(times) < 1.0, times


def test_a_preview_flood_leaves_another_student_under_a_second(live):
    times, statuses = _flooded(live, _previews, connections=50)
    assert statuses and set(statuses) == {200}, statuses
    assert statistics.median(times) < 1.0, times


def test_a_preview_reads_in_a_worker_not_the_server(pset, monkeypatch):
    """The server's own grader is never asked to read (a flood would stall the event loop)."""
    book = build_workbook(pset)
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0))

    def refuse(*args, **kwargs):
        raise AssertionError("read in the event loop")

    monkeypatch.setattr(pool.grader, "read", refuse)  # the forked worker keeps its own
    try:
        with TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1") as c:
            r = c.post("/api/read", json={"problem": "q1", "answer": "2B"})
        assert r.status_code == 200 and r.json()["ok"] is True
    finally:
        pool.close()


def test_a_step_number_is_ascii_digits(pset):
    book = build_workbook(pset)
    pool = WorkerPool(pset, PoolSettings(workers=1, timeout=30.0))
    try:
        with TestClient(create_app(book, pool, LOOPBACK_HOSTS), base_url="http://127.0.0.1") as c:
            assert c.get("/api/problems/q1/steps/1").status_code == 200
            r = c.get("/api/problems/q1/steps/%D9%A1")  # ARABIC-INDIC DIGIT ONE
        assert r.status_code == 404 and "no such step" in r.json()["error"]
    finally:
        pool.close()
