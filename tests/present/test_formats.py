"""Formats as records (issue 22 item 4): one table of formats and one
``render(document, format)``; ``derive solve|model|compare … --format md|tex|json`` all work,
and every LaTeX fragment compiles inside the appendix's preamble.

The compile test skips only when pdflatex is absent outside CI (``.ci/run`` installs TeX Live).
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from derive.commands.options import REPORT_FORMATS
from derive.errors import ProblemError
from derive.present.formats import FORMATS, Document, format_named, render
from derive.present.key.files import PREAMBLE
from tests.present.test_appendix_columns import _pdflatex

# each report command, once per kind of document it writes
COMMANDS = {
    "solve-operator": ["solve", "matmul", "--dtype", "bf16", "--chip", "h100"],
    "solve-kernel": ["solve", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100"],
    "model": ["model", "gpt2-small", "--chip", "h100"],
    "model-serving": [
        *["model", "llama-3-8b", "--chip", "h100", "--phase", "decode"],
        *["--set", "B=8", "--set", "S=4096"],
    ],
    "compare-operator": ["compare", "matmul", "--dtype", "bf16", "--chips", "h100,a100"],
    "compare-model": [
        *["compare", "llama-3-8b", "--phase", "decode", "--chips", "h100,a100"],
        *["--set", "B=8", "--set", "S=4096"],
    ],
    "train": [
        *["train", "llama-3-8b", "--chip", "h100", "--dp", "8", "--zero", "1"],
        *["--batch-tokens", "4194304", "--seq", "4096"],
    ],
}
# derive check, once per kind of report, in each of its formats (text is its default)
CHECKS = {
    "check-claim": ["check", "matmul", "--dtype", "bf16", "--chip", "h100"]
    + ["--quantity", "ridge", "--claim", "295"],
    "check-chain": ["check", "matmul", "--dtype", "bf16", "--chip", "h100"]
    + ["--quantity", "intensity", "--chain", "CHAIN"],
    "check-model": ["check", "llama-3-8b", "--chip", "h100", "--quantity", "params"]
    + ["--claim", "8e9"],
    "check-kernel": ["check", "--flops", "1e12", "--bytes", "1e9", "--chip", "h100"]
    + ["--quantity", "intensity", "--claim", "1000"],
}
CHECK_FORMATS = ("text", *(f for f in REPORT_FORMATS if f != "text"))
# the H100's bf16 ridge from its datasheet's decimal text, computed here: 9.89e14 / 3.35e12
H100_RIDGE = Fraction("9.89e14") / Fraction("3.35e12")


@pytest.fixture(scope="module")
def outputs() -> dict[tuple[str, str], str]:
    out = {}
    for name, argv in COMMANDS.items():
        for fmt in REPORT_FORMATS:
            result = run_cli([*argv, "--format", fmt])
            assert result.code == 0 and not result.err, (name, fmt, result)
            out[name, fmt] = result.out
    return out


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    chain = tmp_path_factory.mktemp("chain") / "intensity.txt"
    chain.write_text("I = 2BDF / (2BD + 2DF + 2BF)\n", encoding="utf-8")
    out = {}
    for name, argv in CHECKS.items():
        for fmt in CHECK_FORMATS:
            args = [str(chain) if a == "CHAIN" else a for a in argv]
            result = run_cli([*args, "--format", fmt])
            assert result.code == 0 and not result.err, (name, fmt, result)
            out[name, fmt] = result.out
    return out


def test_the_flags_offer_the_table():
    assert set(FORMATS) == set(REPORT_FORMATS)
    assert REPORT_FORMATS == ("md", "tex", "json", "text")
    assert {name: f.suffix for name, f in FORMATS.items()} == {
        "md": ".md",
        "tex": ".tex",
        "json": ".json",
        "text": ".txt",
    }


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_text_is_plain_and_fits_a_terminal(outputs: dict, name: str):
    """--format text: no LaTeX markup or Markdown math, at most 100 columns, the same ridge."""
    text = outputs[name, "text"]
    assert "$" not in text and "\\frac" not in text and "\\text{" not in text
    assert max(len(line) for line in text.splitlines()) <= 100
    if not name.startswith(("model", "compare-model", "train")) or name == "model-serving":
        assert f"{float(H100_RIDGE):.2f}" in text


def test_an_unknown_format_is_refused_naming_the_flag():
    with pytest.raises(ProblemError, match="--format"):
        format_named("html")
    result = run_cli([*COMMANDS["solve-operator"], "--format", "html"])
    assert result.code == 2 and result.err.startswith("error: ") and "--format" in result.err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_format_says_the_same_ridge(outputs: dict, name: str):
    """JSON parses; Markdown has a heading; LaTeX is a fragment; the ridge is in all three."""
    data = json.loads(outputs[name, "json"])
    markdown, latex = outputs[name, "md"], outputs[name, "tex"]
    assert markdown.lstrip().startswith(("#", "|")) or "\n#" in markdown
    assert r"\documentclass" not in latex and r"\begin{document}" not in latex
    if name.startswith(("model", "compare-model", "train")) and name != "model-serving":
        return  # a model's own quantities are not against a ridge
    # exact in JSON; in the documents its numerator (a fraction, stacked or slashed) and decimal
    shown = (str(H100_RIDGE.numerator), f"{float(H100_RIDGE):.2f}")
    assert all(text in markdown for text in shown), shown
    if name.startswith("compare"):  # a paper's table rounds to 4 digits (issue 26 item 12)
        shown = (f"${float(H100_RIDGE):.1f}$",)
    assert all(text in latex for text in shown), shown
    assert str(H100_RIDGE) in json.dumps(data)


def test_a_models_serving_step_is_a_section_in_every_format(outputs: dict):
    data = json.loads(outputs["model-serving", "json"])
    assert data["model"] == "llama-3-8b" and data["serving"]["phase"] == "decode"
    assert "Decode step" in outputs["model-serving", "md"]
    assert r"\subsubsection*{Decode step}" in outputs["model-serving", "tex"]
    assert "serving" not in json.loads(outputs["model", "json"])


def test_render_joins_sections_and_nests_their_json():
    inner = Document(written={"md": lambda: "inner\n"}, data=lambda: {"b": 2})
    outer = Document(
        written={"md": lambda: "outer\n"}, data=lambda: {"a": 1}, sections=(("more", inner),)
    )
    assert render(outer, "md") == "outer\n\ninner\n"
    assert json.loads(render(outer, FORMATS["json"])) == {"a": 1, "more": {"b": 2}}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_a_check_says_the_same_verdict_in_every_format(checks: dict, name: str):
    """The text is what the terminal always showed; the other formats carry the same lines."""
    verdict = json.loads(checks[name, "json"])["verdict"]
    assert checks[name, "text"].startswith(f"verdict: {verdict}\n")
    assert checks[name, "md"].startswith(f"- **verdict:** {verdict}\n")
    assert checks[name, "tex"].startswith("\\begin{description}\n\\item[verdict:] " + verdict)
    for line in checks[name, "text"].splitlines():
        label, _, value = line.strip(" -").partition(": ")
        assert label in checks[name, "md"] and value in checks[name, "md"], line


def test_every_latex_fragment_compiles_in_the_appendix_preamble(
    tmp_path: Path, outputs: dict, checks: dict
):
    pdflatex = _pdflatex()
    body = []
    fragments = {name: outputs[name, "tex"] for name in COMMANDS}
    fragments |= {name: checks[name, "tex"] for name in CHECKS}
    for name, text in fragments.items():
        (tmp_path / f"{name}.tex").write_text(text, encoding="utf-8")
        body.append(rf"\input{{{name}}}")
    paper = [r"\documentclass[11pt]{article}", *PREAMBLE, r"\begin{document}", *body]
    (tmp_path / "paper.tex").write_text("\n".join([*paper, r"\end{document}", ""]), "utf-8")
    run = subprocess.run(
        [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = (tmp_path / "paper.log").read_text(encoding="latin-1")
    assert run.returncode == 0 and "\n! " not in log, log[-3000:]


def test_a_document_built_in_code_says_which_form_it_lacks():
    table = Document(written={"md": lambda: "| a |\n"}, data=dict)
    with pytest.raises(ValueError, match="no tex form"):
        render(table, "tex")


def test_text_of_a_problem_with_questions_is_plain_too():
    argv = [*COMMANDS["solve-operator"], "--set", "B=4096", "--set", "D=4096", "--set", "F=4096"]
    argv += ["--given", "price=2 $/h", "--define", "cost=price*t_lower", "--format", "text"]
    result = run_cli(argv)
    assert result.code == 0, result
    assert "\\text" not in result.out and "\\mathrm" not in result.out and "$$" not in result.out
    assert "(2 USD/h) · (139.0 µs)" in result.out  # T_lower = 2·4096³ FLOPs / 989e12 FLOP/s


def test_a_text_template_prints_rich_math_in_plain_notation():
    from derive.present.render import environment
    from derive.solution.steps import Math, rich

    text = rich("T = ", Math(r"\frac{2 B D F}{9.89 \times 10^{14}}"), " s")
    out = environment("text").from_string("{{ r | rich }}").render(r=text)
    assert out == "T = (2 B D F)/(9.89 × 10^14) s"


def test_givens_alone_print_in_the_format_asked():
    # they once printed their Markdown in every format but JSON
    argv = ["solve", "--given", "x=3", "--equation", "y = 2 x", "--unknown", "y", "--format"]
    text, tex = run_cli([*argv, "text"]), run_cli([*argv, "tex"])
    assert text.code == tex.code == 0, text.err + tex.err
    assert "$" not in text.out and "|" not in text.out and "y = 6" in text.out.splitlines()
    assert "\\begin{align*}" in tex.out and "# Given" not in tex.out


def test_every_document_in_markdown_has_a_text_template():
    # text is a templated format as Markdown is: a document --format text prints without its
    # own .txt.j2 would fail (no document is read back from its Markdown)
    markdown_only = {
        "key": "a file of the key",
        "questions": "a file of the key",
        "model_configs": "a page of docs/, written by its module",
        "chips": "its text is written in code (listing.chips_text)",
    }
    folder = ROOT / "templates"
    md = {p.name.removesuffix(".md.j2") for p in folder.glob("*.md.j2")}
    text = {p.name.removesuffix(".txt.j2") for p in folder.glob("*.txt.j2")}
    assert md - text == set(markdown_only)
