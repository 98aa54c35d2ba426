"""The workbook's HTTP server: the JSON API (a contract) and the page that uses only it.

API (issue 17)::

    GET  /api/problems                  the set: title, problems, what each asks
    GET  /api/problems/{id}             question, givens, asked quantities, number of steps
    GET  /api/problems/{id}/steps/{k}   step k (1-based) of the worked solution; 403 if hints are off
    POST /api/check                     {"problem", "quantity", "answer"} → {"verdict", "read_as",
                                        "diagnosis", "expected"} (no "expected" when hidden)
    POST /api/check-derivation          {"problem", "lines"} → verdict, steps, first_wrong_line
    POST /api/read                      {"problem", "answer"[, "quantity"]} → how the answer reads (live preview)

Errors are ``{"error": "<one line>"}`` with a 4xx status (5xx only for a bug or a busy
server), never a stack trace. Checks go to :class:`~derive.web.pool.WorkerPool`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from derive.errors import DeriveError, UnknownNameError
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
from derive.web.pool import CheckAbortedError, ServerBusyError, WorkerPool

__all__ = ["LOOPBACK_HOSTS", "create_app"]

STATIC = Path(__file__).parent / "static"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
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
        if self.allowed_hosts is not None and _host(scope) not in self.allowed_hosts:
            refusal = _error(
                400,
                f"Host header: not one this server answers to ({', '.join(self.allowed_hosts)})",
            )
            await refusal(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + _SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _host(scope: Scope) -> str:
    """The ``Host`` header's name, without the port."""
    raw = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
    return raw[: raw.index("]") + 1] if raw.startswith("[") and "]" in raw else raw.split(":")[0]


def create_app(
    book: Workbook, pool: WorkerPool, allowed_hosts: tuple[str, ...] | None = None
) -> Starlette:
    """The ASGI app for a prepared workbook and its checking pool.

    Args:
        book: the set, prepared (problems, givens, steps).
        pool: where checks run.
        allowed_hosts: ``Host`` headers accepted (None: any). Bound to loopback, the
            server accepts only loopback names, so a web page elsewhere cannot reach it
            through DNS rebinding.
    """

    async def body_of(request: Request, schema: tuple[Field, ...]) -> dict:
        raw = await read_limited(request.stream(), request.headers.get("content-length"))
        return validate(parse_body(raw), schema)

    async def problems(request: Request) -> Response:
        return _ok(book.index())

    async def problem(request: Request) -> Response:
        return _ok(book.page(request.path_params["problem"]).detail)

    async def step(request: Request) -> Response:
        page = book.page(request.path_params["problem"])
        if not book.hints:
            return _error(403, "hints and solutions are turned off for this workbook")
        k = request.path_params["k"]
        count = len(page.steps_html)
        if not (k.isdigit() and len(k) < 6 and 1 <= int(k) <= count):
            return _error(404, f"step {k[:20]!r}: no such step; steps are 1 to {count}")
        i = int(k) - 1
        return _ok(
            {
                "problem": page.entry.id,
                "k": i + 1,
                "steps": count,
                "title": page.step_titles[i],
                "markdown": page.steps_markdown[i] if i < len(page.steps_markdown) else "",
                "html": page.steps_html[i],
            }
        )

    async def check(request: Request) -> Response:
        body = await body_of(request, CHECK_SCHEMA)
        page = book.page(body["problem"])
        result = await pool.run("check", page.entry.id, body["quantity"], body["answer"])
        out = {
            "verdict": result.verdict,
            "read_as": result.read_as,
            "read_as_latex": result.read_as_latex,
            "diagnosis": list(result.diagnosis),
        }
        if book.show_expected:
            out["expected"] = result.expected
            out["expected_latex"] = result.expected_latex
        return _ok(out)

    async def read(request: Request) -> Response:
        body = await body_of(request, READ_SCHEMA)
        page = book.page(body["problem"])
        reading = await pool.run("read", page.entry.id, body["answer"], body.get("quantity"))
        return _ok(dataclasses.asdict(reading))

    async def check_derivation(request: Request) -> Response:
        body = await body_of(request, DERIVATION_SCHEMA)
        page = book.page(body["problem"])
        result = await pool.run("check_derivation", page.entry.id, tuple(body["lines"]))
        out = dataclasses.asdict(result)
        if not book.show_expected:
            del out["expected"]
        return _ok(out)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "workbook.html", headers={"cache-control": "no-cache"})

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, DeriveError)
        if isinstance(exc, BadRequestError):
            return _error(exc.status, reason_of(exc))
        if isinstance(exc, ServerBusyError):
            return _error(503, reason_of(exc))
        if isinstance(exc, CheckAbortedError):
            return _error(422, reason_of(exc))
        if isinstance(exc, UnknownNameError):  # only Workbook.page raises it here
            return _error(404, reason_of(exc))
        return _error(422, reason_of(exc))

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
