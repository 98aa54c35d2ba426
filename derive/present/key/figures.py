"""The figures of an answer key: one roofline per chip with its problems placed on it, and
the plots a problem asks for (attainable FLOP/s against a dim), as SVG and TikZ."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.algebra.substitution import values_at
from derive.analysis.analyse import Analysis
from derive.analysis.crossover.records import NEVER, Crossover
from derive.deadline import Workers
from derive.errors import ProblemError
from derive.figures import (
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
from derive.formula.decimals import fmt_decimal
from derive.present.key.names import safe_name
from derive.problem.binding import ProblemSpec
from derive.problem.chips import Chip
from derive.problem.chips import Figure as ChipFigure
from derive.problem.sets.problem_set import (
    PlotSpec,
    ProblemEntry,
)

if TYPE_CHECKING:
    from derive.analysis.kernel_numbers import KernelNumbers
    from derive.model.binding import ModelProblem
    from derive.model.phase import PhaseAnalysis


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


def _hardware_key(chip: Chip | None, peak: ChipFigure, bandwidth: ChipFigure) -> str:
    return chip.name if chip else f"given-{peak.text}-{bandwidth.text}"


def _ceilings(chip: Chip | None, compute_dtype: str, peak: ChipFigure) -> tuple[Ceiling, ...]:
    if chip is None:
        return (Ceiling(compute_dtype, peak.value),)
    merged: dict[sp.Rational, list[str]] = {}
    for dtype, fig in chip.peaks:
        merged.setdefault(fig.value, []).append(dtype)
    return tuple(
        Ceiling("/".join(names), value)
        for value, names in sorted(merged.items(), key=lambda kv: kv[0])
    )


def _title(chip: Chip | None, peak: ChipFigure, bandwidth: ChipFigure) -> str:
    return (
        f"Roofline of {chip.title}"
        if chip
        else f"Roofline for peak {peak.text} FLOP/s, bandwidth {bandwidth.text} B/s"
    )


def _point(entry: ProblemEntry, analysis: Analysis) -> tuple[Point, PointKind] | None:
    """Where a problem sits on its chip's roofline: at the bound dims, at its crossover, or
    (never compute-bound) at the largest intensity it approaches, labelled as such."""
    if analysis.all_bound:
        return Point(entry.id, analysis.intensity_at_point, analysis.attainable), PointKind.AT_DIMS
    crossover, _ = analysis.headline
    if crossover.exact is not None and crossover.exact.is_number:
        note = f"{crossover.variable}* = {fmt_decimal(crossover.exact, 4)}"
        at = Point(entry.id, analysis.memory.ridge, analysis.problem.peak.value, note)
        return at, PointKind.AT_CROSSOVER
    top = crossover.supremum_all if crossover.supremum_all is not None else crossover.supremum
    if crossover.status == NEVER and top is not None and top.is_number and top > 0:
        peak, bandwidth = analysis.problem.peak.value, analysis.problem.bandwidth.value
        note = f"never compute-bound: I ≤ {fmt_decimal(top, 4)}"
        return Point(entry.id, top, min(peak, top * bandwidth), note), PointKind.NEVER
    return None


class PointKind(Enum):
    """Why a problem sits where it does on its roofline (the caption explains the kinds shown)."""

    AT_DIMS = "at its bound dims"
    AT_CROSSOVER = "at its crossover, on the ridge"
    NEVER = "at the intensity it approaches, never compute-bound"
    KERNEL = "a kernel at its intensity"
    STEP = "a serving step"


_EXPLAINED = {  # what the caption says when a figure shows a point of this kind
    PointKind.AT_CROSSOVER: "a problem with a crossover sits where it meets the roof, at the ridge",
    PointKind.STEP: (
        "a serving step sits at its FLOPs over its bytes per device and at its FLOPs over its"
        " time's lower bound, under the roof by its all-reduces and its kernels' mixed bounds"
    ),
}


@dataclass(frozen=True)
class Placement:
    """What the roofline figure of a problem's hardware needs from the problem (exact numbers)."""

    hardware: str
    title: str
    bandwidth: sp.Rational
    ceilings: tuple[Ceiling, ...]
    point: Point | None
    problem_id: str = ""
    kind: PointKind | None = None


def placement(entry: ProblemEntry, a: Analysis) -> Placement:
    """Where an operator problem goes: its chip's figure, at its point (if it has one)."""
    p = a.problem
    point, kind = _point(entry, a) or (None, None)
    return _placed(p.chip, p.compute_dtype, p.peak, p.bandwidth, point, kind, entry.id)


def _placed(
    chip: Chip | None,
    compute_dtype: str,
    peak: ChipFigure,
    bandwidth: ChipFigure,
    point: Point | None,
    kind: PointKind | None,
    problem_id: str,
) -> Placement:
    """A problem's point (if it has one) on the figure of its chip (or of its given peak and
    bandwidth)."""
    return Placement(
        _hardware_key(chip, peak, bandwidth),
        _title(chip, peak, bandwidth),
        bandwidth.value,
        _ceilings(chip, compute_dtype, peak),
        point,
        problem_id,
        kind,
    )


def kernel_placement(problem_id: str, kernel: KernelNumbers) -> Placement | None:
    """A kernel given by its numbers on its chip's figure: at its intensity, under the
    nominal roof min(π, I·β) the figure draws (efficiencies derate the kernel, not the chip).
    None for a kernel of one count (its intensity, ∞ or 0, is off a log axis)."""
    if kernel.only or not kernel.intensity.is_finite or kernel.intensity == 0:
        return None
    peak, bandwidth = kernel.peak, kernel.bandwidth
    point = Point(problem_id, kernel.intensity, min(peak.value, kernel.intensity * bandwidth.value))
    return _placed(
        kernel.chip, kernel.compute_dtype, peak, bandwidth, point, PointKind.KERNEL, problem_id
    )


def serving_placement(
    problem_id: str, model: ModelProblem, phase: PhaseAnalysis
) -> Placement | None:
    """A serving step on its chip's figure, where its numbers put it: at the step's
    intensity per device (Σ FLOPs / Σ bytes of its kernels) and the FLOP/s its lower bound
    allows (Σ FLOPs / t_lower), under the roof by its all-reduces and by its kernels' mixed
    bounds. None when the model has no chip or given peak and bandwidth to draw."""
    peak = model.peak or (model.chip.peak(model.compute_dtype) if model.chip else None)
    bandwidth, step = model.bandwidth, phase.step
    rate = step.flops / step.t_lower if step.t_lower else None
    intensity = step.aggregate_intensity
    if peak is None or bandwidth is None or rate is None:
        return None
    if not (isinstance(rate, sp.Rational) and isinstance(intensity, sp.Rational)):
        return None
    if rate <= 0 or intensity <= 0:
        return None
    point = Point(problem_id, intensity, rate, f"{phase.phase.value} step")
    return _placed(
        model.chip, model.compute_dtype, peak, bandwidth, point, PointKind.STEP, problem_id
    )


def _caption(title: str, fig: RooflineFigure, members: list[Placement]) -> str:
    """The figure's caption: what it shows, what its kinds of point mean, the notes of the
    problems that share a point (their label gives only their names), and the problems it
    could not place."""
    caption = title + (", with the problems placed on it" if fig.points else "")
    kinds = {m.kind for m in members if m.point is not None}
    caption += "".join(f"; {text}" for kind, text in _EXPLAINED.items() if kind in kinds)
    for spot in fig.spots:
        if len(spot) > 1:
            caption += "; one point for " + _and([p.text.replace("\n", " ") for p in spot])
    unplaced = [m.problem_id for m in members if m.point is None]
    if unplaced:
        caption += f"; not placed ({', '.join(unplaced)}): the answer depends on dims left unbound"
    return caption


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def roofline_figures(
    stem: str,
    placements: list[Placement],
    *,
    source: str,
    pool: Workers,
) -> list[Figure]:
    """One roofline per hardware, its problems placed on it; the SVG and the TikZ of every
    figure are drawn as separate items by ``pool``, the workers that derived the problems,
    each within their time limit (label placement grows with the square of the points: 500
    problems on one chip take seconds)."""
    groups: dict[str, list[Placement]] = {}
    for placement in placements:
        groups.setdefault(placement.hardware, []).append(placement)
    figures = []
    captions = []
    for name, members in groups.items():
        first = members[0]
        points = tuple(m.point for m in members if m.point is not None)
        figure = RooflineFigure(first.title, first.bandwidth, first.ceilings, points)
        captions.append(_caption(first.title, figure, members))
        figures.append((name, figure))
    # the TikZ items first: each draws four pictures, so the pool ends on short SVG items
    calls = [(draw, (figure,)) for draw in (roofline_tikz, roofline_svg) for _, figure in figures]

    def item_name(k: int) -> str:
        return f"{source}: roofline figure of {figures[k % len(figures)][0]}"

    drawn = pool.calls(calls, name=item_name)
    return [
        Figure(
            safe_name(f"{stem}-roofline-{name}.svg"),
            captions[i],
            drawn[len(figures) + i],
            drawn[i],
        )
        for i, (name, fig) in enumerate(figures)
    ]


def sweep_figure(file: str, caption: str, figure: SweepFigure) -> Figure:
    """A curve plot of the key (a serving step's or a training run's): its SVG file and TikZ."""
    return Figure(safe_name(file), caption, sweep_svg(figure), sweep_tikz(figure))


def plot_xs(start: int, stop: int, marks: list[sp.Expr]) -> tuple[int, ...]:
    """A plot's x values: its ends, the powers of two between, each mark's floor and ceiling."""
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


def _plot_mark(c: Crossover | None) -> sp.Expr | None:
    """Where a curve meets the roof, to mark on a log axis: a positive number, else nothing.

    A crossover of 0 means compute-bound from the smallest value on (a dim the intensity
    falls with, such as P of ``matmul_sharded``, E of ``moe_matmul`` or K of ``attention``):
    the curve starts on the roof, and a log axis has no 0 to mark.
    """
    exact = c.exact if c is not None and c.is_number else None
    return exact if exact is not None and exact.is_positive is True else None


def _attainable(
    intensity: sp.Expr, x: sp.Symbol, xs: tuple[int, ...], peak: sp.Expr, bandwidth: sp.Expr
) -> tuple[sp.Expr, ...]:
    """``min(peak, intensity(v) · bandwidth)`` at each ``v`` of ``xs``, exactly.

    A rational intensity is evaluated with Fractions (the same Rationals sympy's
    ``Min(peak, intensity.subs(x, v) * bandwidth)`` gives, which tests/present/test_key_figures.py
    checks); anything else, or a point where it divides by zero, goes to sympy.
    """
    exact = (
        values_at(intensity, x, xs)
        if isinstance(peak, sp.Rational) and isinstance(bandwidth, sp.Rational)
        else None
    )
    if exact is None:
        exact = [None] * len(xs)
    roof = Fraction(int(peak.p), int(peak.q)) if isinstance(peak, sp.Rational) else None
    slope = Fraction(int(bandwidth.p), int(bandwidth.q)) if roof is not None else None
    ys: list[sp.Expr] = []
    for v, value in zip(xs, exact):
        if value is None or roof is None or slope is None:
            ys.append(sp.Min(peak, intensity.subs(x, v) * bandwidth))
        else:
            y = min(roof, value * slope)
            ys.append(sp.Rational(y.numerator, y.denominator))
    return tuple(ys)


def plot_figure(
    stem: str, entry: ProblemEntry, plot: PlotSpec, analyse: Callable[[ProblemSpec], Analysis]
) -> Figure:
    """The problem's plot: each series analysed by ``analyse`` (the pipeline's), as a figure."""
    series_data = []
    for s in plot.series:
        spec = replace(entry.spec, sets=entry.spec.sets + s.sets, solve_for=plot.over)
        a = analyse(spec)
        x = a.problem.solve_for
        intensity = a.memory.intensity.subs(a.problem.bound_subs(except_dim=x))
        if intensity.free_symbols - {x}:
            raise ProblemError(
                f"problem {entry.id!r} plot series {s.label!r}",
                f"bind every dim but {x} (free: {', '.join(sorted(map(str, intensity.free_symbols - {x})))})",
            )
        series_data.append((s.label, intensity, x, _plot_mark(a.memory.crossover), a))
    marks = [c for *_, c, _ in series_data if c is not None]
    xs = plot_xs(plot.start, plot.stop, marks)
    P, W = series_data[0][4].problem.peak.value, series_data[0][4].problem.bandwidth.value
    series = tuple(
        Series(
            label,
            tuple(sp.Integer(v) for v in xs),
            _attainable(intensity, x, xs, P, W),
            cross,
        )
        for label, intensity, x, cross, _ in series_data
    )
    title = plot.title or f"{entry.title}: attainable FLOP/s against {plot.over}"
    fig = SweepFigure(title, plot.over, "attainable FLOP/s", series, P)
    return Figure(safe_name(f"{stem}-{entry.id}-plot.svg"), title, sweep_svg(fig), sweep_tikz(fig))
