"""SVG backend: a complete standalone SVG document per figure.

Pixel coordinates are printed with ``.2f`` and nothing depends on hash order,
the clock or randomness, so the same figure always gives the same bytes.
"""

from __future__ import annotations

import re

from derive.figures.layout import (
    Label,
    Line,
    Marker,
    Metrics,
    Num,
    Scene,
    roofline_scene,
    sweep_scene,
)
from derive.figures.model import RooflineFigure, SweepFigure, fmt_pt, log_frac

WIDTH, HEIGHT = 720, 480
LEFT, RIGHT, TOP, BOTTOM = 84.0, 24.0, 44.0, 56.0  # margins around the plot area
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
FONT = 11.0
METRICS = Metrics(width=PLOT_W, height=PLOT_H, char_w=6.3, line_h=13.0, marker_r=4.0)
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
INK = "#222222"
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape_svg_text(text: str) -> str:
    """XML-escape a label for text or attribute content; characters XML forbids become ``?``."""
    text = _BAD_XML.sub("?", str(text))
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def _color(i: int) -> str:
    return INK if i < 0 else PALETTE[i % len(PALETTE)]


class _Svg:
    """Collects elements of one document; maps plot units (y up) to SVG pixels."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.out: list[str] = []

    def px(self, x: Num, y: Num) -> tuple[float, float]:
        fx, fy = log_frac(x, *self.scene.x_dec), log_frac(y, *self.scene.y_dec)
        return LEFT + fx * PLOT_W, TOP + PLOT_H - fy * PLOT_H

    def text(self, x: float, y: float, body: str, anchor: str = "start", extra: str = "") -> None:
        self.out.append(
            f'<text x="{fmt_pt(x)}" y="{fmt_pt(y)}" text-anchor="{anchor}"{extra}>{body}</text>'
        )

    def frame(self) -> None:
        scene = self.scene
        self.out.append(f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>')
        self.text(
            WIDTH / 2,
            TOP - 18,
            escape_svg_text(scene.title),
            "middle",
            ' font-size="14" font-weight="bold"',
        )
        grid = ['<g stroke="#e6e6e6" stroke-width="0.6">']
        major = ['<g stroke="#bdbdbd" stroke-width="0.8">']
        ticks: list[str] = []
        for axis, (lo, hi) in (("x", scene.x_dec), ("y", scene.y_dec)):
            for k in range(lo, hi + 1):
                for m in range(1, 10):
                    if k == hi and m > 1:
                        break
                    v = float(m) * 10.0**k
                    p = (
                        self.px(v, 10.0 ** scene.y_dec[0])
                        if axis == "x"
                        else self.px(10.0 ** scene.x_dec[0], v)
                    )
                    if axis == "x":
                        seg = f'<line x1="{fmt_pt(p[0])}" y1="{fmt_pt(TOP)}" x2="{fmt_pt(p[0])}" y2="{fmt_pt(TOP + PLOT_H)}"/>'
                    else:
                        seg = f'<line x1="{fmt_pt(LEFT)}" y1="{fmt_pt(p[1])}" x2="{fmt_pt(LEFT + PLOT_W)}" y2="{fmt_pt(p[1])}"/>'
                    (major if m == 1 else grid).append(seg)
                    if m == 1:
                        exp = str(k).replace("-", "\u2212")
                        body = f'10<tspan dy="-5" font-size="8">{exp}</tspan>'
                        if axis == "x":
                            ticks.append(
                                f'<text x="{fmt_pt(p[0])}" y="{fmt_pt(TOP + PLOT_H + 16)}" text-anchor="middle">{body}</text>'
                            )
                        else:
                            ticks.append(
                                f'<text x="{fmt_pt(LEFT - 6)}" y="{fmt_pt(p[1] + 4)}" text-anchor="end">{body}</text>'
                            )
        self.out += grid + ["</g>"] + major + ["</g>"] + ticks
        self.out.append(
            f'<rect x="{fmt_pt(LEFT)}" y="{fmt_pt(TOP)}" width="{fmt_pt(PLOT_W)}" height="{fmt_pt(PLOT_H)}" '
            f'fill="none" stroke="{INK}" stroke-width="1"/>'
        )
        self.text(LEFT + PLOT_W / 2, HEIGHT - 14, escape_svg_text(scene.x_label), "middle")
        cy = TOP + PLOT_H / 2
        self.text(
            20,
            cy,
            escape_svg_text(scene.y_label),
            "middle",
            f' transform="rotate(-90 20 {fmt_pt(cy)})"',
        )

    def line(self, ln: Line) -> None:
        pts = " ".join(f"{fmt_pt(x)},{fmt_pt(y)}" for x, y in (self.px(a, b) for a, b in ln.pts))
        dash = {
            "solid": "",
            "dashed": ' stroke-dasharray="5,4"',
            "dotted": ' stroke-dasharray="1.5,3"',
        }[ln.style]
        width = "2" if ln.style == "solid" else "1.2"
        self.out.append(
            f'<polyline points="{pts}" fill="none" stroke="{_color(ln.color)}" '
            f'stroke-width="{width}"{dash}/>'
        )

    def marker(self, mk: Marker) -> None:
        x, y = self.px(mk.x, mk.y)
        color = _color(mk.color)
        radius = METRICS.marker_r
        if mk.kind == "knee":
            self.out.append(
                f'<circle cx="{fmt_pt(x)}" cy="{fmt_pt(y)}" r="{fmt_pt(radius)}" fill="#ffffff" stroke="{color}" stroke-width="1.5"/>'
            )
        elif mk.kind == "point":
            half = radius + 1
            self.out.append(
                f'<polygon points="{fmt_pt(x)},{fmt_pt(y - half)} {fmt_pt(x + half)},{fmt_pt(y)} {fmt_pt(x)},{fmt_pt(y + half)} '
                f'{fmt_pt(x - half)},{fmt_pt(y)}" fill="{color}" stroke="#ffffff" stroke-width="0.8"/>'
            )
        else:
            self.out.append(f'<circle cx="{fmt_pt(x)}" cy="{fmt_pt(y)}" r="2.5" fill="{color}"/>')

    def label(self, lb: Label) -> None:
        x, y = self.px(lb.x, lb.y)
        lines = lb.text.split("\n")
        # (x0, top) is the label box's upper-left corner; each baseline sits 3px above its line's bottom
        x0, top = x + lb.dx, y - lb.dy - len(lines) * METRICS.line_h
        halo = ' stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'
        if len(lines) == 1:
            self.text(
                x0,
                top + METRICS.line_h - 3,
                escape_svg_text(lb.text),
                extra=f' fill="{_color(lb.color)}"{halo}',
            )
            return
        spans = "".join(
            f'<tspan x="{fmt_pt(x0)}" y="{fmt_pt(top + (i + 1) * METRICS.line_h - 3)}">{escape_svg_text(t)}</tspan>'
            for i, t in enumerate(lines)
        )
        self.out.append(f'<text fill="{_color(lb.color)}"{halo}>{spans}</text>')

    def legend(self) -> None:
        scene, box = self.scene, self.scene.legend_box
        if not scene.legend or box is None:
            return
        x0, y_top = LEFT + box.x0, TOP + PLOT_H - box.y1
        self.out.append(
            f'<rect x="{fmt_pt(x0)}" y="{fmt_pt(y_top)}" width="{fmt_pt(box.x1 - box.x0)}" height="{fmt_pt(box.y1 - box.y0)}" '
            f'fill="#ffffff" fill-opacity="0.9" stroke="#999999" stroke-width="0.8"/>'
        )
        for i, (text, color) in enumerate(scene.legend):
            y = y_top + METRICS.line_h * (i + 1)
            self.out.append(
                f'<line x1="{fmt_pt(x0 + 6)}" y1="{fmt_pt(y - 4)}" x2="{fmt_pt(x0 + 28)}" y2="{fmt_pt(y - 4)}" '
                f'stroke="{_color(color)}" stroke-width="2"/>'
            )
            self.text(x0 + 34, y, escape_svg_text(text))

    def render(self) -> str:
        self.frame()
        for ln in self.scene.lines:
            self.line(ln)
        for mk in self.scene.markers:
            self.marker(mk)
        for lb in self.scene.labels:
            self.label(lb)
        self.legend()
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
            f'font-size="{FONT:g}" fill="{INK}">'
        )
        body = "\n".join(
            ["  " + e for e in [f"<title>{escape_svg_text(self.scene.title)}</title>"] + self.out]
        )
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{head}\n{body}\n</svg>\n'


def roofline_svg(fig: RooflineFigure) -> str:
    """The roofline as a standalone SVG document."""
    return _Svg(roofline_scene(fig, METRICS)).render()


def sweep_svg(fig: SweepFigure) -> str:
    """The sweep as a standalone SVG document."""
    return _Svg(sweep_scene(fig, METRICS)).render()
