"""The first verdict of a published workbook in headless Chromium, this tree against another.

Each tree publishes the built-in set (``derive publish --pyodide PKG``, as a teacher would,
bytecode compiled at publish time), a plain static server serves both sites on loopback, and
each round opens each site in a fresh browser context (a first visit: no kept bytecode, no
HTTP cache), on the first problem, types an answer at once and presses Enter, then answers
five more boxes one by one. Rounds interleave the trees, so both meet the same load.

Measured, in seconds since the page opened: the worker's phases where the site's worker
posts them (``deriveTimings.phases``: the memory snapshot fetched and gunzipped where the
site ships one, Pyodide loaded, zips unpacked or files written, ``import sympy``,
``import derive.web.in_browser``, the judge read the set), the boot (the page's
``deriveTimings.boot_ms``), the first verdict; and each later check from Enter to its
verdict (median and maximum), with its time inside the worker where the site's worker posts
it (``deriveTimings.jobs``: in the page's queue behind a preview; from the page's post to the
reply; of that, from the post to its start in the worker, behind a warm in progress, and
judging); and the CPU time the browser (all its processes) spent from
opening the page to the first verdict, the figure a shared machine's load moves least.
Ratios: after / before per figure, and each phase as a share
of the first verdict. The verdicts of both trees are compared (they must be identical).

    python benchmarks/first_verdict.py [--before d325f28] [--rounds 3] [--pyodide PKG]

``--before`` is a commit (unpacked with ``git archive`` into a temporary folder) or a
checkout's folder. The Pyodide package defaults to ``$DERIVE_PYODIDE``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
FIRST = ("flops", "2 B D F")  # q1's FLOPs, typed as the page opens
LATER = [("bytes", "BD + DF + BF"), ("intensity", "40"), ("ridge", "600"),
         ("t_math", "1 ms"), ("t_mem", "2 ms")]  # fmt: skip
PHASES = ("worker", "fetched", "snapshot", "pyodide", "unpacked", "sympy", "derive", "judge")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a page closed mid-download


def _serve(folder: Path) -> str:
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def _tree(spec: str, tmp: Path) -> Path:
    if Path(spec).is_dir():
        return Path(spec).resolve()
    out = tmp / f"tree-{spec}"
    out.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", spec], check=True, capture_output=True
    )
    subprocess.run(["tar", "x", "-C", str(out)], input=archive.stdout, check=True)
    return out


def _publish(tree: Path, pyodide: str, out: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    argv = [sys.executable, "-m", "derive", "publish", "--pyodide", pyodide, "-o", str(out)]
    subprocess.run(argv, check=True, cwd=tree, env=env, capture_output=True)


def _cpu() -> float:
    """CPU seconds (user + system) of this process's descendants alive now: the Playwright
    driver and the browser it runs (another job's Chromium is not ours, so not counted)."""
    parent, cpu = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        parent[pid], cpu[pid] = int(fields[1]), (int(fields[11]) + int(fields[12]))
    mine, me = 0, os.getpid()
    for pid, ticks in cpu.items():
        up = parent.get(pid)
        while up and up != me:
            up = parent.get(up)
        mine += ticks if up == me else 0
    return mine / os.sysconf("SC_CLK_TCK")


# In the page: from the Enter key (as the page's own listener meets it) to the verdict put in
# the page, without Playwright's own steps (its checks before a key press, its polling).
_WATCH = """([box, shown]) => {
  const input = document.querySelector(box);
  input.addEventListener("keydown", () => {
    const t0 = performance.now();
    const seen = new MutationObserver(() => {
      if (document.querySelector(shown)) { window.deriveSeen = performance.now() - t0; seen.disconnect(); }
    });
    seen.observe(document.body, { childList: true, subtree: true });
  }, { once: true, capture: true });
}"""


def _visit(browser, url: str) -> dict:
    """One first visit: the phases, the first verdict and the later checks, in seconds."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    cpu = _cpu()
    page.goto(url + "#/p/q1")
    page.wait_for_selector(f"#answer-{FIRST[0]}")
    verdicts, later, seen = [], [], []
    for i, (quantity, answer) in enumerate([FIRST, *LATER]):
        box = f"#answer-{quantity}"
        page.fill(box, answer)
        shown = f"[data-quantity={quantity}] .result .verdict[role=status]"
        page.evaluate(_WATCH, [box, shown])
        sent = page.evaluate("performance.now()")
        page.press(box, "Enter")
        verdict = page.wait_for_selector(shown, timeout=600_000)
        done = page.evaluate("performance.now()")
        verdicts.append(f"{quantity}: {verdict.get_attribute('class')}")
        if i == 0:
            first, cpu = done / 1000, _cpu() - cpu
        else:
            later.append((done - sent) / 1000)
            seen.append(page.evaluate("window.deriveSeen") / 1000)
    timings = page.evaluate("window.deriveTimings")
    context.close()
    phases = {k: v / 1000 for k, v in (timings.get("phases") or {}).items() if k in PHASES}
    # the later checks' time in the worker (a tree that posts it): judging, and waiting there
    checks = [j for j in timings.get("jobs") or [] if j.get("path") == "/api/check"][1:]
    keys = {"queued": "queued_ms", "posted": "ms", "waited": "waited_ms", "ran": "ran_ms"}
    inside = {k: [j[key] / 1000 for j in checks if key in j] for k, key in keys.items()}
    return {"phases": phases, "boot": timings["boot_ms"] / 1000, "first": first, "cpu": cpu,
            "later": later, "seen": seen, "verdicts": verdicts, **inside}  # fmt: skip


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="d325f28", help="a commit or a checkout's folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pyodide", default=os.environ.get("DERIVE_PYODIDE"))
    args = parser.parse_args()
    if not args.pyodide:
        parser.error("give --pyodide PKG (or set DERIVE_PYODIDE)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="derive-first-verdict-") as tmp:
        trees = {"before": _tree(args.before, Path(tmp)), "after": ROOT}
        urls = {}
        for name, tree in trees.items():
            _publish(tree, args.pyodide, Path(tmp) / name)
            urls[name] = _serve(Path(tmp) / name)
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        loads = [_load()]
        with sync_playwright() as p:
            rules = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", rules])
            for _ in range(args.rounds):
                for name in trees:
                    runs[name].append(_visit(browser, urls[name]))
                loads.append(_load())
            browser.close()
    _report(runs, args.before, loads)


_PARTS = (
    ("seen", "Enter to verdict, in the page"),
    ("queued", "in the page's queue"),
    ("posted", "posted to the worker and back"),
    ("waited", "waited in the worker"),
    ("ran", "judged in the worker"),
)
"""A later check's time as the page and the worker measure it (the last three: this tree's)."""


def _report(runs: dict[str, list[dict]], before: str, loads: list[str]) -> None:
    """Medians over the rounds (a first visit each), side by side, with after / before."""
    rows: dict[str, dict[str, float]] = {}
    for name, visits in runs.items():
        med = lambda xs: statistics.median(xs) if xs else float("nan")  # noqa: E731
        fig = {p: med([v["phases"][p] for v in visits if p in v["phases"]]) for p in PHASES}
        fig["boot"] = med([v["boot"] for v in visits])
        fig["first verdict"] = med([v["first"] for v in visits])
        fig["browser CPU to first verdict"] = med([v["cpu"] for v in visits])
        fig["later p50"] = med([statistics.median(v["later"]) for v in visits])
        fig["later max"] = max(max(v["later"]) for v in visits)
        for part, what in _PARTS:
            parts = [v[part] for v in visits if v.get(part)]
            fig[f"later: {what}, p50"] = med([statistics.median(p) for p in parts])
            fig[f"later: {what}, max"] = max((max(p) for p in parts), default=float("nan"))
        rows[name] = fig
    print(f"first verdict of the built-in set's site in Chromium, {len(runs['after'])} rounds "
          f"(median), before = {before}; load average (1, 5, 15 min) {' → '.join(loads)}")  # fmt: skip
    print(f"{'seconds since the page opened':38} {'before':>8} {'after':>8} {'after/before':>12} "
          f"{'share of first (after)':>22}")  # fmt: skip
    first = rows["after"]["first verdict"]
    for key in rows["after"]:
        b, a = rows["before"][key], rows["after"][key]
        ratio = f"{a / b:.2f}" if b == b and b else "—"
        share = f"{a / first:.2f}" if key in (*PHASES, "boot") else ""
        bs = f"{b:8.3f}" if b == b else f"{'—':>8}"
        print(f"{key:38} {bs} {a:8.3f} {ratio:>12} {share:>22}")
    same = all(v["verdicts"] == runs["before"][0]["verdicts"] for vs in runs.values() for v in vs)
    print(f"verdicts identical in both trees: {same} ({'; '.join(runs['after'][0]['verdicts'])})")


if __name__ == "__main__":
    main()
