"""Load on the workbook: simulated students typing and checking answers against one server.

::

    .venv/bin/python benchmarks/load_workbook.py [--seconds 60] [--students 50] [--think 1.0]

Starts ``derive serve`` on a free loopback port (or uses ``--url http://127.0.0.1:PORT/``;
loopback only), learns one right answer per problem and quantity from the API, then runs
``--students`` concurrent students for ``--seconds``: each picks a problem and a quantity,
types an answer (two debounced ``/api/read`` previews), checks it (``/api/check``), now
and then checks a derivation, and pauses ``--think`` seconds on average between actions
(0: no pause, the server saturated). Answers are a realistic mix: half right (exact
formulas, LaTeX, rounded decimals), a third wrong (classic slips), the rest unreadable.

Reports requests/s, median and 99th-percentile latency per endpoint and overall, errors
(any non-200 or broken connection), and the server's resident memory (the server and its
worker processes) at start and end. Bounded in count and time; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
MAX_SECONDS, MAX_STUDENTS = 600, 500
UNREADABLE = [
    "2BD +",
    "\\frac{2BDF}{",
    "B**",
    "sqrt(B",
    "2BDQ",
    "((B)",
    "B = = 2",
    "\\foo{B}",
    "1e",
    "#",
]


class Client:
    """One keep-alive HTTP/1.1 connection: the lightest client, so the load generator stays small."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: object = None) -> tuple[int, dict]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        payload = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        await self.writer.drain()
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        return status, json.loads(data) if data else {}

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def rss_kib(pid: int) -> int:
    """Resident memory of a process and all its descendants, in KiB (from /proc)."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
            for task in Path(f"/proc/{p}/task").iterdir():
                stack += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, AttributeError):
            continue
    return total


def answers_for(expected: str, quantity: str) -> dict[str, list[str]]:
    """Right and wrong answers built from the exact expected value (sympy text)."""
    exact = expected.split(" ≈ ")[0]
    right = [exact]
    decimal = expected.split(" ≈ ")[1] if " ≈ " in expected else None
    if decimal:
        right.append(decimal)
    if re.fullmatch(r"\d+", exact):
        right.append(f"{exact}.0")
    wrong = [f"2*({exact})", f"({exact})/2", f"({exact}) + 1"]
    if quantity in ("flops", "bytes", "intensity"):
        wrong.append(f"({exact})*B")
    return {"right": right, "wrong": wrong}


async def learn(client: Client) -> list[tuple[str, str, dict[str, list[str]]]]:
    """(problem, quantity, answers) for every asked quantity, from the API's expected values."""
    status, index = await client.request("GET", "/api/problems")
    assert status == 200, index
    if not index["expected_shown"]:
        raise SystemExit(
            "error: the server hides expected answers; start it without --hide-expected"
        )
    items = []
    for p in index["problems"]:
        for q in p["asked"]:
            status, r = await client.request(
                "POST", "/api/check", {"problem": p["id"], "quantity": q, "answer": "1"}
            )
            if status == 200 and r.get("expected"):
                items.append((p["id"], q, answers_for(r["expected"], q)))
    return items


async def student(
    n: int, host: str, port: int, items: list, deadline: float, think: float, log: list
) -> None:
    rng = random.Random(n)
    client = Client(host, port)

    async def call(kind: str, path: str, body: dict) -> None:
        started = time.perf_counter()
        try:
            status, _ = await client.request("POST", path, body)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            status = 0
            client.close()
            client.writer = None
        log.append((kind, time.perf_counter() - started, status))

    async def pause(scale: float) -> None:
        left = deadline - time.perf_counter()
        if think > 0 and left > 0:
            await asyncio.sleep(min(left, rng.uniform(0.5, 1.5) * think * scale))

    await asyncio.sleep(rng.uniform(0, max(think, 0.01)))  # students do not start in step
    while time.perf_counter() < deadline:
        problem, quantity, answers = rng.choice(items)
        roll = rng.random()
        if roll < 0.5:
            answer = rng.choice(answers["right"])
        elif roll < 0.85:
            answer = rng.choice(answers["wrong"])
        else:
            answer = rng.choice(UNREADABLE)
        for cut in (len(answer) // 2, len(answer)):  # two debounced previews while typing
            await call("read", "/api/read", {"problem": problem, "answer": answer[:cut] or "1"})
            await pause(0.3)
        await call(
            "check", "/api/check", {"problem": problem, "quantity": quantity, "answer": answer}
        )
        if rng.random() < 0.1:
            lines = ["I = \\frac{2BDF}{2BD+DF+2BF}", "\\approx \\frac{2BDF}{DF}", "= 2B"]
            await call("derivation", "/api/check-derivation", {"problem": problem, "lines": lines})
        await pause(1.0)
    client.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def start_server(workers: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "derive", "serve", "--port", "0", "--workers", str(workers)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    for line in proc.stdout:
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        if m:
            return proc, m.group(1)
    raise SystemExit(f"error: derive serve did not start (exit {proc.wait()})")


async def main_async(args: argparse.Namespace) -> dict:
    proc = None
    if args.url:
        url, pid = args.url, args.pid
    else:
        proc, url = start_server(args.workers)
        pid = proc.pid
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("error: --url: loopback only (127.0.0.1)")
    host, port = parts.hostname, parts.port or 80
    try:
        warm = Client(host, port)
        items = await learn(warm)
        warm.close()
        rss_start = rss_kib(pid) if pid else None
        log: list[tuple[str, float, int]] = []
        started = time.perf_counter()
        deadline = started + args.seconds
        await asyncio.gather(
            *(
                student(n, host, port, items, deadline, args.think, log)
                for n in range(args.students)
            )
        )
        elapsed = time.perf_counter() - started
        rss_end = rss_kib(pid) if pid else None
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    report = {
        "students": args.students,
        "seconds": round(elapsed, 1),
        "think_s": args.think,
        "workers": args.workers,
        "requests": len(log),
        "requests_per_s": round(len(log) / elapsed, 1),
        "errors": sum(1 for _, _, s in log if s != 200),
        "rss_start_mib": round(rss_start / 1024, 1) if rss_start else None,
        "rss_end_mib": round(rss_end / 1024, 1) if rss_end else None,
    }
    for kind in ("all", "read", "check", "derivation"):
        times = [t for k, t, _ in log if kind in ("all", k)]
        if times:
            report[kind] = {
                "n": len(times),
                "median_ms": round(1000 * statistics.median(times), 1),
                "p99_ms": round(1000 * percentile(times, 0.99), 1),
                "max_ms": round(1000 * max(times), 1),
            }
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--think", type=float, default=1.0, help="mean pause between actions (s)")
    parser.add_argument("--workers", type=int, default=2, help="checking processes of the server")
    parser.add_argument("--url", help="an already running server on 127.0.0.1 (default: start one)")
    parser.add_argument("--pid", type=int, help="its process id, to report its memory")
    parser.add_argument("--json", action="store_true", help="print the report as JSON only")
    args = parser.parse_args()
    if not 0 < args.seconds <= MAX_SECONDS or not 0 < args.students <= MAX_STUDENTS:
        parser.error(f"--seconds must be in (0, {MAX_SECONDS}], --students in (0, {MAX_STUDENTS}]")
    report = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{report['students']} students, {report['seconds']} s, think {report['think_s']} s, "
        f"{report['workers']} workers: {report['requests']} requests, "
        f"{report['requests_per_s']} req/s, errors {report['errors']}"
    )
    for kind in ("all", "read", "check", "derivation"):
        if kind in report:
            r = report[kind]
            print(
                f"  {kind:<10} n={r['n']:<6} median {r['median_ms']:>7.1f} ms   "
                f"p99 {r['p99_ms']:>7.1f} ms   max {r['max_ms']:>7.1f} ms"
            )
    print(
        f"  server RSS (with workers): {report['rss_start_mib']} MiB at start, {report['rss_end_mib']} MiB at end"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
