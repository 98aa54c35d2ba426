"""Cold commands from two trees, interleaved, N rounds: the key of set20 against the naive
sympy script, or (``--cold``) the built-in set's key and ``derive solve``.

    git archive <commit> | tar -x -C /tmp/old   # or: git worktree add /tmp/old <commit>
    python benchmarks/before_after.py /tmp/old 5
    python benchmarks/before_after.py /tmp/old 10 --cold

Prints, for each command, the best and the median wall time and the median CPU time (user +
system of the process and its workers, from ``getrusage``); without ``--cold``, each key's
ratio to the naive script by each measure (issue 31 item 7 asks for ≤ 0.40); with it, each
command's after/before ratio. benchmarks/versus.py does the same with more commands and a
file comparison. CPU time is the steadier figure on a shared machine: it does not count the
time a process waits for a core.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
from pathlib import Path

from run import NAIVE, ROOT, SET20, cold, key_command, prepare

BUILTIN = Path("derive") / "data" / "problems" / "rooflines.toml"  # relative: each tree's own
SOLVE = ["-m", "derive", "solve", "matmul", "--chip", "h100", "--dtype", "bf16"]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: list[str], root: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds of one cold process (:func:`run.cold`)."""
    before = _cpu()
    wall = cold(argv, root)
    return wall, _cpu() - before


def _report(runs: dict[str, list[tuple[float, float]]]) -> dict[str, tuple[float, float, float]]:
    """Each command's best wall, median wall and median CPU seconds, printed."""
    out = {}
    for k, v in runs.items():
        out[k] = (min(w for w, _ in v), statistics.median(w for w, _ in v))
        out[k] += (statistics.median(c for _, c in v),)
        best, median, cpu = out[k]
        print(f"{k:30s} best {best:.3f} s  median {median:.3f} s  CPU (median) {cpu:.3f} s")
    return out


def _cold(old: Path, repeats: int, d: Path) -> None:
    """The built-in key and ``derive solve``, each from both trees in turn, every round."""
    commands = {"key (built-in set)": key_command(BUILTIN, d / "k") + ["--quiet"], "solve": SOLVE}
    runs: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeats):
        for name, argv in commands.items():
            for tree, root in (("before", old), ("after", ROOT)):
                runs.setdefault(f"{name} {tree}", []).append(_timed(argv, root))
    figures = _report(runs)
    for name in commands:
        b, a = figures[f"{name} before"], figures[f"{name} after"]
        ratios = "  ".join(f"{m} {x / y:.2f}" for m, x, y in zip(("best", "median", "CPU"), a, b))
        print(f"{name} after / before: {ratios}")


def main(argv: list[str]) -> int:
    cold_only = "--cold" in argv
    argv = [a for a in argv if a != "--cold"]
    old, repeats = Path(argv[0]).resolve(), int(argv[1]) if len(argv) > 1 else 5
    with tempfile.TemporaryDirectory() as d:
        prepare(Path(d) / "w0", old)
        prepare(Path(d) / "w1", ROOT)
        if cold_only:
            _cold(old, repeats, Path(d))
            return 0
        runs: dict[str, list[tuple[float, float]]] = {"before": [], "after": [], "naive": []}
        for _ in range(repeats):
            runs["before"].append(_timed(key_command(SET20, Path(d) / "o"), old))
            runs["after"].append(_timed(key_command(SET20, Path(d) / "n"), ROOT))
            runs["naive"].append(_timed([str(NAIVE)]))
    best, median, cpu = ({k: v[i] for k, v in _report(runs).items()} for i in range(3))
    for k in ("before", "after"):
        print(
            f"key ({k}) / naive: best {best[k] / best['naive']:.2f}  "
            f"median {median[k] / median['naive']:.2f}  CPU {cpu[k] / cpu['naive']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
