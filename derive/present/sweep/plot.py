"""``derive sweep --plot FILE``: attainable FLOP/s against the swept dim, as a figure.

The curve is ``min(π, I(x)·β)`` at the grid's points, exactly (the bound dims
substituted), drawn by :mod:`derive.figures` as the key's plots are: SVG for ``.svg``,
a pgfplots picture for ``.tex``. A grid of more than :data:`MAX_POINTS` points is thinned
to that many, log-spaced, both ends kept; the crossover is marked where the swept dim is
the one the crossover is solved for.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.errors import ProblemError
from derive.figures.model import Series, SweepFigure
from derive.figures.svg import sweep_svg
from derive.figures.tikz import sweep_tikz
from derive.present.sweep.grid import Axis, log_points

MAX_POINTS = 200
"""The most points a plotted curve has (a finer grid is thinned, log-spaced)."""


class PlotFormat(Enum):
    """The figure formats ``--plot`` writes, by file suffix."""

    SVG = ".svg"
    TIKZ = ".tex"


def plot_format(path: str) -> PlotFormat:
    """The figure format of ``--plot PATH`` (its suffix).

    Raises:
        ProblemError: a suffix other than ``.svg`` or ``.tex``.
    """
    suffix = Path(path).suffix.lower()
    for fmt in PlotFormat:
        if fmt.value == suffix:
            return fmt
    raise ProblemError(f"--plot {path!r}", "a figure file ends in .svg (SVG) or .tex (pgfplots)")


def _points(axis: Axis) -> list[int]:
    values = sorted({int(v) for v in axis.values})
    if len(values) <= MAX_POINTS:
        return values
    return [values[int(i) - 1] for i in log_points(1, len(values), MAX_POINTS)]


def sweep_plot(analysis: Analysis, axes: list[Axis], fmt: PlotFormat) -> str:
    """The figure of one swept dim: attainable FLOP/s at each point, the peak as the roof.

    Raises:
        ProblemError: more than one ``--over`` (a curve has one x).
    """
    if len(axes) != 1:
        raise ProblemError("--plot", "plots one swept dim: give one --over")
    axis, problem = axes[0], analysis.problem
    x = axis.dim
    peak, bandwidth = problem.peak.value, problem.bandwidth.value
    intensity = analysis.memory.intensity.subs(problem.bound_subs())
    xs = _points(axis)
    ys = tuple(sp.Min(peak, intensity.subs(x, v) * bandwidth) for v in xs)
    crossover = analysis.memory.crossover
    mark = crossover.exact if crossover is not None and crossover.is_number else None
    if x != problem.solve_for or mark is None or mark.is_positive is not True:
        mark = None
    label = f"{problem.operator.name} on {problem.hardware_name}"
    series = Series(label, tuple(sp.Integer(v) for v in xs), ys, mark)
    title = f"{problem.operator.name}: attainable FLOP/s against {x.name}"
    figure = SweepFigure(title, x.name, "attainable FLOP/s", (series,), peak)
    return sweep_svg(figure) if fmt is PlotFormat.SVG else sweep_tikz(figure)
