"""The key of set20 from two trees and the naive sympy script, cold, interleaved, N rounds.

    git archive <commit> | tar -x -C /tmp/old   # or: git worktree add /tmp/old <commit>
    python benchmarks/before_after.py /tmp/old 5

Prints, for each command, the best and the median wall time and the median CPU time (user +
system of the process and its workers, from ``getrusage``), and each key's ratio to the naive
script by each measure (issue 31 item 7 asks for ≤ 0.40); benchmarks/versus.py does the same
with more commands and a file comparison. CPU time is the steadier figure on a shared machine:
it does not count the time a process waits for a core.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
from pathlib import Path

from run import NAIVE, ROOT, SET20, cold, key_command, prepare


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: list[str], root: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds of one cold process (:func:`run.cold`)."""
    before = _cpu()
    wall = cold(argv, root)
    return wall, _cpu() - before


def main(argv: list[str]) -> int:
    old, repeats = Path(argv[0]).resolve(), int(argv[1]) if len(argv) > 1 else 5
    runs: dict[str, list[tuple[float, float]]] = {"before": [], "after": [], "naive": []}
    with tempfile.TemporaryDirectory() as d:
        prepare(Path(d) / "w0", old)
        prepare(Path(d) / "w1", ROOT)
        for _ in range(repeats):
            runs["before"].append(_timed(key_command(SET20, Path(d) / "o"), old))
            runs["after"].append(_timed(key_command(SET20, Path(d) / "n"), ROOT))
            runs["naive"].append(_timed([str(NAIVE)]))
    best = {k: min(w for w, _ in v) for k, v in runs.items()}
    median = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    for k in runs:
        print(f"{k:7s} best {best[k]:.3f} s  median {median[k]:.3f} s  CPU (median) {cpu[k]:.3f} s")
    for k in ("before", "after"):
        print(
            f"key ({k}) / naive: best {best[k] / best['naive']:.2f}  "
            f"median {median[k] / median['naive']:.2f}  CPU {cpu[k] / cpu['naive']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
