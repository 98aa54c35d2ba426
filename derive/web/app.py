"""The workbook's HTTP server: the JSON API (a contract) and the page that uses only it.

API (issue 17)::

    GET  /api/problems                  the set: title, problems, what each asks
    GET  /api/problems/{id}             question, givens, asked quantities, number of steps
    GET  /api/problems/{id}/steps/{k}   step k (1-based) of the worked solution; 403 if hints are off;
                                        under --hide-expected a step that states an answer this
                                        client has not got right is withheld ("withheld": labels)
    POST /api/check                     {"problem", "quantity", "answer"} → {"verdict", "read_as",
                                        "diagnosis", "expected"} (no "expected" when hidden)
    POST /api/check-derivation          {"problem", "lines"} → verdict, steps, first_wrong_line
    POST /api/read                      {"problem", "answer"[, "quantity"]} → how the answer reads (live preview)

Errors are ``{"error": "<one line>"}`` with a 4xx status (5xx only for a bug), never a
stack trace; 429 with ``Retry-After`` when this client or the server has too many checks
waiting, sent after :data:`REFUSAL_SECONDS` (a flood's refusals are paced). Checks and previews (``/api/read``) go to :class:`~derive.web.pool.WorkerPool`,
fairly per client and per address (:func:`client_key`: the address, an IPv6 one's /64, and
the ``derive_client`` cookie the server signed, :mod:`derive.web.identity`), so neither runs
in the event loop; previews are limited per address (429) before their body is read. The
address is the peer's: ``X-Forwarded-For`` counts only from the proxy that ``derive serve
--behind-proxy`` names (:mod:`derive.commands.serve`).

Hardening (issue 27): a state-changing request (POST) must be ``application/json`` (415
otherwise) and, when it carries ``Origin`` or ``Sec-Fetch-Site``, come from this very
origin (403 otherwise), so a page on another site cannot make a student's browser check
claims; ``Host`` names are compared without case; a body must arrive within
:data:`BODY_SECONDS` (408; the header timeout is the server's, see
:mod:`derive.commands.serve`); a check whose client has gone is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import OrderedDict
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from derive.errors import DeriveError, UnknownNameError
from derive.problem.sets.variants import variant_of_student
from derive.web.bodies import (
    CHECK_SCHEMA,
    DERIVATION_SCHEMA,
    READ_SCHEMA,
    BadRequestError,
    Field,
    parse_body,
    read_limited,
    validate,
)
from derive.web.book import Workbook
from derive.web.grading import reason_of
from derive.web.identity import Identities, Rate, network_of
from derive.web.pool import ServerBusyError, WorkerPool
from derive.web.replies import check_reply, derivation_reply, read_reply, step_reply

STATIC = Path(__file__).parent / "static"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
SOLVED_CLIENTS = 100_000  # students whose right answers (--hide-expected) are remembered
BODY_SECONDS = 10.0
"""Seconds a request body may take to arrive (a slow sender holds a connection, not a worker)."""
CLIENT_COOKIE = "derive_client"
STUDENT_COOKIE = "derive_student"
"""The student id typed on the page (``/?student=ID``), which picks a set's variant."""
_STUDENT = re.compile(r"^[A-Za-z0-9_.@+-]{1,64}$")
REFUSAL_SECONDS = 1.0
"""Seconds a 429 waits before it is sent (``Retry-After`` is at least this)."""
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; "
        b"img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def _error(status: int, line: str) -> JSONResponse:
    one = " ".join(line.split())[:500]
    return JSONResponse({"error": one}, status_code=status, headers={"cache-control": "no-store"})


def _ok(data: dict) -> JSONResponse:
    return JSONResponse(data, headers={"cache-control": "no-store"})


class _Guard:
    """Pure ASGI middleware: safe headers on every response; only allowed ``Host`` names."""

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...] | None = None) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> Response | None:
        """Why a request is refused before it reaches a route (None: it is not)."""
        headers = {k.lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get(b"host", "")
        if self.allowed_hosts is not None and _host_name(host) not in self.allowed_hosts:
            allowed = ", ".join(self.allowed_hosts)
            return _error(400, f"Host header: not one this server answers to ({allowed})")
        if scope["method"] not in ("POST", "PUT", "PATCH", "DELETE"):
            return None
        origin = headers.get(b"origin")
        if origin is not None and not _same_origin(origin, host, scope.get("scheme", "http")):
            return _error(403, f"Origin {origin[:80]!r}: requests from other sites are refused")
        if headers.get(b"sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return _error(403, "Sec-Fetch-Site: requests from other sites are refused")
        media = headers.get(b"content-type", "").split(";")[0].strip().lower()
        if scope["method"] == "POST" and media != "application/json":
            return _error(415, "Content-Type: must be application/json")
        return None


def _host_name(raw: str) -> str:
    """The ``Host`` header's name, without the port, in lower case (host names ignore case)."""
    raw = raw.strip().lower()
    return raw[: raw.index("]") + 1] if raw.startswith("[") and "]" in raw else raw.split(":")[0]


def _same_origin(origin: str, host: str, scheme: str) -> bool:
    """True when ``Origin`` (``http://127.0.0.1:8000``) is the scheme, host and port asked."""
    try:
        named, asked = urlsplit(origin.strip()), urlsplit("//" + host.strip())
        ports = named.port, asked.port
    except ValueError:
        return False
    defaults = {"http": 80, "https": 443}
    if named.scheme not in defaults or not named.hostname:
        return False
    mine = (named.scheme, named.hostname.lower(), ports[0] or defaults[named.scheme])
    return mine == (scheme, (asked.hostname or "").lower(), ports[1] or defaults.get(scheme, 80))


def client_key(request: Request, identities: Identities | None = None) -> tuple[str, str]:
    """Who is asking, for fairness: the peer's address and the workbook's cookie (if signed).

    The server issues the cookie (:class:`~derive.web.identity.Identities`), so students
    behind one address (a classroom's network) are told apart, and a cookie the client made
    up counts for nothing: such a client (or one without a cookie) is its address.
    """
    address = network_of(request.client.host) if request.client else "?"
    token = request.cookies.get(CLIENT_COOKIE, "")
    signed = identities is not None and _TOKEN.match(token) and identities.verify(token)
    return address, token if signed else ""


async def _unless_gone(request: Request, work: Awaitable[Any]) -> Any:
    """Await ``work``, cancelling it if the client disconnects first (its check is abandoned)."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        done, _ = await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if task in done:
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, DeriveError):
        await task
    raise _ClientGoneError("request", "the client closed the connection")


async def _disconnected(request: Request) -> None:
    """Return when the ASGI server reports that the client has gone (the body is read already)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


class _ClientGoneError(DeriveError, ConnectionError):
    """The client went away while its check waited or ran."""


def create_app(
    book: Workbook | Sequence[Workbook],
    pool: WorkerPool,
    allowed_hosts: tuple[str, ...] | None = None,
    identities: Identities | None = None,
    previews_per_second: int = 30,
    seed: int = 0,
) -> Starlette:
    """The ASGI app for a prepared workbook and its checking pool.

    Args:
        book: the set, prepared (problems, givens, steps); or one workbook per variant of a
            set with ``variants``: a student's variant is :func:`variant_of_student` of
            ``seed`` and the id typed on the page (``/?student=ID``, kept as a cookie), else
            of the cookie the server signed, else of the address.
        pool: where checks run.
        allowed_hosts: ``Host`` headers accepted (None: any). Bound to loopback, the
            server accepts only loopback names, so a web page elsewhere cannot reach it
            through DNS rebinding.
        identities: who issues and verifies client cookies (default: 60 new ones per
            address per minute, under a secret drawn now).
        previews_per_second: previews (``/api/read``) one address may ask a second.
    """
    ids = identities if identities is not None else Identities()
    books = [book] if isinstance(book, Workbook) else list(book)
    solved: OrderedDict[tuple[str, str], set[str]] = OrderedDict()  # who: values right
    previews = Rate(previews_per_second, 1.0)
    page = (STATIC / "workbook.html").read_bytes()

    async def body_of(request: Request, schema: tuple[Field, ...]) -> dict:
        try:
            raw = await asyncio.wait_for(
                read_limited(request.stream(), request.headers.get("content-length")),
                BODY_SECONDS,
            )
        except asyncio.TimeoutError:
            raise BadRequestError(
                408, "request body", f"did not arrive within {BODY_SECONDS:g} s"
            ) from None
        return validate(parse_body(raw), schema)

    def student(request: Request) -> tuple[int, Workbook, str]:
        """The request's variant, its workbook and the student id typed (or "")."""
        typed = request.cookies.get(STUDENT_COOKIE, "")
        typed = typed if _STUDENT.match(typed) else ""
        address, token = client_key(request, ids)
        who = typed or token or address
        v = variant_of_student(seed, who, len(books)) if len(books) > 1 else 0
        return v, books[v], typed

    async def judged(request: Request, method: str, *args: object) -> Any:
        client, v = client_key(request, ids), student(request)[0]
        return await _unless_gone(request, pool.run(method, *args, client=client, variant=v))

    async def problems(request: Request) -> Response:
        v, book, typed = student(request)
        mine = {"variant": v, "variants": len(books), "student": typed} if len(books) > 1 else {}
        return _ok({**book.index(), **mine})

    async def problem(request: Request) -> Response:
        return _ok(student(request)[1].page(request.path_params["problem"]).detail)

    async def step(request: Request) -> Response:
        book = student(request)[1]
        page = book.page(request.path_params["problem"])
        if not book.hints:
            return _error(403, "hints and solutions are turned off for this workbook")
        k = request.path_params["k"]
        count = len(page.steps_html)
        if not (k.isascii() and k.isdigit() and len(k) < 6 and 1 <= int(k) <= count):
            return _error(404, f"step {k[:20]!r}: no such step; steps are 1 to {count}")
        known = solved.get(client_key(request, ids), set())
        return _ok(step_reply(page, int(k) - 1, book.closed(page, int(k) - 1, known)))

    async def check(request: Request) -> Response:
        body = await body_of(request, CHECK_SCHEMA)
        book = student(request)[1]
        page = book.page(body["problem"])
        result = await judged(request, "check", page.entry.id, body["quantity"], body["answer"])
        values = book.solves(page.entry.id, body["quantity"])
        if values and result.verdict.startswith("correct"):  # its steps open for this student
            who = client_key(request, ids)
            solved.setdefault(who, set()).update(values)
            solved.move_to_end(who)
            while len(solved) > SOLVED_CLIENTS:
                solved.popitem(last=False)
        return _ok(check_reply(result, book.show_expected))

    async def read(request: Request) -> Response:
        if not previews.allow(client_key(request)[0]):  # before the body is read or parsed
            raise ServerBusyError("server", "too many previews from your network address", 1)
        body = await body_of(request, READ_SCHEMA)
        page = student(request)[1].page(body["problem"])
        reading = await judged(request, "read", page.entry.id, body["answer"], body.get("quantity"))
        return _ok(read_reply(reading))

    async def check_derivation(request: Request) -> Response:
        body = await body_of(request, DERIVATION_SCHEMA)
        page = student(request)[1].page(body["problem"])
        result = await judged(request, "check_derivation", page.entry.id, tuple(body["lines"]))
        return _ok(derivation_reply(result, books[0].show_expected))

    async def index(request: Request) -> Response:
        # from memory: a flood of page loads (harvesting cookies) costs no file read or thread
        response = Response(page, media_type="text/html", headers={"cache-control": "no-cache"})
        typed = request.query_params.get("student", "").strip()
        if _STUDENT.match(typed):  # the student's variant from now on (a set with variants)
            response.set_cookie(STUDENT_COOKIE, typed, httponly=True, samesite="strict")
        if client_key(request, ids)[1]:
            return response
        token = ids.issue(client_key(request)[0])
        if token is not None:  # past the address's minute share: the page, without a cookie
            response.set_cookie(CLIENT_COOKIE, token, httponly=True, samesite="strict")
        return response

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, DeriveError)
        if isinstance(exc, BadRequestError):
            return _error(exc.status, reason_of(exc))
        if isinstance(exc, ServerBusyError):
            # paced: a script that asks again at once waits as told, and refusals as fast as
            # a flood can ask would keep the event loop from everyone else's requests
            await asyncio.sleep(REFUSAL_SECONDS)
            busy = _error(429, reason_of(exc))
            busy.headers["retry-after"] = str(exc.retry_after)
            return busy
        if isinstance(exc, UnknownNameError):  # only Workbook.page raises it here
            return _error(404, reason_of(exc))
        return _error(422, reason_of(exc))  # the checker's refusal, or a check stopped

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, f"{request.method} {request.url.path[:80]}: {exc.detail}")

    async def bug(request: Request, exc: Exception) -> Response:
        return _error(500, "internal error (the server logged it)")

    routes = [
        Route("/", index),
        Route("/api/problems", problems),
        Route("/api/problems/{problem}", problem),
        Route("/api/problems/{problem}/steps/{k}", step),
        Route("/api/check", check, methods=["POST"]),
        Route("/api/read", read, methods=["POST"]),
        Route("/api/check-derivation", check_derivation, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(_Guard, allowed_hosts=allowed_hosts)]
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={DeriveError: refused, HTTPException: http_error, Exception: bug},
    )
