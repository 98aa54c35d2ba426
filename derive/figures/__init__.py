"""Roofline figures: SVG documents and pgfplots pictures from exact numbers.

A :class:`RooflineFigure` is a multi-dtype roofline (one memory slope, one
ceiling per dtype, knees marked with their ridge intensity, operators as
points); a :class:`SweepFigure` is attainable FLOP/s against one dim for several
series, with their crossovers marked. Numbers stay exact sympy Rationals until
the moment a coordinate is printed, in a fixed format, so output is
byte-identical from run to run.

>>> import sympy as sp
>>> fig = RooflineFigure("v5e", sp.Integer(820000000000), (Ceiling("bf16", sp.Integer(197000000000000)),))
>>> "240.2" in roofline_svg(fig) and "loglogaxis" in roofline_tikz(fig)
True
"""

from __future__ import annotations

from derive.figures.model import Ceiling, Point, RooflineFigure, Series, SweepFigure
from derive.figures.svg import escape_svg_text, roofline_svg, sweep_svg
from derive.figures.tikz import TIKZ_PACKAGES, TIKZ_PREAMBLE, roofline_tikz, sweep_tikz

__all__ = [
    "TIKZ_PACKAGES",
    "TIKZ_PREAMBLE",
    "Ceiling",
    "Point",
    "RooflineFigure",
    "Series",
    "SweepFigure",
    "escape_svg_text",
    "roofline_svg",
    "roofline_tikz",
    "sweep_svg",
    "sweep_tikz",
]
