"""The baseline: derive the benchmark problems the textbook way, in plain sympy.

For each problem of a problem set (default: benchmarks/set20.toml): build FLOPs and
bytes from a small operator table, ``simplify`` the intensity, take the leading
order under the regime with ``limit`` (every growing dim scaled by t), and
``solve`` T_math = T_mem for the crossover, exactly and at leading order. No
rendering: this is only the algebra derive also does, so ``run.py`` can time one
against the other. It does not import derive; chip numbers are read from derive's
data file with tomllib, as a person would copy them from a datasheet.

    python benchmarks/naive_sympy.py [SET.toml] [--json] [--only ID,ID]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import sympy as sp
import tomllib

HERE = Path(__file__).resolve().parent
CHIPS = HERE.parent / "derive" / "data" / "chips.toml"

# bytes per element, and the peak each dtype computes at
WIDTH = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "fp4": sp.Rational(1, 2),
    "int4": sp.Rational(1, 2),
    "mxfp4": sp.Rational(17, 32),
    "nvfp4": sp.Rational(9, 16),
    "mxfp8": sp.Rational(33, 32),
}
COMPUTE = {"mxfp4": "fp4", "nvfp4": "fp4", "mxfp8": "fp8"}

# operator -> (dims, flops(d), [(tensor, role, shape(d))]); roles: r read, w write, c sent over the link
OPS = {
    "matmul": (
        "B D F",
        lambda d: 2 * d.B * d.D * d.F,
        [
            ("X", "r", lambda d: d.B * d.D),
            ("Y", "r", lambda d: d.D * d.F),
            ("Z", "w", lambda d: d.B * d.F),
        ],
    ),
    "matmul_per_example": (
        "B D F",
        lambda d: 2 * d.B * d.D * d.F,
        [
            ("X", "r", lambda d: d.B * d.D),
            ("Y", "r", lambda d: d.B * d.D * d.F),
            ("Z", "w", lambda d: d.B * d.F),
        ],
    ),
    "matmul_grouped": (
        "B D F G",
        lambda d: 2 * d.B * d.D * d.F,
        [
            ("X", "r", lambda d: d.B * d.D),
            ("Y", "r", lambda d: d.G * d.D * d.F),
            ("Z", "w", lambda d: d.B * d.F),
        ],
    ),
    "moe_matmul": (
        "B D F E k",
        lambda d: 2 * d.k * d.B * d.D * d.F,
        [
            ("X", "r", lambda d: d.B * d.D),
            ("W", "r", lambda d: d.E * d.D * d.F),
            ("Y", "w", lambda d: d.B * d.k * d.F),
        ],
    ),
    "matmul_sharded": (
        "B D F P",
        lambda d: 2 * d.B * d.D * d.F / d.P,
        [
            ("X", "r", lambda d: d.B * d.D / d.P),
            ("Y", "r", lambda d: d.D * d.F / d.P),
            ("Z", "w", lambda d: d.B * d.F),
            ("Z", "c", lambda d: d.B * d.F),
        ],
    ),
    "dot": (
        "N",
        lambda d: 2 * d.N - 1,
        [("x", "r", lambda d: d.N), ("y", "r", lambda d: d.N), ("z", "w", lambda d: 1)],
    ),
    "matvec": (
        "M N",
        lambda d: 2 * d.M * d.N,
        [("A", "r", lambda d: d.M * d.N), ("x", "r", lambda d: d.N), ("y", "w", lambda d: d.M)],
    ),
    "vector_add": (
        "N",
        lambda d: d.N,
        [("x", "r", lambda d: d.N), ("y", "r", lambda d: d.N), ("z", "w", lambda d: d.N)],
    ),
    "relu": ("N", lambda d: d.N, [("x", "r", lambda d: d.N), ("y", "w", lambda d: d.N)]),
    "layernorm": (
        "B D",
        lambda d: 7 * d.B * d.D,
        [
            ("x", "r", lambda d: d.B * d.D),
            ("gamma", "r", lambda d: d.D),
            ("beta", "r", lambda d: d.D),
            ("y", "w", lambda d: d.B * d.D),
        ],
    ),
    "attention": (
        "B T S N K H",
        lambda d: 4 * d.B * d.T * d.S * d.N * d.H,
        [
            ("q", "r", lambda d: d.B * d.T * d.N * d.H),
            ("k", "r", lambda d: d.B * d.S * d.K * d.H),
            ("v", "r", lambda d: d.B * d.S * d.K * d.H),
            ("o", "w", lambda d: d.B * d.T * d.N * d.H),
        ],
    ),
    "attention_materialized": (
        "B T S N K H",
        lambda d: 4 * d.B * d.T * d.S * d.N * d.H,
        [
            ("q", "r", lambda d: d.B * d.T * d.N * d.H),
            ("k", "r", lambda d: d.B * d.S * d.K * d.H),
            ("v", "r", lambda d: d.B * d.S * d.K * d.H),
            ("s", "r", lambda d: d.B * d.N * d.T * d.S),
            ("p", "r", lambda d: d.B * d.N * d.T * d.S),
            ("s", "w", lambda d: d.B * d.N * d.T * d.S),
            ("p", "w", lambda d: d.B * d.N * d.T * d.S),
            ("o", "w", lambda d: d.B * d.T * d.N * d.H),
        ],
    ),
}


class Dims(dict):
    __getattr__ = dict.__getitem__


def exact(text: str) -> sp.Rational:
    f = Fraction(text)
    return sp.Rational(f.numerator, f.denominator)


def load_chips() -> dict:
    chips = {}
    for name, table in tomllib.loads(CHIPS.read_text(encoding="utf-8")).items():
        peaks = {
            m.group(1): exact(v["value"])
            for k, v in table.items()
            if (m := re.match(r"peak_(\w+?)_(flop|op)_per_s$", k))
        }
        link = table.get("link_bytes_per_s")
        chips[name] = {
            "peaks": peaks,
            "hbm": exact(table["hbm_bytes_per_s"]["value"]),
            "link": exact(link["value"]) if link else None,
        }
    return chips


def _growing(regime: str) -> tuple[str, ...]:
    left, rel, right = re.match(r"^\s*(.+?)\s*(<<|>>|->)\s*(.+?)\s*$", regime).groups()
    side = right if rel == "<<" else left
    return tuple(n.strip() for n in side.split(","))


def _positive_roots(roots) -> list:
    return [r for r in roots if r.is_real is not False and r.is_positive is not False]


def derive_problem(prob: dict, chips: dict) -> dict:
    """FLOPs, bytes, intensity, leading order and crossovers for one problem, in plain sympy."""
    names, flops_of, tensors = OPS[prob["operator"]]
    d = Dims(
        {n: sp.Symbol(n, positive=True) for n in names.split()}
    )  # real: the crossover is not an integer
    dtypes = {t: prob.get("dtype") for t, _, _ in tensors} | prob.get("dtypes", {})
    flops = flops_of(d)
    byts = sum(WIDTH[dtypes[t]] * shape(d) for t, role, shape in tensors if role in "rw")
    reads = [dtypes[t] for t, role, _ in tensors if role == "r"]
    compute = prob.get("compute") or COMPUTE.get(
        max(reads, key=lambda n: WIDTH[n]), max(reads, key=lambda n: WIDTH[n])
    )
    chip = chips[prob["chip"]]
    P, W = chip["peaks"][COMPUTE.get(compute, compute)], chip["hbm"]
    x = d[prob.get("solve_for", "B" if "B" in d else names.split()[0])]
    bound = {d[k]: sp.Integer(v) for k, v in prob.get("set", {}).items()}
    others = {k: v for k, v in bound.items() if k != x}

    intensity = sp.simplify(flops / byts)
    ridge = P / W
    out = {"id": prob["id"], "flops": flops, "bytes": byts, "intensity": intensity, "ridge": ridge}
    roots = sp.solve(sp.Eq(flops.subs(others) / P, byts.subs(others) / W), x)
    out["crossover"] = _positive_roots(roots)
    out["min_compute_bound"] = [sp.ceiling(r) for r in out["crossover"] if r.is_number]
    if "regime" in prob:
        t = sp.Symbol("t", positive=True)
        scaled = intensity.subs(
            {d[g]: t * d[g] for g in _growing(prob["regime"])}, simultaneous=True
        )
        num, den = sp.fraction(sp.cancel(scaled))
        order = sp.degree(num, t) - sp.degree(den, t)
        leading = sp.limit(scaled / t**order, t, sp.oo)
        out["intensity_regime"] = leading
        out["crossover_regime"] = _positive_roots(sp.solve(sp.Eq(leading.subs(others), ridge), x))
    comm = sum(WIDTH[dtypes[t]] * shape(d) for t, role, shape in tensors if role == "c")
    if comm and chip["link"]:
        out["network_crossover"] = _positive_roots(
            sp.solve(sp.Eq(flops.subs(others) / P, comm.subs(others) / chip["link"]), x)
        )
    if all(s in bound for s in d.values()):
        out["t_math"], out["t_mem"] = flops.subs(bound) / P, byts.subs(bound) / W
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="?", default=str(HERE / "set20.toml"))
    ap.add_argument("--json", action="store_true", help="print every result as JSON (sympy str)")
    ap.add_argument("--only", help="comma list of problem ids")
    args = ap.parse_args(argv)
    data = tomllib.loads(Path(args.problems).read_text(encoding="utf-8"))
    only = set(args.only.split(",")) if args.only else None
    chips = load_chips()
    results = [derive_problem(p, chips) for p in data["problem"] if only is None or p["id"] in only]
    if args.json:
        conv = lambda v: [str(r) for r in v] if isinstance(v, list) else str(v)  # noqa: E731
        print(json.dumps([{k: conv(v) for k, v in r.items()} for r in results], indent=1))
    else:
        for r in results:
            print(
                f"{r['id']}: crossover {r['crossover']}, leading order {r.get('crossover_regime', '-')}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
