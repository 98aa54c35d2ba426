"""Roofline figures: well-formed SVG, escaped labels, deterministic bytes, knees placed exactly."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import sympy as sp

from derive.figures import Ceiling, Point, RooflineFigure, Series, SweepFigure, roofline_svg, roofline_tikz, sweep_svg, sweep_tikz

NASTY = r"50% of $x$ & #1 _ ^ ~ {} \end{document} <b>"
BF16, INT8, BW = sp.Integer(197 * 10**12), sp.Integer(394 * 10**12), sp.Integer(82 * 10**10)


def roofline() -> RooflineFigure:
    return RooflineFigure(NASTY, BW, (Ceiling("bf16", BF16), Ceiling("int8", INT8)),
                          (Point("q2 (B* = 120.1)", BF16 / BW, BF16), Point("at B = 64", sp.Rational(64), 64 * BW)))


def sweep() -> SweepFigure:
    xs = tuple(sp.Integer(2**k) for k in range(13))
    series = []
    for d in (4096, 1024):
        ys = tuple(sp.Min(BF16, sp.Rational(2 * b * d * d, 2 * b * d + d * d + 2 * b * d) * BW) for b in xs)
        series.append(Series(f"D = F = {d}", xs, ys, sp.Rational(5043200, 37059) if d == 4096 else None))
    return SweepFigure(NASTY, "B", "attainable FLOP/s", tuple(series), BF16)


def test_svg_is_xml_and_escapes_the_title():
    for svg in (roofline_svg(roofline()), sweep_svg(sweep())):
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        texts = "".join(root.itertext())
        assert "50% of $x$ & #1" in texts and "<b>" in texts  # shown literally, not markup


def test_knee_labels_and_determinism():
    svg = roofline_svg(roofline())
    assert "240.2" in svg and "480.5" in svg  # ridge 9850/41 and 19700/41, derived from the ceilings
    assert svg == roofline_svg(roofline()) and sweep_svg(sweep()) == sweep_svg(sweep())


def test_tikz_escapes_labels():
    tikz = roofline_tikz(roofline()) + sweep_tikz(sweep())
    assert r"\end{document}" not in tikz.replace(r"\textbackslash{}end\{document\}", "")
    assert "loglogaxis" in tikz
