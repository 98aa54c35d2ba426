"""A backend-neutral scene: what to draw, where, and where each label goes.

:func:`roofline_scene` and :func:`sweep_scene` turn a figure into lines,
markers and labels in data coordinates (exact numbers, or a float for an
evaluated crossover). Labels get their offsets from the shared greedy placer,
in the backend's units (SVG pixels, TikZ points) given by :class:`Metrics`, so
both backends place labels the same way and never by chance.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeAlias

import sympy as sp

from derive.figures.model import (
    Point,
    RooflineFigure,
    SweepFigure,
    fmt_sig,
    log_frac,
    roofline_geometry,
    sweep_geometry,
)
from derive.figures.place import Box, LabelRequest, choose_corner, place_labels, polyline_obstacles

Num: TypeAlias = "sp.Expr | float"
"""A coordinate in plot units: exact where the figure model is exact, else a float."""
Coord: TypeAlias = "tuple[Num, Num]"


@dataclass(frozen=True)
class Metrics:
    """Sizes in backend units: plot area, average character width, label line height, marker
    radius, and how much larger than ``width`` x ``height`` the plot area may be drawn
    (``growth``: 1 for an SVG of fixed size; a TikZ axis takes its column's width, its
    labels keep their size and offsets, and are placed to stay clear at every size up to it)."""

    width: float
    height: float
    char_w: float
    line_h: float
    marker_r: float
    growth: float = 1.0


@dataclass(frozen=True)
class Line:
    pts: tuple[Coord, ...]
    color: int  # palette index; -1 is the neutral (black) ink
    style: str = "solid"  # "solid" (thick), "dashed" or "dotted" (thin)


@dataclass(frozen=True)
class Marker:
    x: Num
    y: Num
    color: int
    kind: str  # "knee" (open circle), "point" (filled diamond), "dot" (small filled circle)


@dataclass(frozen=True)
class Label:
    text: str  # one or more lines, separated by "\n"
    x: Num  # data anchor
    y: Num
    dx: float  # lower-left corner of the label, offset from the anchor, backend units
    dy: float
    color: int


@dataclass(frozen=True)
class Scene:
    title: str
    x_label: str
    y_label: str
    x_dec: tuple[int, int]
    y_dec: tuple[int, int]
    lines: tuple[Line, ...]
    markers: tuple[Marker, ...]
    labels: tuple[Label, ...]
    legend: tuple[tuple[str, int], ...] = ()  # (text, palette index) of lines[0], lines[1], ...
    legend_box: Box | None = None


class _Frame:
    """Data coordinates to plot-area units (y up, origin at the lower-left corner)."""

    def __init__(self, x_dec: tuple[int, int], y_dec: tuple[int, int], m: Metrics) -> None:
        self.x_dec, self.y_dec, self.m = x_dec, y_dec, m

    def __call__(self, x: Num, y: Num) -> tuple[float, float]:
        return (log_frac(x, *self.x_dec) * self.m.width, log_frac(y, *self.y_dec) * self.m.height)

    def request(
        self, text: str, x: Num, y: Num, where: tuple[str, ...], gap: float
    ) -> LabelRequest:
        """A label request; ``where`` lists candidate sides in order of preference."""
        ax, ay = self(x, y)
        lines = text.split("\n")
        w, h = max(len(t) for t in lines) * self.m.char_w, len(lines) * self.m.line_h
        d = 0.8 * gap  # diagonal neighbours: the box corner just off the marker
        table = {
            "right": (gap, -h / 2),
            "left": (-gap - w, -h / 2),
            "above-right": (d, d),
            "below-right": (d, -h - d),
            "above-left": (-w - d, d),
            "below-left": (-w - d, -h - d),
            "above": (-w / 2, gap),
            "below": (-w / 2, -h - gap),
            "above-end": (-w - gap, gap / 2),
            "below-end": (-w - gap, -h - gap / 2),
        }
        return LabelRequest(ax, ay, w, h, tuple(table[k] for k in where))

    @property
    def area(self) -> Box:
        return Box(0.0, 0.0, self.m.width, self.m.height)


_Req = tuple[LabelRequest, str, Num, Num, int]  # request, text, data anchor x and y, colour


class _Builder:
    """Accumulates a scene's lines, markers, obstacles and label requests."""

    def __init__(self, frame: _Frame) -> None:
        self.f = frame
        self.lines: list[Line] = []
        self.markers: list[Marker] = []
        self.hard: list[Box] = []  # markers, legend: labels never cover them
        self.soft: list[Box] = []  # drawn lines: labels avoid them when they can
        self.reqs: list[_Req] = []

    def line(self, ln: Line) -> None:
        self.lines.append(ln)
        self.soft += polyline_obstacles([self.f(x, y) for x, y in ln.pts])

    def marker(self, mk: Marker, radius: float) -> None:
        self.markers.append(mk)
        u, v = self.f(mk.x, mk.y)
        self.hard.append(Box(u - radius, v - radius, u + radius, v + radius))

    def label(self, req: LabelRequest, text: str, x: Num, y: Num, color: int) -> None:
        self.reqs.append((req, text, x, y, color))

    def placed(self) -> tuple[tuple[Label, ...], list[Box]]:
        boxes = place_labels(
            [r[0] for r in self.reqs], self.f.area, self.hard, self.soft, growth=self.f.m.growth
        )
        labels = tuple(
            Label(text, x, y, b.x0 - r.ax, b.y0 - r.ay, color)
            for (r, text, x, y, color), b in zip(self.reqs, boxes)
        )
        return labels, boxes


def roofline_scene(fig: RooflineFigure, m: Metrics) -> Scene:
    """The roofline: the slope up to the highest knee, a ceiling from each knee, each knee
    circled and dropped (dotted) to the x axis where its ridge value is written, the points."""
    g = roofline_geometry(fig)
    f = _Frame(g.x_dec, g.y_dec, m)
    b = _Builder(f)
    gap = m.marker_r + 3
    bottom, right = sp.Rational(10) ** g.y_dec[0], sp.Rational(10) ** g.x_dec[1]
    b.line(Line(g.slope, -1))
    for i, (_, peak, x0, x1) in enumerate(g.ceilings):
        b.line(Line(((x0, peak), (x1, peak)), i))
    for i, (x, y) in enumerate(g.knees):
        b.line(Line(((x, bottom), (x, y)), i, "dotted"))
        b.marker(Marker(x, y, i, "knee"), m.marker_r + 0.5)
    # points at the same spot (e.g. several crossovers at one knee) share a marker and
    # one label: their names, wrapped (their notes are the caption's to give)
    spots = [(g[0].intensity, g[0].attainable, spot_text(g)) for g in fig.spots]
    for x, y, _ in spots:
        b.marker(Marker(x, y, -1, "point"), m.marker_r + 0.5)
    # labels in order of how little they can move: points, ceilings, knees, the bandwidth
    where = (
        "right",
        "above-right",
        "below-right",
        "left",
        "above-left",
        "below-left",
        "above",
        "below",
    )
    for x, y, text in spots:
        b.label(f.request(text, x, y, where, gap), text, x, y, -1)
    for i, (label, peak, knee, _) in enumerate(g.ceilings):
        text = f"{label}: {fmt_sig(peak, 3)}"  # the unit is on the y axis
        # at the right end, else further left along the line (not past the knee), above
        # or below it; off the line by a marker's height, clear of the knee circles
        base = f.request(text, right, peak, ("above-end", "below-end"), 2 * gap)
        start = f(knee, peak)[0] + 2 * gap - base.ax  # leftmost dx
        cands = [(dx - k * base.w / 2, dy) for k in range(4) for dx, dy in base.candidates]
        cands = [c for c in cands if c[0] >= start] or list(base.candidates)
        b.label(LabelRequest(base.ax, base.ay, base.w, base.h, tuple(cands)), text, right, peak, i)
    for i, (x, _) in enumerate(g.knees):
        text = fmt_sig(x, 4)
        b.label(f.request(text, x, bottom, ("above-right", "above-left"), 6.0), text, x, bottom, i)
    # the bandwidth, above-left of the slope, at the first of a few spots along it that fits
    (x0, _y0), (x1, _) = g.slope
    text = f"memory: {fmt_sig(fig.bandwidth, 3)} B/s"
    ax = _along(x0, x1, sp.Rational(2, 5))
    base = f.request(text, ax, ax * fig.bandwidth, ("above-left",), gap)
    cands = []
    for t in (sp.Rational(2, 5), sp.Rational(1, 2), sp.Rational(3, 5), sp.Rational(3, 10)):
        xt = _along(x0, x1, t)
        u, v = f(xt, xt * fig.bandwidth)
        cands.append((u - base.w - gap / 2 - base.ax, v + gap / 2 - base.ay))
    b.label(
        LabelRequest(base.ax, base.ay, base.w, base.h, tuple(cands)),
        text,
        ax,
        ax * fig.bandwidth,
        -1,
    )
    labels, _ = b.placed()
    return Scene(
        fig.title,
        "arithmetic intensity (FLOP/byte)",
        "attainable FLOP/s",
        g.x_dec,
        g.y_dec,
        tuple(b.lines),
        tuple(b.markers),
        labels,
    )


SPOT_WIDTH = 30
"""Characters on a line of a shared point's label (about 125pt of TikZ's 170pt design width)."""


def spot_text(points: tuple[Point, ...]) -> str:
    """The label of the points at one spot: one point's name and note (``q1 (B* = 240.2)``);
    several points' names, comma-separated and wrapped at :data:`SPOT_WIDTH` characters
    (five names take two lines where five names with their notes took five)."""
    if len(points) == 1:
        return points[0].text.replace("\n", " ")
    names = ", ".join(p.label.replace("\n", " ") for p in points)
    return "\n".join(
        textwrap.wrap(names, SPOT_WIDTH, break_long_words=False, break_on_hyphens=False)
    )


@lru_cache(maxsize=256)  # pure; the SVG and the TikZ picture ask for the same anchors
def _along(a: sp.Rational, b: sp.Rational, t: sp.Rational) -> sp.Rational:
    """An exact rational near ``a * (b/a)**t``, a fraction t along a log axis (a label anchor)."""
    # the power is left unevaluated: evaluating (b/a)**t exactly factors integers for
    # perfect powers, which is slow and not needed for a 15-digit value
    return sp.Rational(str(sp.Mul(a, sp.Pow(b / a, t, evaluate=False), evaluate=False).evalf(15)))


def sweep_scene(fig: SweepFigure, m: Metrics) -> Scene:
    """Series polylines with dots, the peak dashed, each crossover dashed down to the x axis
    with ``B* ≈ …`` beside it, and a legend in the first free corner."""
    g = sweep_geometry(fig)
    f = _Frame(g.x_dec, g.y_dec, m)
    b = _Builder(f)
    gap = m.marker_r + 3
    bottom = sp.Rational(10) ** g.y_dec[0]
    left, right = sp.Rational(10) ** g.x_dec[0], sp.Rational(10) ** g.x_dec[1]
    for i, s in enumerate(fig.series):
        b.line(Line(tuple(zip(s.xs, s.ys)), i))
        b.markers += [Marker(x, y, i, "dot") for x, y in zip(s.xs, s.ys)]  # dots: not obstacles
    top: Num = fig.ceiling if fig.ceiling is not None else sp.Rational(10) ** g.y_dec[1]
    if fig.ceiling is not None:
        b.line(Line(((left, fig.ceiling), (right, fig.ceiling)), -1, "dashed"))
        text = f"peak: {fmt_sig(fig.ceiling, 3)} FLOP/s"
        b.label(
            f.request(text, left, fig.ceiling, ("above-right", "below-right"), gap),
            text,
            left,
            fig.ceiling,
            -1,
        )
    for i, cx in enumerate(g.crossovers):
        if cx is not None:
            b.line(Line(((cx, bottom), (cx, top)), i, "dashed"))
            text = f"{fig.x_label}* ≈ {fmt_sig(cx, 4)}"
            b.label(
                f.request(text, cx, bottom, ("above-right", "above-left"), 6.0), text, cx, bottom, i
            )
    labels, boxes = b.placed()
    legend = tuple((s.label, i) for i, s in enumerate(fig.series))
    lw = max(len(t) for t, _ in legend) * m.char_w + 3 * m.line_h
    lh = (len(legend) + 0.5) * m.line_h
    _, lbox = choose_corner(f.area, lw, lh, b.hard + b.soft + boxes)
    return Scene(
        fig.title,
        fig.x_label,
        fig.y_label,
        g.x_dec,
        g.y_dec,
        tuple(b.lines),
        tuple(b.markers),
        labels,
        legend,
        lbox,
    )
