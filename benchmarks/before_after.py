"""The key of set20 from two trees and the naive sympy script, cold, interleaved, best of N.

    git archive <commit> | tar -x -C /tmp/old   # or: git worktree add /tmp/old <commit>
    python benchmarks/before_after.py /tmp/old 5

Prints each best time and each key's ratio to the naive script (issue 31 item 7 asks for
≤ 0.40); benchmarks/versus.py does the same with more commands and a file comparison.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from run import NAIVE, ROOT, SET20, cold, key_command, prepare


def main(argv: list[str]) -> int:
    old, repeats = Path(argv[0]).resolve(), int(argv[1]) if len(argv) > 1 else 5
    with tempfile.TemporaryDirectory() as d:
        prepare(Path(d) / "w0", old)
        prepare(Path(d) / "w1", ROOT)
        best = {"before": float("inf"), "after": float("inf"), "naive": float("inf")}
        for _ in range(repeats):
            best["before"] = min(best["before"], cold(key_command(SET20, Path(d) / "o"), old))
            best["after"] = min(best["after"], cold(key_command(SET20, Path(d) / "n"), ROOT))
            best["naive"] = min(best["naive"], cold([str(NAIVE)]))
    for k, v in best.items():
        print(f"{k:7s} {v:.3f} s")
    for k in ("before", "after"):
        print(f"key ({k}) / naive: {best[k] / best['naive']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
