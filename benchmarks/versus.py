"""Two derive trees side by side: cold commands from each, interleaved, as ratios.

    git worktree add /tmp/old <commit>
    python benchmarks/versus.py /tmp/old            # this tree against /tmp/old

Both trees are prepared as benchmarks/run.py prepares this one (bytecode compiled, one
untimed key), then every command runs in turn, best of --repeats: the key of set20, a key of
230 distinct problems (set20 on ten sets of hardware numbers, ``run.distinct_set``), ``derive
solve`` of one matmul and ``derive chips``. Prints each time, the key's ratios to the naive sympy
script and to ``import sympy``, and whether the two trees wrote the same files.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

from run import NAIVE, ROOT, SET20, cold, distinct_set, key_command, prepare

SOLVE = [
    "-m",
    "derive",
    "solve",
    "matmul",
    "--dtype",
    "bf16",
    "--chip",
    "tpu-v5e",
    "--regime",
    "B << D, F",
]


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
        distinct = Path(d) / "distinct230.toml"
        distinct_set(SET20, 10, distinct)
        cmds = {
            f"key ({name})": (key_command(SET20, out[name]), root) for name, root in trees.items()
        }
        for name, root in trees.items():
            cmds[f"230 distinct ({name})"] = (key_command(distinct, Path(d) / f"d-{name}"), root)
            cmds[f"solve ({name})"] = (SOLVE, root)
            cmds[f"chips ({name})"] = (["-m", "derive", "chips"], root)
        cmds["naive sympy"] = ([str(NAIVE)], ROOT)
        cmds["import sympy"] = (["-c", "import sympy"], ROOT)
        best = {k: float("inf") for k in cmds}
        for _ in range(args.repeats):
            for k, (argv_, root) in cmds.items():
                best[k] = min(best[k], cold(argv_, root))
        same = filecmp.dircmp(out["other"], out["this"])
        identical = not (same.left_only or same.right_only or same.diff_files)
    for k, v in best.items():
        print(f"{k:22s} {v:.3f} s")
    for name in trees:
        k = best[f"key ({name})"]
        print(
            f"key ({name}): vs naive {k / best['naive sympy']:.2f}, vs import sympy {k / best['import sympy']:.2f}"
        )
    for what in ("230 distinct", "solve", "chips"):
        this, other = best[f"{what} (this)"], best[f"{what} (other)"]
        print(
            f"{what}: this / other {this / other:.2f}; this vs import sympy {this / best['import sympy']:.2f}"
        )
    print(f"key files identical: {identical}; best of {args.repeats}, interleaved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
