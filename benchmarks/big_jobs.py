"""Big jobs, before and after: 500-problem keys (cheap, plotted, whole layers) and a 10^7-point sweep.

    git worktree add /tmp/before ef171ac                # the tree before issue 18
    python benchmarks/big_jobs.py /tmp/before          # this tree against /tmp/before

Each command runs as a fresh process from each tree, the trees taking turns, best of
--repeats; the table gives wall time, CPU time (user + system, the process and its workers)
and peak resident memory (the largest process), and whether the two trees wrote the same
key files and the same CSV. The sets:

* ``distinct500``: benchmarks/set20.toml on 22 sets of hardware numbers (``run.distinct_set``),
  the first 500 problems: cheap problems, so start-up and the serial rendering weigh.
* ``plotted500``: 500 problems each with a plot of 2-3 series over 1..65536 (matmul,
  attention, matmul_sharded on distinct hardware numbers): per-problem work dominates.
* ``blocks500``: 500 ``transformer_block`` problems, each on its own hardware numbers: a
  composite's parts, its fused and unfused crossovers and its long LaTeX lines.
* ``sweep``: ``derive sweep matmul … --over B=1..10000000`` to a file.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from run import ROOT, SET20, _env, distinct_set, prepare

SWEEP = ["sweep", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "D=4096"]
SWEEP += ["--set", "F=4096", "--over", "B=1..10000000"]
KEYS = ("distinct500", "plotted500", "blocks500")
PLOTTED = (
    ("matmul", "B", {"D": 4096, "F": 4096}, ({"D": 4096, "F": 4096}, {"D": 1024, "F": 1024})),
    (
        "attention",
        "S",
        {"B": 8, "T": 1, "N": 32, "K": 8, "H": 128},
        ({"B": 8, "T": 1, "N": 32, "K": 8, "H": 128}, {"B": 64, "T": 1, "N": 32, "K": 8, "H": 128}),
    ),
    (
        "matmul_sharded",
        "B",
        {"D": 8192, "F": 8192, "P": 4},
        ({"D": 8192, "F": 8192, "P": 4}, {"D": 8192, "F": 8192, "P": 16}),
    ),
)


def _table(values: dict) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in values.items()) + " }"


def plotted_set(count: int, dest: Path) -> None:
    """``count`` problems, each with a plot, each on its own hardware numbers."""
    lines = [f'title = "{count} plotted problems"', ""]
    for r in range(count):
        op, over, bound, series = PLOTTED[r % len(PLOTTED)]
        curves = ", ".join(f'{{ label = "s{i}", set = {_table(s)} }}' for i, s in enumerate(series))
        lines += [
            "[[problem]]",
            f'id = "p{r}"',
            f'title = "{op}, copy {r}"',
            f'operator = "{op}"',
            'dtype = "bf16"',
            f'peak = "{197 + r}e12"',
            f'bandwidth = "{819 + r}e9"',
            'link_bandwidth = "45e9"',
            f"set = {_table(bound)}",
            "[problem.plot]",
            f'over = "{over}"',
            "from = 1",
            "to = 65536",
            f"series = [ {curves} ]",
            "",
        ]
    dest.write_text("\n".join(lines), encoding="utf-8")


def blocks_set(count: int, dest: Path) -> None:
    """``count`` transformer blocks, each on its own hardware numbers."""
    lines = [f'title = "{count} transformer blocks"', ""]
    for r in range(count):
        lines += [
            "[[problem]]",
            f'id = "b{r}"',
            f'title = "transformer block, copy {r}"',
            'operator = "transformer_block"',
            'dtype = "bf16"',
            f'peak = "{197 + r}e12"',
            f'bandwidth = "{819 + r}e9"',
            "",
        ]
    dest.write_text("\n".join(lines), encoding="utf-8")


def first_problems(source: Path, count: int, dest: Path) -> None:
    """The title and the first ``count`` [[problem]] tables of a generated set."""
    parts = source.read_text(encoding="utf-8").split("[[problem]]")
    dest.write_text("[[problem]]".join(parts[: count + 1]), encoding="utf-8")


def measure(argv: list[str], root: Path, stdout: Path | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s, peak KB) of one fresh process running derive from ``root``."""
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL  # noqa: SIM115
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "derive", *argv],
        cwd=root,
        env=_env(root),
        stdout=out,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if stdout:
        out.close()  # type: ignore[union-attr]
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {err[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="another derive checkout (the 'before' tree)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    trees = {"before": args.other.resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory(prefix="derive-big-") as d:
        tmp = Path(d)
        distinct_set(SET20, 22, tmp / "all.toml")
        first_problems(tmp / "all.toml", 500, tmp / "distinct500.toml")
        plotted_set(500, tmp / "plotted500.toml")
        blocks_set(500, tmp / "blocks500.toml")
        for name, root in trees.items():
            prepare(tmp / f"warmup-{name}", root)
        jobs = {
            f"{job} ({name})": (job, name, root)
            for job in KEYS + ("sweep",)
            for name, root in trees.items()
        }
        best: dict[str, tuple[float, float, int]] = {}
        for _ in range(args.repeats):
            for label, (job, name, root) in jobs.items():
                if job == "sweep":
                    m = measure(SWEEP, root, tmp / f"sweep-{name}.csv")
                else:
                    m = measure(
                        ["key", str(tmp / f"{job}.toml"), "-o", str(tmp / f"{job}-{name}")], root
                    )
                old = best.get(label, (float("inf"), 0.0, 0))
                best[label] = m if m[0] < old[0] else old
        print(f"{'command':<26}{'wall s':>9}{'CPU s':>9}{'peak MB':>10}")
        for label, (wall, cpu, kb) in best.items():
            print(f"{label:<26}{wall:>9.2f}{cpu:>9.2f}{kb / 1024:>10.0f}")
        for job in KEYS + ("sweep",):
            before, after = best[f"{job} (before)"][0], best[f"{job} (after)"][0]
            print(f"{job}: after is {before / after:.2f}x as fast as before")
        for job in KEYS:
            a, b = tmp / f"{job}-before", tmp / f"{job}-after"
            names = sorted(p.name for p in a.iterdir() if not p.name.startswith("."))
            same = filecmp.cmpfiles(a, b, names, shallow=False)[0] == names
            print(f"{job}: key files identical: {same}")
        same = filecmp.cmp(tmp / "sweep-before.csv", tmp / "sweep-after.csv", shallow=False)
        print(f"sweep: CSV identical: {same}")
        print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
