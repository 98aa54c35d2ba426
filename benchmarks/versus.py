"""Two derive trees side by side: the cold key of set20 from each, interleaved, as ratios.

    git worktree add /tmp/old <commit>
    python benchmarks/versus.py /tmp/old            # this tree against /tmp/old

Both trees are prepared as benchmarks/run.py prepares this one (bytecode compiled, one
untimed key), then every command runs in turn, best of --repeats. Prints each key's time, its
ratios to the naive sympy script and to ``import sympy``, and whether the two trees wrote
the same files.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

from run import NAIVE, ROOT, SET20, cold, key_command, prepare


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "other", type=Path, help="another derive checkout (e.g. a git worktree of an older commit)"
    )
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    trees = {"other": args.other.resolve(), "this": ROOT}
    with tempfile.TemporaryDirectory(prefix="derive-versus-") as d:
        out = {name: Path(d) / name for name in trees}
        for name, root in trees.items():
            prepare(Path(d) / f"warmup-{name}", root)
        cmds = {
            f"key ({name})": (key_command(SET20, out[name]), root) for name, root in trees.items()
        }
        cmds["naive sympy"] = ([str(NAIVE)], ROOT)
        cmds["import sympy"] = (["-c", "import sympy"], ROOT)
        best = {k: float("inf") for k in cmds}
        for _ in range(args.repeats):
            for k, (argv_, root) in cmds.items():
                best[k] = min(best[k], cold(argv_, root))
        same = filecmp.dircmp(out["other"], out["this"])
        identical = not (same.left_only or same.right_only or same.diff_files)
    for k, v in best.items():
        print(f"{k:14s} {v:.3f} s")
    for name in trees:
        k = best[f"key ({name})"]
        print(
            f"key ({name}): vs naive {k / best['naive sympy']:.2f}, vs import sympy {k / best['import sympy']:.2f}"
        )
    print(f"key files identical: {identical}; best of {args.repeats}, interleaved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
