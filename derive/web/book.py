"""The workbook: a problem set read once, and everything the pages show, prepared at start.

Operator problems are prepared here; whole-model problems by :mod:`derive.web.model_pages`,
kernels given by their numbers by :mod:`derive.web.kernel_pages`, operators that only
communicate by :mod:`derive.web.comms_pages`.

:func:`load_source` reads a set (a file, or the built-in one) and refuses Python
operator files unless trusted; :func:`build_workbook` derives every problem once and
keeps, per problem, the JSON of ``GET /api/problems/{id}`` and the worked steps
(Markdown as the answer key prints them, and HTML with math left for KaTeX). Nothing
here depends on a request, so the server answers these from memory.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import cast

import jinja2
import sympy as sp

from derive.catalogue import Box, ProblemKind, box_of, shown_by
from derive.catalogue.reading import attributes
from derive.checking.claims import dimension_of
from derive.checking.quantities import describe, expected
from derive.declare.registry import pin_operator_files
from derive.errors import DeriveError, UnknownNameError
from derive.formula.units import Dimension
from derive.pipeline import CommsDerivation, Derivation, derive_spec
from derive.present.render import render_template
from derive.present.view import SolutionView, view_of
from derive.problem.sets.errors import in_file_terms
from derive.problem.sets.problem_set import (
    KernelEntry,
    ModelEntry,
    ProblemEntry,
    ProblemSet,
    QuestionEntry,
    parse_problem_set,
)
from derive.problem.sets.registry import require_trust, set_registry
from derive.problem.sets.toml_file import read_toml_text
from derive.solution.builder import select_steps
from derive.solution.steps import Math

BUILTIN_SET = "data/problems/rooflines.toml"
HIDDEN_NOTE = (
    "Expected answers are hidden: a check says whether an answer is right (and names a known"
    " slip), never the answer, how far off or on which side."
)
"""The banner of a workbook under ``--hide-expected`` (what each way of serving it shows follows)."""

_OPENS = (
    "A step of the worked solution that states an answer opens once your answer to it is right."
)
_Answers = dict[str, tuple[str, str, bool]]
"""Answers by ``problem/quantity``: (label, value as text, whether a formula in LaTeX)."""
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class SetSource:
    """What a worker needs to read the set again: its text, its name, its folder, trust."""

    text: str
    origin: str
    base: str | None
    trust: bool = False


def load_source(
    path: str | None, trust: bool = False, pin_files: bool = False
) -> tuple[SetSource, ProblemSet]:
    """Read a problem-set file (None: the built-in set) and parse it.

    ``pin_files`` (the server): from now on each operators file runs at most once in this
    process (:func:`~derive.declare.registry.pin_operator_files`), so every worker forked
    from it holds the declarations read here.

    Raises:
        ProblemError: unreadable, not a regular file (``/dev/zero``, a FIFO), malformed, or
            names Python operator files without ``trust``. LimitError: too large.
    """
    if pin_files:
        pin_operator_files()
    if path is None:
        text = resources.files("derive").joinpath(BUILTIN_SET).read_text(encoding="utf-8")
        source = SetSource(text, "rooflines.toml", None, trust)
    else:
        file = Path(path)
        # the reader derive key uses: a regular file, size-capped, a FIFO never waited on
        text = read_toml_text(file, f"problem set {path!r}")
        source = SetSource(text, str(file), str(file.parent), trust)
    return source, parse_source(source)


def parse_source(source: SetSource) -> ProblemSet:
    """The problem set of a source; operator files only when trusted."""
    pset = parse_problem_set(source.text, source.origin, Path(source.base) if source.base else None)
    require_trust(pset, source.trust)
    return pset


@dataclass(frozen=True)
class Asked:
    """One answer box: the quantity checked, its label, its symbol, and a placeholder."""

    quantity: str
    label: str
    latex: str
    placeholder: str


@dataclass(frozen=True)
class Page:
    """One problem (an operator's, a kernel's or a whole model's), prepared: its detail JSON and its steps."""

    entry: ProblemEntry | KernelEntry | ModelEntry | QuestionEntry
    asked: tuple[Asked, ...]
    detail: dict
    steps_markdown: tuple[str, ...]
    steps_html: tuple[str, ...]
    step_titles: tuple[str, ...]
    withheld: tuple[tuple[str, ...], ...] = ()
    """Under ``--hide-expected``, per step, the answers (``problem/quantity``) it states."""


_STEP_HEADING = re.compile(r"\n(?=## Step \d+ — )")


def step_chunks(markdown: str) -> tuple[str, ...]:
    """A worked solution's Markdown cut at its ``## Step N — `` headings (what is before the
    first step dropped), one chunk a step, each ending in one newline."""
    return tuple(c.strip("\n") + "\n" for c in _STEP_HEADING.split(markdown)[1:])


def steps_as_html(
    steps: Sequence,
    verdict: tuple,
    warnings: tuple = (),
    first: int = 1,
    template: str = "step.html.j2",
) -> tuple[str, ...]:
    """Each step as HTML (the ``template``), numbered from ``first``: the last one with the
    ``warnings`` and the ``verdict``."""
    step_html, last = html_env().get_template(template).render, first + len(steps) - 1
    ends = {"warnings": warnings, "verdict": verdict}
    return tuple(
        step_html(index=i, step=step, **(ends if i == last else dict.fromkeys(ends, ())))
        for i, step in enumerate(steps, first)
    )


def worked_steps(
    title: str, given: object, steps: tuple, verdict: tuple, first: int = 1
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A worked solution of the kernel's templates as a page's steps: (the Markdown chunks,
    the HTML, the titles), one of each a step (a kernel's, a budget's, a what-if's; a serving
    step's or a training run's after a model's, numbered from ``first``)."""
    markdown = render_template(
        "kernel.md.j2", "md", level=1, title=title, given=given, steps=steps, verdict=verdict
    )
    renumbered = re.sub(
        r"\n## Step (\d+) — ", lambda m: f"\n## Step {int(m.group(1)) + first - 1} — ", markdown
    )
    html_ = steps_as_html(steps, verdict, first=first)
    return step_chunks(renumbered), html_, tuple(step.heading for step in steps)


def page_of(
    entry: ProblemEntry | KernelEntry | ModelEntry | QuestionEntry,
    kind: str,
    asked: tuple[Asked, ...],
    shown: tuple[object, str],
    steps: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    hints: bool,
    **fields: object,
) -> Page:
    """A problem's page of any kind: its detail JSON (the fields every kind has, then the
    kind's own ``fields``: operator, solve_for, regime, model, derivation) and its steps.

    ``shown`` is (the givens as data, the givens as HTML); ``steps`` is (the Markdown
    chunks, the HTML, the titles), one of each a step."""
    givens, givens_html = shown
    steps_markdown, steps_html, titles = steps
    detail = {
        "id": entry.id,
        "title": entry.title,
        "kind": kind,
        "question": entry.text,
        "question_html": question_html(entry.text),
        "givens": givens,
        "givens_html": givens_html,
        "operator": None,
        "solve_for": None,
        "regime": None,
        "asked": [asdict(box) for box in asked],  # quantity, label, latex, placeholder
        "steps": len(steps_html),
        "hints": hints,
        "derivation": False,
    }
    extra = {k: v for k, v in fields.items() if k not in detail}
    detail.update({k: v for k, v in fields.items() if k in detail})
    # a kind's own keys go after "operator", where the model's "model" always stood
    ordered = {}
    for key, value in detail.items():
        ordered[key] = value
        if key == "operator":
            ordered.update(extra)
    return Page(entry, asked, ordered, steps_markdown, steps_html, titles)


@dataclass(frozen=True)
class Workbook:
    """A set, prepared for serving."""

    title: str
    text: str
    pages: dict[str, Page]
    hints: bool
    show_expected: bool
    answers: dict[str, tuple[str, str, bool]] = field(default_factory=dict)
    """Under ``--hide-expected``: each asked ``problem/quantity``'s (label, value as text, whether
    a formula in LaTeX), and its other right answers (``problem/quantity/leading``)."""

    def closed(self, page: Page, i: int, solved: Collection[str]) -> tuple[str, ...]:
        """The labels of the answers step ``i`` states that are not ``solved`` (values as text)."""
        stated = page.withheld[i] if i < len(page.withheld) else ()
        waiting: dict[str, str] = {}  # value: the label of the page's own answer first
        for a in sorted(stated, key=lambda a: not a.startswith(f"{page.entry.id}/")):
            waiting.setdefault(self.answers[a][1], self.answers[a][0])
        return tuple(dict.fromkeys(v for k, v in waiting.items() if k not in solved))

    def solves(self, problem: str, quantity: str) -> tuple[str, ...]:
        """The values (as text: exact, at leading order) a right answer to ``problem``'s
        ``quantity`` shows the student knows."""
        key = f"{problem}/{quantity}"
        return tuple(v[1] for a, v in self.answers.items() if a == key or a.startswith(key + "/"))

    def page(self, problem: object) -> Page:
        """The page of a problem id.

        Raises:
            UnknownNameError: not an id of this set (ids are case-sensitive, never paths).
        """
        if not isinstance(problem, str) or not _ID_RE.match(problem) or problem not in self.pages:
            shown = problem[:80] if isinstance(problem, str) else type(problem).__name__
            raise UnknownNameError(f"problem {shown!r}", "no such problem in this set")
        return self.pages[problem]

    def index(self) -> dict:
        """The JSON of ``GET /api/problems``."""
        return {
            "title": self.title,
            "text_html": question_html(self.text),
            "hints": self.hints,
            "expected_shown": self.show_expected,
            "shown": "" if self.show_expected else f"{HIDDEN_NOTE} {_OPENS}",
            "problems": [
                {
                    "id": p.entry.id,
                    "title": p.entry.title,
                    "kind": p.detail["kind"],
                    "asked": [a.quantity for a in p.asked],
                    "steps": len(p.steps_html),
                }
                for p in self.pages.values()
            ],
        }


@lru_cache(maxsize=1)
def html_env() -> jinja2.Environment:
    """The HTML environment of the workbook's templates (autoescaped, strict, TeX-safe filters)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=True,
    )
    env.filters["rich"] = _html_rich
    return env


def _html_rich(parts: tuple | str) -> jinja2.utils.markupsafe.Markup:
    """Rich text as HTML: prose escaped, math as ``\\(…\\)`` for KaTeX."""
    if isinstance(parts, str):
        parts = (parts,)
    out = "".join(
        f"\\({html.escape(p.latex)}\\)" if isinstance(p, Math) else html.escape(p) for p in parts
    )
    return jinja2.utils.markupsafe.Markup(out)


_INLINE = (
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\$\$(.+?)\$\$"), r"\\[\1\\]"),
    (re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$"), r"\\(\1\\)"),
)


def question_html(text: str) -> str:
    """A question's text (Markdown with ``$math$``) as HTML paragraphs; everything escaped first.

    >>> question_html("What is **I** for $B = 1$?")
    '<p>What is <strong>I</strong> for \\\\(B = 1\\\\)?</p>'
    """
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    out = []
    for para in paragraphs:
        body = html.escape(para, quote=False)
        for pattern, repl in _INLINE:
            body = pattern.sub(repl, body)
        out.append(f"<p>{body}</p>")
    return "\n".join(out)


_NUMBER_BOXES = {
    Dimension.TIME: "a time with its unit (1.2 ms, 850 us)",
    Dimension.BYTES: "bytes: a number, with a unit if you like (2.1 GB)",
    Dimension.FLOPS: "FLOPs: a number (1.2e12)",
}
"""What a box asks for when every dim is bound, by what the quantity measures."""


def _asked(entry: ProblemEntry, d: Derivation) -> tuple[Asked, ...]:
    topics = entry.ask or tuple(dict.fromkeys(s.topic for s in d.solution.steps))
    quantities = dict.fromkeys(q for t in topics for q in shown_by(ProblemKind.OPERATOR, t))
    x = str(d.analysis.problem.solve_for)
    bound = {dim for dim, _ in d.analysis.problem.bound}
    free = [dim.name for dim in d.analysis.problem.operator.dims if dim not in bound]
    dims = ", ".join(free) or "the dims"
    others = ", ".join(name for name in free if name != x)
    others = f", or a formula in {others}" if others else ""
    out = []
    for q in quantities:
        try:
            if expected(d.analysis, q).value is None:
                continue
        except DeriveError:
            continue
        box = box_of(ProblemKind.OPERATOR, q) or Box(describe(q), "", "a formula in {dims}")
        symbol, what = box.latex.replace("{x}", x), box.placeholder
        if not free and "{dims}" in what:  # every dim bound: the answer is a number
            what = _NUMBER_BOXES.get(dimension_of(q), "a number")
        out.append(Asked(q, box.label, symbol, what.format(dims=dims, others=others)))
    return tuple(out)


def _givens(view: SolutionView) -> dict:
    """The givens as data: math fields are LaTeX, the rest plain text."""
    p = view.solution.analysis.problem
    return {
        "operator": p.operator.name,
        "chip": p.chip.name if p.chip else None,
        "chip_title": p.chip.title if p.chip else None,
        "compute_dtype": p.compute_dtype,
        "compute_reason": view.compute_reason,
        "solve_for": view.x,
        "bound": list(view.bound),
        "tensors": [attributes(t, "name role shape dtype width", None) for t in view.tensors],
        "hardware": [attributes(h, "name symbol value unit source", None) for h in view.hardware],
        "regime": p.regime.text if p.regime else None,
    }


def _page(entry: ProblemEntry, d: Derivation, hints: bool) -> Page:
    solution = select_steps(d.solution, entry.ask)
    view = view_of(solution, entry.title, entry.text)
    env = html_env()
    steps_html = steps_as_html(solution.steps, solution.verdict, solution.warnings)
    markdown = render_template("solution.md.j2", "md", view=view, level=1)
    page = page_of(
        entry,
        ProblemKind.OPERATOR.value,
        _asked(entry, d),
        (_givens(view), env.get_template("givens.html.j2").render(view=view)),
        (step_chunks(markdown), steps_html, tuple(s.heading for s in solution.steps)),
        hints,
        operator=d.analysis.problem.operator.name,
        solve_for=str(d.analysis.problem.solve_for),
        regime=d.analysis.problem.regime.text if d.analysis.problem.regime else None,
        derivation=True,
    )
    return _with_operator_doc(page, d)


def _with_operator_doc(page: Page, d: Derivation) -> Page:
    """The page with what its operator computes and how its FLOPs are counted, as the
    question sheet says it (the doc without the counts the problem asks)."""
    from derive.present.withheld import operator_sheet_doc

    doc = operator_sheet_doc(d.analysis)
    name = d.analysis.problem.operator.name
    said = f'<p class="operator">Operator <code>{html.escape(name)}</code>: {html.escape(doc)}</p>'
    detail = {
        **page.detail,
        "question_html": page.detail["question_html"] + ("\n" + said if doc else ""),
        "operator_doc": doc or None,
    }
    return replace(page, detail=detail)


def build_workbook(pset: ProblemSet, hints: bool = True, show_expected: bool = True) -> Workbook:
    """Derive every problem of the set once (operators, kernels, whole models) and prepare its page.

    Raises:
        DeriveError: a problem of the set cannot be derived (named by its id).
    """
    from derive.web.comms_pages import comms_page
    from derive.web.kernel_pages import kernel_page
    from derive.web.model_pages import model_page

    registry = set_registry(pset, trust=True)  # the set was read trusted or refused
    pages = {}
    leads: dict[str, _Answers] = {}  # the operator problems' answers at leading order
    for entry in pset.problems:
        try:
            d = derive_spec(entry.spec, registry)
            if not d.kind.roofline:  # no roofline: its page is its link time
                pages[entry.id] = comms_page(entry, cast(CommsDerivation, d), hints)
                continue
        except DeriveError as exc:
            raise in_file_terms(exc, pset.source, entry.id) from None
        pages[entry.id] = _page(entry, cast(Derivation, d), hints)  # the operator kind's
        leads[entry.id] = _operator_answers(pages[entry.id], cast(Derivation, d))
    for kernel in pset.kernels:
        try:
            pages[kernel.id] = kernel_page(kernel, hints)
        except DeriveError as exc:
            raise in_file_terms(exc, pset.source, kernel.id) from None
    for model in pset.models:
        try:
            page = model_page(model, pset.operators, hints)
        except DeriveError as exc:
            raise in_file_terms(exc, pset.source, model.id) from None
        pages[model.id] = page
    pages = _with_defined_boxes(pset, pages)
    if pset.natives:  # budgets and what-ifs (issue 36)
        from derive.web.native_pages import native_page

        for native in pset.natives:
            pages[native.id] = native_page(native, hints, pset.source)
    if pset.questions:  # problems of givens and equations alone
        from derive.questions.set_answers import answer_problem_set
        from derive.web.question_pages import questions_page

        answered = answer_problem_set(pset)
        for alone in pset.questions:
            pages[alone.id] = questions_page(pset, alone, answered[alone.id], hints)
    pages = {pid: pages[pid] for pid in sorted(pages, key=pset.number)}  # the teacher's order
    if show_expected or not hints:
        return Workbook(pset.title, pset.text, pages, hints, show_expected)
    answers = {k: v for lead in leads.values() for k, v in lead.items()}
    answers.update(_answers(pset, pages, leads))
    return Workbook(pset.title, pset.text, _withheld(pages, answers), hints, False, answers)


def build_workbooks(pset: ProblemSet, hints: bool = True, show: bool = True) -> list[Workbook]:
    """The workbook of each variant of the set, by its number (variants alike share one)."""
    from derive.problem.sets.variants import variants_of

    variants = variants_of(pset)
    made = {i: build_workbook(v, hints, show) for i, v in {id(v): v for _, v in variants}.items()}
    return [made[id(v)] for _, v in variants]


def _operator_answers(page: Page, d: Derivation) -> _Answers:
    """An operator problem's right answers: each asked quantity exact and at leading order
    under the regime, and a crossover's smallest compute-bound integer (``B ≥ 121``)."""
    from derive.checking.quantities import leading
    from derive.solution.notation import tex

    out = {}
    for box in page.asked:
        label, key = f"{box.label} ({page.entry.title})", f"{page.entry.id}/{box.quantity}"
        try:
            exact = expected(d.analysis, box.quantity)
            lead = leading(d.analysis, box.quantity, d.analysis.problem.regime)
        except DeriveError:
            continue
        for tail, t in (("", exact), ("/leading", lead)):
            if t is not None and t.value is not None:
                number = bool(t.value.is_number)
                out[key + tail] = (label, str(t.value) if number else tex(t.value), not number)
            if t is not None and t.threshold is not None:
                out[f"{key}{tail}/integer"] = (label, str(t.threshold), False)
    return out


def _answers(pset: ProblemSet, pages: dict[str, Page], known: Collection[str]) -> _Answers:
    """Each asked number's label and exact value as text, or formula's LaTeX, of every problem
    not ``known`` (a truth value is not withheld: any verdict on a yes/no tells it)."""
    from derive.checking.hidden import answer_value
    from derive.web.grading import Grader

    entries = {entry.id: entry for entry in (*pset.entries(), *pset.natives)}
    grader = Grader(entries, pset.operators, problem_set=pset)
    answers = {}
    for pid, page in pages.items():
        for box in page.asked if pid not in known else ():
            try:
                result = grader.check(pid, box.quantity, "1")
            except DeriveError:
                continue
            said, latex, label = result.expected or "", result.expected_latex or "", box.label
            number = bool(said and answer_value(said))
            if said or latex:  # a number as derive says it, or a formula as LaTeX
                label, said = f"{label} ({page.entry.title})", said if number else latex
                answers[f"{pid}/{box.quantity}"] = (label, said, not number)
    return answers


def _withheld(pages: dict[str, Page], answers: _Answers) -> dict[str, Page]:
    """Each page with, per step, the answers of the set it states (in its Markdown or HTML): a
    number in any form it prints (a small one, under 100, only as its own problem's answer),
    a formula as a side of an equation of the step's math, equal to it in any arrangement."""
    from derive.checking.hidden import answer_value, stating

    said = stating({a: text for a, (_, text, formula) in answers.items() if not formula})
    value = {a: answer_value(text) for a, (_, text, _) in answers.items()}
    small = {a for a, v in value.items() if v and v[0].denominator == 1 and abs(v[0]) < 100}
    formulas = {a: text for a, (_, text, formula) in answers.items() if formula}
    names = {n: sp.Symbol(n) for f in formulas.values() for n in _LETTER.findall(f)}
    probes: dict[object, list[str]] = {}
    for a, text in formulas.items():
        probes.setdefault(_probe(text, names), []).append(a)
    probes.pop(None, None)

    def stated(pid: str, md: str, html_: str) -> tuple[str, ...]:
        maths = (m[1] or m[2] for m in _MATH.finditer(html_))
        sides = (_probe(s, names) for m in maths for s in _SIDES.split(m))
        found = [a for p in sides for a in probes.get(p, ())]
        return tuple(a for a in (*said(f"{md}\n{html_}"), *dict.fromkeys(found))
                     if a not in small or a.startswith(f"{pid}/"))  # fmt: skip

    out = {}
    for pid, page in pages.items():
        steps = zip(page.steps_markdown, page.steps_html, strict=False)
        out[pid] = replace(page, withheld=tuple(stated(pid, *s) for s in steps))
    return out


_MATH = re.compile(r"\\\[(.+?)\\\]|\\\((.+?)\\\)", re.S)
_SIDES = re.compile(r"=|\\approx|≈|\\geq|\\leq|<|>")
_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")


def _probe(latex: str, names: dict[str, sp.Symbol]) -> object:
    """A formula's value at derive's probe point (None: not a formula in ``names``)."""
    from derive.formula.reader import parse_formula
    from derive.present.withheld import at_probe

    try:
        expr = parse_formula(latex, names, syntax="latex").expr
    except DeriveError:
        return None
    return at_probe(expr) if expr.free_symbols else None


def _with_defined_boxes(pset: ProblemSet, pages: dict[str, Page]) -> dict[str, Page]:
    """An answer box for each defined quantity and unknown of a page's problem (issue 23).

    Problems of givens and equations alone get pages of their own
    (:mod:`derive.web.question_pages`).
    """
    out = dict(pages)
    for entry in pset.entries():
        spec = entry.questions
        if spec is None or entry.id not in out:
            continue
        page = out[entry.id]
        boxes = tuple(
            Asked(name, f"{name} (defined)", "", "a number with its unit, e.g. 1.2e6 $ or 20 ms")
            for name in spec.answers
        )
        detail = {**page.detail, "asked": [*page.detail["asked"], *(asdict(b) for b in boxes)]}
        out[entry.id] = replace(page, asked=page.asked + boxes, detail=detail)
    return out
