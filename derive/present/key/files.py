"""The files of an answer key, assembled from its derived problems.

:func:`problem_part` renders one derived operator problem (its worked solution, question,
summary row and place on a roofline figure); :func:`key_files` adds the kernels' and
models' chapters and the roofline figures, and renders every file of the key in memory.
The pipeline (:func:`derive.pipeline.key.build_key`) derives the problems.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive import __version__
from derive.analysis.analyse import Analysis
from derive.catalogue import ProblemKind, phrases
from derive.figures import TIKZ_PACKAGES, TIKZ_PREAMBLE
from derive.present.formats import FORMATS, Document, render
from derive.present.key.figures import (
    Figure,
    Placement,
    placement,
    roofline_figures,
    serving_placement,
)
from derive.present.key.names import GENERATED_MARK
from derive.present.key.rows import Row, operator_row
from derive.present.render import environment, render_template
from derive.present.view import SolutionView, view_of
from derive.present.withheld import operator_sheet_doc
from derive.problem.sets.problem_set import ProblemEntry, ProblemSet
from derive.solution.builder import Solution, select_steps

if TYPE_CHECKING:
    from collections.abc import Sequence

    from derive.analysis.kernel_numbers import KernelNumbers
    from derive.deadline import Workers
    from derive.present.key.models import DerivedModel
    from derive.present.key.questions import NativeProblem
    from derive.questions.records import Questions


KEY_DOCUMENTS = (
    ("", "key", "md"),
    ("-questions", "questions", "md"),
    ("-questions", "questions", "tex"),
    ("-appendix", "appendix", "tex"),
)
"""The key's files, each a document of the set in a format: the name after the set's stem,
the document's templates and the format (the standalone key, ``STEM.tex``, is the
appendix's body as its own document)."""
PACKAGES = ("amsmath", "amssymb", "booktabs", "tabularx") + tuple(TIKZ_PACKAGES)
PREAMBLE = (
    (r"\usepackage{amsmath,amssymb,booktabs,tabularx}",)
    + tuple(TIKZ_PREAMBLE)
    + (r"\usepackage[margin=2cm]{geometry}",)
)
ASK_PHRASES = phrases(ProblemKind.OPERATOR)


def _asks(entry: ProblemEntry, solution: Solution) -> tuple[str, ...]:
    topics = entry.ask or tuple(dict.fromkeys(s.topic for s in solution.steps))
    return tuple(ASK_PHRASES[t] for t in topics if t in ASK_PHRASES)


@dataclass(frozen=True)
class _QuestionView:
    """The part of a solution's view the questions template prints (strings, cheap to pickle)."""

    problem: object
    tensors: tuple
    hardware: tuple
    bound: tuple[str, ...]
    regime: tuple


@dataclass(frozen=True)
class _OperatorName:
    name: str
    doc: str  # what the question sheet prints: the doc without the counts it would give away


@dataclass(frozen=True)
class _ProblemName:
    operator: _OperatorName
    regime: bool


def _question_view(view: SolutionView, analysis: Analysis) -> _QuestionView:
    """What the sheet prints of a problem: its operator's doc without the counts it asks."""
    operator = view.problem.operator  # type: ignore[attr-defined]
    doc = operator_sheet_doc(analysis)
    return _QuestionView(
        _ProblemName(_OperatorName(operator.name, doc), bool(view.problem.regime)),  # type: ignore[attr-defined]
        view.tensors,
        view.hardware,
        view.bound,
        view.regime,
    )


KEY_TEMPLATES = ("solution", "steps", "layout", "key", "questions", "appendix", "standalone")
"""The templates a key renders (those a solution imports included), by name without suffix."""


def preload() -> None:
    """Load in this process what a key's problems load on first use: the shipped chips, the
    question sheets' formula reader and the key's templates. Worker processes forked after
    it share this one copy instead of each loading its own (benchmarks/README.md); output
    does not depend on it."""
    from derive.formula.reader import parse_formula  # noqa: F401  the sheets' withholding reads with it
    from derive.present.formats import templated_formats
    from derive.problem.chips import load_chips
    from derive.resources import resource_dir

    load_chips()
    folder = resource_dir("templates")
    for fmt in templated_formats():
        for name in KEY_TEMPLATES:
            if (folder / (name + fmt.template_suffix)).is_file():
                environment(fmt.name).get_template(name + fmt.template_suffix)


def key_item(pid: str, body: str, tex: str, plot: Figure | None = None) -> dict:
    """A problem as the key's templates print it: its anchor, its worked solution in
    Markdown (``body``) and in LaTeX, and its figure (None: it has none)."""
    return {"anchor": pid.lower(), "body": body.rstrip("\n"), "tex": tex.rstrip("\n"), "plot": plot}


def templated_item(
    template: str, stem: str, pid: str, plot: Figure | None = None, **context: object
) -> dict:
    """:func:`key_item` of a problem written by a template pair (``kernel`` →
    ``kernel.md.j2``, ``kernel.tex.j2``), its LaTeX labelled ``<stem>:<id>``."""
    md = render_template(f"{template}.md.j2", "md", **context)
    return key_item(
        pid,
        md,
        render_template(f"{template}.tex.j2", "tex", label=f"{stem}:{pid}", **context),
        plot,
    )


@dataclass(frozen=True)
class ProblemPart:
    """One problem of a key, derived and rendered: what a worker process sends back.

    Only text and exact numbers: unpickling sympy expressions costs more than deriving them.
    """

    item: dict
    question: dict
    row: Row
    placement: Placement | None  # None: nothing to place on a roofline (a transfer alone)


def problem_part(
    pset: ProblemSet,
    stem: str,
    index: int,
    analysis: Analysis,
    solution: Solution,
    plot: Figure | None,
) -> ProblemPart:
    """Problem ``index`` of the set, derived (its analysis and full solution), rendered."""
    entry = pset.problems[index]
    view = view_of(
        select_steps(solution, entry.ask),
        f"Problem {pset.number(entry.id)} ({entry.id}): {entry.title}",
        entry.text,
    )
    item = templated_item("solution", stem, entry.id, plot, view=view, level=2)
    question = {
        "title": entry.title,
        "text": entry.text,
        "view": _question_view(view, analysis),
        "asks": _asks(entry, solution),
    }
    return ProblemPart(item, question, operator_row(entry, analysis), placement(entry, analysis))


def key_files(
    pset: ProblemSet,
    stem: str,
    parts: Sequence[ProblemPart],
    *,
    kernels: Sequence[KernelNumbers] = (),
    models: Sequence[DerivedModel] = (),
    pool: Workers,
    answered: Mapping[str, Questions] | None = None,
    natives: tuple[NativeProblem, ...] = (),
) -> dict[str, str]:
    """Every file of the key, in memory (name → text), from the set's derived problems.

    ``parts`` are the operator problems, rendered; ``kernels`` the set's kernels and
    ``models`` its model problems, derived, in the set's order. Their chapters follow the operator problems; the roofline figures
    are drawn by ``pool``, the workers that derived the problems. ``answered`` are
    the problems' answered givens, definitions and equations, by id: their lines join their
    problems, and the problems of givens and equations alone make the last chapter, after
    the set's budgets and what-ifs (``natives``, solved).
    """
    kernel_items: tuple[dict, ...] = ()
    kernel_questions: tuple[dict, ...] = ()
    kernel_rows: tuple[Row, ...] = ()
    kernel_placements: tuple[Placement, ...] = ()
    if kernels:  # the kernels' modules load only for a set with kernels
        from derive.present.key.kernels import kernel_chapter

        chapter_of_kernels = kernel_chapter(pset, kernels, stem)
        kernel_items, kernel_questions = chapter_of_kernels.items, chapter_of_kernels.questions
        kernel_rows, kernel_placements = chapter_of_kernels.rows, chapter_of_kernels.placements
    steps = []
    if models:  # the model modules load only for a set with models
        from derive.model.phase import PhaseAnalysis

        steps = [  # the serving steps, on their chips' rooflines
            serving_placement(entry.id, model.analysis.problem, cast(PhaseAnalysis, model.phase))
            for entry, model in zip(pset.models, models)
            if model.phase is not None  # a crossover alone times no step to place
            and model.phase.kind.roofline
        ]
    figures = roofline_figures(
        stem,
        [part.placement for part in parts if part.placement is not None]
        + list(kernel_placements)
        + [step for step in steps if step is not None],
        source=pset.source,
        pool=pool,
    )
    pool.release()  # the figures were the workers' last batch: they exit as the files render
    items = [part.item for part in parts] + list(kernel_items)
    questions = [part.question for part in parts] + list(kernel_questions)
    summary = [part.row for part in parts] + list(kernel_rows)
    files = {item["plot"].file: _mark_svg(item["plot"].svg) for item in items if item["plot"]}
    model_rows: tuple = ()
    if pset.models:  # the models chapter: model = "NAME" problems, after the operator problems
        from derive.present.key.models import model_chapter

        chapter = model_chapter(pset, models, stem)
        for item in chapter.items:  # a serving problem's figure
            if item["plot"] is not None:
                files[item["plot"].file] = _mark_svg(item["plot"].svg)
        items, questions, model_rows = (
            items + list(chapter.items),
            questions + list(chapter.questions),
            chapter.rows,
        )
    if answered or natives:
        from derive.present.key.questions import questions_part

        part = questions_part(pset, items, questions, answered or {}, stem, natives)
        items, questions = items + list(part.items), questions + list(part.questions)
        model_rows = part.glance_rows(tuple(model_rows))
    rank = {entry.id.lower(): pset.number(entry.id) for entry in pset.every_entry()}
    paired = sorted(zip(items, questions, strict=True), key=lambda p: rank[p[0]["anchor"]])
    items, questions = [item for item, _ in paired], [question for _, question in paired]
    context = {
        "version": __version__,
        "source": Path(pset.source).name,
        "title": pset.title,
        "text": pset.text,
        "model_rows": model_rows,
        "stem": stem,
        "summary": summary,
        "figures": figures,
        "items": items,
        "questions": questions,
        "packages": PACKAGES,
        "preamble": PREAMBLE,
    }
    for after, template, fmt in KEY_DOCUMENTS:
        files[f"{stem}{after}{FORMATS[fmt].suffix}"] = render(Document(template, context), fmt)
    body = _titled(_strip_header(files[f"{stem}-appendix.tex"]))  # the same body, a handout
    files[f"{stem}.tex"] = render(Document("standalone", {**context, "body": body}), "tex")
    for f in figures:
        files[f.file] = _mark_svg(f.svg)
    return dict(sorted(files.items()))


def _mark_svg(svg: str) -> str:
    """Put derive's generated-file mark right after the XML declaration (or first)."""
    mark = f"<!-- {GENERATED_MARK} {__version__}; do not edit: run derive key -->\n"
    if svg.startswith("<?xml"):
        head, _, rest = svg.partition("\n")
        return f"{head}\n{mark}{rest}"
    return mark + svg


def _titled(body: str) -> str:
    """The appendix's body with its ``\\section{TITLE}`` made the document's title (a
    standalone key is a handout, not a numbered section of a paper)."""
    head, sep, rest = body.partition("\n")
    if not (head.startswith("\\section{") and head.endswith("}")):
        return body
    title = head[len("\\section{") : -1]
    return f"\\title{{{title}}}\n\\author{{}}\n\\date{{}}\n\\maketitle{sep}{rest}"


def _strip_header(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not line.startswith("%")) + "\n"
