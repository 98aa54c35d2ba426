"""derive's own fast paths against the library calls they stand in for, in one run.

    python benchmarks/fast_paths.py [--repeats 3] [--problems 100]

Three places do by hand what sympy would do, each pinned to sympy by a property test
(tests/analysis/test_algebra.py, tests/present/test_key_figures.py), and each stays only while it saves at
least 20 % of something a user waits for. This times a key with the fast path and with the
library call put back (fresh processes, one worker, interleaved, best of ``--repeats``) and
checks both wrote the same files:

* ``values_at``: a plot's samples as integer arithmetic on the intensity's numerator and
  denominator, against ``sympy.Min(peak, intensity.subs(x, v) * bandwidth)`` per point, on
  a key of plotted problems (benchmarks/big_jobs.py ``plotted_set``).
* ``integer_factors``: a crossover's closed form of degree 1 in some dim factored with one
  gcd, against ``factor_list`` (Wang's algorithm), on a key of transformer blocks
  (benchmarks/big_jobs.py ``blocks_set``).
* ``probe_equal``: the question sheet's test that a doc's formula states an answer, a probe
  at distinct primes before ``cancel`` (tests/present/test_withheld.py), against ``cancel``
  alone, on set20's problems on distinct hardware numbers (benchmarks/run.py
  ``distinct_set``).
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from big_jobs import blocks_set, plotted_set
from run import ROOT, SET20, _env, distinct_set

LIBRARY = {
    "values_at": (
        "import sympy as sp, derive.present.key.figures as K\n"
        "K._attainable = lambda i, x, xs, p, b: tuple(sp.Min(p, i.subs(x, v) * b) for v in xs)\n"
    ),
    "integer_factors": (
        "import derive.analysis.algebra.ratios as R\n"
        "R.integer_factors = lambda p: list(p.factor_list()[1])\n"
    ),
    "probe_equal": (
        "import functools, sympy as sp, derive.present.withheld as W\n"
        "W._equal = functools.lru_cache(8192)(lambda a, b: bool(sp.cancel(a - b) == 0))\n"
    ),
}


def _distinct(count: int, dest: Path) -> None:
    """set20's problems on ``count // 23`` sets of hardware numbers (at least one)."""
    distinct_set(SET20, max(1, count // 23), dest)


SETS = {"values_at": plotted_set, "integer_factors": blocks_set, "probe_equal": _distinct}


def _key(setup: str, problem_set: Path, out: Path) -> float:
    code = setup + (
        "from derive.commands.cli import main\n"
        f"raise SystemExit(main(['key', {str(problem_set)!r}, '-o', {str(out)!r}, '--jobs', '1', '--quiet']))\n"
    )
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(), check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--problems", type=int, default=100)
    args = ap.parse_args(argv)
    print(f"{'fast path':<18}{'fast s':>9}{'library s':>11}{'saves':>8}  same files")
    with tempfile.TemporaryDirectory(prefix="derive-fast-") as d:
        tmp = Path(d)
        for name, setup in LIBRARY.items():
            problem_set = tmp / f"{name}.toml"
            SETS[name](args.problems, problem_set)
            fast = library = float("inf")
            for _ in range(args.repeats):
                fast = min(fast, _key("", problem_set, tmp / f"{name}-fast"))
                library = min(library, _key(setup, problem_set, tmp / f"{name}-library"))
            a, b = tmp / f"{name}-fast", tmp / f"{name}-library"
            names = sorted(p.name for p in a.iterdir())
            same = filecmp.cmpfiles(a, b, names, shallow=False)[0] == names
            print(f"{name:<18}{fast:>9.2f}{library:>11.2f}{1 - fast / library:>8.0%}  {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
