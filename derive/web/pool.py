"""Checks run in warm worker processes, fairly between clients, each under a hard time limit.

Judging ends (numeric-first, :mod:`derive.checking.sampling`), but sympy on an adversarial
claim may still run long and a thread cannot be stopped, so checks run in worker
processes that can be killed. What the design keeps small is the cost per request:

* **Warm, identical workers.** The server reads the set once (a trusted operators file runs
  once: :func:`~derive.declare.registry.pin_operator_files`), builds one
  :class:`~derive.web.grading.Grader` and analyses every problem; then it forks the
  workers, which start with those very declarations and caches. A worker killed at the
  time limit is forked again from the same server in milliseconds, never reading the set.
* **Cheap IPC, no threads.** Each worker has a socket pair; the event loop watches the
  server's end (``loop.add_reader``) and a timer per job enforces the time limit. A round
  trip is a pickle each way (~0.1 ms).
* **Fair between clients.** Jobs wait in one queue per client (:func:`client_key` in the
  app: the address and the workbook's cookie); a free worker takes the next job
  round-robin over clients, and a client has at most ``client_running`` jobs running, so
  a flood from one client leaves a worker to everyone else.
* **A share no identity can multiply (issues 37, 49).** A client is an address (an IPv6
  address's /64) and a cookie the server signed (:mod:`derive.web.identity`), and the
  address is a share of its own: the next job goes to the address with the fewest checks
  running, then the least recent use, then the client with the least recent use within it
  (counted in half time limits, so alike students take turns), so inventing cookies divides
  an address's share instead of multiplying it. Use is worker seconds, halved every
  :data:`HALF_LIFE` s; a check stopped at the time limit counts ``slow_weight`` times its
  limit against its client and its address, and an address with
  no check answered lately weighs as if its first check had been stopped so (its claims are
  unknown), so a fresh flooding address does not come before a student who has been checking.
  That weight is booked with the address's first check, not when it was first seen: of two
  new addresses, the one that has had a check is the heavier, whichever arrived first.
* **Long checks give way.** While every worker runs a check older than ``preempt_after``
  seconds and a check waits whose address used the workers half a time limit less than the
  address of one of them (counting that check's seconds so far), that one is stopped and put
  back at the head of its queue (its seconds counted): a flood of checks that run to the
  limit leaves other addresses waiting a fraction of a second, not the limit. Half a limit
  is the least margin that keeps two like addresses from stopping each other in turn (each
  run must outlast the other's by twice the margin, so the limit comes first).
* **Early refusal.** A client with ``client_queue`` jobs waiting or running, an address with
  ``address_queue``, a full queue, or an expected wait above ``max_wait`` seconds get
  :class:`ServerBusyError` at once (HTTP 429 with ``Retry-After``, sent paced) instead of
  making everyone wait. The expected wait is that of the new job's place in the order (its
  address's waiting jobs, and from each other address at most one more, none from one that
  comes after it), so one address's flood, whatever its cookies, does not refuse another
  address; a full queue refuses only addresses that already have a check waiting. Its
  service time starts from the time limit (a burst of unknown claims is not admitted
  wholesale) and learns from the checks that end.
* **A verdict is judged once.** Judging is deterministic (:mod:`derive.checking.sampling`
  seeds its points from the claim), and a class types the same few answers, so the server
  remembers the last ``cache`` verdicts by question and answers a repeat without a worker.
* **Abandoned checks stop.** A job whose request is cancelled (its client has gone) leaves
  the queue, or, when running, its worker is killed and forked again.

Where the time went before (issue 27, measured with benchmarks/load_workbook.py): every
keep-alive response waited ~40 ms for a delayed ACK (the listening socket lacked
``TCP_NODELAY``, see :mod:`derive.commands.serve`), and each check crossed a thread and a
forkserver worker; a warm check itself costs 1–20 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import os
import signal
import sys
import time
import traceback
from collections import OrderedDict, deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, Pipe
from typing import Any

from derive.errors import DeriveError
from derive.problem.sets.problem_set import ProblemSet
from derive.problem.sets.variants import variants_of
from derive.web.grading import Grader

_METHODS = ("read", "check", "check_derivation")
HALF_LIFE = 30.0
"""Seconds after which a client's (and an address's) use of the workers counts half."""


class CheckAbortedError(DeriveError, RuntimeError):
    """A check ran past the time limit, or its worker died; the worker was replaced."""

    def __reduce__(self):
        return (type(self), (self.what, self.why))


class ServerBusyError(DeriveError, RuntimeError):
    """Too many checks are waiting (for this client, or in all); try again after ``retry_after`` s."""

    def __init__(self, what: str, why: str, retry_after: int = 1) -> None:
        self.retry_after = retry_after
        super().__init__(what, why)

    def __reduce__(self):
        return (type(self), (self.what, self.why, self.retry_after))


@dataclass(frozen=True)
class PoolSettings:
    """Workers, the time limit of a check, and the limits of the queue (overall and per client)."""

    workers: int = 2
    timeout: float = 5.0
    queue: int = 256
    client_queue: int = 8
    client_running: int = 1
    max_wait: float = 10.0
    cache: int = 20_000
    address_queue: int = 64
    """Checks waiting or running for one address (a classroom behind one NAT shares it)."""
    slow_weight: float = 4.0
    """A check stopped at the time limit counts this many times its limit against its sender."""
    preempt_after: float = 0.1
    """Seconds a check runs before it may give way to a lighter address's (module docstring)."""


def address_of(client: Hashable) -> Hashable:
    """The address part of a client key ``(address, token)`` (a bare key is its own address)."""
    return client[0] if isinstance(client, tuple) and client else client


@dataclass
class _Use:
    """Worker seconds used, halved every :data:`HALF_LIFE` seconds (stored with its time)."""

    seconds: float = 0.0
    at: float = 0.0

    def now(self, t: float) -> float:
        return self.seconds * 0.5 ** ((t - self.at) / HALF_LIFE)

    def add(self, t: float, seconds: float) -> None:
        self.seconds, self.at = self.now(t) + seconds, t


def grader_of(pset: ProblemSet, hide_expected: bool = False) -> Grader:
    """The set's grader with every problem analysed (so workers forked from here start warm)."""
    grader = Grader.of(pset, hide_expected=hide_expected)  # the set was read trusted or refused
    for entry in pset.entries():  # a problem that cannot be read says so when it is checked
        with contextlib.suppress(DeriveError):
            grader.read(entry.id, "1")
    return grader


def _serve(conn: Connection, graders: list[Grader]) -> None:
    """A worker's loop: answer ``(method, args, variant)`` jobs with ``(kind, payload)`` until
    the pipe closes (``variant``: which of the set's variants the job judges against)."""
    while True:
        try:
            method, args, variant = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if method not in _METHODS:
                raise ValueError(f"unknown method {method!r}")
            conn.send(("ok", getattr(graders[variant], method)(*args)))
        except DeriveError as exc:
            from derive.web.grading import reason_of

            conn.send(("error", reason_of(exc)))
        except Exception as exc:  # a bug in derive: logged here, one line to the client
            traceback.print_exc(file=sys.stderr)
            conn.send(("bug", f"internal error while checking ({type(exc).__name__})"))


def _child(conn: Connection, graders: list[Grader]) -> None:  # pragma: no cover - runs in the child
    """The forked worker: keep only its pipe and the standard streams, then serve."""
    code = 0
    try:
        keep = conn.fileno()
        os.closerange(3, keep)  # the server's sockets and connections are not the worker's
        os.closerange(keep + 1, 1 << 16)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        gc.freeze()  # the worker's collections leave the server's pages alone
        _serve(conn, graders)
    except BaseException:
        code = 70
    finally:
        os._exit(code)


@dataclass(eq=False)
class _Job:
    method: str
    args: tuple
    client: Hashable
    future: asyncio.Future
    variant: int = 0
    worker: _Worker | None = None
    started: float = 0.0


@dataclass(eq=False)
class _Worker:
    """One forked worker: its process id, the server's end of its pipe, the job it runs."""

    graders: list[Grader]
    pid: int = 0
    conn: Connection | None = None
    job: _Job | None = None
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def start(self) -> None:
        parent, child = Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            parent.close()
            _child(child, self.graders)
        child.close()
        self.pid, self.conn = pid, parent

    def alive(self) -> bool:
        """Whether the process still runs (a worker can die while idle: the OOM killer, a signal)."""
        try:
            if self.pid and os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                return True
        except ChildProcessError:
            pass
        self.pid = 0  # reaped: never signal a number the system may give another process
        return False

    def kill(self) -> None:
        """Stop the process (SIGKILL: a runaway sympy call does not listen to anything else)."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = 0
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class WorkerPool:
    """Warm worker processes fed fairly from one queue per client (see the module docstring)."""

    def __init__(
        self, pset: ProblemSet, settings: PoolSettings, hide_expected: bool = False
    ) -> None:
        self.settings = settings
        variants = variants_of(pset)
        made = {i: grader_of(v, hide_expected) for i, v in {id(v): v for _, v in variants}.items()}
        self.graders = [made[id(v)] for _, v in variants]  # per variant; variants alike share one
        self.grader = self.graders[0]
        self._workers = [_Worker(self.graders) for _ in range(settings.workers)]
        for worker in self._workers:
            worker.start()
        self._idle: deque[_Worker] = deque(self._workers)
        self._queues: dict[Hashable, deque[_Job]] = {}  # insertion order is the rotation
        self._running: dict[Hashable, int] = {}
        self._waiting = 0
        self._service = settings.timeout  # a job's seconds: from the limit, learnt as jobs end
        self._served = 0
        self._use: dict[Hashable, _Use] = {}  # per client and per address (keys never collide)
        self._address_jobs: dict[Hashable, int] = {}  # waiting or running, per address
        self._address_running: dict[Hashable, int] = {}
        self._answers: OrderedDict[tuple, Any] = OrderedDict()  # verdicts, least recent first
        self._prior = settings.slow_weight * settings.timeout  # a new address's unknown claims
        self.clock = time.monotonic  # the bookkeeping's (tests set their own)

    def _refuse(self, client: Hashable) -> None:
        s = self.settings
        mine = len(self._queues.get(client, ())) + self._running.get(client, 0)
        if mine >= s.client_queue:
            raise ServerBusyError(
                "server", f"you have {mine} checks waiting; wait for their verdicts"
            )
        ours = self._address_jobs.get(address_of(client), 0)
        if ours >= s.address_queue:
            raise ServerBusyError(
                "server",
                f"your network address has {ours} checks waiting; wait for their verdicts "
                "(a teacher serving a class behind one address raises --address-checks)",
            )
        wait = self._ahead(client) * self._service / max(1, len(self._workers))
        full = self._waiting >= s.queue and ours > self._address_running.get(address_of(client), 0)
        if full or wait > s.max_wait:
            retry = max(1, math.ceil(wait))
            raise ServerBusyError(
                "server", f"too many checks waiting; try again in {retry} s", retry
            )

    def _ahead(self, client: Hashable) -> int:
        """Waiting jobs served before a new job of ``client``, in :meth:`_next_job`'s order: its
        own and at most one more from each other client of its address (the turns its address
        needs), then from each other address as many, one more from an address that ranks
        before it; so a flood counts against others per address, whatever its cookies."""
        address, t = address_of(client), self.clock()
        own = len(self._queues.get(client, ()))
        turns, others = own, dict[Hashable, int]()
        for c, queue in self._queues.items():
            if c == client or not queue:
                continue
            if (a := address_of(c)) == address:
                turns += min(len(queue), own + 1)
            else:
                others[a] = others.get(a, 0) + len(queue)
        mine = self._rank(address, t)
        return turns + sum(min(n, turns + (self._rank(a, t) < mine)) for a, n in others.items())

    def _rank(self, address: Hashable, t: float) -> tuple[int, float]:
        """An address's place in the order: its checks running, then its use."""
        return self._address_running.get(address, 0), self._used(("address", address), t)

    async def run(
        self, method: str, *args: object, client: Hashable = None, variant: int = 0
    ) -> Any:
        """A remembered verdict for the same question, else :meth:`judge` in a worker."""
        key = (method, variant, args)
        if key in self._answers:
            self._answers.move_to_end(key)
            return self._answers[key]
        result = await self.judge(method, *args, client=client, variant=variant)
        self._answers[key] = result
        if len(self._answers) > self.settings.cache:
            self._answers.popitem(last=False)
        return result

    async def judge(
        self, method: str, *args: object, client: Hashable = None, variant: int = 0
    ) -> Any:
        """Run ``Grader.<method>(*args)`` in a worker (against the set's ``variant``); its
        record, or a DeriveError re-raised.

        Cancelling the call (the client has gone) drops the job, or stops its worker.

        Raises:
            ServerBusyError: this client, or the whole queue, is over its limit.
            CheckAbortedError: the time limit passed, or the worker died.
            DeriveError: the checker refused the input (the worker's one line).
        """
        self._refuse(client)
        job = _Job(method, args, client, asyncio.get_running_loop().create_future(), variant)
        self._queues.setdefault(client, deque()).append(job)
        self._waiting += 1
        address = address_of(client)
        self._address_jobs[address] = self._address_jobs.get(address, 0) + 1
        self._dispatch()
        self._give_way()
        try:
            kind, payload = await job.future
        except asyncio.CancelledError:
            self._cancel(job)
            raise
        if kind == "ok":
            return payload
        if kind == "error":
            raise _RefusedError(payload)
        raise CheckAbortedError("check", payload)

    def _used(self, key: tuple[str, Hashable], t: float) -> float:
        """A client's or an address's use; an address with no check answered yet has the prior."""
        use = self._use.get(key)
        return use.now(t) if use is not None else self._prior * (key[0] == "address")

    def _next_client(self, t: float) -> Hashable | None:
        """Whose job is next: the address of the best :meth:`_rank`; within it, the client with
        the least use counted in half time limits (alike students in turn, not the lightest by
        a millisecond first); ties in rotation order (see the module docstring)."""
        best: tuple | None = None
        for rank, (client, queue) in enumerate(self._queues.items()):
            if queue and self._running.get(client, 0) < self.settings.client_running:
                use = self._used(("client", client), t) // (self.settings.timeout / 2)
                order = (self._rank(address_of(client), t), use, rank)
                if best is None or order < best[:3]:
                    best = (*order, client)
        return None if best is None else best[3]

    def _next_job(self) -> _Job | None:
        client = self._next_client(self.clock())
        if client is None:
            return None
        queue = self._queues.pop(client)  # to the back of the rotation
        job = queue.popleft()
        if queue:
            self._queues[client] = queue
        self._waiting -= 1
        return job

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self._idle:
            job = self._next_job()
            if job is None:
                return
            worker = self._idle.popleft()
            if worker.conn is None or not worker.alive():
                worker.kill()  # it died while idle: replaced before a check reaches it
                worker.start()
            assert worker.conn is not None
            job.worker, job.started = worker, self.clock()
            worker.job = job
            self._running[job.client] = self._running.get(job.client, 0) + 1
            address = address_of(job.client)
            self._address_running[address] = self._address_running.get(address, 0) + 1
            try:
                worker.conn.send((job.method, job.args, job.variant))
            except (OSError, EOFError):
                worker.kill()
                self._finish(worker, ("failed", "the check stopped unexpectedly; please try again"))
                continue
            loop.add_reader(worker.conn.fileno(), self._on_answer, worker)
            worker.timer = loop.call_later(self.settings.timeout, self._overtime, worker)
            loop.call_later(self.settings.preempt_after, self._give_way)

    def _give_way(self) -> None:
        """Stop the long check of the heaviest address for the next waiting one, if that one's
        address used the workers half a time limit less (see the module docstring)."""
        if self._idle or not self._waiting:
            return
        t = self.clock()
        busy = [(w, w.job) for w in self._workers if w.job is not None]
        if any(t - job.started < self.settings.preempt_after for _, job in busy):
            return  # that worker may be free soon; its timer comes back here
        client = self._next_client(t)
        if client is None:
            return
        used = [self._used(("address", address_of(j.client)), t) + t - j.started for _, j in busy]
        heaviest = max(range(len(busy)), key=used.__getitem__)
        waiting = self._used(("address", address_of(client)), t)
        if used[heaviest] > waiting + self.settings.timeout / 2:
            worker = busy[heaviest][0]
            self._release(worker)
            worker.kill()
            self._finish(worker, None)

    def _release(self, worker: _Worker) -> None:
        if worker.conn is not None:
            asyncio.get_running_loop().remove_reader(worker.conn.fileno())
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None

    def _on_answer(self, worker: _Worker) -> None:
        self._release(worker)
        assert worker.conn is not None
        try:
            answer = worker.conn.recv()
        except (EOFError, OSError):
            worker.kill()
            answer = ("failed", "the check stopped unexpectedly; please try again")
        job = worker.job
        if job is not None and self.clock() - job.started > self.settings.timeout:
            answer = self._late()  # it answered, but after the limit (the timer was not first)
        self._finish(worker, answer)

    def _late(self) -> tuple[str, str]:
        return ("failed", f"the check took longer than {self.settings.timeout:g} s and was stopped")

    def _overtime(self, worker: _Worker) -> None:
        worker.timer = None
        self._release(worker)
        worker.kill()
        self._finish(worker, self._late(), slow=True)

    def _finish(self, worker: _Worker, answer: tuple[str, Any] | None, slow: bool = False) -> None:
        """The end of a worker's job: its ``answer``, or None when it gave way (back in its queue)."""
        job, worker.job = worker.job, None
        if job is not None:
            _decrement(self._running, job.client)
            address = address_of(job.client)
            _decrement(self._address_running, address)
            t = self.clock()
            took = t - job.started
            if answer is None:
                job.worker = None
                self._queues.setdefault(job.client, deque()).appendleft(job)
                self._waiting += 1
            else:
                if not self._running.get(job.client) and not self._queues.get(job.client, True):
                    del self._queues[job.client]
                _decrement(self._address_jobs, address)
                self._served += 1  # the time limit counts as one job seen (the prior)
                self._service += (took - self._service) * max(0.1, 1 / (self._served + 1))
            cost = self.settings.slow_weight * self.settings.timeout if slow else took
            self._use.setdefault(("client", job.client), _Use()).add(t, cost)
            # the prior is booked with an address's first check, not when it was first seen: of
            # two new addresses, the one that had a check is the heavier, whichever came first
            self._use.setdefault(("address", address), _Use(self._prior, t)).add(t, cost)
            if len(self._use) > 4 * self.settings.queue + 1024:
                self._forget(t)
            if answer is not None and not job.future.done():
                job.future.set_result(answer)
        if worker.conn is None:
            worker.start()  # forked again from this warm server
        self._idle.append(worker)
        self._dispatch()

    def _forget(self, t: float) -> None:
        """Drop the use of clients and addresses that has decayed to nothing (bounded memory)."""
        for key in [k for k, use in self._use.items() if use.now(t) < 0.01]:
            del self._use[key]

    def _cancel(self, job: _Job) -> None:
        """Drop a job whose client has gone: out of its queue, or its worker stopped."""
        worker = job.worker
        if worker is None:
            queue = self._queues.get(job.client)
            if queue is not None and job in queue:
                queue.remove(job)
                self._waiting -= 1
                _decrement(self._address_jobs, address_of(job.client))
                if not queue and not self._running.get(job.client):
                    del self._queues[job.client]
            return
        if worker.job is job:
            self._release(worker)
            worker.kill()
            self._finish(worker, ("failed", "cancelled"))

    def close(self) -> None:
        """Stop every worker."""
        for worker in self._workers:
            worker.kill()


def _decrement(counts: dict[Hashable, int], key: Hashable) -> None:
    left = counts.get(key, 1) - 1
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)


class _RefusedError(DeriveError, ValueError):
    """The checker's own refusal, carried back as its one line."""

    def __init__(self, line: str) -> None:
        what, _, why = line.partition(": ")
        super().__init__(what, why)
