"""Load on the workbook: simulated students typing and checking answers against one server.

::

    .venv/bin/python benchmarks/load_workbook.py [--seconds 60] [--students 50] [--think 1.0]
    .venv/bin/python benchmarks/load_workbook.py --students 30 --think 0 --previews 0 \
        --seconds 20 --rounds 3 --before d4be36f
    .venv/bin/python benchmarks/load_workbook.py --flood 20 --seconds 20
    .venv/bin/python benchmarks/load_workbook.py --flood 20 --rotate-cookies --seconds 20
    .venv/bin/python benchmarks/load_workbook.py --preview-flood 100 --rotate-cookies --seconds 20

Starts ``derive serve`` on a free loopback port (or uses ``--url http://127.0.0.1:PORT/``;
loopback only), learns one right answer per problem and quantity from the API, then runs
``--students`` concurrent students for ``--seconds``: each picks a problem and a quantity,
types an answer (two debounced ``/api/read`` previews), checks it (``/api/check``), now
and then checks a derivation, and pauses ``--think`` seconds on average between actions
(0: no pause, the server saturated). Answers are a realistic mix: half right (exact
formulas, LaTeX, rounded decimals), a third wrong (classic slips), the rest unreadable.

Each student first opens the page (and keeps its cookie, as a browser does: the server
tells students apart by it). ``--previews K`` previews per answer (0: the students only
check); ``--addresses N`` spreads the students over N loopback source addresses (default
1: a classroom behind one address). Reports requests/s, checks/s (``/api/check``), median
and 99th-percentile latency per endpoint and overall, and of the checks apart the first of
each answer (``first``: judged in a worker) and the repeats (``repeat``: the server's
memory), errors by status (any non-200; 0 a broken connection), and the server's resident
memory (the server and its worker processes) at start and end. ``--before REV|DIR`` runs
the same load against the server of another checkout (a folder, or a git revision of this
repository, unpacked with ``git archive`` into a temporary folder) and this tree's,
alternating ``--rounds`` times, then prints each one's median over the rounds and the
after/before ratios: both under the same machine load, whose 1-minute average is printed
after each run. ``--flood N`` replaces the students: one client sends
distinct slow claims on N connections while another checks a right answer (a new spelling each time, so none is remembered) every 0.25 s;
it reports the other client's latency and how the flood was answered (judged, or refused
with 429). ``--rotate-cookies`` makes the flood send a made-up ``derive_client`` cookie with
every request (issue 37's H1: a script posing as a new student each time);
``--preview-flood N`` floods live previews (``/api/read``) on N connections instead of checks.
Bounded in count and time; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
MAX_SECONDS, MAX_STUDENTS = 600, 500
CHECKS = ("first", "repeat")  # /api/check of an answer new to the server, and of one it has seen
KINDS = ("all", "read", "check", *CHECKS, "derivation")
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

    def __init__(self, host: str, port: int, source: str | None = None) -> None:
        self.host, self.port, self.source = host, port, source
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.cookie = ""  # the workbook's client cookie, kept like a browser keeps it

    async def request(self, method: str, path: str, body: object = None) -> tuple[int, dict]:
        if self.writer is None:
            local = (self.source, 0) if self.source else None
            self.reader, self.writer = await asyncio.open_connection(
                self.host, self.port, local_addr=local
            )
        payload = b"" if body is None else json.dumps(body).encode()
        cookie = f"Cookie: {self.cookie}\r\n" if self.cookie else ""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"{cookie}Content-Length: {len(payload)}\r\n\r\n"
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
            if name.lower() == "set-cookie":
                self.cookie = value.strip().split(";")[0]
        data = await self.reader.readexactly(length)
        if path == "/":
            return status, {}
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


def source_of(n: int, addresses: int) -> str | None:
    """The loopback source address of student ``n`` of a class spread over ``addresses``
    (1: all at 127.0.0.1, a classroom behind one address; each 127.0.x.y is a peer of its own)."""
    if addresses <= 1:
        return None
    k = n % addresses
    return f"127.0.{1 + k // 250}.{1 + k % 250}"


async def student(
    n: int,
    host: str,
    port: int,
    items: list,
    deadline: float,
    args: argparse.Namespace,
    log: list,
    seen: set,
) -> None:
    rng = random.Random(n)
    think = args.think
    client = Client(host, port, source_of(n, args.addresses))

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

    await client.request("GET", "/")  # open the workbook page (a browser gets its cookie here)
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
        for cut in (len(answer) * (k + 1) // args.previews for k in range(args.previews)):
            # debounced previews while typing (two by default)
            await call("read", "/api/read", {"problem": problem, "answer": answer[:cut] or "1"})
            await pause(0.3)
        question = (problem, quantity, answer)
        kind = "repeat" if question in seen else "first"  # the first: judged in a worker
        seen.add(question)
        await call(kind, "/api/check", {"problem": problem, "quantity": quantity, "answer": answer})
        if rng.random() < 0.1:
            lines = ["I = \\frac{2BDF}{2BD+DF+2BF}", "\\approx \\frac{2BDF}{DF}", "= 2B"]
            await call("derivation", "/api/check-derivation", {"problem": problem, "lines": lines})
        await pause(1.0)
    client.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def start_server(workers: int, tree: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """``derive serve`` of the checkout ``tree`` (``python -m derive`` run from its root)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "derive", "serve", "--port", "0", "--workers", str(workers)],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(tree)},
    )
    for line in proc.stdout:
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        if m:
            return proc, m.group(1)
    raise SystemExit(f"error: derive serve did not start (exit {proc.wait()})")


def _timings(times: list[float]) -> dict:
    return {
        "n": len(times),
        "median_ms": round(1000 * statistics.median(times), 1),
        "p99_ms": round(1000 * percentile(times, 0.99), 1),
        "max_ms": round(1000 * max(times), 1),
    }


async def _students(args: argparse.Namespace, host: str, port: int, pid: int | None) -> dict:
    warm = Client(host, port)
    items = await learn(warm)
    warm.close()
    rss_start = rss_kib(pid) if pid else None
    log: list[tuple[str, float, int]] = []
    seen: set[tuple[str, str, str]] = set()  # the answers checked so far (by any student)
    started = time.perf_counter()
    deadline = started + args.seconds
    await asyncio.gather(
        *(student(n, host, port, items, deadline, args, log, seen) for n in range(args.students))
    )
    elapsed = time.perf_counter() - started
    rss_end = rss_kib(pid) if pid else None
    report = {
        "students": args.students,
        "seconds": round(elapsed, 1),
        "think_s": args.think,
        "workers": args.workers,
        "requests": len(log),
        "requests_per_s": round(len(log) / elapsed, 1),
        "checks_per_s": round(sum(1 for k, _, _ in log if k in CHECKS) / elapsed, 1),
        "errors": sum(1 for _, _, s in log if s != 200),
        "statuses": {
            str(c): sum(1 for _, _, s in log if s == c) for c in sorted({s for *_, s in log})
        },
        "addresses": args.addresses,
        "previews": args.previews,
        "rss_start_mib": round(rss_start / 1024, 1) if rss_start else None,
        "rss_end_mib": round(rss_end / 1024, 1) if rss_end else None,
    }
    for kind in KINDS:
        times = [t for k, t, _ in log if kind in ("all", k) or (kind == "check" and k in CHECKS)]
        if times:
            report[kind] = _timings(times)
    return report


SLOW_CLAIMS = (  # {k} makes every claim new, so none is answered from the server's memory
    "({k}B^{{1/31}}+B^{{1/29}})^{{-2}}",
    "(B^{{1/99}}+D^{{1/97}}+F^{{1/89}}+{k})^{{20}}",
    "(B+D+F+{k})^{{12}}",
    "(B^{{1/31}}+D^{{1/29}}+F^{{1/23}}+{k})^{{-5}}",
)


async def _flood(args: argparse.Namespace, host: str, port: int) -> dict:
    """One client floods ``--flood`` concurrent slow claims; another checks a right answer every 0.25 s."""
    probe = Client(host, port)
    items = await learn(probe)
    intensities = [i for i in items if i[1] == "intensity"]
    # q3a of the built-in set binds D and F to numbers: issue 37's H1 claim was slowest there
    problem, quantity, answers = next((i for i in intensities if i[0] == "q3a"), intensities[0])
    await probe.request("GET", "/")
    first = Client(host, port)
    await first.request("GET", "/")
    deadline = time.perf_counter() + args.seconds
    statuses: list[int] = []

    path = "/api/read" if args.preview_flood else "/api/check"

    async def flooder(n: int) -> None:
        client = Client(host, port)
        client.cookie = first.cookie  # one client (one browser) on many connections
        k = 1
        while time.perf_counter() < deadline:
            k += 1
            if args.rotate_cookies:  # a new "student" with every request
                client.cookie = f"derive_client={secrets.token_urlsafe(16)}"
            claim = SLOW_CLAIMS[n % len(SLOW_CLAIMS)].format(k=1000 * n + k)
            body = {"problem": problem, "quantity": quantity, "answer": claim}
            try:
                status, _ = await client.request("POST", path, body)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                status = 0
                client.close()
                client.writer = None
            statuses.append(status)
        client.close()

    probes: list[float] = []
    failed = 0

    async def prober() -> None:
        nonlocal failed
        await asyncio.sleep(1.0)  # the flood is under way
        k = 0
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            k += 1  # a new answer each time, so none is answered from the server's memory
            answer = f"{answers['right'][0]} + 0*{k}"
            body = {"problem": problem, "quantity": quantity, "answer": answer}
            status, _ = await probe.request("POST", "/api/check", body)
            probes.append(time.perf_counter() - started)
            failed += status != 200
            await asyncio.sleep(0.25)

    connections = args.preview_flood or args.flood
    await asyncio.gather(prober(), *(flooder(n) for n in range(connections)))
    probe.close()
    return {
        "flood_of": "previews" if args.preview_flood else "checks",
        "rotate_cookies": args.rotate_cookies,
        "flood_connections": connections,
        "seconds": args.seconds,
        "flood_requests": len(statuses),
        "flood_refused_429": statuses.count(429),
        "flood_judged": statuses.count(200),
        "probe_failed": failed,
        "probe": _timings(probes) if probes else None,
    }


async def run_once(args: argparse.Namespace, tree: Path | None) -> dict:
    """The scenario against a server of ``tree`` (None: ``--url``)."""
    proc = None
    if tree is None:
        url, pid = args.url, args.pid
    else:
        proc, url = start_server(args.workers, tree)
        pid = proc.pid
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("error: --url: loopback only (127.0.0.1)")
    host, port = parts.hostname, parts.port or 80
    try:
        if args.flood or args.preview_flood:
            return await _flood(args, host, port)
        return await _students(args, host, port, pid)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


def _print(report: dict, label: str) -> None:
    if "flood_connections" in report:
        p = report["probe"] or {}
        rotating = ", a new cookie each request" if report["rotate_cookies"] else ""
        print(
            f"{label}: flood of {report['flood_of']} on {report['flood_connections']} connections"
            f"{rotating}, {report['seconds']} s: "
            f"{report['flood_requests']} distinct slow claims sent, {report['flood_judged']} "
            "answered, "
            f"{report['flood_refused_429']} refused (429); another client's check: "
            f"median {p.get('median_ms')} ms, p99 {p.get('p99_ms')} ms, max {p.get('max_ms')} ms, "
            f"failed {report['probe_failed']}"
        )
        return
    print(
        f"{label}: {report['students']} students, {report['seconds']} s, think "
        f"{report['think_s']} s, {report['workers']} workers: {report['requests']} requests, "
        f"{report['requests_per_s']} req/s, {report['checks_per_s']} checks/s, "
        f"errors {report['errors']} (statuses {report['statuses']}), "
        f"{report['addresses']} address(es), {report['previews']} previews per answer"
    )
    for kind in KINDS:
        if kind in report:
            r = report[kind]
            print(
                f"  {kind:<10} n={r['n']:<6} median {r['median_ms']:>7.1f} ms   "
                f"p99 {r['p99_ms']:>7.1f} ms   max {r['max_ms']:>7.1f} ms"
            )
    print(
        f"  server RSS (with workers): {report['rss_start_mib']} MiB at start, "
        f"{report['rss_end_mib']} MiB at end"
    )


def checkout(before: str) -> tuple[Path, tempfile.TemporaryDirectory | None]:
    """``--before``: a folder as it is, else a git revision of this repository, unpacked
    (``git archive``) into a temporary folder."""
    if Path(before).is_dir():
        return Path(before).resolve(), None
    folder = tempfile.TemporaryDirectory(prefix="derive-before-")
    archive = subprocess.run(["git", "archive", before], cwd=ROOT, capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"error: --before {before}: neither a folder nor a git revision")
    subprocess.run(["tar", "-x", "-C", folder.name], input=archive.stdout, check=True)
    return Path(folder.name), folder


HEADLINE = (  # (column, kind, field) of the comparison's table
    ("checks/s", None, "checks_per_s"),
    ("check p50", "check", "median_ms"),
    ("check p99", "check", "p99_ms"),
    ("repeat p99", "repeat", "p99_ms"),
    ("first p99", "first", "p99_ms"),
)


def _headline(report: dict) -> list[float]:
    """checks/s, the median and 99th percentile of /api/check, and the 99th of repeats and
    of first checks (ms)."""
    return [report[f] if k is None else report.get(k, {}).get(f, 0.0) for _, k, f in HEADLINE]


def _compare(reports: dict[str, list[dict]]) -> None:
    """Each tree's median over the rounds, and after/before ratios (times in ms)."""
    rows = {
        label: [statistics.median(v) for v in zip(*map(_headline, runs))]
        for label, runs in reports.items()
    }
    print("\nmedian over rounds " + "".join(f"{c:>12}" for c, _, _ in HEADLINE))
    for label, values in rows.items():
        print(f"  {label:<16} " + "".join(f"{v:>12.1f}" for v in values))
    if len(rows) == 2:
        before, after = rows.values()
        ratios = "".join(f"{a / b:>11.2f}x" if b else f"{'-':>12}" for b, a in zip(before, after))
        print(f"  {'after/before':<16} " + ratios)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--think", type=float, default=1.0, help="mean pause between actions (s)")
    parser.add_argument("--workers", type=int, default=2, help="checking processes of the server")
    parser.add_argument(
        "--previews", type=int, default=2, help="live previews per answer typed (0: checks only)"
    )
    parser.add_argument(
        "--addresses",
        type=int,
        default=1,
        help="loopback addresses the students come from (1: all behind one, as in a classroom)",
    )
    parser.add_argument("--url", help="an already running server on 127.0.0.1 (default: start one)")
    parser.add_argument("--pid", type=int, help="its process id, to report its memory")
    parser.add_argument(
        "--before",
        metavar="REV|DIR",
        help="another checkout (a folder, or a git revision of this repository, unpacked to a "
        "temporary folder): run the same load against its server and this tree's, "
        "interleaved, and print both with the ratios",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="with --before: before/after pairs, interleaved"
    )
    parser.add_argument(
        "--flood",
        type=int,
        default=0,
        metavar="N",
        help="instead of students: one client sends slow claims on N connections while "
        "another checks a right answer every 0.25 s",
    )
    parser.add_argument(
        "--preview-flood",
        type=int,
        default=0,
        metavar="N",
        help="like --flood, but the N connections send live previews (/api/read)",
    )
    parser.add_argument(
        "--rotate-cookies",
        action="store_true",
        help="the flood sends a made-up client cookie with every request (a new 'student' each time)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON only")
    args = parser.parse_args()
    if not 0 < args.seconds <= MAX_SECONDS or not 0 < args.students <= MAX_STUDENTS:
        parser.error(f"--seconds must be in (0, {MAX_SECONDS}], --students in (0, {MAX_STUDENTS}]")
    if not 0 <= args.flood <= MAX_STUDENTS or not 0 <= args.preview_flood <= MAX_STUDENTS:
        parser.error(f"--flood and --preview-flood must be in [0, {MAX_STUDENTS}]")
    if not 1 <= args.rounds <= 10 or not 0 <= args.previews <= 10:
        parser.error("--rounds must be in [1, 10], --previews in [0, 10]")
    if not 1 <= args.addresses <= MAX_STUDENTS:
        parser.error(f"--addresses must be in [1, {MAX_STUDENTS}]")
    trees: list[tuple[str, Path | None]] = []
    kept = None
    if args.before:
        before, kept = checkout(args.before)
        trees.append(("before", before))
    trees.append(("after" if args.before else "this tree", None if args.url else ROOT))
    reports: dict[str, list[dict]] = {label: [] for label, _ in trees}
    loads: list[float] = []
    for _ in range(args.rounds):
        for label, tree in trees:
            reports[label].append(asyncio.run(run_once(args, tree)))
            loads.append(os.getloadavg()[0])
    if kept is not None:
        kept.cleanup()
    if args.json:
        print(json.dumps({"load_average": loads, **reports}, indent=2))
        return 0
    print(
        f"machine: {os.cpu_count()} cores; load average (1 min) after each run: "
        + ", ".join(f"{x:.2f}" for x in loads)
    )
    for label, runs in reports.items():
        for k, report in enumerate(runs, 1):
            _print(report, label if len(runs) == 1 else f"{label} (round {k})")
    if "flood_connections" not in next(iter(reports.values()))[0]:
        _compare(reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
