"""Issue 27's campaign in CI: 2,000 adversarial claims and a corpus of hostile problem sets.

Every claim gets a verdict (correct, correct at leading order, incorrect, or unreadable),
never an exception or a traceback, and each within its own budget: the claims are judged in
forked workers (:func:`derive.deadline.run_each`), so a claim that would run away fails the
test naming itself instead of hanging it. Every hostile set is answered by ``derive key``
with exit 0, or exit 2 and one ``error:`` line per error, without running its Python and
without writing anything.

The full campaign is marked ``campaign`` and runs in CI (``.ci/run``); the default suite
runs a deterministic sample of it. Nothing here asserts a time.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import run_cli

import derive
from derive.deadline import run_each
from derive.problem.binding import ProblemSpec

CLAIMS = 2_000
SAMPLE = 120
BUDGET = 20.0  # seconds per claim: a backstop, far above what a claim takes

SPECS = (
    ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e"),
    ProblemSpec("matmul", dtypes=("int8",), chip="h100", regime="B << D, F"),
    ProblemSpec("matmul", dtypes=("bf16",), chip="tpu-v5e", sets=("D=4096", "F=4096")),
)
QUANTITIES = ("intensity", "flops", "bytes", "crossover", "ridge", "t_math", "t_mem")
DIMS = ("B", "D", "F")
PIECES = (
    "B",
    "D",
    "F",
    "2",
    "3",
    "1/2",
    "0.5",
    "10^{9}",
    "\\pi",
    "\\beta",
    "2BDF",
    "BD+DF+BF",
    "\\frac{2BDF}{2BD+2DF+2BF}",
)


LEFT = ("B", "I", "B^*")
RELATIONS = ("=", "\\geq", ">", "<", "\\approx")
UNITS = ("ms", "FLOPs/byte", "GiB", "s", "B", "%", "TFLOP")


def _root(rng: random.Random) -> str:
    dim = rng.choice(DIMS)
    return f"{dim}^{{{rng.randint(1, 5)}/{rng.randint(2, 99)}}}"


def _term(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth > 2 or roll < 0.3:
        return rng.choice(PIECES) if rng.random() < 0.6 else _root(rng)
    a, b = _term(rng, depth + 1), _term(rng, depth + 1)
    return rng.choice(
        (
            f"({a}+{b})",
            f"({a}-{b})",
            f"{a} \\cdot {b}",
            f"\\frac{{{a}}}{{{b}}}",
            f"({a})^{{{rng.randint(-6, 12)}}}",
            f"({a}+{b})^{{{rng.choice([-3, -2, -1, 2, 3, 1 / 2])}}}",
        )
    )


def _claim(rng: random.Random) -> str:
    """One adversarial claim: roots of dims (issue 27 F1), big powers, relations, units, junk."""
    kind = rng.random()
    if kind < 0.55:
        return _term(rng, 0)
    if kind < 0.7:  # the F1 family
        return f"({_root(rng)}+{_root(rng)})^{{{rng.randint(-5, 5)}}}"
    if kind < 0.8:
        return f"{rng.choice(LEFT)} {rng.choice(RELATIONS)} {_term(rng, 1)}"
    if kind < 0.9:
        return f"{_term(rng, 1)} {rng.choice(UNITS)}"
    junk = ["\\", "{", "}", "^", "_", "²", "⁻¹", "×", "١", "１", "\x00", "'", "B" * 50]
    return "".join(rng.choice(junk + list(PIECES)) for _ in range(rng.randint(1, 12)))


def campaign(n: int, seed: int = 27) -> list[tuple[int, str, str]]:
    rng = random.Random(seed)
    return [(rng.randrange(len(SPECS)), rng.choice(QUANTITIES), _claim(rng)) for _ in range(n)]


def _judge(cases: list[tuple[int, str, str]]) -> list[str]:
    def one(i: int) -> str:
        spec, quantity, claim = cases[i]
        return derive.check(SPECS[spec], quantity, claim).verdict.value

    return run_each(
        one, len(cases), seconds=BUDGET, name=lambda i: f"claim {cases[i][2]!r} ({cases[i][1]})"
    )


VERDICTS = {"correct", "correct-leading-order", "incorrect", "unreadable"}


def test_a_sample_of_the_claims_gets_verdicts():
    cases = campaign(CLAIMS)[:: CLAIMS // SAMPLE]
    assert set(_judge(cases)) <= VERDICTS


@pytest.mark.campaign
def test_two_thousand_claims_get_verdicts():
    verdicts = _judge(campaign(CLAIMS))
    assert set(verdicts) <= VERDICTS
    assert {"incorrect", "unreadable"} <= set(verdicts)


# ---- hostile problem sets -------------------------------------------------------------------

OPERATOR = 'operator = "matmul"\ndtype = "bf16"\nchip = "tpu-v5e"\n'
MODEL = 'model = "llama-3-8b"\nchip = "h100"\n'


def _hostile_sets() -> list[tuple[str, str]]:
    """(name, TOML text): bad keys, types, numbers, sizes, names, kinds; Python never trusted."""
    head = 'title = "t"\n[[problem]]\nid = "q"\n'
    bodies = {
        "no problems": 'title = "t"\n',
        "problem not a table": 'title = "t"\nproblem = [1, 2]\n',
        "syntax": "title = \n",
        "deep": "a = " + "[" * 40 + "]" * 40 + "\n",
        "unknown key": head + OPERATOR + "colour = 1\n",
        "unknown top key": 'title = "t"\nextra = 1\n[[problem]]\nid = "q"\n' + OPERATOR,
        "python operators": 'title = "t"\noperators = ["evil.py"]\n[[problem]]\nid = "q"\n'
        + OPERATOR,
        "python operators path": 'title = "t"\noperators = ["../../evil.py"]\n[[problem]]\nid = "q"\n'
        + OPERATOR,
        "operators not strings": 'title = "t"\noperators = [1]\n[[problem]]\nid = "q"\n' + OPERATOR,
        "ask repeated": head + OPERATOR + 'ask = ["flops"' + ', "flops"' * 1000 + "]\n",
        "ask unknown": head + OPERATOR + 'ask = ["everything"]\n',
        "ask not a list": head + OPERATOR + 'ask = "flops"\n',
        "two kinds": head + OPERATOR + 'model = "gpt2-small"\n',
        "no kind": head,
        "id path": 'title = "t"\n[[problem]]\nid = "../x"\n' + OPERATOR,
        "id empty": 'title = "t"\n[[problem]]\nid = ""\n' + OPERATOR,
        "id long": 'title = "t"\n[[problem]]\nid = "' + "q" * 10_000 + '"\n' + OPERATOR,
        "ids repeated": head + OPERATOR + '[[problem]]\nid = "Q"\n' + OPERATOR,
        "title long": head + OPERATOR + 'title = "' + "t" * 100_000 + '"\n',
        "501 problems": 'title = "t"\n'
        + "".join(f'[[problem]]\nid = "q{i}"\n{OPERATOR}' for i in range(501)),
        "operator unknown": head + 'operator = "no_such_op"\ndtype = "bf16"\nchip = "tpu-v5e"\n',
        "operator long": head + 'operator = "' + "o" * 10_000 + '"\ndtype = "bf16"\n',
        "dtype unknown": head + 'operator = "matmul"\ndtype = "fp7"\nchip = "tpu-v5e"\n',
        "dtype and dtypes": head + OPERATOR + 'dtypes = { X = "bf16" }\n',
        "chip unknown": head + 'operator = "matmul"\ndtype = "bf16"\nchip = "tpu-v99"\n',
        "chip and peak": head + OPERATOR + 'peak = "1e15"\nbandwidth = "1e12"\n',
        "regime junk": head + OPERATOR + 'regime = "B <<< D"\n',
        "regime unknown dim": head + OPERATOR + 'regime = "B << Q"\n',
        "solve for unknown": head + OPERATOR + 'solve_for = "Q"\n',
        "expect unknown": head + OPERATOR + "expect = { everything = 1 }\n",
        "plot junk": head + OPERATOR + 'plot = { over = "Q", series = [] }\n',
        "plot huge": head
        + OPERATOR
        + 'plot = { over = "B", from = 1, to = 10000000000, series = [{ label = "x" }] }\n',
        "link bandwidth junk": head + OPERATOR + 'link_bandwidth = "fast"\n',
        "model unknown": head + 'model = "no-such-model"\nchip = "h100"\n',
        "model devices zero": head + MODEL + "devices = 0\n",
        "model devices huge": head + MODEL + "devices = 10000000000\n",
        "model mfu": head + MODEL + 'mfu = "1.5"\ntrain_tokens = "1e12"\nask = ["train_days"]\n',
        "model mfu words": head + MODEL + 'mfu = "most"\n',
        "model train tokens junk": head + MODEL + 'train_tokens = "lots"\n',
        "model ask unknown": head + MODEL + 'ask = ["everything"]\n',
        "model capacity junk": head + MODEL + 'capacity = "big"\n',
        "kernel no bytes": head + 'kernel = { flops = "1e12" }\nchip = "h100"\n',
        "kernel zero": head + 'kernel = { flops = "0", bytes = "0" }\nchip = "h100"\n',
        "kernel negative": head + 'kernel = { flops = "-1e12", bytes = "1e9" }\nchip = "h100"\n',
        "kernel words": head + 'kernel = { flops = "many", bytes = "1e9" }\nchip = "h100"\n',
        "operator table junk": 'title = "t"\n[[operator]]\nname = "x"\n[[problem]]\nid = "q"\n'
        + OPERATOR,
        "operator table code": 'title = "t"\n[[operator]]\nname = "x"\ndims = ["N"]\n'
        'flops = "__import__(\'os\')"\nreads = []\nwrites = []\n[[problem]]\nid = "q"\n'
        'operator = "x"\ndtype = "bf16"\nchip = "h100"\n',
        "nul byte": head + OPERATOR + 'text = "a\\u0000b"\n',
        "bidi": head + OPERATOR + 'title = "\u202eevil"\n',
    }
    for digits in ("١٦", "１６", "1_6", "0", "-4", "3.5", "9" * 5000):
        bodies[f"set {digits[:6]}"] = head + OPERATOR + f'set = {{ B = "{digits}" }}\n'
        bodies[f"peak {digits[:6]}"] = (
            head
            + f'operator = "matmul"\ndtype = "bf16"\npeak = "{digits}e12"\nbandwidth = "1e12"\n'
        )
        bodies[f"model set {digits[:6]}"] = head + MODEL + f'set = {{ B = "{digits}" }}\n'
    for key in ("measured_time", "launch_overhead", "mfu_ceiling", "efficiency"):
        for value in ("fast", "-1 ms", "1 parsec", "١ ms"):
            bodies[f"{key} {value}"] = head + OPERATOR + f'{key} = "{value}"\n'
    for key in ("chip", "dtype", "regime", "solve_for", "compute"):
        for value in ("", "x" * 3000, "\u202e", "../../etc/passwd"):
            table = 'operator = "matmul"\n' + "".join(
                f'{k} = "{v}"\n' for k, v in (("dtype", "bf16"), ("chip", "tpu-v5e")) if k != key
            )
            bodies[f"{key} {value[:6]!r}"] = head + table + f'{key} = "{value}"\n'
    return sorted(bodies.items())


HOSTILE_SETS = _hostile_sets()


def test_the_hostile_corpus_is_large():
    assert len(HOSTILE_SETS) >= 100


@pytest.mark.parametrize("name, text", HOSTILE_SETS, ids=[n for n, _ in HOSTILE_SETS])
def test_a_hostile_set_is_answered_in_lines(name, text, tmp_path: Path):
    canary = tmp_path / "canary"
    (tmp_path / "evil.py").write_text(f"open({str(canary)!r}, 'w').write('ran')\n")
    (tmp_path / "set.toml").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = run_cli(["key", str(tmp_path / "set.toml"), "-o", str(out), "--time-limit", "60"])
    assert r.code in (0, 2), r
    assert "Traceback" not in r.err
    if r.code == 2:
        lines = r.err.splitlines()
        assert r.err.endswith("\n") and 1 <= len(lines) <= 21, r
        assert all(line.startswith("error: ") and len(line) < 3_000 for line in lines), r
        assert not out.exists()
    assert not canary.exists()
