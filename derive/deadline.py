"""A time budget on every derivation and judgement, enforced from outside the work.

Nothing here trusts the work to stop by itself: a runaway sympy call (a root of a dim with
denominator 899, a 20th power expanded) may sit in one C call for minutes. So the work runs
in forked worker processes and the parent waits on their pipes with a clock; a worker past
its budget is killed (``SIGKILL``) and the caller gets one line, a :class:`TimeLimitError`
naming the input that was too costly.

* :func:`run_with_deadline` runs one function (``derive solve``, ``derive check``).
* :func:`run_each` runs ``func(0) … func(n-1)`` on up to ``jobs`` workers, each item under
  its own budget, results in order (``derive key``: problems on all cores). A worker takes
  the next item when it finishes one, so caches warm within a worker keep paying.
* :func:`workers` keeps the workers for more batches: :meth:`Workers.each` as
  :func:`run_each` (the function is inherited at the fork), then :meth:`Workers.calls` of
  module-level functions sent pickled with their arguments (``derive key``: the problems,
  then the roofline figures drawn from them, on the same two workers: no second fork).

Results and errors cross the pipe pickled. A :class:`~derive.errors.DeriveError` raised by
the work is re-raised in the parent as the same class with the same ``what`` and ``why``
(whether or not the class pickles itself); any other exception is a bug and is re-raised as
:class:`WorkerCrashError` carrying the worker's traceback. Without a working ``os.fork`` (Windows; Pyodide in a browser: :data:`CAN_FORK`) the work
runs in-process and the budget is not enforced.

The budget: ``--time-limit SECONDS`` on the command line, else the environment variable
``DERIVE_TIME_LIMIT``, else :data:`DEFAULT_SECONDS`.

Applying it elsewhere (results must pickle: sympy expressions and frozen records do)::

    from derive.deadline import run_with_deadline, time_limit
    verdict = run_with_deadline(judge_expr, ctx, quantity, expr,
                                seconds=time_limit(), what=f"--claim {text!r}")

Forking from a process with other threads (a threaded web server) is safe for the work
itself, but a lock another thread held at the fork stays held in the worker; the worker then
waits until its budget kills it, a spurious time-out rather than a hang.

>>> run_with_deadline(sum, [1, 2, 3], seconds=30, what="a sum")
6
"""

from __future__ import annotations

import contextlib
import errno
import gc
import io
import os
import pickle
import re
import selectors
import signal
import struct
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar, cast

from derive.errors import DeriveError, LimitError, ProblemError, TimeLimitError, name_too_long

T = TypeVar("T")
DEFAULT_SECONDS = 10.0
ENV_VAR = "DERIVE_TIME_LIMIT"
MAX_SECONDS = 86_400.0
_HEADER = struct.Struct("!Q")
_TASK = struct.Struct("!q")
_STOP = -1
_CALL = -2  # a pickled call follows: (index, function, arguments), framed as results are
CAN_FORK = hasattr(os, "fork") and sys.platform not in ("emscripten", "wasi")
"""Whether work can run in forked workers: not on Windows, nor in a browser (Pyodide has an
``os.fork`` that cannot succeed; a published workbook's page enforces its own time limit)."""


class WorkerCrashError(RuntimeError):
    """The work raised something that is not a DeriveError: a bug, shown with its traceback."""


def time_limit(flag: str | None = None) -> float:
    """The budget in seconds: ``flag`` (``--time-limit``), else ``$DERIVE_TIME_LIMIT``, else default.

    Raises:
        ProblemError: not a number of seconds greater than 0 (at most a day).

    >>> time_limit("2.5")
    2.5
    """
    text, what = (flag, "--time-limit") if flag is not None else (os.environ.get(ENV_VAR), ENV_VAR)
    if text is None or (flag is None and not text.strip()):
        return DEFAULT_SECONDS
    plain = re.fullmatch(r"\s*\+?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*", text, re.ASCII)
    seconds = float(text) if plain else float("nan")  # ASCII digits only: not "١٠" or "1_0"
    if not 0 < seconds <= MAX_SECONDS:  # also refuses nan
        raise ProblemError(
            f"{what} {text!r}",
            f"must be a number of seconds, more than 0 and at most {MAX_SECONDS:g}",
        )
    return seconds


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_with_deadline(func: Callable[..., T], *args: Any, seconds: float | None, what: str) -> T:
    """``func(*args)`` in a forked worker, killed after ``seconds`` (None: no budget).

    Raises:
        TimeLimitError: the budget ran out (names ``what``).
        DeriveError: whatever ``func`` raised, re-raised as itself.
        LimitError: the worker was killed from outside (out of memory, a signal).
        WorkerCrashError: ``func`` raised something that is not a DeriveError (a bug).
    """
    return run_each(lambda _: func(*args), 1, seconds=seconds, name=lambda _: what, jobs=1)[0]


@dataclass(frozen=True)
class _Printed:
    """What a command printed in the worker, its exit code, and the error it ended with."""

    out: str
    err: str
    code: int
    error: tuple[type[DeriveError], str, str] | None = None


def _captured(handler: Callable[[Any], int], args: Any) -> _Printed:
    """Run a command handler with stdout and stderr captured.

    A command may print (a JSON verdict, a count on stderr) and then end with a
    :class:`DeriveError` (exit 2): the error is carried back with what was printed, so the
    parent prints both, in that order, as the command would have in one process.
    """
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        try:
            code = handler(args)
        except DeriveError as exc:
            return _Printed(
                sys.stdout.getvalue(), sys.stderr.getvalue(), 2, (type(exc), exc.what, exc.why)
            )
        return _Printed(sys.stdout.getvalue(), sys.stderr.getvalue(), code)
    finally:
        sys.stdout, sys.stderr = saved


def run_command_with_deadline(
    handler: Callable[[Any], int], args: Any, *, seconds: float | None, what: str
) -> int:
    """A command handler (``handler(args) -> exit code``) under a budget; prints its output.

    The handler runs in a forked worker with its standard output captured; when it finishes
    in time, the parent prints what it wrote and returns its exit code, so a command killed
    at its deadline has printed nothing.
    """
    printed = run_with_deadline(_captured, handler, args, seconds=seconds, what=what)
    sys.stdout.write(printed.out)
    sys.stderr.write(printed.err)
    if printed.error is not None:
        kind, error_what, why = printed.error
        raise _rebuild("error", (kind, error_what, why))
    return printed.code


@dataclass
class _Worker:
    pid: int
    tasks: int  # write end: item indexes to the worker
    results: int  # read end: framed pickles from the worker
    item: int | None = None
    started: float = 0.0
    buffer: bytearray = field(default_factory=bytearray)
    stopped: bool = False  # told to exit: takes no more items

    @property
    def serving(self) -> bool:
        return bool(self.pid) and not self.stopped


def _frame(payload: object) -> bytes:
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an unpicklable result is a bug of the work, reported as such
        data = pickle.dumps(("bug", payload[1], traceback.format_exc()))  # type: ignore[index]
    return _HEADER.pack(len(data)) + data


def _outcome(func: Callable[[int], object], index: int) -> bytes:
    try:
        return _frame(("ok", index, func(index)))
    except DeriveError as exc:
        return _frame(("error", index, (type(exc), exc.what, exc.why)))
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            return _frame(("bug", index, traceback.format_exc()))
        named = name_too_long(exc)
        return _frame(("error", index, (type(named), named.what, named.why)))
    except BaseException:
        return _frame(("bug", index, traceback.format_exc()))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from a pipe (None: it was closed first)."""
    raw = b""
    while len(raw) < size:
        chunk = os.read(fd, size - len(raw))
        if not chunk:
            return None
        raw += chunk
    return raw


def _called(call: Callable[..., object], args: tuple, _index: int) -> object:
    return call(*args)


def _serve(func: Callable[[int], object], tasks: int, results: int) -> None:
    """The worker's loop: read an index (or a pickled call), answer with a framed outcome,
    until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    while True:
        raw = _read_exactly(tasks, _TASK.size)
        if raw is None:
            return
        (index,) = _TASK.unpack(raw)
        if index == _STOP:
            return
        if index == _CALL:
            header = _read_exactly(tasks, _HEADER.size)
            body = header and _read_exactly(tasks, _HEADER.unpack(header)[0])
            if body is None:
                return
            index, call, args = pickle.loads(body)
            _write_all(results, _outcome(partial(_called, call, args), index))
            continue
        _write_all(results, _outcome(func, index))


def _spawn(func: Callable[[int], object], inherited: list[int]) -> _Worker:
    task_r, task_w = os.pipe()
    result_r, result_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child (coverage does not follow forks)
        gc.freeze()  # the child's collections leave the parent's objects (and their pages) alone
        # and it collects nothing: a worker lives for one command or one key, within a time
        # limit per item, and its collections walked every cache it filled (a tenth of a
        # 500-problem key's CPU); its memory stays that of a collecting worker
        # (benchmarks/README.md)
        gc.disable()
        code = 0
        try:
            for fd in [task_w, result_r, *inherited]:
                os.close(fd)
            _serve(func, task_r, result_w)
        except BaseException:
            code = 70
        finally:
            os._exit(code)  # no atexit, no flushing the parent's buffers a second time
    os.close(task_r)
    os.close(result_w)
    os.set_blocking(result_r, False)
    return _Worker(pid, task_w, result_r)


def _rebuild(kind: str, detail: Any) -> BaseException:
    if kind == "error":
        cls, what, why = detail
        try:
            error = cls(what, why)
        except Exception:
            error = DeriveError(what, why)
        return error if isinstance(error, DeriveError) else DeriveError(what, why)
    return WorkerCrashError(f"the work raised an exception in a worker process:\n{detail}")


def _inline(
    func: Callable[[int], T], count: int, on_done: Callable[[int, int], None] | None
) -> list[T]:
    results = []
    for index in range(count):
        results.append(func(index))
        if on_done:
            on_done(index + 1, count)
    return results


class _Pool:
    """Forked workers fed one item at a time, each item under the same budget; they serve
    batch after batch until :meth:`close`."""

    def __init__(self, func: Callable[[int], object], jobs: int) -> None:
        self.func, self.jobs = func, max(1, jobs)
        self.workers: list[_Worker] = []
        self.selector = selectors.DefaultSelector()
        self.name: Callable[[int], str] = str
        self.each_own = False  # a late item's result is its TimeLimitError; the rest go on

    def grow(self, count: int) -> None:
        """Fork workers until as many live as ``count`` items can use (at most ``jobs``)."""
        while sum(1 for w in self.workers if w.serving) < min(self.jobs, count):
            inherited = [fd for w in self.workers for fd in (w.tasks, w.results)]
            worker = _spawn(self.func, inherited)
            self.workers.append(worker)
            self.selector.register(worker.results, selectors.EVENT_READ, worker)

    def assign(self, worker: _Worker, index: int, call: tuple | None = None) -> None:
        """Item ``index`` to an idle worker: ``func(index)``, or ``call = (function, args)``."""
        worker.item, worker.started = index, time.monotonic()
        message = _TASK.pack(index)
        if call is not None:
            data = pickle.dumps((index, *call), protocol=pickle.HIGHEST_PROTOCOL)
            message = _TASK.pack(_CALL) + _HEADER.pack(len(data)) + data
        try:
            _write_all(worker.tasks, message)
        except OSError:  # it died while idle, between batches (the OOM killer, a user)
            raise self.stopped(worker, index) from None

    def reap(self, worker: _Worker) -> str:
        """Collect a worker that exited; how it ended."""
        _, status = os.waitpid(worker.pid, 0)
        worker.pid = 0
        self.selector.unregister(worker.results)
        return _status(status)

    def stopped(self, worker: _Worker, item: int) -> LimitError:
        """The error for a worker killed from outside (the OOM killer, a user) on ``item``,
        the one it was working on or was to take."""
        return LimitError(self.name(item), f"its worker process stopped: {self.reap(worker)}")

    def run(
        self,
        count: int,
        calls: Sequence[tuple[Callable[..., object], tuple]] | None,
        seconds: float | None,
        name: Callable[[int], str],
        on_done: Callable[[int, int], None] | None,
    ) -> list[Any]:
        """Items ``0 … count-1`` (``func(i)``, or ``calls[i]``) on the workers, results in order."""
        self.name = name
        self.grow(count)
        results: list[Any] = [None] * count
        pending = deque(range(count))
        done = 0

        def take_next(worker: _Worker) -> None:
            index = pending.popleft()
            self.assign(worker, index, calls[index] if calls is not None else None)

        for worker in self.workers:
            if pending and worker.serving:
                take_next(worker)
        while done < count:
            now = time.monotonic()
            busy = [w for w in self.workers if w.item is not None]
            if seconds is not None:
                late = next((w for w in busy if now - w.started >= seconds), None)
                if late is not None:
                    late_index = cast(int, late.item)
                    error = TimeLimitError(
                        name(late_index),
                        f"took longer than the time limit of {seconds:g} s and was stopped "
                        f"(--time-limit SECONDS or {ENV_VAR} sets it)",
                    )
                    if not self.each_own:
                        raise error
                    self.kill(late)  # the item's result is its error; the rest go on
                    results[late_index], done = error, done + 1
                    if on_done:
                        on_done(done, count)
                    self.grow(len(pending))
                    for worker in self.workers:
                        if pending and worker.serving and worker.item is None:
                            take_next(worker)
                    continue
                wait = min(w.started + seconds for w in busy) - now
            else:
                wait = None
            for key, _ in self.selector.select(wait):
                ready: _Worker = key.data
                for kind, index, detail in self.messages(ready):
                    if kind != "ok":
                        raise _rebuild(kind, detail)
                    results[index] = detail
                    ready.item = None
                    done += 1
                    if on_done:
                        on_done(done, count)
                    if pending:
                        take_next(ready)
        return results

    def messages(self, worker: _Worker) -> list[tuple]:
        """Complete messages read from a worker's pipe (LimitError if it died mid-item)."""
        while True:
            try:
                chunk = os.read(worker.results, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                if worker.item is not None:  # it died on an item
                    raise self.stopped(worker, worker.item)
                self.reap(worker)  # it exited when told to
                break
            worker.buffer += chunk
        out = []
        while len(worker.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(worker.buffer)
            if len(worker.buffer) < _HEADER.size + size:
                break
            out.append(pickle.loads(worker.buffer[_HEADER.size : _HEADER.size + size]))
            del worker.buffer[: _HEADER.size + size]
        return out

    def kill(self, worker: _Worker) -> None:
        """Kill a worker past its budget and close its pipes (a new one is forked if needed)."""
        os.kill(worker.pid, signal.SIGKILL)
        self.reap(worker)
        worker.item = None
        for fd in (worker.tasks, worker.results):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.workers.remove(worker)

    def stop_idle(self) -> None:
        """Tell every idle worker to exit (without waiting for it)."""
        for w in self.workers:
            if w.serving and w.item is None:
                w.stopped = True
                with contextlib.suppress(OSError):
                    _write_all(w.tasks, _TASK.pack(_STOP))

    def close(self) -> None:
        """Stop every worker: an idle one is told to exit, a busy one is killed; then reaped."""
        self.stop_idle()
        for w in self.workers:
            if w.pid:
                try:
                    if w.item is not None:
                        os.kill(w.pid, signal.SIGKILL)
                    os.waitpid(w.pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
            for fd in (w.tasks, w.results):
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.selector.close()


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        hint = " (perhaps out of memory)" if number == signal.SIGKILL else ""
        return f"killed by signal {signal.Signals(number).name}{hint}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def run_each(
    func: Callable[[int], T],
    count: int,
    *,
    seconds: float | None,
    name: Callable[[int], str],
    jobs: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
) -> list[T]:
    """``[func(0), …, func(count - 1)]`` computed in forked workers, each item within ``seconds``.

    Args:
        func: the work for one item; its result must pickle.
        count: how many items.
        seconds: the budget of each item (None: no budget, and with one job no fork either).
        name: how an item is named in a :class:`TimeLimitError` (``"problem 'q3'"``).
        jobs: workers to use (default: every core this process may use).
        on_done: called in the parent as ``on_done(done, count)`` after each item.

    Raises:
        TimeLimitError: an item ran past ``seconds``; every worker is stopped.
        DeriveError: the first error an item raised, in the order items finish.
        LimitError: a worker was killed from outside (out of memory, a signal).
        WorkerCrashError: a bug in the work (an exception that is not a DeriveError).
    """
    if count == 0:
        return []
    with workers(func, seconds=seconds, jobs=jobs) as pool:
        return pool.each(count, name=name, on_done=on_done)


class Workers:
    """Workers kept for several batches (:func:`workers`); in-process where nothing forks."""

    def __init__(self, func: Callable[[int], object], seconds: float | None, pool: _Pool | None):
        self._func, self._seconds, self._pool = func, seconds, pool

    def each(
        self,
        count: int,
        *,
        name: Callable[[int], str],
        on_done: Callable[[int, int], None] | None = None,
    ) -> list[Any]:
        """``[func(0), …, func(count - 1)]``, as :func:`run_each` computes them."""
        if self._pool is None:
            return _inline(self._func, count, on_done)
        return self._pool.run(count, None, self._seconds, name, on_done)

    def calls(
        self, calls: Sequence[tuple[Callable[..., T], tuple]], *, name: Callable[[int], str]
    ) -> list[T]:
        """``[f(*args) for f, args in calls]`` on the same workers, each within the budget:
        each ``f`` a module-level function and its ``args`` picklable (they cross a pipe)."""
        if not calls:
            return []
        if self._pool is None:
            return [call(*args) for call, args in calls]
        return self._pool.run(len(calls), calls, self._seconds, name, None)

    def release(self) -> None:
        """No more batches are coming: the workers exit now, while this process goes on
        (a later batch would fork new ones)."""
        if self._pool is not None:
            self._pool.stop_idle()


@contextmanager
def workers(
    func: Callable[[int], object],
    *,
    seconds: float | None,
    jobs: int | None = None,
    each_own: bool = False,
) -> Iterator[Workers]:
    """Up to ``jobs`` forked workers that inherit ``func`` and serve batches until the block
    ends (then none outlives it). Without a budget and with one job, or where nothing can
    fork, the work runs in this process (the budget is then not enforced). With
    ``each_own`` an item past its budget does not stop the batch: its result is its
    :class:`TimeLimitError` (its worker is killed, another forked)."""
    jobs = default_jobs() if jobs is None else jobs
    if not CAN_FORK or (seconds is None and jobs <= 1):
        yield Workers(func, seconds, None)
        return
    pool = _Pool(func, jobs)
    pool.each_own = each_own
    try:
        yield Workers(func, seconds, pool)
    finally:
        pool.close()
