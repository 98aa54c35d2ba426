"""TikZ/pgfplots backend: a ``tikzpicture`` holding a ``loglogaxis``, no preamble.

Every curve is ``\\addplot coordinates {...}`` (never ``\\addplot {expr}``: pgf's
math would overflow on 1e15), coordinates are printed with 6 significant digits,
and every user string is LaTeX-escaped. A document needs :data:`TIKZ_PACKAGES`
and the lines of :data:`TIKZ_PREAMBLE`; all of it is in TeX Live's
latex-base, latex-recommended and pictures collections.
"""

from __future__ import annotations

import re

from derive.figures.layout import (
    Coord,
    Label,
    Line,
    Marker,
    Metrics,
    Scene,
    roofline_scene,
    sweep_scene,
)
from derive.figures.model import RooflineFigure, SweepFigure, fmt_coord, fmt_pt
from derive.present.escape import tex_escape

TIKZ_PACKAGES: tuple[str, ...] = ("pgfplots",)
TIKZ_PREAMBLE: tuple[str, ...] = (r"\usepackage{pgfplots}", r"\pgfplotsset{compat=1.16}")

# The plot area is drawn the column's width less its labels, at the placer's aspect ratio. A
# label sits at a fixed offset in points from its anchor, which moves with the axis, so one
# placement serves a range of widths only: each band below places the labels for a plot area
# from its design width up to its growth times it (the placer keeps every label clear at every
# width in that range), and TeX draws the band's picture that holds the column's width. Plot
# areas are about 6.5cm in a two-column 10pt article (narrow first bands, so its labels sit
# near where they were placed), 10.5cm in a one-column one and 14.7cm on a key's page.
_BANDS_CM = ((6.0, 1.15), (6.9, 1.3), (8.97, 1.5), (13.45, 1.5))  # (design width, growth)
_ASPECT = 0.7  # height over width
_PT_PER_CM = 28.4528


def _metrics(width_cm: float, growth: float) -> Metrics:
    return Metrics(
        width=width_cm * _PT_PER_CM,
        height=_ASPECT * width_cm * _PT_PER_CM,
        char_w=4.2,  # 7pt Computer Modern averages 3.6-3.9pt a character on these labels
        line_h=8.5,
        marker_r=2.2,
        growth=growth,
    )


BANDS = tuple(_metrics(w, g) for w, g in _BANDS_CM)
METRICS = BANDS[0]
_WIDTH_MACRO = "\\derivefigurewidth"  # the column's width less the axis's labels, set by TeX
# the labels' type, at the placer's metrics whatever the document's size (\scriptsize is
# 7pt on 8pt lines at 10pt type, 8pt on 9.5pt lines at 11pt: a five-line label grew by 5pt)
_FONT = "\\fontsize{7}{8.5}\\selectfont"
PALETTE = ("blue!80!black", "red!80!black", "green!50!black", "violet", "orange!90!black", "brown")


def _tex_escape(text: str) -> str:
    """LaTeX-escape a label so it prints literally under pdflatex: the one escaper of every
    LaTeX text derive writes (:func:`derive.present.escape.tex_escape`), line breaks as spaces."""
    return tex_escape(re.sub(r"[\n\t\r]", " ", str(text)))


def _color(i: int) -> str:
    return "black" if i < 0 else PALETTE[i % len(PALETTE)]


def _coords(pts: tuple[Coord, ...]) -> str:
    return " ".join(f"({fmt_coord(x)},{fmt_coord(y)})" for x, y in pts)


def _line(ln: Line, legend: str | None) -> list[str]:
    opts = [_color(ln.color)] + (["very thick"] if ln.style == "solid" else ["thin", ln.style])
    if legend is not None:
        opts += ["mark=*", "mark size=1.2pt", "mark options={solid}"]
    else:
        opts += ["no marks", "forget plot"]
    out = [f"\\addplot[{', '.join(opts)}] coordinates {{{_coords(ln.pts)}}};"]
    if legend is not None:
        out.append(f"\\addlegendentry{{{_tex_escape(legend)}}}")
    return out


def _marker(mk: Marker) -> str:
    color = _color(mk.color)
    if mk.kind == "knee":
        style = f"only marks, mark=o, mark size=2.2pt, thick, {color}, mark options={{fill=white}}"
    else:
        style = f"only marks, mark=diamond*, mark size=3pt, {color}, mark options={{draw=white}}"
    return f"\\addplot[{style}, forget plot] coordinates {{({fmt_coord(mk.x)},{fmt_coord(mk.y)})}};"


def _label(lb: Label) -> str:
    """A label node whose box's lower-left corner lands where the placer put it; multi-line
    labels are left-aligned, one placer line per line (a white backing keeps them legible)."""
    lines = lb.text.split("\n")
    style = f"inner sep=0pt, font={_FONT}, text={_color(lb.color)}, fill=white, fill opacity=0.75, text opacity=1"
    if len(lines) == 1:
        place, body = (
            f"anchor=base west, {style}, xshift={fmt_pt(lb.dx)}pt, yshift={fmt_pt(lb.dy + 2.0)}pt",
            _tex_escape(lb.text),
        )
    else:
        place = f"anchor=south west, align=left, {style}, xshift={fmt_pt(lb.dx)}pt, yshift={fmt_pt(lb.dy)}pt"
        body = "\\\\{}".join(_tex_escape(t) for t in lines)  # \\{}: a later "*" or "[" stays text
    return f"\\node[{place}] at (axis cs:{fmt_coord(lb.x)},{fmt_coord(lb.y)}) {{{body}}};"


def _tick_width(exponent: str) -> str:
    """pgfmath's measure of the tick label ``10^exponent`` in the document's own font."""
    return f'width("$10^{{{exponent}}}$")'


def _axis_width(scene: Scene) -> str:
    """The plot area's width as a pgfmath expression: the column's width less what the labels
    take, measured by TeX in the document's font (pgfplots' own estimate is a fixed 45pt, short
    by ~8pt at 10pt type and ~12pt at 11pt, which made the standalone key's figures overfull).

    Outside the axis sit the widest y tick label, the y label with its separations (2.71em at
    10, 11 and 12pt type, measured; 2.8em here) and half the last x tick label, centred on the
    right edge. A one-decade axis gets fractional tick labels (``10^{2.2}``).
    """
    widest_y, half_x = _outside_axis(scene)
    return f"\\linewidth-{widest_y}-{half_x}-2.8em"


def _outside_axis(scene: Scene) -> tuple[str, str]:
    """The widest y tick label and half the last x tick label, as pgfmath expressions."""
    y_lo, y_hi = scene.y_dec
    y_ticks = [str(y_lo), str(y_hi)] + ([f"{y_lo}.2"] if y_hi - y_lo == 1 else [])
    widest_y = f"max({','.join(_tick_width(t) for t in y_ticks)})"
    return widest_y, f"0.5*{_tick_width(str(scene.x_dec[1]))}"


def _legend_shift(scene: Scene) -> str:
    """How far left of the axis's centre the whole figure's centre lies: the legend is set
    there, so a one-row legend wider than the plot area may use the room of the y labels."""
    widest_y, half_x = _outside_axis(scene)
    return f"0.5*({half_x}-{widest_y}-2.8em)"


def _render(scene: Scene, widest: float | None) -> str:
    """One band's picture: its axis the column's width (``widest``: at most that many points)."""
    axis_width = _WIDTH_MACRO if widest is None else f"min({_WIDTH_MACRO},{widest:.2f}pt)"
    opts = [  # the column's width, whatever the document and its type size
        "scale only axis",
        f"width={{{axis_width}}}",
        f"height={{{_ASPECT:g}*({axis_width})}}",  # the placer's aspect ratio
        f"xmin=1e{scene.x_dec[0]}",
        f"xmax=1e{scene.x_dec[1]}",
        f"ymin=1e{scene.y_dec[0]}",
        f"ymax=1e{scene.y_dec[1]}",
        "log basis x=10",
        "log basis y=10",
        "grid=both",
        "major grid style={black!25}",
        "minor grid style={black!8}",
        f"xlabel={{{_tex_escape(scene.x_label)}}}",
        f"ylabel={{{_tex_escape(scene.y_label)}}}",
        "clip=false",
    ]
    if scene.legend:
        # below the x label, in one row centred on the figure: TeX's fonts are wider than
        # the SVG's, so an in-axis legend could cover the crossover labels
        opts += [
            "legend cell align=left",
            "legend columns=-1",
            "legend style={font=\\footnotesize, at={(0.5,-0.2)}, anchor=north, "
            f"xshift={{{_legend_shift(scene)}}}, "
            "/tikz/every even column/.append style={column sep=1em}}",
        ]
    body: list[str] = []
    for i, ln in enumerate(scene.lines):  # the first len(legend) lines are the legend's series
        body += _line(ln, scene.legend[i][0] if i < len(scene.legend) else None)
    body += [_marker(mk) for mk in scene.markers if mk.kind != "dot"]
    body += [_label(lb) for lb in scene.labels]
    head = (
        "\\begin{tikzpicture}\n\\begin{loglogaxis}[\n" + ",\n".join("  " + o for o in opts) + "\n]"
    )
    return head + "\n" + "\n".join(body) + "\n\\end{loglogaxis}\n\\end{tikzpicture}\n"


def _banded(scenes: list[Scene]) -> str:
    """The pictures of every band, TeX drawing the one whose widths hold the column's: the
    width is measured first (in the document's font), then ``\\ifdim`` picks the picture."""
    first = scenes[0]
    out = [
        "% one picture per band of column widths (labels placed for each); TeX draws one",
        f"\\pgfmathsetlengthmacro{{{_WIDTH_MACRO}}}{{{_axis_width(first)}}}%",
    ]
    for k, (scene, band) in enumerate(zip(scenes, BANDS)):
        top = band.width * band.growth
        last = k == len(scenes) - 1
        if not last:
            test = f"\\ifdim{_WIDTH_MACRO}<{top:.2f}pt\\relax"
            out.append("\\else" + test if k else test)
        elif k:
            out.append("\\else")
        out.append(_render(scene, top if last else None).rstrip("\n"))
    out += ["\\fi" * (len(scenes) - 1)]
    return "\n".join(o for o in out if o) + "\n"


def roofline_tikz(fig: RooflineFigure) -> str:
    """The roofline as a pgfplots ``loglogaxis`` in a ``tikzpicture`` (no preamble), one per
    band of column widths (:data:`BANDS`)."""
    return _banded([roofline_scene(fig, band) for band in BANDS])


def sweep_tikz(fig: SweepFigure) -> str:
    """The sweep as a pgfplots ``loglogaxis`` in a ``tikzpicture`` (no preamble), one per
    band of column widths (:data:`BANDS`)."""
    return _banded([sweep_scene(fig, band) for band in BANDS])
