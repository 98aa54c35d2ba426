"""The HTTP protocol ``derive serve`` runs: uvicorn's h11 protocol with a header timeout.

uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) but waits forever
for the headers of a request that trickles in a byte at a time (slowloris: issue 27's
600 slow connections stayed open). :class:`TimedH11Protocol` closes a connection whose
next request's headers are not complete :data:`HEADER_SECONDS` after the connection
opened or the previous response ended. The body's own limit is the app's
(:data:`derive.web.app.BODY_SECONDS`, answered 408).
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_SECONDS = 10.0
"""Seconds a request's headers may take to arrive."""


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing connections whose request headers arrive too slowly."""

    header_seconds = HEADER_SECONDS
    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        """One timer a connection: the last response's replaces the one before (which held its
        request's cycle, so a busy server kept thousands alive for the collector to walk)."""
        if self._timer is not None:
            self._timer.cancel()
        waiting_for = self.cycle  # a new request replaces the cycle; the same one means none came
        self._timer = self.loop.call_later(self.header_seconds, self._too_slow, waiting_for)

    def _too_slow(self, waiting_for: object) -> None:
        if self.cycle is waiting_for and not self.transport.is_closing():
            self.transport.close()
