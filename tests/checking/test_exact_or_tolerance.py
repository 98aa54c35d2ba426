"""Exact is not "within 1 %" (issue 49, item 5).

A right claim keeps its verdict (``correct``, exit 0), and says whether it is the exact value
(``exact: true``) or only right to the tolerance (``exact: false``, "right to 1%: the exact …
is …"); ``--rtol 0`` and a set problem's ``rtol`` (per problem or per quantity) make a number
1 % off incorrect. The grading CSV and the workbook carry the same distinction. Every expected
value is computed here from the problem's numbers (a matmul's FLOPs are 2·B·D·F).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import run_cli

B = D = F = 1024
FLOPS = 2 * B * D * F
ONE_PERCENT_OFF = FLOPS + FLOPS // 100  # a count 1 % off (less than 1 %: integer division)
MATMUL = ["check", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=1024,D=1024,F=1024"]
SET = """title = "t"
[[problem]]
id = "strict"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 1024, D = 1024, F = 1024 }
rtol = { flops = "0" }
[[problem]]
id = "all-exact"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 1024, D = 1024, F = 1024 }
rtol = "0"
[[problem]]
id = "loose"
operator = "matmul"
dtype = "bf16"
chip = "h100"
set = { B = 1024, D = 1024, F = 1024 }
"""


def _json(*args: str) -> tuple[int, dict]:
    r = run_cli([*MATMUL, "--quantity", "flops", "--format", "json", *args])
    assert r.code in (0, 1), r
    return r.code, json.loads(r.out)


def test_exact_and_right_to_the_tolerance_are_told_apart():
    code, exact = _json("--claim", str(FLOPS))
    assert code == 0 and exact["verdict"] == "correct" and exact["exact"] is True
    code, near = _json("--claim", str(ONE_PERCENT_OFF))
    assert code == 0 and near["verdict"] == "correct" and near["exact"] is False
    assert near["diagnosis"][0].startswith(f"right to 1%: the exact FLOPs is {FLOPS}")
    code, wrong = _json("--claim", str(2 * FLOPS))
    assert code == 1 and wrong["exact"] is None


def test_rtol_zero_makes_a_count_one_percent_off_incorrect():
    code, near = _json("--claim", str(ONE_PERCENT_OFF), "--rtol", "0")
    assert code == 1 and near["verdict"] == "incorrect"
    code, exact = _json("--claim", str(FLOPS), "--rtol", "0")
    assert code == 0 and exact["exact"] is True
    text = run_cli([*MATMUL, "--quantity", "flops", "--claim", str(ONE_PERCENT_OFF)])
    assert text.code == 0 and "right to 1%: the exact FLOPs is" in text.out


def test_a_kernel_time_right_to_the_tolerance():
    # t_lower of a kernel by its numbers: max(F/peak, bytes/bandwidth), H100 bf16 peak 989e12
    kernel = ["check", "--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100"]
    exact_s = 10**12 / (989 * 10**12)  # compute-bound: 1e12/2.5e9 = 400 FLOPs/byte
    near = f"{exact_s * 1.004:.6e}"
    r = run_cli([*kernel, "--quantity", "t_lower", "--claim", f"{near} s", "--format", "json"])
    assert r.code == 0 and json.loads(r.out)["exact"] is False, r
    r = run_cli([*kernel, "--quantity", "t_lower", "--claim", f"{near} s", "--rtol", "0"])
    assert r.code == 1, r


@pytest.mark.parametrize("rtol", ["1", "-0.1", "x"])
def test_a_tolerance_outside_zero_to_one_is_one_line(rtol):
    r = run_cli([*MATMUL, "--quantity", "flops", "--claim", "1", "--rtol", rtol])
    assert r.code == 2 and r.err.count("\n") == 1 and "Traceback" not in r.err, r


def _set(tmp_path: Path) -> Path:
    path = tmp_path / "set.toml"
    path.write_text(SET, encoding="utf-8")
    return path


def test_a_set_problem_sets_its_tolerance(tmp_path: Path):
    path = _set(tmp_path)
    for pid, code in (("strict", 1), ("all-exact", 1), ("loose", 0)):
        r = run_cli(
            ["check", "--problem-set", str(path), "--problem", pid, "--quantity", "flops"]
            + ["--claim", str(ONE_PERCENT_OFF)]
        )
        assert r.code == code, (pid, r)
    # a quantity the per-quantity table does not name keeps 1 %
    bytes_ = 2 * (B * D + D * F + B * F)  # bf16: 2 bytes an element
    near_bytes = str(bytes_ + bytes_ // 200)
    r = run_cli(
        ["check", "--problem-set", str(path), "--problem", "strict", "--quantity", "bytes"]
        + ["--claim", near_bytes, "--format", "json"]
    )
    assert r.code == 0 and json.loads(r.out)["exact"] is False, r
    # --rtol on the command line wins over the set's
    r = run_cli(
        ["check", "--problem-set", str(path), "--problem", "strict", "--quantity", "flops"]
        + ["--claim", str(ONE_PERCENT_OFF), "--rtol", "0.02"]
    )
    assert r.code == 0, r


def test_the_grading_csv_says_exact(tmp_path: Path):
    path = _set(tmp_path)
    answers = tmp_path / "answers.csv"
    rows = [
        ("ann", "loose", FLOPS),
        ("ann", "strict", FLOPS),
        ("bob", "loose", ONE_PERCENT_OFF),
        ("bob", "strict", ONE_PERCENT_OFF),
    ]
    answers.write_text(
        "who,problem,quantity,claim\n" + "".join(f"{w},{p},flops,{c}\n" for w, p, c in rows),
        encoding="utf-8",
    )
    out = tmp_path / "verdicts.csv"
    r = run_cli(["check", "--problem-set", str(path), "--answers", str(answers), "-o", str(out)])
    assert r.code == 0, r
    table = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    head = table[0]
    assert head[:10] == ["who", "problem", "quantity", "claim", "verdict", "read_as"] + [
        "expected",
        "diagnosis",
        "reason",
        "position",
    ]
    assert head[-1] == "exact"
    got = [(row[head.index("verdict")], row[head.index("exact")]) for row in table[1:]]
    assert got == [
        ("correct", "true"),
        ("correct", "true"),
        ("correct", "false"),
        ("incorrect", ""),
    ]


def test_the_workbook_says_exact(tmp_path: Path):
    from derive.web.book import load_source
    from derive.web.pool import grader_of
    from derive.web.replies import check_reply

    _, pset = load_source(str(_set(tmp_path)))
    grader = grader_of(pset)
    exact = check_reply(grader.check("loose", "flops", str(FLOPS)), True)
    near = check_reply(grader.check("loose", "flops", str(ONE_PERCENT_OFF)), True)
    strict = check_reply(grader.check("strict", "flops", str(ONE_PERCENT_OFF)), True)
    assert (exact["verdict"], exact["exact"]) == ("correct", True)
    assert (near["verdict"], near["exact"]) == ("correct", False)
    assert any(d.startswith("right to 1%") for d in near["diagnosis"])
    assert strict["verdict"] == "incorrect"


@pytest.mark.parametrize(
    ("rtol", "why"),
    [('"1"', "from"), ('{ flop = "0" }', "did you mean"), ("0", "decimal string")],
)
def test_a_bad_rtol_in_a_set_is_one_line(tmp_path: Path, rtol: str, why: str):
    path = tmp_path / "bad.toml"
    path.write_text(SET.replace('rtol = "0"', f"rtol = {rtol}"), encoding="utf-8")
    r = run_cli(["key", str(path), "-o", str(tmp_path / "out")])
    assert r.code == 2 and why in r.err and r.err.count("\n") == 1, r
