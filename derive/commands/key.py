"""Answer keys: a problem set in; the key, the questions, LaTeX and figures out.

``build_key`` renders every file in memory (a failure writes nothing);
``write_files`` puts them in place atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from derive import __version__
from derive.analysis.analyse import Analysis
from derive.analysis.crossover import NEVER
from derive.commands.output_files import GENERATED_MARK, safe_name, write_files
from derive.declare.registry import Registry, load_registry
from derive.errors import DeriveError, ProblemError
from derive.figures import (
    TIKZ_PACKAGES,
    TIKZ_PREAMBLE,
    Ceiling,
    Point,
    RooflineFigure,
    Series,
    SweepFigure,
    roofline_svg,
    roofline_tikz,
    sweep_svg,
    sweep_tikz,
)
from derive.pipeline import Derivation, derive_spec
from derive.present.render import md_rich, render, tex_is_wide, tex_slashed
from derive.present.view import view_of
from derive.problem.decimals import fmt_decimal
from derive.problem.problem_set import (
    PlotSpec,
    ProblemEntry,
    ProblemSet,
    in_file_terms,
    load_problem_set,
    parse_problem_set,
    raise_collected,
)
from derive.solution.builder import select_steps, verdict_rich
from derive.solution.notation import tex, tex_decimal

if TYPE_CHECKING:
    from derive.commands.cli import Subparsers

__all__ = ["BUILTIN_SET", "add_key_parser", "build_key", "run_builtin_key", "run_key"]

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


@dataclass(frozen=True)
class Figure:
    """A rendered figure: its SVG file for Markdown and its TikZ for LaTeX."""

    file: str
    caption: str
    svg: str
    tikz: str

    @property
    def label(self) -> str:
        """The LaTeX label: ``fig:`` and the file's name without ``.svg``."""
        return "fig:" + self.file.removesuffix(".svg")


@dataclass(frozen=True)
class Row:
    """One row of the answers-at-a-glance table."""

    id: str
    anchor: str
    hardware: str
    ridge: str
    crossover: str
    threshold: str
    verdict: str
    ridge_tex: str
    crossover_tex: str
    threshold_tex: str


def _row(entry: ProblemEntry, analysis: Analysis) -> Row:
    crossover, leading = analysis.headline
    ridge = analysis.memory.ridge
    network = analysis.network
    link = False
    if (
        entry.ask
        and "network" in entry.ask
        and "crossover" not in entry.ask
        and network is not None
        and network.crossover is not None
    ):
        crossover, leading, ridge, link = network.crossover, False, network.ridge, True
    approx = lambda v: "" if v.is_Integer else f" ≈ {fmt_decimal(v)}"  # noqa: E731
    tapprox = lambda v: "" if v.is_Integer else rf" \approx {tex_decimal(v)}"  # noqa: E731
    if crossover.exact is not None and crossover.exact.is_Rational:
        cross, cross_tex = (
            f"{crossover.exact}{approx(crossover.exact)}",
            f"${crossover.exact}{tapprox(crossover.exact)}$",
        )
    elif crossover.exact is not None and crossover.exact.is_number:
        cross, cross_tex = (
            f"${tex(crossover.exact)}${approx(crossover.exact)}",
            f"${tex(crossover.exact)}{tapprox(crossover.exact)}$",
        )
    elif crossover.exact is not None:  # a formula: written (a)/(b) so a narrow cell can break it
        formula = tex(crossover.exact)
        cross = f"${formula}$"
        cross_tex = (
            "a formula in the other dims (in the problem)"
            if tex_is_wide(formula, 24)
            else f"${tex_slashed(formula)}$"
        )
    else:
        cross = cross_tex = crossover.status
    suffix = " (leading order)" if leading else " (link)" if link else ""
    threshold = (
        f"{crossover.variable} ≥ {crossover.min_compute_bound}"
        if crossover.min_compute_bound is not None and crossover.status != NEVER
        else "—"
    )
    threshold_tex = (
        f"${tex(crossover.variable)} \\ge {crossover.min_compute_bound}$"
        if threshold != "—"
        else "---"
    )
    return Row(
        entry.id,
        entry.id.lower(),
        analysis.problem.hardware_name,
        f"{ridge}{approx(ridge)}",
        cross + suffix,
        threshold,
        md_rich(verdict_rich(crossover, ridge, "on the link: " if link else "", leading=leading)),
        f"${ridge}{tapprox(ridge)}$",
        cross_tex + suffix,
        threshold_tex,
    )


def _hardware_key(analysis: Analysis) -> str:
    problem = analysis.problem
    return (
        problem.chip.name if problem.chip else f"given-{problem.peak.text}-{problem.bandwidth.text}"
    )


def _ceilings(analysis: Analysis) -> tuple[Ceiling, ...]:
    problem = analysis.problem
    if problem.chip is None:
        return (Ceiling(problem.compute_dtype, problem.peak.value),)
    merged: dict[sp.Rational, list[str]] = {}
    for dtype, peak in problem.chip.peaks:
        merged.setdefault(peak.value, []).append(dtype)
    return tuple(
        Ceiling("/".join(names), value)
        for value, names in sorted(merged.items(), key=lambda kv: kv[0])
    )


def _point(entry: ProblemEntry, analysis: Analysis) -> Point | None:
    """Where a problem sits on its chip's roofline: at the bound dims, at its crossover, or
    (never compute-bound) at the largest intensity it approaches, labelled as such."""
    if analysis.all_bound:
        return Point(entry.id, analysis.intensity_at_point, analysis.attainable)
    crossover, _ = analysis.headline
    if crossover.exact is not None and crossover.exact.is_number:
        return Point(
            f"{entry.id} ({crossover.variable}* = {fmt_decimal(crossover.exact, 4)})",
            analysis.memory.ridge,
            analysis.problem.peak.value,
        )
    top = crossover.supremum_all if crossover.supremum_all is not None else crossover.supremum
    if crossover.status == NEVER and top is not None and top.is_number and top > 0:
        peak, bandwidth = analysis.problem.peak.value, analysis.problem.bandwidth.value
        return Point(
            f"{entry.id} (never compute-bound: I ≤ {fmt_decimal(top, 4)})",
            top,
            min(peak, top * bandwidth),
        )
    return None


def _roofline_figures(stem: str, done: list[tuple[ProblemEntry, Derivation]]) -> list[Figure]:
    groups: dict[str, list[tuple[ProblemEntry, Analysis]]] = {}
    for entry, derivation in done:
        groups.setdefault(_hardware_key(derivation.analysis), []).append(
            (entry, derivation.analysis)
        )
    figures = []
    for key, members in groups.items():
        analysis = members[0][1]
        name = key
        title = (
            f"Roofline of {analysis.problem.chip.title}"
            if analysis.problem.chip
            else f"Roofline for peak {analysis.problem.peak.text} FLOP/s, bandwidth {analysis.problem.bandwidth.text} B/s"
        )
        placed = [
            (member_entry.id, _point(member_entry, member_analysis))
            for member_entry, member_analysis in members
        ]
        points = tuple(point for _, point in placed if point is not None)
        unplaced = [pid for pid, point in placed if point is None]
        caption = title + (", with the problems placed on it" if points else "")
        if unplaced:
            caption += (
                f"; not placed ({', '.join(unplaced)}): the answer depends on dims left unbound"
            )
        figure = RooflineFigure(
            title, analysis.problem.bandwidth.value, _ceilings(analysis), points
        )
        figures.append(
            Figure(
                safe_name(f"{stem}-roofline-{name}.svg"),
                caption,
                roofline_svg(figure),
                roofline_tikz(figure),
            )
        )
    return figures


def _plot_xs(start: int, stop: int, marks: list[sp.Expr]) -> tuple[int, ...]:
    xs = {start, stop}
    k = 1
    while k <= stop:
        if k >= start:
            xs.add(k)
        k *= 2
    for m in marks:
        for v in (int(sp.floor(m)), int(sp.ceiling(m))):
            if start <= v <= stop:
                xs.add(v)
    return tuple(sorted(xs))


def _plot_figure(stem: str, entry: ProblemEntry, plot: PlotSpec, registry: Registry) -> Figure:
    series_data = []
    for series_spec in plot.series:
        spec = replace(entry.spec, sets=entry.spec.sets + series_spec.sets, solve_for=plot.over)
        analysis = derive_spec(spec, registry).analysis
        x = analysis.problem.solve_for
        intensity = analysis.memory.intensity.subs(analysis.problem.bound_subs(except_dim=x))
        if intensity.free_symbols - {x}:
            raise ProblemError(
                f"problem {entry.id!r} plot series {series_spec.label!r}",
                f"bind every dim but {x} (free: {', '.join(sorted(map(str, intensity.free_symbols - {x})))})",
            )
        crossover = analysis.memory.crossover
        mark = crossover.exact if crossover is not None and crossover.is_number else None
        series_data.append((series_spec.label, intensity, x, mark, analysis))
    marks = [mark for *_, mark, _ in series_data if mark is not None]
    xs = _plot_xs(plot.start, plot.stop, marks)
    problem = series_data[0][4].problem
    peak, bandwidth = problem.peak.value, problem.bandwidth.value
    series = tuple(
        Series(
            label,
            tuple(sp.Integer(v) for v in xs),
            tuple(sp.Min(peak, intensity.subs(x, v) * bandwidth) for v in xs),
            mark,
        )
        for label, intensity, x, mark, _ in series_data
    )
    title = plot.title or f"{entry.title}: attainable FLOP/s against {plot.over}"
    figure = SweepFigure(title, plot.over, "attainable FLOP/s", series, peak)
    return Figure(
        safe_name(f"{stem}-{entry.id}-plot.svg"), title, sweep_svg(figure), sweep_tikz(figure)
    )


def _asks(entry: ProblemEntry, derivation: Derivation) -> tuple[str, ...]:
    topics = entry.ask or tuple(dict.fromkeys(step.topic for step in derivation.solution.steps))
    return tuple(ASK_PHRASES[t] for t in topics if t in ASK_PHRASES)


def build_key(
    problem_set: ProblemSet,
    stem: str,
    registry: Registry | None = None,
    errors: Sequence[DeriveError] = (),
) -> dict[str, str]:
    """Render every file of the key for a problem set, in memory: name → text.

    ``errors`` are errors already found in the file (parsing); they are raised together
    with the ones found here, one line each.
    """
    stem = safe_name(stem)
    registry = registry or load_registry(problem_set.operators)
    done, plots, errors = [], {}, list(errors)
    for entry in problem_set.problems:  # every problem's errors, in the file's own terms
        try:
            done.append((entry, derive_spec(entry.spec, registry)))
        except DeriveError as exc:
            errors.append(in_file_terms(exc, problem_set.source, entry.id))
            continue
        try:
            plots[entry.id] = (
                _plot_figure(stem, entry, entry.plot, registry) if entry.plot else None
            )
        except DeriveError as exc:
            errors.append(in_file_terms(exc, problem_set.source, entry.id, "plot"))
    raise_collected(problem_set.source, errors)
    figures = _roofline_figures(stem, done)
    items, questions, summary, files = [], [], [], {}
    for number, (entry, derivation) in enumerate(done, start=1):
        solution = select_steps(derivation.solution, entry.ask)
        title = f"Problem {number} ({entry.id}): {entry.title}"
        view = view_of(solution, title, entry.text)
        plot = plots[entry.id]
        items.append(
            {
                "anchor": entry.id.lower(),
                "body": render("solution.md.j2", "md", view=view, level=2).rstrip("\n"),
                "tex": render(
                    "solution.tex.j2", "tex", view=view, label=f"{stem}:{entry.id}"
                ).rstrip("\n"),
                "plot": plot,
            }
        )
        questions.append(
            {
                "title": entry.title,
                "text": entry.text,
                "view": view,
                "asks": _asks(entry, derivation),
            }
        )
        summary.append(_row(entry, derivation.analysis))
        if plot:
            files[plot.file] = _mark_svg(plot.svg)
    common = {
        "version": __version__,
        "source": Path(problem_set.source).name,
        "title": problem_set.title,
        "text": problem_set.text,
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
    for figure in figures:
        files[figure.file] = _mark_svg(figure.svg)
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


def run_key(path: Path, out_dir: Path, force: bool = False, stem: str | None = None) -> int:
    """``derive key FILE``: write the key files for a problem set."""
    errors: list[DeriveError] = []
    problem_set = load_problem_set(path, errors)
    files = build_key(problem_set, stem or path.stem, errors=errors)
    for written in write_files(out_dir, files, force):
        print(f"wrote {written}")
    return 0


def run_builtin_key(out_dir: Path = Path("out"), force: bool = False) -> int:
    """Bare ``derive``: the built-in key (the rooflines chapter) into ``out/``."""
    text = resources.files("derive").joinpath(BUILTIN_SET).read_text(encoding="utf-8")
    problem_set = parse_problem_set(text, "rooflines.toml")
    print(
        f"derive {__version__}: no command given, so writing the built-in answer key "
        f"({problem_set.title}) into {out_dir.resolve()}; 'derive --help' lists the commands"
    )
    for written in write_files(out_dir, build_key(problem_set, "rooflines"), force):
        print(f"wrote {written}")
    return 0


def add_key_parser(sub: Subparsers) -> None:
    """Register ``derive key FILE [-o DIR] [--force]``."""
    parser = sub.add_parser(
        "key", help="write an answer key, questions, LaTeX and figures for a problem set"
    )
    parser.add_argument("file", help="problem set (TOML)")
    parser.add_argument(
        "-o", "--output", default="out", metavar="DIR", help="output folder (default out/)"
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite files that derive did not generate"
    )
    parser.set_defaults(
        handler=lambda args: run_key(Path(args.file), Path(args.output), args.force)
    )
