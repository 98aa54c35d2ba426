"""Day one in class (issue 26, item 21): times print in the unit a person would use.

``1.0329e-05 s`` reads ``10.33 µs`` in prose, verdicts and tables (Markdown, LaTeX, text);
the JSON keeps the exact seconds. Expected readings are computed here from Fractions with a
naive reference (every unit tried, Python's ``decimal`` for the rounding), never copied from
derive's output.
"""

from __future__ import annotations

import decimal
import json
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derive.formula.decimals import parse_decimal
from derive.formula.durations import TimeUnit, column_unit, time_tex, time_text, time_unit
from derive.formula.units import parse_unit
from tests.conftest import ROOT, run_cli

PEAK, BANDWIDTH = (
    Fraction(989 * 10**12),
    Fraction(335 * 10**10),
)  # h100 bf16, from the datasheet text

# (unit, seconds in one, the smallest reading it is used for), the reference's own table
UNITS = (
    ("ns", Fraction(1, 10**9), 0),
    ("µs", Fraction(1, 10**6), 1),
    ("ms", Fraction(1, 10**3), 1),
    ("s", Fraction(1), 1),
    ("min", Fraction(60), 10),
    ("h", Fraction(3600), 2),
    ("days", Fraction(86400), 2),
)


def _round4(value: Fraction) -> decimal.Decimal:
    """|value| to 4 significant figures, half up, with decimal's exact arithmetic."""
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        exact = decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)
        ctx.prec, ctx.rounding = 4, decimal.ROUND_HALF_UP
        return +exact


def _reference(seconds: Fraction) -> str:
    """The reading a person would give, worked out naively."""
    chosen = "ns"
    for name, size, threshold in UNITS:
        if _round4(seconds / size) >= threshold:
            chosen = name
    size = next(s for n, s, _ in UNITS if n == chosen)
    rounded = _round4(seconds / size)
    if Fraction(rounded) != seconds / size:  # an approximation shows its four figures
        return f"{rounded:f} {chosen}"
    return f"{rounded.normalize():f} {chosen}"


@pytest.mark.parametrize(
    "seconds, text",
    [
        (Fraction(10329, 10**9), "10.33 µs"),  # the 1.0329e-05 s
        (Fraction(1, 80), "12.5 ms"),  # exact: no trailing zeros
        (Fraction(99996, 10**8), "1.000 ms"),  # 999.96 µs rounds to 1000 µs: a millisecond
        (Fraction(99994, 10**8), "999.9 µs"),
        (Fraction(999996, 10**6), "1.000 s"),
        (Fraction(60), "60 s"),  # "a measured 60 s step"
        (Fraction(600), "10 min"),
        (Fraction(7200), "2 h"),
        (Fraction(172800), "2 days"),
        (Fraction(180261900, 23), "90.71 days"),  # a training run of months reads in days
        (Fraction(1, 2 * 10**9), "0.5 ns"),  # no ps: the checker does not read it
    ],
)
def test_the_reading_at_each_boundary(seconds: Fraction, text: str):
    assert _reference(seconds) == text  # the table above is the reference's, not derive's
    assert time_text(seconds) == text


@pytest.mark.parametrize("name, size, threshold", UNITS[1:])
def test_the_unit_changes_where_the_rounded_reading_reaches_its_threshold(
    name: str, size: Fraction, threshold: int
):
    boundary = size * threshold
    below = boundary * (1 - Fraction(1, 10**3))  # rounds below the threshold
    just = boundary * (1 - Fraction(1, 10**6))  # rounds up to the threshold
    assert time_unit(boundary).text == name
    assert time_unit(just).text == name
    assert time_unit(below).text != name


@given(st.fractions(min_value=Fraction(1, 10**12), max_value=Fraction(10**10)))
def test_any_time_reads_as_the_reference_and_back_within_half_a_figure(seconds: Fraction):
    text = time_text(seconds)
    assert text == _reference(seconds)
    number, unit = text.split(" ")
    read = parse_unit(unit)  # the checker's own unit table reads every unit we print
    assert read is not None
    back = Fraction(parse_decimal(number)) * Fraction(read.factor)
    assert abs(back - seconds) <= seconds * Fraction(5, 10**4)
    assert "e" not in number


def test_latex_and_columns():
    assert time_tex(Fraction(10329, 10**9)) == r"10.33\ \mu\text{s}"
    assert time_tex(Fraction(1, 80)) == r"12.5\ \text{ms}"
    assert column_unit([Fraction(1, 1340), Fraction(1, 1001)]) is TimeUnit.US  # the largest's
    assert column_unit([Fraction(1, 1340), Fraction(1, 989)]) is TimeUnit.MS
    assert column_unit([0]) is TimeUnit.S


# --- what the commands print ----------------------------------------------------------

_E_SECONDS = re.compile(r"\d(?:\.\d+)?e[-+]?\d+ ?s\b")  # 1.0329e-05 s
_TEX_SECONDS = re.compile(r"\\times 10\^\{-\d+\}\\ \\text\{s\}")  # 1.0329 \times 10^{-5}\ \text{s}
_SMALL_SECONDS = re.compile(r"(?<![\d.])0\.\d{3,} s\b")  # 0.012515 s in prose


def _no_seconds_in_e_notation(text: str, where: str) -> None:
    for line in text.splitlines():
        if line.startswith("claim read as:"):  # the echo of what was typed, as the checker read it
            continue
        for pattern in (_E_SECONDS, _TEX_SECONDS, _SMALL_SECONDS):
            assert not pattern.search(line), f"{where}: {line[:200]}"


def _run(*argv: str) -> str:
    result = run_cli(list(argv))
    assert result.code in (0, 1), result  # 1: a check that finds the claim wrong
    return result.out


KERNEL = ("--flops", "1e10", "--bytes", "1e8", "--chip", "h100", "--compute", "bf16")
DECODE = (
    "llama-2-70b", "--chip", "h100", "--devices", "8", "--set", "B=64", "--set", "S=8192",
    "--phase", "decode",
)  # fmt: skip
# a step under a second (it printed 0.84318 s)
TRAIN = (
    "llama-3-8b", "--chip", "h100", "--dp", "8", "--zero", "3", "--recompute", "none",
    "--batch-tokens", "65536", "--seq", "4096", "--link-bandwidth", "5e10",
)  # fmt: skip


@pytest.mark.parametrize("fmt", ["md", "tex"])
@pytest.mark.parametrize(
    "argv",
    [
        ("solve", *KERNEL, "--launch-overhead", "5us"),
        ("solve", "matmul", "--dtype", "bf16", "--chip", "h100", "--set", "B=4096",
         "--set", "D=8192", "--set", "F=8192"),
        ("model", *DECODE),
        ("train", *TRAIN),
    ],
    ids=["solve-kernel", "solve-matmul", "model-decode", "train"],
)  # fmt: skip
def test_commands_print_no_time_in_e_notation_seconds(argv: tuple[str, ...], fmt: str):
    text = _run(*argv, "--format", fmt)
    _no_seconds_in_e_notation(text, " ".join(argv))
    assert re.search(r"(µs|\\mu\\text\{s\}|\$\\mu\$s|ms|\\text\{ms\})", text) or argv[0] == "train"


def test_the_kernel_verdict_reads_in_microseconds():
    verdict = _run("solve", *KERNEL, "--format", "md").strip().splitlines()[-1]
    t_lower = max(Fraction(10**10) / PEAK, Fraction(10**8) / BANDWIDTH)  # 1/33500 s
    assert t_lower < Fraction(1, 10**4)  # the premise: a time that printed as 2.9851e-05 s
    micro = t_lower * 10**6
    assert f"runtime ≥ {_round4(micro):f} µs" in verdict


def test_check_prints_the_exact_seconds_then_the_reading():
    out = _run(
        "check", *KERNEL, "--quantity", "t_lower", "--claim", "30 ms",
    )  # fmt: skip
    t_lower = Fraction(10**8) / BANDWIDTH
    expected = next(line for line in out.splitlines() if line.startswith("expected:"))
    assert (
        expected == f"expected: {t_lower.numerator}/{t_lower.denominator} s ≈ {_reference(t_lower)}"
    )
    _no_seconds_in_e_notation(out, "check")


def test_check_still_reads_a_time_with_its_unit():
    t_lower = Fraction(10**8) / BANDWIDTH
    out = _run("check", *KERNEL, "--quantity", "t_lower", "--claim", time_text(t_lower))
    assert out.startswith("verdict: correct"), out


def test_json_keeps_the_exact_seconds():
    data = json.loads(_run("solve", *KERNEL, "--launch-overhead", "5us", "--format", "json"))
    t_lower = Fraction(10**8) / BANDWIDTH + Fraction(5, 10**6)
    assert Fraction(data["step"]["t_lower"]) == t_lower
    model = json.loads(_run("model", *DECODE, "--format", "json"))
    step = model["decode"]["step"] if "decode" in model else _find_step(model)
    assert re.fullmatch(r"\d+/\d+", step["t_lower"])


def _find_step(data: object) -> dict:
    """The first object holding a ``t_lower`` (the serving step's)."""
    if isinstance(data, dict):
        if "t_lower" in data:
            return data
        for value in data.values():
            found = _find_step(value)
            if found:
                return found
    if isinstance(data, list):
        for value in data:
            found = _find_step(value)
            if found:
                return found
    return {}


def test_the_built_in_key_prints_no_time_in_e_notation_seconds():
    """``out/`` is the built-in key (tests/commands/test_key.py proves it current)."""
    written = sorted((ROOT / "out").glob("*.md")) + sorted((ROOT / "out").glob("*.tex"))
    assert written
    for path in written:
        _no_seconds_in_e_notation(path.read_text(encoding="utf-8"), path.name)


def test_a_wrong_time_is_told_in_the_units_a_person_reads():
    """``derive check … --quantity t_math --claim '1.76 ms'``: the diagnosis says the time
    and the claim in µs/ms (``is 555.9 µs; 1.76 ms is … high``), not ``5.5587e-04``,
    ``0.00176`` or a fraction of seconds (issue 47, item 5); with --hide-expected neither."""
    argv = ["check", "matmul", "--dtype", "bf16", "--chip", "h100"]
    argv += ["--set", "B=4096", "--set", "D=8192", "--set", "F=8192"]
    argv += ["--quantity", "t_math", "--claim", "1.76 ms"]
    exact = Fraction(2 * 4096 * 8192 * 8192) / Fraction(989 * 10**12)  # H100 dense bf16 peak
    micro = exact * 10**6  # 555.87… µs, to 4 significant figures by hand
    reading = f"{(micro * 10).__round__() / 10:.1f} µs"
    r = run_cli(argv)
    assert r.code == 1, r
    line = next(x for x in r.out.splitlines() if "% high" in x)
    assert f"is {reading}; 1.76 ms is " in line, line
    assert "e-0" not in line and "0.00176" not in line and not re.search(r"\d/\d", line)
    hidden = run_cli([*argv, "--hide-expected"])
    assert reading not in hidden.out and "% high" not in hidden.out


@pytest.mark.parametrize(
    ("argv", "claim", "exact"),
    [
        (  # a kernel by its numbers: 1e12 FLOPs at the H100's dense bf16 peak binds
            ["--flops", "1e12", "--bytes", "2.5e9", "--chip", "h100", "--compute", "bf16"],
            "2 ms",
            Fraction(10**12, 989 * 10**12),
        ),
        (  # a bare all-reduce on NVLink: 2(P-1)/P x 2·B·F bytes over 4.5e11 B/s
            ["tp_all_reduce", "--operators", "OPS", "--trust", "--dtype", "bf16", "--chip", "h100"]
            + ["--set", "B=8192", "--set", "F=8192", "--set", "P=8"],
            "0.7 ms",
            Fraction(2 * 7, 8) * 2 * 8192 * 8192 / Fraction(45 * 10**10, 1),
        ),
    ],
    ids=["kernel", "comms-only"],
)
def test_every_kind_tells_a_wrong_time_in_a_persons_units(tmp_path, argv, claim, exact):
    ops = tmp_path / "allreduce.py"
    ops.write_text(
        "from derive import Collective, Operator, Tensor, dims\n"
        'B, F, P = dims("B F P")\n'
        'tp_all_reduce = Operator(name="tp_all_reduce", flops=0, '
        'comms=[Collective("all_reduce", Tensor("Y", (B, F)), group=P)])\n',
        encoding="utf-8",
    )
    quantity = "t_comms" if "tp_all_reduce" in argv else "t_lower"
    argv = [str(ops) if a == "OPS" else a for a in argv]
    r = run_cli(["check", *argv, "--quantity", quantity, "--claim", claim])
    line = next(x for x in r.out.splitlines() if "% high" in x or "% low" in x)
    assert f" is {time_text(exact)}; {claim} is " in line, line  # no fraction of seconds
    assert not re.search(r"\de-0\d", line) and not re.search(r"\d/\d", line), line


def test_a_right_time_says_its_exact_seconds_and_their_reading():
    """A serving step's time within tolerance in its box's words and unit: 'right to 1%: the
    exact lower bound of the step's time is 12.51 ms', not the JSON name and a fraction of
    seconds (issue 47, item 5)."""
    argv = ["check", "llama-2-70b", "--chip", "h100", "--devices", "8", "--phase", "decode"]
    argv += ["--set", "B=64", "--set", "S=8192", "--quantity", "t_lower", "--claim", "12.5 ms"]
    r = run_cli(argv)
    assert r.code == 0, r
    said = re.search(r"right to 1%: the exact lower bound of the step's time is (\S+) ms \(", r.out)
    assert said is not None and "t_lower" not in said.group() and "/" not in said.group(1), r.out
