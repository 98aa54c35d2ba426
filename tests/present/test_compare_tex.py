"""``derive compare --format tex`` drops into a paper: its fragment ``\\input`` into a
one-column and a two-column 10pt ``article`` (a model's also 11 and 12pt) compiles with no
overfull box, and still shows every exact value of the comparison.

The compile tests skip only when pdflatex is absent outside CI (``.ci/run`` installs TeX Live).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import in_ci, run_cli

from derive.present.compare.tex import ColumnGroup, tex_tables

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

OPERATOR = ["compare", "matmul", "--dtype", "bf16", "--chips", "h100,a100,tpu-v5e"]
MODEL = ["compare", "llama-3-8b", "--phase", "decode", "--chips", "h100,b200"]
BOUND = ["--set", "B=32", "--set", "D=8192", "--set", "F=8192"]
COMMANDS = {
    "operator-baseline": [*OPERATOR, "--baseline", "a100"],
    "model-baseline": [*MODEL, "--baseline", "a100", "--set", "B=32", "--set", "S=8192"],
    "operator": OPERATOR,
    "operator-bound-baseline": [*OPERATOR, "--baseline", "a100", *BOUND],
    "model-tensor-parallel": [
        *["compare", "llama-2-70b", "--phase", "prefill", "--chips", "h100,b200"],
        *["--devices", "8", "--baseline", "a100", "--set", "B=2", "--set", "S=2048"],
    ],
    # data-parallel replicas, three chips against a fourth: the widest speedup fractions
    "model-replicas-baseline": [
        *["compare", "llama-3-8b", "--phase", "prefill", "--chips", "h100,b200,tpu-v5e"],
        *["--baseline", "a100", "--set", "B=1", "--set", "S=4096", "--devices", "8", "--tp", "4"],
    ],
}
OVERFULL = re.compile(r"^Overfull \\[hv]box .*$", re.M)
NEEDS = re.compile(r"^% needs (\\usepackage\{[a-z,]+\})$", re.M)


@pytest.fixture(scope="module")
def fragments() -> dict[str, str]:
    out = {}
    for name, argv in COMMANDS.items():
        result = run_cli([*argv, "--format", "tex"])
        assert result.code == 0, result
        out[name] = result.out
    return out


def _pdflatex() -> str:
    found = shutil.which("pdflatex")
    if found is None:
        if in_ci():
            pytest.fail("pdflatex is missing under CI")
        pytest.skip("pdflatex not installed")
    return found


@pytest.mark.parametrize("columns", ["onecolumn", "twocolumn"])
def test_the_fragments_fit_a_paper(tmp_path: Path, fragments: dict[str, str], columns: str):
    """Each fragment, with only the packages its own comment names, in a plain article."""
    _fits(tmp_path, fragments, "10pt", columns)


@pytest.mark.parametrize("size", ["11pt", "12pt"])
@pytest.mark.parametrize("columns", ["onecolumn", "twocolumn"])
def test_a_models_fragments_fit_11_and_12pt_papers(
    tmp_path: Path, fragments: dict[str, str], size: str, columns: str
):
    """A model's tables are planned for the 8pt \\scriptsize of 11 and 12pt papers too."""
    _fits(tmp_path, {k: v for k, v in fragments.items() if k.startswith("model")}, size, columns)


def _fits(tmp_path: Path, fragments: dict[str, str], size: str, columns: str) -> None:
    pdflatex = _pdflatex()
    needs = {NEEDS.search(text).group(1) for text in fragments.values()}  # type: ignore[union-attr]
    body = []
    for name, text in fragments.items():
        (tmp_path / f"{name}.tex").write_text(text, encoding="utf-8")
        body += [f"Before the {name} table, a line of prose.", "", rf"\input{{{name}}}", ""]
    paper = [rf"\documentclass[{size},{columns}]{{article}}", *sorted(needs), r"\begin{document}"]
    (tmp_path / "paper.tex").write_text(
        "\n".join([*paper, *body, r"\end{document}", ""]), encoding="utf-8"
    )
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "paper.log").read_text(encoding="latin-1")
    assert run.returncode == 0, log[-3000:]
    assert "LaTeX Error" not in log and "\n! " not in log
    assert not OVERFULL.findall(log), OVERFULL.findall(log)


def _tables(text: str) -> list[tuple[list[Fraction], str, list[str]]]:
    """Each ``tabularx``: its ``\\hsize`` factors, header row and body rows."""
    out = []
    for table in text.split(r"\begin{tabularx}")[1:]:
        spec, rest = table.split("\n", 1)
        header, rest = rest.split(r"\toprule")[1].split(r"\midrule")
        rows = rest.split(r"\bottomrule")[0].strip().splitlines()
        factors = [Fraction(f) for f in re.findall(r"\\hsize=([0-9.]+)\\hsize", spec)]
        out.append((factors, header.strip(), rows))
    return out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_table_has_every_row_and_fills_the_line(fragments: dict[str, str], name: str):
    rows = json.loads(run_cli([*COMMANDS[name], "--format", "json"]).out)
    # JSON keeps every compute dtype; tex keeps the tensors' one (bf16 here) unless --compute
    rows = [row for row in rows if "compute_dtype" not in row or row["compute_dtype"] == "bf16"]
    # a paper names chips as their vendors do: chips.toml's short name (H100, TPU v5e)
    keys = [f"{CHIPS[row['chip']]['short']} & {row['compute_dtype']}" for row in rows]
    tables = _tables(fragments[name])
    assert len(tables) >= 2  # the chips' ceilings and the crossover, at least
    one_dtype = len({row["compute_dtype"] for row in rows}) == 1
    for factors, header, body in tables:
        # one compute dtype on every row: said in the first caption, not a column (item 12)
        assert header.startswith("chip & " if one_dtype else "chip & compute & ")
        columns = header.count(" & ") + 1
        assert len(factors) == columns and sum(factors) == columns  # tabularx's rule
        if one_dtype:
            assert [row.split(" & ")[0] for row in body] == [k.split(" & ")[0] for k in keys]
        else:
            assert [" & ".join(row.split(" & ")[:2]).split(" (")[0] for row in body] == keys
        assert all(row.count(" & ") == columns - 1 and row.endswith(r"\\") for row in body)


CHIPS = tomllib.loads((Path(__file__).parents[2] / "derive/data/chips.toml").read_text())


def _peak(chip: str, dtype: str) -> Fraction:
    numbers = CHIPS[chip]
    entry = numbers.get(f"peak_{dtype}_flop_per_s") or numbers[f"peak_{dtype}_op_per_s"]
    return Fraction(entry["value"])


def _numbers(line: str) -> list[Fraction]:
    """The decimals a table row prints (``$0.3155$``, ``$1$``)."""
    return [Fraction(n) for n in re.findall(r"\$(-?[0-9]+(?:\.[0-9]+)?)\$", line)]


def _shown(value: Fraction, numbers: list[Fraction]) -> bool:
    """The value rounded to 4 significant digits is among the numbers (within half a unit)."""
    exponent = 0
    while Fraction(10) ** exponent > value:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= value:
        exponent += 1
    half = Fraction(1, 2) * Fraction(10) ** (exponent - 3)
    return any(abs(n - value) <= half for n in numbers)


@pytest.mark.parametrize(
    "name",
    ["operator-baseline", "model-baseline", "model-replicas-baseline", "operator-bound-baseline"],
)
def test_every_ratio_is_in_the_tex_rounded(fragments: dict[str, str], name: str):
    """Each row's ratios to a100, recomputed from chips.toml's decimal text, in its row,
    rounded to 4 significant digits for a paper (issue 26 item 12: the exact values are the
    JSON's)."""
    rows = json.loads(run_cli([*COMMANDS[name], "--format", "json"]).out)
    rows = [row for row in rows if row.get("compute_dtype") == "bf16"]  # tex: the tensors' dtype
    lines = fragments[name].splitlines()
    a100_hbm = Fraction(CHIPS["a100"]["hbm_bytes_per_s"]["value"])
    for row in rows:
        chip, dtype = row["chip"], row["compute_dtype"]
        base = (
            dtype
            if any(dtype in key for key in CHIPS["a100"] if key.startswith("peak_"))
            else "bf16"
        )
        peak = _peak(chip, dtype) / _peak("a100", base)
        hbm = Fraction(CHIPS[chip]["hbm_bytes_per_s"]["value"]) / a100_hbm
        assert any(
            line.startswith(f"{CHIPS[chip]['short']} & ")
            and (f" & {dtype}" in line or "compute: " + dtype in fragments[name])
            and all(_shown(v, _numbers(line)) for v in (peak, hbm, peak / hbm))
            for line in lines
        ), (chip, dtype, peak, hbm)
        assert r"\tfrac" not in fragments[name]  # no exact fraction in a paper's table


def test_a_column_in_no_group_is_refused():
    cols = ["chip", "compute", "peak (FLOP/s)", "HBM (B/s)"]
    body = [[(None, "h100"), (None, "bf16"), ("1", ""), ("2", "")]]
    assert len(tex_tables(cols, body, (ColumnGroup("both", ("peak (FLOP/s)", "HBM (B/s)")),))) == 1
    with pytest.raises(ValueError, match="not grouped once each"):
        tex_tables(cols, body, (ColumnGroup("one", ("peak (FLOP/s)",)),))
    with pytest.raises(ValueError, match="not grouped once each"):
        tex_tables(cols, body, (ColumnGroup("a", cols[2:]), ColumnGroup("b", ("HBM (B/s)",))))


def test_tex_defaults_to_the_tensors_compute_dtype() -> None:
    """Issue 33 item 8: without --compute, a paper's table has one row per chip (bf16 tensors: bf16)."""
    result = run_cli([*OPERATOR, "--format", "tex"])
    assert result.code == 0, result
    rows = [
        line for line in result.out.splitlines() if line.startswith(("H100 ", "A100 ", "TPU v5e "))
    ]
    assert len(rows) == 2 * 3  # the ceilings table and the crossover table, one row per chip
    assert "compute: bf16" in result.out and "fp8" not in result.out
