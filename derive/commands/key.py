"""Answer keys: a problem set in; the key, the questions, LaTeX and figures out.

``build_key`` renders every file in memory (a failure writes nothing);
``write_files`` publishes them as one set (see :mod:`derive.commands.output_files`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from derive import __version__
from derive.commands.output_files import GENERATED_MARK, safe_name, write_files
from derive.commands.progress import ProgressBar
from derive.deadline import DEFAULT_SECONDS, ENV_VAR, default_jobs, run_each, time_limit
from derive.declare.registry import Registry
from derive.errors import DeriveError, ProblemError
from derive.figures import (
    TIKZ_PACKAGES,
    TIKZ_PREAMBLE,
)
from derive.formula.decimals import ascii_int
from derive.pipeline import Derivation, derive_spec
from derive.present.render import render
from derive.present.view import SolutionView, view_of
from derive.problem.problem_set import (
    ProblemEntry,
    ProblemSet,
    load_problem_set,
    parse_problem_set,
)
from derive.problem.set_errors import in_file_terms, raise_collected
from derive.problem.set_registry import set_registry
from derive.solution.builder import select_steps

if TYPE_CHECKING:
    from derive.commands.cli import Subparsers

from derive.commands.kernel_key import kernel_chapter
from derive.commands.key_figures import Placement, placement, plot_figure, roofline_figures
from derive.commands.key_rows import Row, operator_row

__all__ = [
    "BUILTIN_SET",
    "KeyOptions",
    "add_key_parser",
    "build_key",
    "run_builtin_key",
    "run_key",
]

BUILTIN_SET = "data/problems/rooflines.toml"
PACKAGES = ("amsmath", "amssymb", "booktabs", "tabularx") + tuple(TIKZ_PACKAGES)
PREAMBLE = (
    (r"\usepackage{amsmath,amssymb,booktabs,tabularx}",)
    + tuple(TIKZ_PREAMBLE)
    + (r"\usepackage[margin=2.5cm]{geometry}",)
)
ASK_PHRASES = {
    "flops": "the FLOPs",
    "bytes": "the bytes moved through memory",
    "intensity": "the arithmetic intensity",
    "intensity_regime": "the leading-order intensity under the regime",
    "ridge": "the ridge point of the hardware",
    "crossover": "the exact crossover and the smallest compute-bound integer value",
    "crossover_regime": "the crossover at leading order and the smallest compute-bound integer value",
    "regime_holds": "whether the answer respects the regime assumed",
    "times": "T_math and T_mem",
    "bounds": "lower and upper bounds on the runtime",
    "attainable": "the attainable FLOP/s and the fraction of peak",
    "network": "the network roofline: link intensity, ridge, crossover and T_comms",
}


def _asks(entry: ProblemEntry, d: Derivation) -> tuple[str, ...]:
    topics = entry.ask or tuple(dict.fromkeys(s.topic for s in d.solution.steps))
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
    doc: str


@dataclass(frozen=True)
class _ProblemName:
    operator: _OperatorName
    regime: bool


def _question_view(view: SolutionView) -> _QuestionView:
    operator = view.problem.operator  # type: ignore[attr-defined]
    return _QuestionView(
        _ProblemName(_OperatorName(operator.name, operator.doc), bool(view.problem.regime)),  # type: ignore[attr-defined]
        view.tensors,
        view.hardware,
        view.bound,
        view.regime,
    )


@dataclass(frozen=True)
class _Problem:
    """One problem of a key, derived and rendered: what a worker process sends back.

    Only text and exact numbers: unpickling sympy expressions costs more than deriving them.
    """

    item: dict
    question: dict
    row: Row
    placement: Placement


def _build_problem(
    pset: ProblemSet, stem: str, registry: Registry, index: int
) -> _Problem | ProblemError:
    """Derive and render problem ``index`` of the set (pure: the same in any process).

    An error in the problem comes back as a value, said in the file's own terms, so that
    every problem's errors are reported together.
    """
    entry = pset.problems[index]
    try:
        d = derive_spec(entry.spec, registry)
    except DeriveError as exc:
        return in_file_terms(exc, pset.source, entry.id)
    try:
        plot = plot_figure(stem, entry, entry.plot, registry) if entry.plot else None
    except DeriveError as exc:
        return in_file_terms(exc, pset.source, entry.id, "plot")
    solution = select_steps(d.solution, entry.ask)
    view = view_of(solution, f"Problem {index + 1} ({entry.id}): {entry.title}", entry.text)
    item = {
        "anchor": entry.id.lower(),
        "body": render("solution.md.j2", "md", view=view, level=2).rstrip("\n"),
        "tex": render("solution.tex.j2", "tex", view=view, label=f"{stem}:{entry.id}").rstrip("\n"),
        "plot": plot,
    }
    question = {
        "title": entry.title,
        "text": entry.text,
        "view": _question_view(view),
        "asks": _asks(entry, d),
    }
    return _Problem(item, question, operator_row(entry, d.analysis), placement(entry, d.analysis))


def build_key(
    pset: ProblemSet,
    stem: str,
    registry: Registry | None = None,
    *,
    time_limit: float | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    errors: Sequence[DeriveError] = (),
) -> dict[str, str]:
    """Render every file of the key for a problem set, in memory: name → text.

    Args:
        pset: the problem set.
        stem: the files' common name.
        registry: the operators (default: :func:`~derive.problem.set_registry.set_registry`, trusted).
        time_limit: seconds each problem may take (None: no limit); past it a
            :class:`~derive.errors.TimeLimitError` names the problem.
        jobs: worker processes deriving problems at once (output is the same for any number).
        progress: called as ``progress(done, total)`` after each problem.
        errors: errors already found in the file (parsing); they are raised together with
            the ones found here, one line each.
    """
    stem = safe_name(stem)
    registry = registry or set_registry(pset, trust=True)
    built = run_each(
        partial(_build_problem, pset, stem, registry),
        len(pset.problems),
        seconds=time_limit,
        name=lambda i: f"{pset.source}: problem {pset.problems[i].id!r}",
        jobs=jobs,
        on_done=progress,
    )
    raise_collected(
        pset.source, [*errors, *(part for part in built if isinstance(part, ProblemError))]
    )
    parts = [part for part in built if isinstance(part, _Problem)]
    kernels = kernel_chapter(pset, len(parts) + 1, stem)  # after the operators: cheap, here
    figures = roofline_figures(
        stem,
        [part.placement for part in parts] + list(kernels.placements),
        source=pset.source,
        time_limit=time_limit,
        jobs=jobs,
    )
    items = [part.item for part in parts] + list(kernels.items)
    questions = [part.question for part in parts] + list(kernels.questions)
    summary = [part.row for part in parts] + list(kernels.rows)
    files = {item["plot"].file: _mark_svg(item["plot"].svg) for item in items if item["plot"]}
    model_rows: tuple = ()
    if pset.models:  # the models chapter: model = "NAME" problems, after the operator problems
        from derive.commands.model_key import model_chapter

        chapter = model_chapter(pset, len(items) + 1, stem)
        for item in chapter.items:  # a serving problem's figure
            if item["plot"] is not None:
                files[item["plot"].file] = _mark_svg(item["plot"].svg)
        items, questions, model_rows = (
            items + list(chapter.items),
            questions + list(chapter.questions),
            chapter.rows,
        )
    common = {
        "version": __version__,
        "source": Path(pset.source).name,
        "title": pset.title,
        "text": pset.text,
        "model_rows": model_rows,
    }
    files[f"{stem}.md"] = render(
        "key.md.j2", "md", summary=summary, figures=figures, items=items, **common
    )
    files[f"{stem}-questions.md"] = render("questions.md.j2", "md", questions=questions, **common)
    files[f"{stem}-questions.tex"] = render(
        "questions.tex.j2", "tex", questions=questions, preamble=PREAMBLE, **common
    )
    body = render(
        "appendix.tex.j2",
        "tex",
        stem=stem,
        summary=summary,
        figures=figures,
        items=items,
        packages=PACKAGES,
        preamble=PREAMBLE,
        **common,
    )
    files[f"{stem}-appendix.tex"] = body
    files[f"{stem}.tex"] = render(
        "standalone.tex.j2", "tex", body=_strip_header(body), preamble=PREAMBLE, **common
    )
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


def _strip_header(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not line.startswith("%")) + "\n"


@dataclass(frozen=True)
class KeyOptions:
    """How ``derive key`` runs: trust, the budget per problem, workers, progress."""

    trust: bool = False
    time_limit: float | None = None
    jobs: int = 1
    quiet: bool = True


def _write_key(
    pset: ProblemSet,
    stem: str,
    out_dir: Path,
    force: bool,
    options: KeyOptions,
    errors: Sequence[DeriveError] = (),
) -> int:
    registry = set_registry(pset, options.trust, options.time_limit)
    bar = ProgressBar(f"derive key {stem}", quiet=options.quiet)
    try:
        files = build_key(
            pset,
            stem,
            registry,
            time_limit=options.time_limit,
            jobs=options.jobs,
            progress=bar,
            errors=errors,
        )
    finally:
        bar.close()
    for written in write_files(out_dir, files, force, stem=stem):
        print(f"wrote {written}")
    return 0


def run_key(
    path: Path,
    out_dir: Path,
    force: bool = False,
    stem: str | None = None,
    options: KeyOptions = KeyOptions(),
) -> int:
    """``derive key FILE``: write the key files for a problem set (its Python only if trusted)."""
    errors: list[DeriveError] = []
    pset = load_problem_set(path, errors)
    return _write_key(pset, safe_name(stem or path.stem), out_dir, force, options, errors)


def run_builtin_key(
    out_dir: Path = Path("out"), force: bool = False, options: KeyOptions | None = None
) -> int:
    """Bare ``derive``: the built-in key (the rooflines chapter) into ``out/``."""
    text = resources.files("derive").joinpath(BUILTIN_SET).read_text(encoding="utf-8")
    pset = parse_problem_set(text, "rooflines.toml")
    print(
        f"derive {__version__}: no command given, so writing the built-in answer key "
        f"({pset.title}) into {out_dir.resolve()}; 'derive --help' lists the commands"
    )
    options = options or KeyOptions(time_limit=time_limit(), jobs=default_jobs(), quiet=False)
    return _write_key(pset, "rooflines", out_dir, force, options)


def add_key_parser(sub: Subparsers) -> None:
    """Register ``derive key FILE [-o DIR] [--force]``."""
    p = sub.add_parser(
        "key", help="write an answer key, questions, LaTeX and figures for a problem set"
    )
    p.add_argument("file", help="problem set (TOML)")
    p.add_argument(
        "-o", "--output", default="out", metavar="DIR", help="output folder (default out/)"
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite files that derive did not generate"
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="run the Python files the set names in 'operators' (a set is data otherwise)",
    )
    p.add_argument(
        "--time-limit",
        metavar="SECONDS",
        help=f"seconds each problem may take (default ${ENV_VAR} or {DEFAULT_SECONDS:g})",
    )
    p.add_argument(
        "--jobs",
        type=ascii_int,
        metavar="N",
        help="worker processes deriving problems at once (default: every core)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar on a terminal")
    p.set_defaults(handler=_run_key_args)


def _run_key_args(args: argparse.Namespace) -> int:
    if not args.output.strip():  # Path("") is the working folder: never write there unasked
        raise ProblemError("-o ''", "an empty folder name; give a folder (-o . for this one)")
    if args.jobs is not None and not 1 <= args.jobs <= 256:
        raise ProblemError(f"--jobs {args.jobs}", "must be from 1 to 256")
    options = KeyOptions(
        trust=args.trust,
        time_limit=time_limit(args.time_limit),
        jobs=args.jobs or default_jobs(),
        quiet=args.quiet,
    )
    return run_key(Path(args.file), Path(args.output), args.force, options=options)
