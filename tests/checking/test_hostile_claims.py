"""Hostile and malformed claims given to ``derive check``: exit 2, one line on stderr, nothing run.

The cases follow the categories of shared/cases/hostile-inputs.md (code
injection, resource, malformed, control characters, not an expression, unknown
symbol, division by zero, bad problem), each with more of our own. Most run
in-process; one subprocess per category checks the real command line, with a
canary file that the injection strings would create if they ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import ROOT, run_cli

BASE = ["check", "matmul", "--dtype", "bf16", "--chip", "tpu-v5e", "--quantity", "intensity"]
SECONDS = 5.0

CASES: dict[str, list[str]] = {
    "code injection": [
        "__import__('os').system('touch canary')",
        "B.__class__.__mro__",
        r"\immediate\write18{touch canary}",
        r"\input{/etc/passwd}",
        "().__class__",
        "lambda: 0",
        r"\def\x{}",
        r"\catcode",
        r"\csname touch canary\endcsname",
        "2 $B$",  # one pair around the whole answer is math, dropped (issue 47)
        "B; import os",
        "open('canary', 'w')",
        "B.__globals__",
        'exec(\'open("canary","w")\')',
        r"\write18{touch canary}",
        r"\begin{verbatim}x\end{verbatim}",
        "B if 1 else D",
        "[B for B in ()]",
        "B@D",
        "`touch canary`",
        "$(touch canary)",
    ],
    "resource": [
        "10**10**10",
        "10^{10^{10}}",
        "(((9**64)**64)**64)**64",
        "(" * 400 + "B" + ")" * 400,
        "(" * 60 + "B" + ")" * 60,
        "+".join(["B"] * 100_000),
        "1" * 5000,
        "B" * 3000,
        "1e99999",
        "9^9^9^9",
        "B^(10000)",
        "(B+D+F+1)^{64}",
        "((B+D+F+1)^{8})^{8}",
        r"\frac{1}{(B+2D+3F+5)^{4}} + \frac{1}{(3B+D+7F+1)^{4}} + \frac{1}{(B+D+F+1)^{4}} + \frac{1}{(B+D+F+3)^{3}}",
        r"\frac{" * 60 + "B" + "}{2}" * 60,
        "2^{2^{2^{2^{2^{2}}}}}",
    ],
    "malformed": [
        r"\frac{2BDF}{2BD+2DF",
        "x +",
        r"\frac{B}{}",
        "B +",
        "* B",
        "()",
        "B)",
        "(B",
        r"\frac",
        r"\left( B",
        "B[0]",
        "1..2",
        "",
        "   ",
        r"\frac{B}{D}{F}}",
        "B_",
        "2 ^",
    ],
    "control characters": [
        "B\x00D",
        "B\u202eD",
        "B\u200bD",
        "B\nD",
        "B\rD",
        "\ufeffB",
        "B\x1b[31mD",
        "B\u2028D",
        "B\x7fD",
    ],
    "not an expression": [
        "1 < B < 3",
        "B == D",
        "B = D",
        r"B \approx D",
        r"B \le D",
        "B != D",
        "B ≤ D",
        "B -> oo",
    ],
    "unknown symbol": [
        r"\frac{2BDQ}{2BD}",
        "Q",
        "x",
        r"\gamma",  # \pi and \beta are the problem's peak and bandwidth (issue 15): readable
        r"\mathrm{B_x}",
        "sin(B)",
        "e",
        "I",
    ],
    "division by zero": [
        "B/0",
        r"\frac{1}{0}",
        "1/(B-B)",
        "0^{-1}",
        "(D-D)^{-1}",
        r"\frac{B}{0.0}",
    ],
}

BAD_PROBLEMS: list[list[str]] = [
    ["--set", "D=0"],
    ["--set", "B=-4"],
    ["--set", "D=3.5"],
    ["--set", "Q=7"],
    ["--dtype", "fp7"],
    ["--dtype", "Q=bf16"],
    ["--regime", "B <<< D"],
    ["--regime", "B << Q"],
    ["--rtol", "-0.1"],
    ["--rtol", "1e400"],
    ["--rtol", "nan"],
    ["--syntax", "python"],
]

PARAMS = [
    pytest.param(cat, text, id=f"{cat}-{i}")
    for cat, texts in CASES.items()
    for i, text in enumerate(texts)
]


def _assert_refused(code: int, out: str, err: str) -> None:
    assert code == 2, (code, out, err)
    assert out == ""
    assert err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize("category, text", PARAMS)
def test_hostile_claim_in_process(category, text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    r = run_cli(BASE + ["--claim", text])
    assert time.monotonic() - start < SECONDS
    _assert_refused(r.code, r.out, r.err)
    assert list(tmp_path.iterdir()) == []  # no canary, nothing written


@pytest.mark.parametrize("extra", BAD_PROBLEMS, ids=lambda e: " ".join(e))
def test_bad_problem(extra, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli(BASE + ["--claim", "B"] + extra)
    _assert_refused(r.code, r.out, r.err)


@pytest.mark.parametrize(
    "text",
    [
        "I = __import__('os').system('touch canary')",
        r"I = \immediate\write18{touch canary}",
        "I = " + "(" * 400 + "B" + ")" * 400,
        "I = B\x00D",
        r"I = B \le D",
        r"I = \frac{2BDQ}{2BD}",
        "I = B/0",
        "= B",
        "I =",
        r"\text{speed} = B",
    ],
)
def test_hostile_chain_line(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chain.tex").write_text(text + "\n", encoding="utf-8")
    r = run_cli(BASE[:-2] + ["--chain", "chain.tex"])
    _assert_refused(r.code, r.out, r.err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.tex"]


def _subprocess(argv: list[str], cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "derive", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


@pytest.mark.parametrize("category", [c for c in CASES if c != "control characters"])
def test_hostile_claims_subprocess(category, tmp_path):
    """One real process per case for the injections, two per other category (argv cannot carry NUL: control characters stay in-process)."""
    for text in CASES[category][: 4 if category == "code injection" else 1]:
        start = time.monotonic()
        r = _subprocess(BASE + ["--claim", text], tmp_path)
        assert time.monotonic() - start < 20  # interpreter start-up included
        _assert_refused(r.returncode, r.stdout, r.stderr)
        assert not (tmp_path / "canary").exists()
    assert list(tmp_path.iterdir()) == []


def test_bidi_and_zero_width_subprocess(tmp_path):
    for text in ("B\u202eD", "B\u200bD", "B\x1bD"):
        r = _subprocess(BASE + ["--claim", text], tmp_path)
        _assert_refused(r.returncode, r.stdout, r.stderr)
        assert "\u202e" not in r.stderr and "\x1b" not in r.stderr  # escaped in the message


# ---- units and relations as attack vectors (issue 15) ---------------------------------------

UNIT_AND_RELATION_ATTACKS = [
    "1 ms^{10^{10}}",
    "1 ms^{-10^{10}}",
    " = ".join(["B"] * 100_000),
    "B \\geq " * 20_000 + "1",
    "1 " + "M" * 10_000 + "B",
    "1 " + "\\mu " * 5_000 + "s",
    "1 " + "\\text{" + "s" * 10_000 + "}",
    "1 ms/ms/ms/ms",
    "1 GiB^{999999}",
    "~" * 3_000,
    "≈ ≈ 1",
    "B ≥ 121 ≥ 3",
    "B -> 121",
    "B => 121",
    "10⁹⁹⁹⁹⁹⁹⁹⁹⁹",
    "1 x 10^10^10^10",
    "\\pi^{\\beta}",
    "\\text{FLOPs}",
]


@pytest.mark.parametrize("text", UNIT_AND_RELATION_ATTACKS, ids=lambda t: t[:30])
def test_units_and_relations_as_attack_vectors(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    r = run_cli(BASE[:-1] + ["crossover", "--claim", text])
    assert time.monotonic() - start < SECONDS
    _assert_refused(r.code, r.out, r.err)
    assert list(tmp_path.iterdir()) == []


def test_unreadable_json_is_printed_and_still_exits_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli(BASE + ["--claim", r"\frac{2BDF}{2BD+", "--format", "json"])
    assert r.code == 2 and r.err.startswith("error: ") and r.err.count("\n") == 1
    import json

    data = json.loads(r.out)
    assert data["verdict"] == "unreadable" and data["position"] >= 1 and data["reason"]


def test_hostile_answers_file_rows_are_unreadable_not_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "set.toml").write_text(
        'title = "t"\n[[problem]]\nid = "q"\ntitle = "q"\noperator = "matmul"\n'
        'dtype = "bf16"\nchip = "tpu-v5e"\n',
        encoding="utf-8",
    )
    rows = ["who,problem,quantity,claim"] + [
        f'x,q,ridge,"{c}"' for c in CASES["code injection"][:6] + ["1 ms^{10^{10}}"]
    ]
    (tmp_path / "a.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    r = run_cli(["check", "--problem-set", "set.toml", "--answers", "a.csv"])
    assert r.code == 1 and "could not be read" in r.err
    assert r.out.count("unreadable") == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "set.toml"]
