"""The layout search of ``derive train --compare-strategies`` on large meshes: wall time.

    python benchmarks/search.py [--devices 1024] [--repeats 3]

Derives Llama 3 8B on DEVICES H100s (a mesh of 8-GPU NVLink nodes over InfiniBand, 4Mi tokens
per step) and times :func:`derive.training.search.search_strategies`: every factorization of
the devices into dp·tp·pp·ep·cp, every placement on the mesh, each recomputation at the
smallest ZeRO stage that fits. Prints the layouts derived, the best time of the repeats and the
best layout. Results go in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import time

from derive.pipeline import solve_training
from derive.training.search import search_strategies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    nodes = args.devices // 8
    run = solve_training(
        "llama-3-8b",
        chip="h100",
        dp=args.devices,
        batch_tokens=4194304,
        seq=4096,
        mesh=f"gpu=8@450GB/s,node={nodes}@50GB/s",
    ).analysis.problem
    best, rows = float("inf"), ()
    for _ in range(args.repeats):
        start = time.perf_counter()
        rows = search_strategies(run)
        best = min(best, time.perf_counter() - start)
    top = rows[0]
    print(
        f"{args.devices} devices: {len(rows)} layouts derived in {best:.2f} s (best of {args.repeats})"
    )
    if top.analysis is not None:
        print(
            f"best: {top.name}, ZeRO {int(top.zero)}, {top.placement}, t_lower {float(top.analysis.t_lower):.4g} s"
        )


if __name__ == "__main__":
    main()
