"""Checks run in worker processes, each with a hard time limit.

A check is short (a few ms), but sympy on an adversarial expression could run for
long, and a thread cannot be stopped. So each check goes to one of a fixed number of
worker processes over a pipe; if no answer comes within the time limit, that worker is
killed and a fresh one started (from a fork server that has already imported sympy and
derive, so a restart costs tens of ms), and the request gets a one-line error. Requests
wait for a free worker in order; past a bounded queue the server says it is busy.

Workers keep no state but a cache of analysed problems: a restart loses nothing (the
problem is analysed again; what a restart, a round trip and a check cost is in
benchmarks/README.md). As with any forkserver program, the main module must be import-safe
(``if __name__ == "__main__":``), which ``derive`` and ``python -m derive`` are.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import traceback
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import anyio
import anyio.to_thread

from derive.errors import DeriveError
from derive.web.book import SetSource

__all__ = ["CheckAbortedError", "PoolSettings", "ServerBusyError", "WorkerPool", "serve_jobs"]

_METHODS = ("read", "check", "check_derivation")
_START_TIMEOUT = 120.0


class CheckAbortedError(DeriveError, RuntimeError):
    """A check ran past the time limit, or its worker died; the worker was replaced."""

    def __reduce__(self):
        return (type(self), (self.what, self.why))


class ServerBusyError(DeriveError, RuntimeError):
    """Too many checks are waiting for a worker."""

    def __reduce__(self):
        return (type(self), (self.what, self.why))


@dataclass(frozen=True)
class PoolSettings:
    """How many workers, how long a check may run, how many requests may wait."""

    workers: int = 2
    timeout: float = 5.0
    queue: int = 256


def serve_jobs(conn: Connection, source: SetSource, hide_expected: bool) -> None:
    """A worker's loop: read the set, say ready, then answer ``(method, args)`` jobs forever."""
    from derive.web.book import parse_source, registry_of
    from derive.web.grading import Grader, reason_of

    try:
        pset = parse_source(source)
        registry_of(pset)  # the set's operator files load (or refuse) before the worker is ready
        grader = Grader(
            {entry.id: entry for entry in pset.entries()},
            pset.operators,
            hide_expected=hide_expected,
        )
    except DeriveError as exc:
        conn.send(("error", reason_of(exc)))
        return
    conn.send(("ready", None))
    while True:
        try:
            method, args = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            if method not in _METHODS:
                raise ValueError(f"unknown method {method!r}")
            conn.send(("ok", getattr(grader, method)(*args)))
        except DeriveError as exc:
            conn.send(("error", reason_of(exc)))
        except Exception as exc:  # a bug in derive: logged here, one line to the client
            traceback.print_exc(file=sys.stderr)
            conn.send(("bug", f"internal error while checking ({type(exc).__name__})"))


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, mp: Any, source: SetSource, hide_expected: bool) -> None:
        self._mp = mp
        self._args = (source, hide_expected)
        self._start()

    def _start(self) -> None:
        parent, child = self._mp.Pipe()
        self.process = self._mp.Process(
            target=serve_jobs, args=(child, *self._args), daemon=True, name="derive-check"
        )
        self.process.start()
        child.close()
        self.conn = parent
        self.ready = False

    def wait_ready(self) -> None:
        """Block until the worker has read the set.

        Raises:
            CheckAbortedError: it failed to start, or did not start in time.
        """
        if self.ready:
            return
        if not self.conn.poll(_START_TIMEOUT):
            self.kill()
            raise CheckAbortedError("worker", f"did not start within {_START_TIMEOUT:.0f} s")
        try:
            kind, payload = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise CheckAbortedError(
                "worker", "exited while starting (is the main module import-safe?)"
            ) from None
        if kind != "ready":
            raise CheckAbortedError("worker", str(payload))
        self.ready = True

    def call(self, job: tuple, timeout: float) -> tuple[str, Any]:
        """Send one job and wait at most ``timeout`` seconds for its answer."""
        try:
            self.wait_ready()
            self.conn.send(job)
            if self.conn.poll(timeout):
                return self.conn.recv()
        except (EOFError, OSError):
            self.restart()
            return ("failed", "the check stopped unexpectedly; please try again")
        self.restart()
        return ("failed", f"the check took longer than {timeout:g} s and was stopped")

    def kill(self) -> None:
        """Stop the process (SIGKILL: a runaway sympy call does not listen to anything else)."""
        self.process.kill()
        self.process.join(5)
        self.conn.close()

    def restart(self) -> None:
        """Replace the process with a fresh one."""
        self.kill()
        self._start()


class WorkerPool:
    """A fixed set of worker processes and a bounded queue in front of them."""

    def __init__(
        self, source: SetSource, settings: PoolSettings, hide_expected: bool = False
    ) -> None:
        self.settings = settings
        mp = multiprocessing.get_context("forkserver")
        mp.set_forkserver_preload(["derive.web.grading"])
        self._workers = [_Worker(mp, source, hide_expected) for _ in range(settings.workers)]
        self._idle: deque[_Worker] = deque(self._workers)
        self._lock = threading.Lock()
        self._waiting = 0
        self._slots: anyio.CapacityLimiter | None = None
        self._threads: anyio.CapacityLimiter | None = None

    def wait_ready(self) -> None:
        """Block until every worker has read the set (errors in the set show here, at start)."""
        for worker in self._workers:
            worker.wait_ready()

    async def run(self, method: str, *args: object) -> Any:
        """Run ``Grader.<method>(*args)`` in a worker; its record, or a DeriveError re-raised.

        Raises:
            ServerBusyError: the queue is full.
            CheckAbortedError: the time limit passed, or the worker died.
            DeriveError: the checker refused the input (the worker's one line).
        """
        if self._slots is None:
            self._slots = anyio.CapacityLimiter(self.settings.workers)
            self._threads = anyio.CapacityLimiter(self.settings.workers)
        if self._waiting >= self.settings.queue:
            raise ServerBusyError("server", "too many checks waiting; try again in a moment")
        self._waiting += 1
        try:
            async with self._slots:
                with self._lock:
                    worker = self._idle.popleft()
                try:
                    kind, payload = await anyio.to_thread.run_sync(
                        worker.call, (method, args), self.settings.timeout, limiter=self._threads
                    )
                finally:
                    with self._lock:
                        self._idle.append(worker)
        finally:
            self._waiting -= 1
        if kind == "ok":
            return payload
        if kind == "error":
            raise _RefusedError(payload)
        raise CheckAbortedError("check", payload)

    def close(self) -> None:
        """Stop every worker."""
        for worker in self._workers:
            worker.kill()


class _RefusedError(DeriveError, ValueError):
    """The checker's own refusal, carried back as its one line."""

    def __init__(self, line: str) -> None:
        what, _, why = line.partition(": ")
        super().__init__(what, why)
