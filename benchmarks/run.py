"""Benchmarks: derive against plain sympy, as ratios measured side by side in one run.

    python benchmarks/run.py            # the full run (about a minute), prints a table, exits 0
    python benchmarks/run.py --quick    # one repeat each, smaller sizes (a smoke run)
    python benchmarks/run.py --profile  # also cProfile one in-process key build and print hot spots

Machines are shared and noisy, so every cold measurement is the best of a few runs
with the two commands interleaved, and results are reported as ratios; nothing here
asserts a time. Measurements:

(a) the full answer key of benchmarks/set20.toml (``python -m derive key``, a cold
    process: derive + Markdown + LaTeX + figures) against benchmarks/naive_sympy.py
    (a cold process that only derives the same problems with simplify/limit/solve);
(b) the same key against ``python -c "import sympy"``;
(c) the marginal cost of a problem: a key of the set repeated 10 times minus the key
    of the set, divided by the extra problems;
(d) a 12-part composite layer derived and rendered (Markdown and LaTeX) warm;
(e) a 10^6-point sweep: ``sweep_arrays`` alone, and with the CSV text written by derive's
    numpy writer and, side by side, by Python's %-formatting (the same text): the writer
    stays only while it saves at least 20 % of the sweep.
(f) ``derive model`` of a 70B-class model with every quantity (cold) against
    ``derive solve matmul`` (cold);
(g) the cold start of every command against ``import sympy`` (goal: within 2x);
(h) ``derive model`` of a config-loaded 671B MoE with latent attention (DeepSeek-V3's
    config.json, read and derived, cold) against ``derive model llama-3-8b`` (cold; goal:
    within 1.5x);
(i) ``derive train llama-3-70b --compare-strategies`` on a mesh of 8-GPU H100 nodes
    (NVLink inside, InfiniBand between) of 1,024 and of 8,960 devices, two sequences of 4,096
    tokens per device, cold, against ``import sympy`` in the same run (goal: under 2 s for
    8,960 devices).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SET20 = HERE / "set20.toml"
NAIVE = HERE / "naive_sympy.py"
if str(ROOT) not in sys.path:  # run from a checkout: measure this tree's derive
    sys.path.insert(0, str(ROOT))

GOALS = {"a": 0.4, "b": 2.5, "c": 15.0, "e": 1.0, "f": 1.5, "g": 2.0, "h": 1.5, "i": 2.0}


def _env(root: Path = ROOT) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    return env


def cold(argv: list[str], root: Path = ROOT, env: dict | None = None) -> float:
    """Wall time of one fresh Python process running derive from ``root`` (fails loudly if it fails)."""
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, *argv],
        cwd=root,
        env=env or _env(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {r.returncode}: {r.stderr.strip()[-500:]}")
    return elapsed


def best_interleaved(commands: list[list[str]], repeats: int) -> list[float]:
    """Best time of each command over ``repeats`` rounds, the commands taking turns."""
    best = [float("inf")] * len(commands)
    for _ in range(repeats):
        for i, argv in enumerate(commands):
            best[i] = min(best[i], cold(argv))
    return best


def key_command(problem_set: Path, out_dir: Path) -> list[str]:
    return ["-m", "derive", "key", str(problem_set), "-o", str(out_dir)]


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def repeated_set(source: Path, times: int, dest: Path, first: int | None = None) -> int:
    """Write ``source``'s problems (the first ``first`` of them) ``times`` over with distinct ids; returns the count."""
    data = tomllib.loads(source.read_text(encoding="utf-8"))
    problems = data["problem"][:first] if first else data["problem"]
    lines = [f"title = {_toml(data['title'] + f' (x{times})')}", ""]
    for r in range(times):
        for p in problems:
            lines.append("[[problem]]")
            lines += [
                f"{k} = {_toml(f'{v}-r{r}' if k == 'id' and times > 1 else v)}"
                for k, v in p.items()
            ]
            lines.append("")
    dest.write_text("\n".join(lines), encoding="utf-8")
    return len(problems) * times


def distinct_set(source: Path, times: int, dest: Path) -> int:
    """Write ``source``'s problems ``times`` over, each copy on other hardware numbers; returns the count.

    Copy ``r`` replaces the chip by given numbers (peak ``(197 + r)e12`` FLOP/s, bandwidth
    ``(819 + r)e9`` B/s, link ``(45 + r)e9`` B/s), so every problem of the set is distinct:
    nothing a key remembers for one copy (a crossover, a cancelled intensity) serves another.
    """
    data = tomllib.loads(source.read_text(encoding="utf-8"))
    lines = [f"title = {_toml(data['title'] + f' ({times} distinct copies)')}", ""]
    for r in range(times):
        for p in data["problem"]:
            problem = {
                k: v
                for k, v in p.items()
                if k not in ("chip", "peak", "bandwidth", "link_bandwidth")
            }
            problem["id"] = f"{p['id']}-d{r}"
            problem["peak"] = f"{197 + r}e12"
            problem["bandwidth"] = f"{819 + r}e9"
            problem["link_bandwidth"] = f"{45 + r}e9"
            lines.append("[[problem]]")
            lines += [
                f"{k} = {_toml(v)}"
                for k, v in problem.items()
                if not isinstance(v, dict) or k != "plot"
            ]
            if "plot" in problem:
                lines.append("[problem.plot]")
                lines += [f"{k} = {_toml(v)}" for k, v in problem["plot"].items()]
            lines.append("")
    dest.write_text("\n".join(lines), encoding="utf-8")
    return len(data["problem"]) * times


# --- measurements -----------------------------------------------------------------------------------


FLOOR = (
    "import gc; gc.disable(); import sympy, jinja2; gc.freeze(); gc.enable(); sympy.Symbol('x') + 1"
)
"""What every key pays before derive's own code runs: Python, sympy, jinja2, and the
lazy import sympy makes on its first ``Add``, imported the way derive's command line imports
them (the cycle collector paused, then the loaded objects frozen: ``derive.commands.cli.load_engine``).
(a) can be no better than floor ÷ naive."""


def measure_key(tmp: Path, repeats: int) -> dict:
    """(a) and (b): the cold key against the naive script and against importing sympy; and the floor."""
    key, naive, imp, floor = best_interleaved(
        [key_command(SET20, tmp / "key"), [str(NAIVE)], ["-c", "import sympy"], ["-c", FLOOR]],
        repeats,
    )
    return {"key": key, "naive": naive, "sympy": imp, "floor": floor}


def measure_marginal(tmp: Path, repeats: int, times: int = 10, first: int | None = None) -> dict:
    """(c): (key of the set ×times − key of the set) / extra problems."""
    one, many = tmp / "x1.toml", tmp / f"x{times}.toml"
    n1 = repeated_set(SET20, 1, one, first)
    nk = repeated_set(SET20, times, many, first)
    t1, tk = best_interleaved(
        [key_command(one, tmp / "k1"), key_command(many, tmp / "kn")], repeats
    )
    return {"t1": t1, "tk": tk, "n1": n1, "nk": nk, "per_problem": (tk - t1) / (nk - n1)}


BLOCK_FILE = '''"""A 12-part pre-norm transformer block, declared for the benchmark."""
from derive import Composite, Operator, Tensor, dims

_b, _d, _f, _n = dims("b d f n")
_t, _s, _h, _k, _q = dims("t s h k q")
_matmul = Operator(name="bench_mm", flops=2 * _b * _d * _f,
                   reads=[Tensor("X", (_b, _d)), Tensor("Y", (_d, _f))], writes=[Tensor("Z", (_b, _f))])
_attention = Operator(name="bench_attn", flops=4 * _b * _t * _s * _q * _h,
                      reads=[Tensor("q", (_b, _t, _q, _h)), Tensor("k", (_b, _s, _k, _h)), Tensor("v", (_b, _s, _k, _h))],
                      writes=[Tensor("o", (_b, _t, _q, _h))])
_norm = Operator(name="bench_norm", flops=7 * _b * _d,
                 reads=[Tensor("x", (_b, _d)), Tensor("gamma", (_d,)), Tensor("beta", (_d,))], writes=[Tensor("y", (_b, _d))])
_add = Operator(name="bench_add", flops=_n, reads=[Tensor("x", (_n,)), Tensor("y", (_n,))], writes=[Tensor("z", (_n,))])
_relu = Operator(name="bench_relu", flops=_n, reads=[Tensor("x", (_n,))], writes=[Tensor("y", (_n,))])

B, T, S, d_model, d_ff, N, K, H = dims("B T S d_model d_ff N K H")
bench_block = Composite(
    name="bench_block",
    parts=[
        ("norm1", _norm, {_b: B * T, _d: d_model}),
        ("q_proj", _matmul, {_b: B * T, _d: d_model, _f: N * H}),
        ("kv_proj", _matmul, {_b: B * T, _d: d_model, _f: 2 * K * H}),
        ("attn", _attention, {_b: B, _t: T, _s: S, _q: N, _k: K, _h: H}),
        ("o_proj", _matmul, {_b: B * T, _d: N * H, _f: d_model}),
        ("residual1", _add, {_n: B * T * d_model}),
        ("norm2", _norm, {_b: B * T, _d: d_model}),
        ("gate", _matmul, {_b: B * T, _d: d_model, _f: d_ff}),
        ("up", _matmul, {_b: B * T, _d: d_model, _f: d_ff}),
        ("act", _relu, {_n: B * T * d_ff}),
        ("down", _matmul, {_b: B * T, _d: d_ff, _f: d_model}),
        ("residual2", _add, {_n: B * T * d_model}),
    ],
    fused=[("up", "act"), ("act", "down")],
    doc="Benchmark block: norms, Q/KV/O projections, attention, gated MLP, residual adds.",
)
'''
BLOCK_SET = {"T": 1, "S": 4096, "d_model": 8192, "d_ff": 28672, "N": 64, "K": 8, "H": 128}


def measure_composite(tmp: Path, repeats: int) -> dict:
    """(d): derive.solve + .markdown() + .latex() of a 12-part layer, warm (after a first call)."""
    import derive
    import derive.pipeline

    path = tmp / "bench_block.py"
    path.write_text(BLOCK_FILE, encoding="utf-8")

    def once() -> tuple[int, int]:
        d = derive.solve("bench_block", dtype="bf16", chip="h100", set=BLOCK_SET, operators=(path,))
        return len(d.markdown()), len(d.latex())

    t = time.perf_counter()
    once()
    first = time.perf_counter() - t
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        once()
        best = min(best, time.perf_counter() - t)
    return {"first": first, "warm": best, "parts": 12}


def measure_sweep(side: int, repeats: int) -> dict:
    """(e): matmul over B = 1..side × D = 1..side (F = 8192, bf16 on h100)."""
    from derive.pipeline import solve
    from derive.present.sweep.grid import grid_of, parse_over
    from derive.present.sweep.values import sweep_arrays, sweep_csv

    a = solve("matmul", dtype="bf16", chip="h100", set={"F": 8192}).analysis
    axes = [
        parse_over(f"B=1..{side}", a.problem.operator.dims),
        parse_over(f"D=1..{side}", a.problem.operator.dims),
    ]
    arrays = csv = plain = float("inf")
    size = 0
    for _ in range(repeats):
        t = time.perf_counter()
        sweep_arrays(a, grid_of(axes))
        arrays = min(arrays, time.perf_counter() - t)
        t = time.perf_counter()
        size = len(sweep_csv(a, axes))
        csv = min(csv, time.perf_counter() - t)
        t = time.perf_counter()
        sweep_csv(a, axes, plain=True)
        plain = min(plain, time.perf_counter() - t)
    return {
        "points": side * side,
        "arrays": arrays,
        "csv": csv,
        "plain": plain,
        "csv_mb": size / 1e6,
    }


MODEL_COMMAND = [
    "-m", "derive", "model", "llama-3-70b", "--chip", "h100", "--devices", "8",
    "--set", "B=32", "--set", "S=8192", "--train-tokens", "15e12", "--mfu", "0.4",
    "--measured-tokens-per-s", "400", "--state-bytes", "adam-mixed",
]  # fmt: skip
MATMUL_COMMAND = ["-m", "derive", "solve", "matmul", "--dtype", "bf16", "--chip", "h100"]


COMMANDS = {
    "derive --help": ["-m", "derive", "--help"],
    "derive chips": ["-m", "derive", "chips"],
    "derive operators": ["-m", "derive", "operators"],
    "derive solve": ["-m", "derive", "solve", "matmul", "--dtype", "bf16", "--chip", "tpu-v5e"],
    "derive check": [
        "-m", "derive", "check", "matmul", "--dtype", "bf16", "--chip", "tpu-v5e",
        "--quantity", "ridge", "--claim", "240",
    ],
    "derive compare": ["-m", "derive", "compare", "matmul", "--dtype", "bf16", "--chips", "h100,a100"],
    "derive model": ["-m", "derive", "model", "gpt2-small"],
    "derive serve --help": ["-m", "derive", "serve", "--help"],
}  # fmt: skip


def measure_cold_start(repeats: int) -> dict:
    """(g): each command cold against ``import sympy`` (interleaved; a command may fail: timed anyway)."""
    names = ["import sympy", *COMMANDS]
    argvs = [["-c", "import sympy"], *COMMANDS.values()]
    best = [float("inf")] * len(argvs)
    for _ in range(repeats):
        for i, argv in enumerate(argvs):
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, *argv],
                cwd=ROOT,
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            best[i] = min(best[i], time.perf_counter() - t)
    return dict(zip(names, best))


def measure_model(repeats: int) -> dict:
    """(f): the full worked solution of a 70B-class model, cold, against a single matmul's, cold."""
    model, matmul = best_interleaved([MODEL_COMMAND, MATMUL_COMMAND], repeats)
    return {"model": model, "matmul": matmul}


CONFIG_671B = ROOT / "derive" / "data" / "problems" / "configs" / "deepseek-v3.json"
CONFIG_COMMAND = ["-m", "derive", "model", str(CONFIG_671B), "--chip", "h100", "--devices", "8"]
CONFIG_COMMAND += ["--dtype", "weights=fp8", "--set", "B=8", "--set", "S=8192"]
LLAMA_8B_COMMAND = ["-m", "derive", "model", "llama-3-8b", "--chip", "h100", "--devices", "8"]
LLAMA_8B_COMMAND += ["--set", "B=8", "--set", "S=8192"]


def measure_config_model(repeats: int) -> dict:
    """(h): a 671B MoE read from its config.json and derived, cold, against llama-3-8b, cold."""
    config, builtin = best_interleaved([CONFIG_COMMAND, LLAMA_8B_COMMAND], repeats)
    return {"config": config, "builtin": builtin}


SEARCH_DEVICES = (1024, 8960)


def search_command(devices: int) -> list[str]:
    """``derive train --compare-strategies`` of Llama 3 70B on ``devices`` H100s, 8 a node."""
    batch = 2 * devices * 4096  # two sequences per device: every dp of the search splits it
    mesh = f"gpu=8@450GB/s,node={devices // 8}@50GB/s"
    return ["-m", "derive", "train", "llama-3-70b", "--chip", "h100", "--dp", str(devices)] + [
        "--zero", "1", "--batch-tokens", str(batch), "--seq", "4096", "--mesh", mesh,
        "--compare-strategies",
    ]  # fmt: skip


def measure_search(repeats: int) -> dict:
    """(i): the layout search cold on 1,024 and 8,960 devices, against ``import sympy``: the
    best wall time and the best CPU time (user + system, of the process) of each, interleaved;
    on a shared machine the CPU time is the steadier of the two."""
    import resource

    names = ["sympy", *SEARCH_DEVICES]
    argvs = [["-c", "import sympy"], *(search_command(n) for n in SEARCH_DEVICES)]
    wall, cpu = dict.fromkeys(names, float("inf")), dict.fromkeys(names, float("inf"))
    for _ in range(repeats):
        for name, argv in zip(names, argvs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall[name] = min(wall[name], cold(argv))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[name] = min(cpu[name], used)
    return {"wall": wall, "cpu": cpu}


def profile_key(top: int = 25) -> str:
    """cProfile of one in-process key build of set20 (after imports); the top functions by own and total time."""
    import cProfile
    import io
    import pstats

    from derive.pipeline.key import build_key
    from derive.problem.sets.problem_set import load_problem_set

    pset = load_problem_set(SET20)
    prof = cProfile.Profile()
    prof.enable()
    build_key(pset, "set20")
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


# --- report -----------------------------------------------------------------------------------------


def _row(
    name: str, derive: str, baseline: str, ratio: str, goal: str, met: bool | None
) -> list[str]:
    return [name, derive, baseline, ratio, goal, "—" if met is None else ("yes" if met else "NO")]


def table(rows: list[list[str]]) -> str:
    head = ["measurement", "derive", "baseline", "ratio", "goal", "met?"]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths))  # noqa: E731
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def prepare(tmp: Path, root: Path = ROOT) -> None:
    """Put derive in the state an installed copy is in, as sympy already is.

    ``pip install`` compiles a package's bytecode, and sympy is measured with its
    installed ``__pycache__``; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    recompile every derive module in every cold process instead. So: compile derive
    and the built-in operators once, and build one untimed key that may write bytecode.
    """
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            str(root / "derive"),
            str(root / "operators"),
            str(root / "models"),
        ],
        check=True,
    )
    writes = {k: v for k, v in _env(root).items() if k != "PYTHONDONTWRITEBYTECODE"}
    cold(key_command(SET20, tmp / "warmup"), root, writes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="derive benchmarks (ratios measured side by side)")
    ap.add_argument("--quick", action="store_true", help="one repeat, smaller sizes: a smoke run")
    ap.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="rounds per cold measurement (default 3; 1 with --quick)",
    )
    ap.add_argument("--profile", action="store_true", help="also profile one in-process key build")
    args = ap.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    rows = []
    with tempfile.TemporaryDirectory(prefix="derive-bench-") as d:
        tmp = Path(d)
        prepare(tmp)
        k = measure_key(tmp, repeats)
        ra, rb = k["key"] / k["naive"], k["key"] / k["sympy"]
        rows.append(
            _row(
                "(a) key of set20, cold vs naive sympy",
                f"{k['key']:.2f} s",
                f"{k['naive']:.2f} s",
                f"{ra:.2f}",
                "<= 0.4",
                ra <= GOALS["a"],
            )
        )
        rows.append(
            _row(
                "    floor (no derive code) vs naive sympy",
                f"{k['floor']:.2f} s",
                f"{k['naive']:.2f} s",
                f"{k['floor'] / k['naive']:.2f}",
                "—",
                None,
            )
        )
        rows.append(
            _row(
                "    derive's own share of the key",
                f"{k['key'] - k['floor']:.2f} s",
                "—",
                "—",
                f"<= {GOALS['a'] * k['naive'] - k['floor']:.2f} s",
                None,
            )
        )
        rows.append(
            _row(
                "(b) key of set20, cold vs import sympy",
                f"{k['key']:.2f} s",
                f"{k['sympy']:.2f} s",
                f"{rb:.2f}",
                "<= 2.5",
                rb <= GOALS["b"],
            )
        )
        m = measure_marginal(
            tmp, repeats, times=2 if args.quick else 10, first=3 if args.quick else None
        )
        ms = 1000 * m["per_problem"]
        rows.append(
            _row(
                f"(c) marginal per problem ({m['nk']} vs {m['n1']} problems)",
                f"{ms:.1f} ms",
                f"{m['tk']:.2f} s - {m['t1']:.2f} s",
                "—",
                "<= 15 ms",
                ms <= GOALS["c"],
            )
        )
        c = measure_composite(tmp, repeats)
        rows.append(
            _row(
                "(d) 12-part composite, solve+md+tex warm",
                f"{c['warm']:.3f} s",
                f"first {c['first']:.2f} s",
                "—",
                "—",
                None,
            )
        )
        s = measure_sweep(100 if args.quick else 1000, repeats)
        rows.append(
            _row(
                f"(e) sweep_arrays, {s['points']:.0e} points",
                f"{s['arrays']:.3f} s",
                "—",
                "—",
                "<= 1 s",
                s["arrays"] <= GOALS["e"],
            )
        )
        rows.append(
            _row(
                f"(e) sweep arrays + CSV ({s['csv_mb']:.0f} MB) vs %-formatting",
                f"{s['csv']:.3f} s",
                f"{s['plain']:.3f} s",
                f"{s['csv'] / s['plain']:.2f}",
                "<= 0.8",
                s["csv"] <= 0.8 * s["plain"],
            )
        )
        f = measure_model(repeats)
        rf = f["model"] / f["matmul"]
        rows.append(
            _row(
                "(f) derive model llama-3-70b vs solve matmul, cold",
                f"{f['model']:.2f} s",
                f"{f['matmul']:.2f} s",
                f"{rf:.2f}",
                "< 1.5",
                rf < GOALS["f"],
            )
        )
        h = measure_config_model(repeats)
        rh = h["config"] / h["builtin"]
        rows.append(
            _row(
                "(h) derive model <671B MoE config.json> vs llama-3-8b, cold",
                f"{h['config']:.2f} s",
                f"{h['builtin']:.2f} s",
                f"{rh:.2f}",
                "<= 1.5",
                rh <= GOALS["h"],
            )
        )
        t = measure_search(repeats)
        for devices in SEARCH_DEVICES:
            goal = devices == SEARCH_DEVICES[-1]
            for clock, seconds in t.items():
                rows.append(
                    _row(
                        f"(i) train --compare-strategies, {devices:,} devices vs import sympy, {clock}",
                        f"{seconds[devices]:.2f} s",
                        f"{seconds['sympy']:.2f} s",
                        f"{seconds[devices] / seconds['sympy']:.2f}",
                        "< 2 s" if goal else "—",
                        seconds[devices] < GOALS["i"] if goal else None,
                    )
                )
        starts = measure_cold_start(repeats)
        base = starts.pop("import sympy")
        for name, seconds in starts.items():
            rows.append(
                _row(
                    f"(g) cold start: {name}",
                    f"{seconds:.2f} s",
                    f"{base:.2f} s",
                    f"{seconds / base:.2f}",
                    "<= 2",
                    seconds / base <= GOALS["g"],
                )
            )
    print(table(rows))
    print(
        f"\nbest of {repeats}, cold processes interleaved; python {sys.version.split()[0]}; {os.cpu_count()} CPUs;"
        " derive's bytecode compiled, as after pip install and a first run"
    )
    if args.profile:
        print("\nprofile of one in-process key build of set20 (imports excluded):\n")
        print(profile_key())
    return 0


if __name__ == "__main__":
    sys.exit(main())
