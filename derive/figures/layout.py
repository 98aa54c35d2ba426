"""A backend-neutral scene: what to draw, where, and where each label goes.

:func:`roofline_scene` and :func:`sweep_scene` turn a figure into lines,
markers and labels in data coordinates (exact numbers, or a float for an
evaluated crossover). Labels get their offsets from the shared greedy placer,
in the backend's units (SVG pixels, TikZ points) given by :class:`Metrics`, so
both backends place labels the same way and never by chance.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .model import (
    Box, LabelRequest, RooflineFigure, SweepFigure, choose_corner, fmt_sig, log_frac,
    place_labels, polyline_obstacles, roofline_geometry, sweep_geometry,
)

__all__ = ["Metrics", "Line", "Marker", "Label", "Scene", "roofline_scene", "sweep_scene"]

Num = sp.Expr | float
Coord = tuple[Num, Num]


@dataclass(frozen=True)
class Metrics:
    """Sizes in backend units: plot area, average character width, label line height, marker radius."""

    width: float
    height: float
    char_w: float
    line_h: float
    marker_r: float


@dataclass(frozen=True)
class Line:
    pts: tuple[Coord, ...]
    color: int  # palette index; -1 is the neutral (black) ink
    dashed: bool = False
    thick: bool = True


@dataclass(frozen=True)
class Marker:
    x: Num
    y: Num
    color: int
    kind: str  # "knee" (open circle), "point" (filled diamond), "dot" (small filled circle)


@dataclass(frozen=True)
class Label:
    text: str
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
    legend_corner: str = "south east"
    legend_box: Box | None = None


class _Frame:
    """Data coordinates to plot-area units (y up, origin at the lower-left corner)."""

    def __init__(self, x_dec: tuple[int, int], y_dec: tuple[int, int], m: Metrics) -> None:
        self.x_dec, self.y_dec, self.m = x_dec, y_dec, m

    def __call__(self, x: Num, y: Num) -> tuple[float, float]:
        return (log_frac(x, *self.x_dec) * self.m.width, log_frac(y, *self.y_dec) * self.m.height)

    def request(self, text: str, x: Num, y: Num, where: tuple[str, ...], gap: float) -> LabelRequest:
        """A label request; ``where`` lists candidate sides in order of preference."""
        ax, ay = self(x, y)
        w, h = len(text) * self.m.char_w, self.m.line_h
        table = {
            "right": (gap, -h / 2), "left": (-gap - w, -h / 2),
            "above-right": (gap / 2, gap / 2), "below-right": (gap / 2, -h - gap / 2),
            "above-left": (-w - gap / 2, gap / 2), "below-left": (-w - gap / 2, -h - gap / 2),
            "above": (-w / 2, gap), "below": (-w / 2, -h - gap),
            "above-end": (-w - gap, gap / 2), "below-end": (-w - gap, -h - gap / 2),
        }
        return LabelRequest(ax, ay, w, h, tuple(table[k] for k in where))

    @property
    def area(self) -> Box:
        return Box(0.0, 0.0, self.m.width, self.m.height)


def _labels(frame: _Frame, reqs: list[tuple[LabelRequest, str, Num, Num, int]], obstacles: list[Box]) -> tuple[Label, ...]:
    boxes = place_labels([r[0] for r in reqs], frame.area, obstacles)
    return tuple(Label(text, x, y, b.x0 - r.ax, b.y0 - r.ay, color)
                 for (r, text, x, y, color), b in zip(reqs, boxes))


def roofline_scene(fig: RooflineFigure, m: Metrics) -> Scene:
    """The roofline: slope to the highest knee, a ceiling from each knee, knees, points."""
    g = roofline_geometry(fig)
    f = _Frame(g.x_dec, g.y_dec, m)
    lines = [Line(g.slope, -1)]
    lines += [Line(((x0, peak), (x1, peak)), i) for i, (_, peak, x0, x1) in enumerate(g.ceilings)]
    markers = [Marker(x, y, i, "knee") for i, (x, y) in enumerate(g.knees)]
    markers += [Marker(p.intensity, p.attainable, -1, "point") for p in fig.points]
    r = m.marker_r
    obstacles = [Box(*(c - r - 1 for c in f(mk.x, mk.y)), *(c + r + 1 for c in f(mk.x, mk.y))) for mk in markers]
    for ln in lines:
        obstacles += polyline_obstacles([f(x, y) for x, y in ln.pts])
    gap = r + 3
    reqs: list[tuple[LabelRequest, str, Num, Num, int]] = []
    right = sp.Rational(10) ** g.x_dec[1]
    for i, (label, peak, _, _) in enumerate(g.ceilings):
        text = f"{label}: {fmt_sig(peak, 3)} FLOP/s"
        reqs.append((f.request(text, right, peak, ("above-end", "below-end"), gap), text, right, peak, i))
    for i, (x, y) in enumerate(g.knees):
        text = fmt_sig(x, 4)
        reqs.append((f.request(text, x, y, ("below-right", "right", "below", "above-left"), gap), text, x, y, i))
    (x0, y0), (x1, y1) = g.slope
    bw_text = f"memory: {fmt_sig(fig.bandwidth, 3)} B/s"
    sx = _along(x0, x1, sp.Rational(2, 5))  # two fifths of the way up the slope
    reqs.append((f.request(bw_text, sx, sx * fig.bandwidth, ("above-left", "below-right"), gap),
                 bw_text, sx, sx * fig.bandwidth, -1))
    for p in fig.points:
        where = ("right", "above-right", "below-right", "left", "above-left", "below-left", "above", "below")
        reqs.append((f.request(p.label, p.intensity, p.attainable, where, gap), p.label, p.intensity, p.attainable, -1))
    return Scene(fig.title, "arithmetic intensity (FLOP/byte)", "attainable FLOP/s", g.x_dec, g.y_dec,
                 tuple(lines), tuple(markers), _labels(f, reqs, obstacles))


def _along(a: sp.Rational, b: sp.Rational, t: sp.Rational) -> sp.Rational:
    """An exact rational near ``a * (b/a)**t`` (a fraction t along a log axis), for a label anchor."""
    return sp.Rational(str(sp.N(a * (b / a) ** t, 15)))


def sweep_scene(fig: SweepFigure, m: Metrics) -> Scene:
    """Series polylines with dots, the peak as a dashed line, dashed crossovers, a legend."""
    g = sweep_geometry(fig)
    f = _Frame(g.x_dec, g.y_dec, m)
    lines: list[Line] = []
    markers: list[Marker] = []
    obstacles: list[Box] = []
    for i, s in enumerate(fig.series):
        pts = tuple(zip(s.xs, s.ys))
        lines.append(Line(pts, i))
        markers += [Marker(x, y, i, "dot") for x, y in pts]
        obstacles += polyline_obstacles([f(x, y) for x, y in pts])
    reqs: list[tuple[LabelRequest, str, Num, Num, int]] = []
    y_bottom = sp.Rational(10) ** g.y_dec[0]
    gap = m.marker_r + 3
    if fig.ceiling is not None:
        left, right = sp.Rational(10) ** g.x_dec[0], sp.Rational(10) ** g.x_dec[1]
        lines.append(Line(((left, fig.ceiling), (right, fig.ceiling)), -1, dashed=True, thick=False))
        obstacles += polyline_obstacles([f(left, fig.ceiling), f(right, fig.ceiling)])
        text = f"peak: {fmt_sig(fig.ceiling, 3)} FLOP/s"
        reqs.append((f.request(text, left, fig.ceiling, ("above-right", "below-right"), gap), text, left, fig.ceiling, -1))
    for i, (s, cx) in enumerate(zip(fig.series, g.crossovers)):
        if cx is None:
            continue
        top: Num = fig.ceiling if fig.ceiling is not None else sp.Rational(10) ** g.y_dec[1]
        lines.append(Line(((cx, y_bottom), (cx, top)), i, dashed=True, thick=False))
        obstacles += polyline_obstacles([f(cx, y_bottom), f(cx, top)])
    for i, (s, cx) in enumerate(zip(fig.series, g.crossovers)):
        if cx is None:
            continue
        text = f"{fig.x_label}* ≈ {fmt_sig(cx, 4)}"
        y_at = float(y_bottom) * 10 ** (0.22 * i)  # stagger the series' labels so neighbours never overlap
        reqs.append((f.request(text, cx, y_at, ("above-right", "above-left"), 4.0), text, cx, y_at, i))
    legend = tuple((s.label, i) for i, s in enumerate(fig.series))
    lw = max(len(t) for t, _ in legend) * m.char_w + 3 * m.line_h
    lh = len(legend) * m.line_h + m.line_h / 2
    corner, lbox = choose_corner(f.area, lw, lh, obstacles)
    labels = _labels(f, reqs, obstacles + [lbox])
    return Scene(fig.title, fig.x_label, fig.y_label, g.x_dec, g.y_dec, tuple(lines), tuple(markers),
                 labels, legend, corner, lbox)
