"""A class's answers graded whole: a generated answers file of N rows (default 20,000, the
most ``derive check --answers`` takes), graded by a cold ``derive check`` in one process.

    python benchmarks/grade_class.py [--rows 20000] [--seed 1] [--keep FILE]

The answers are to ``tests/sets/graded.toml`` (its nine answer boxes), typed the way a class
types them: most right, rounded to 3–5 significant figures, plain, in scientific notation,
with a unit or as LaTeX in ``$…$``; some with a named slip (×2, ×½, ×1000, GB for GiB); some
a wrong number near the answer (``--distinct``: every answer a number no other row has, the
worst case, nothing judged once for many). Prints the rows, the distinct answers among them (each is
judged once), the wall time of the command, answers per second, the CPU time of the
command and its workers (the steadier figure on a shared machine) and the verdicts' counts.
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "tests" / "sets" / "graded.toml"
SLIPS = (Fraction(2), Fraction(1, 2), Fraction(1000), Fraction(2**30, 10**9))


def _cpu() -> float:
    """User and system seconds of the finished child processes (and their workers)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _boxes() -> list[tuple[str, str, Fraction, str]]:
    """(problem, quantity, exact value, unit) for each answer box of the set."""
    sys.path.insert(0, str(ROOT))
    from derive.problem.sets.problem_set import load_problem_set
    from derive.web.book import build_workbook
    from derive.web.pool import grader_of

    pset = load_problem_set(SET)
    grader = grader_of(pset)
    out = []
    for pid, page in build_workbook(pset, hints=False).pages.items():
        for box in page.asked:
            expected = grader.check(pid, box.quantity, "1").expected or ""
            if "smallest compute-bound integer" in expected or "/(" in expected:
                out.append((pid, box.quantity, Fraction(121), ""))  # mm-v5e's threshold
                continue
            head, _, unit = expected.split(" ≈ ")[0].partition(" ")
            out.append((pid, box.quantity, Fraction(head), unit.strip()))
    return out


def _typed(value: Fraction, unit: str, rng: random.Random) -> str:
    digits = rng.choice((3, 4, 5))
    number = f"{float(value):.{digits}g}"
    style = rng.random()
    if style < 0.25 and unit:
        return f"{number} {unit}"
    if style < 0.4:
        return f"${number}$"
    if style < 0.5:
        return f"{float(value):.{digits - 1}e}"
    return number


def _answers(rows: int, seed: int, distinct: bool = False) -> list[tuple[str, str, str, str]]:
    rng = random.Random(seed)
    boxes = _boxes()
    out = []
    student = 0
    while len(out) < rows:
        student += 1
        for pid, quantity, value, unit in boxes:
            roll = rng.random()
            if roll < 0.25:
                value = value * rng.choice(SLIPS)
            elif roll < 0.4:
                value = value * Fraction(rng.randint(50, 150), 100)
            claim = _typed(value, unit, rng)
            if distinct:  # every answer its own: a digit string no other row has
                claim = f"{float(value) * (1 + len(out) * 1e-9):.12g}"
            out.append((f"s{student:05d}", pid, quantity, claim))
            if len(out) == rows:
                break
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", help="write the answers file here (else a temporary file)")
    p.add_argument("--distinct", action="store_true", help="every answer distinct (worst case)")
    args = p.parse_args(argv)
    answers = _answers(args.rows, args.seed, args.distinct)
    with tempfile.TemporaryDirectory() as d:
        path = Path(args.keep or Path(d) / "answers.csv")
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["who", "problem", "quantity", "claim"])
            w.writerows(answers)
        out = Path(d) / "verdicts.csv"
        command = [sys.executable, "-m", "derive", "check", "--problem-set", str(SET)]
        command += ["--answers", str(path), "-o", str(out), "--time-limit", "20"]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        started, cpu = time.perf_counter(), _cpu()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
        with out.open(encoding="utf-8") as f:
            verdicts = collections.Counter(row["verdict"] for row in csv.DictReader(f))
    distinct = len({a[1:] for a in answers})
    print(f"rows {len(answers)}, distinct answers {distinct}, exit {done.returncode}")
    print(f"wall {wall:.1f} s, {len(answers) / wall:.0f} answers/s; CPU {cpu:.1f} s (all workers)")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
