"""Handouts and papers on day one (issue 26, items 9, 10 and 13): the `sheets` branch.

Item 9: a question sheet never shows a value or a formula that is asked. The answers are
computed with the engine (the checker's expected values, the kernels', the models' and the
questions'); each is rendered the ways derive prints a value (plain, LaTeX, a rounded
decimal) and looked for in its problem's section of the Markdown and LaTeX sheets.

Item 10: the LaTeX of a key and its sheet, compiled, reads as prose: symbols as math
(never ``T\\_math``), quotes that open and close, a comparison said in words.

Item 13: a small teacher's key prints in a few pages.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import sympy as sp

from derive.catalogue import ProblemKind, Use, names_for
from derive.checking.kernel_check import kernel_for
from derive.checking.kernel_claims import kernel_quantities, kernel_value
from derive.checking.quantities import QUANTITIES as OPERATOR_QUANTITIES
from derive.checking.quantities import expected
from derive.checking.training_claims import all_claims_analysis_for
from derive.errors import DeriveError
from derive.formula.decimals import fmt_decimal
from derive.pipeline import CommsDerivation, answer_set_questions, derive_spec, operator_registry
from derive.pipeline.key import build_key
from derive.present.withheld import withhold
from derive.problem.sets.problem_set import ProblemSet, load_problem_set, parse_problem_set
from derive.questions.records import Role
from derive.solution.notation import tex, tex_text_number
from tests.conftest import ROOT, in_ci
from tests.present.test_appendix_columns import _pdflatex

SETS = [
    ROOT / "derive" / "data" / "problems" / "rooflines.toml",
    *sorted((ROOT / "tests" / "sets").glob("*.toml")),
]

# Answers that are inputs of their problem: a compute-bound kernel attains the peak the
# sheet must give (the attainable FLOP/s is π); a model's fewest devices may be its devices.
_MODEL_CHECKED = tuple(
    dict.fromkeys(
        names_for(ProblemKind.MODEL, Use.CHECK)
        + names_for(ProblemKind.SERVING, Use.CHECK)
        + names_for(ProblemKind.TRAINING, Use.CHECK)
    )
)


# -- the answers, computed with the engine ------------------------------------------------


def _registry(pset: ProblemSet):
    return operator_registry([str(p) for p in pset.operators])


def _operator_answers(pset: ProblemSet, entry) -> tuple[dict[str, sp.Expr], set[sp.Expr]]:
    """Every quantity the checker judges for an operator problem, and the problem's inputs."""
    d = derive_spec(entry.spec, _registry(pset))
    if isinstance(d, CommsDerivation):  # a transfer alone: its bytes sent and its time
        c = d.analysis
        sent = {f"sent_{item.collective.name}": item.sent for item in c.collectives}
        bound = {v for _, v in c.problem.bound}
        return {"t_comms": c.time, "bytes_sent": c.sent, **sent}, {c.problem.link.value, *bound}
    a = d.analysis
    answers = {}
    for name in OPERATOR_QUANTITIES:
        try:
            target = expected(a, name)
        except (DeriveError, KeyError, ValueError):
            continue
        for value in (target.value, target.symbolic):
            if isinstance(value, sp.Expr):
                answers.setdefault(name, value)
    p = a.problem
    inputs = {p.peak.value, p.bandwidth.value, *(v for _, v in p.bound)}
    if p.link is not None:
        inputs.add(p.link.value)
    return answers, inputs


def _kernel_answers(entry) -> tuple[dict[str, sp.Expr], set[sp.Expr]]:
    kernel = kernel_for(entry.spec)
    answers = {q: kernel_value(kernel, q) for q in kernel_quantities(kernel)}
    inputs = {kernel.peak.value, kernel.bandwidth.value, kernel.flops, kernel.bytes}
    return {k: v for k, v in answers.items() if v is not None}, inputs


def _model_answers(pset: ProblemSet, entry) -> tuple[dict[str, sp.Expr], set[sp.Expr]]:
    a = all_claims_analysis_for(entry, pset.operators)
    answers = {
        q.key: q.value
        for q in a.quantities
        if q.key in _MODEL_CHECKED and isinstance(q.value, sp.Expr)
    }
    inputs = {v for _, v in a.given} | {sp.Integer(a.problem.devices)}
    if not entry.spec.model:  # a model by its size: the size is given, not an answer
        sized = ("params", "params_active", "kv_bytes_per_token")
        inputs |= {answers[name] for name in sized if name in answers}
    return answers, inputs


def _answers(pset: ProblemSet) -> dict[str, tuple[dict[str, sp.Expr], set[sp.Expr]]]:
    """Each problem's answers (name → exact value) and inputs, by id, in the sheet's order."""
    out: dict[str, tuple[dict[str, sp.Expr], set[sp.Expr]]] = {}
    for entry in pset.problems:
        out[entry.id] = _operator_answers(pset, entry)
    for entry in pset.kernels:
        out[entry.id] = _kernel_answers(entry)
    for entry in pset.models:
        out[entry.id] = _model_answers(pset, entry)
    for entry in pset.natives:  # budgets and what-ifs (issue 36): what they were given is input
        from derive.questions.natives import native_quantities, native_value

        values = {name: native_value(entry, name) for name in native_quantities(entry)}
        given = {"compute": "training_compute", "params": "params", "tokens": "tokens"}
        given["tokens_per_param"] = "tokens_per_param"
        typed = {given[k] for k, v in vars(entry.spec).items() if k in given and v is not None}
        out[entry.id] = (values, {values[name] for name in typed if name in values})
    for entry in pset.questions:
        out[entry.id] = ({}, set())
    for pid, q in answer_set_questions(pset, _registry(pset)).items():
        answers, inputs = out[pid]
        for answer in q.answers:
            if answer.role is Role.GIVEN:
                inputs.add(answer.value)
            else:
                answers[answer.name] = answer.value
    return out


# -- their printed forms, looked for in the sheets ----------------------------------------


def _squeezed(text: str) -> str:
    """Text without what separates factors when derive prints them (spaces, dots, braces)."""
    for sign in (r"\cdot", r"\left", r"\right", r"\,", "·", "*", "$", "{", "}", "\\ "):
        text = text.replace(sign, "")
    return re.sub(r"\s+", "", text)


def _forms(value: sp.Expr) -> set[str]:
    """The ways derive prints a value: plain, LaTeX, and a number's rounded decimals."""
    forms = {str(value), tex(value)}
    if value.is_number and value.is_real:
        rounded = fmt_decimal(value)
        forms |= {rounded, tex_text_number(rounded)}
    return {f for f in map(_squeezed, forms) if _telling(f)}


def _telling(form: str) -> bool:
    """A form long enough to be this answer and no other text: a lone symbol or a one- or
    two-digit count (``B``, ``42``) is in every sheet for other reasons."""
    return len(form) >= 3 and not re.fullmatch(r"[A-Za-z]+|\d{1,3}", form)


def _sections(sheet: str, fmt: str) -> list[str]:
    heading = r"\n## \d+\. " if fmt == "md" else r"\\subsection\*\{\d+\. "
    return re.split(heading, sheet)[1:]


@dataclass(frozen=True)
class Leak:
    sheet: str
    problem: str
    quantity: str
    form: str


def _leaks(pset: ProblemSet, stem: str) -> list[Leak]:
    files = build_key(pset, stem)
    answers = _answers(pset)
    ids = [
        e.id
        for group in (pset.problems, pset.kernels, pset.models, pset.natives, pset.questions)
        for e in group
    ]
    found = []
    for fmt in ("md", "tex"):
        name = f"{stem}-questions.{fmt}"
        sections = _sections(files[name], fmt)
        assert len(sections) == len(ids), name
        for pid, section in zip(ids, sections):
            text = _squeezed(section)
            values, inputs = answers[pid]
            for quantity, value in values.items():
                if any(value == given for given in inputs):
                    continue  # an input of the problem: the sheet must give it
                found += [Leak(name, pid, quantity, f) for f in _forms(value) if f in text]
    return found


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_no_sheet_shows_an_answer(path: Path):
    """The built-in set and every set under tests/sets: no answer in its problem's section."""
    pset = load_problem_set(path)
    assert _leaks(pset, path.stem) == []


def test_the_check_finds_an_operator_doc_that_states_its_flops(tmp_path: Path):
    """The check is not vacuous: a doc that names its FLOP count would be found (and is
    withheld: the sheet keeps what the operator computes and how it counts)."""
    ops = tmp_path / "ops.py"
    ops.write_text(
        "from derive import Operator, Tensor, dims\n"
        'B, D, F = dims("B D F")\n'
        "mm3 = Operator(name='mm3', flops=2*B*D*F*3, reads=[Tensor('X', (B, D)), "
        "Tensor('Y', (D, F))], writes=[Tensor('Z', (B, F))], "
        "doc='Z = X·Y done three times; 2 FLOPs per multiply-accumulate; FLOPs 6·B·D·F.')\n",
        encoding="utf-8",
    )
    text = (
        'title = "t"\noperators = ["ops.py"]\n[[problem]]\nid = "p"\ntitle = "p"\n'
        'operator = "mm3"\ndtype = "bf16"\nchip = "h100"\n'
    )
    pset = parse_problem_set(text, str(tmp_path / "t.toml"), tmp_path)
    files = build_key(pset, "t")
    assert "FLOPs 6·B·D·F" in files["t.md"]  # the worked solution keeps the whole doc
    sheet = files["t-questions.md"]
    assert "Z = X·Y done three times; 2 FLOPs per multiply-accumulate." in sheet
    assert "6·B·D·F" not in sheet and _leaks(pset, "t") == []


def test_a_comms_only_operator_doc_keeps_its_convention_not_its_bytes(tmp_path: Path):
    """An all-reduce whose doc says the ring's convention and the bytes it sends: the sheet
    keeps the convention and withholds the bytes (the answer to "the bytes each device
    sends")."""
    (tmp_path / "ops.py").write_text(
        "from derive import Collective, Operator, Tensor, dims\n"
        'B, F, P = dims("B F P")\n'
        "ar = Operator(name='ar', flops=0, comms=[Collective('all_reduce', Tensor('Y', (B, F)), "
        "group=P)], doc='Y[B,F] summed over P devices by a ring; each device sends 2(P − 1)/P "
        "of Y; bytes 4BF(P − 1)/P.')\n",
        encoding="utf-8",
    )
    text = (
        'title = "t"\noperators = ["ops.py"]\n[[problem]]\nid = "ar"\ntitle = "ar"\n'
        'operator = "ar"\ndtype = "bf16"\nchip = "h100"\nask = ["collectives"]\n'
    )
    files = build_key(parse_problem_set(text, str(tmp_path / "t.toml"), tmp_path), "t")
    sheet = files["t-questions.md"]
    assert "each device sends 2(P − 1)/P of Y." in sheet
    assert "4BF" not in sheet


def test_withhold_reads_formulas_not_strings():
    B, D, F, N, P = sp.symbols("B D F N P", positive=True, integer=True)
    names = {s.name: s for s in (B, D, F, N, P)}
    flops = {"FLOPs": (2 * B * D * F, N, 2 * B * D * F / P)}
    # any spelling of the count, and a sum that contains it, give it away
    for said in ("FLOPs 2BDF", "FLOPs = 2·B·D·F", "the exact 2 B D F − BF is not used", "2DBF/P"):
        assert withhold(f"Z = X·Y; {said}; done.", flops, names) == "Z = X·Y; done."
    # a lone name gives nothing away, unless the quantity is named before it
    assert withhold("D, F grow while N stays fixed.", flops, names) == (
        "D, F grow while N stays fixed."
    )
    assert withhold("z = x + y; FLOPs N.", flops, names) == "z = x + y."
    # brackets hold their clause together; a doc that is all count leaves nothing
    assert withhold("a (b; c); FLOPs 2BDF", flops, names) == "a (b; c)."
    assert withhold("FLOPs 2BDF.", flops, names) == ""


_MONEY = 'price_per_hour = "2.49 $/h"\npower = "700 W"'  # the bill's asks (issue 36)
GENERATED_BASES = {
    ProblemKind.OPERATOR: (
        'operator = "matmul"\ndtype = "bf16"\nchip = "h100"\nregime = "B << D, F"',
        'operator = "matmul"\ndtype = "bf16"\nchip = "h100"\n'
        'set = { B = 4096, D = 8192, F = 8192 }\nmeasured_time = "1.3ms"',
        'operator = "matmul_sharded"\ndtype = "bf16"\nchip = "tpu-v5e"\nset = { P = 2 }',
    ),
    ProblemKind.KERNEL: (
        'kernel = { flops = "1e12", bytes = "2.5e9" }\nchip = "h100"\nmeasured_time = "1.3ms"',
    ),
    ProblemKind.MODEL: (
        'model = "llama-3-8b"\nchip = "h100"\nset = { B = 16, S = 8192 }\n'
        'train_tokens = "15e12"\nmfu = "0.4"\nmeasured_tokens_per_s = "2000"\n'
        'state_bytes = "adam-mixed"\n' + _MONEY,
    ),
    ProblemKind.SERVING: (
        'model = "llama-2-70b"\nchip = "h100"\ndevices = 8\nset = { B = 64, S = 8192 }\n'
        'phase = "decode"\nmeasured_tokens_per_s = "4000"\n' + _MONEY,
        'model = "llama-2-70b"\nchip = "h100"\ndevices = 8\nset = { B = 1, S = 4096 }\n'
        'phase = "prefill"\n' + _MONEY,
    ),
    ProblemKind.TRAINING: (
        'model = "llama-3-8b"\nchip = "h100"\ntrain = { dp = 4, tp = 2, pp = 1, zero = 1, '
        'recompute = "full", batch_tokens = 1048576, seq = 4096, measured_step_time = "10s" }\n'
        'train_tokens = "15e12"\n' + _MONEY,
    ),
}


def _generated_set() -> str:
    """One problem per ask of every kind (operator asks on each operator base), in TOML."""
    out = ['title = "Every ask"']
    for kind, bases in GENERATED_BASES.items():
        for ask in names_for(kind, Use.ASK):
            for i, base in enumerate(bases):
                pid = f"{kind.value}-{ask}-{i}".replace("_", "-")
                out.append(f'[[problem]]\nid = "{pid}"\ntitle = "{pid}"\n{base}\nask = ["{ask}"]')
    return "\n\n".join(out) + "\n"


def test_no_sheet_shows_an_answer_for_any_ask(tmp_path: Path):
    """Every ask of the catalogue, of every kind, on problems where its quantities are
    derived: the sheet asks for them and shows none of the problem's answers."""
    pset = parse_problem_set(_generated_set(), str(tmp_path / "every.toml"), tmp_path)
    answers = _answers(pset)
    assert sum(len(a) for a, _ in answers.values()) > 200  # the check has answers to look for
    assert _leaks(pset, "every") == []


# -- item 10: LaTeX that reads as prose ---------------------------------------------------

HANDOUT = ROOT / "tests" / "sets" / "handout.toml"
BUILTIN = SETS[0]


def _compiled(tmp_path: Path, path: Path, names: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Each named LaTeX file of a set's key, compiled twice: name → (its source, its PDF's text)."""
    pdflatex, pdftotext = _pdflatex(), _pdftotext()
    files = build_key(load_problem_set(path), path.stem)
    for file, text in files.items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    out = {}
    for name in names:
        for _ in range(2):  # the second run sets the references
            run = subprocess.run(
                [pdflatex, "-halt-on-error", "-no-shell-escape", "-interaction=nonstopmode", name],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert run.returncode == 0, run.stdout[-2000:]
        pdf = str(Path(name).with_suffix(".pdf"))
        shown = subprocess.run(
            [pdftotext, "-enc", "UTF-8", pdf, "-"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        out[name] = (files[name], shown)
    return out


def _pdftotext() -> str:
    found = shutil.which("pdftotext")
    if found is None:
        if in_ci():
            pytest.fail("pdftotext is missing under CI")
        pytest.skip("pdftotext not installed")
    return found


# A symbol's subscript printed as text: T_math, B_max, β_link (a longer identifier such as
# kv_bytes_per_token or a config key is a name and keeps its underscores).
_TEXT_SUBSCRIPT = re.compile(r"(?<![\w.])[^\W\d_]_[^\W_]+(?![\w])")
# A quote that opens with a closing mark: ’All About Rooflines’.
_WRONG_OPENING = re.compile(r"(?:^|[\s(\[])’\w", re.M)


@pytest.mark.parametrize("path", [HANDOUT, BUILTIN], ids=lambda p: p.stem)
def test_latex_prose_prints_symbols_quotes_and_verdicts_as_a_reader_expects(
    tmp_path: Path, path: Path
):
    stem = path.stem
    docs = _compiled(tmp_path, path, (f"{stem}.tex", f"{stem}-questions.tex"))
    for name, (source, shown) in docs.items():
        # the brief's grep: no symbol name with an escaped underscore in the source
        assert not re.findall(r"T\\_math|B\\_max|kv\\_bytes", source), name
        assert not _TEXT_SUBSCRIPT.findall(shown), (name, _TEXT_SUBSCRIPT.findall(shown)[:5])
        assert not _WRONG_OPENING.findall(shown), (name, _WRONG_OPENING.findall(shown)[:5])
        # counts in the singular for one, a comparison in words
        assert not re.search(r"[a-z]\(s\)", shown), name  # "device(s)"; "T_lower (s)" is a unit
        assert "= yes" not in shown and "= no" not in shown, name
        assert r"\text{yes}" not in source and r"\text{no}" not in source, name
    key = docs[f"{stem}.tex"][1]
    assert "“All About Rooflines”" in key  # opened and closed
    # a fit said in words (the built-in key's two fits do not fit on the step's own layout)
    assert "so it fits" in key or "so it does not fit" in key
    assert "Tmath" in key  # T_{math} set as math: pdftotext reads the subscript inline


def test_markdown_says_a_comparison_in_words():
    files = build_key(load_problem_set(HANDOUT), "handout")
    for name in ("handout.md", "handout-questions.md"):
        assert "= yes" not in files[name] and r"\text{yes}" not in files[name], name
        assert not re.search(r"[a-z]\(s\)", files[name]), name
    assert r"\leq 8 \times 10^{10},\ \text{so it fits}$$" in files["handout.md"]
    assert "'All About Rooflines'" not in files["handout.md"]


# -- item 13: a small key prints in a few pages -------------------------------------------

HANDOUT_PAGES = 8  # measured: 15 pages before (one column, 2.5 cm margins), 8 after


def test_a_four_problem_key_prints_in_a_few_pages(tmp_path: Path):
    """Two operator problems, a model and a decode step (tests/sets/handout.toml): the
    standalone key sets its worked solutions two columns to a page. Nothing overflows its
    column (tests/present/test_standalone_key.py compiles it too)."""
    pdflatex = _pdflatex()
    _compiled(tmp_path, HANDOUT, ("handout.tex",))
    log = (tmp_path / "handout.log").read_text(encoding="latin-1")
    pages = int(re.search(r"Output written on handout\.pdf \((\d+) pages?", log).group(1))
    assert pages <= HANDOUT_PAGES, pages
    assert "Overfull" not in log and pdflatex
