"""How a step shows a value: as maths, as a rounded decimal, as a ratio; the step symbols."""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import IntensityForm
from derive.formula.durations import time_tex
from derive.solution.notation import tex, tex_decimal, tex_sum
from derive.solution.steps import Line, Math

FLOPS, BYTES, INTENSITY, RIDGE = r"\text{FLOPs}", r"\text{bytes}", "I", r"\frac{\pi}{\beta}"


def math_of(expr: sp.Expr) -> Math:
    return Math(tex(expr))


def rounded(expr: sp.Expr) -> str | None:
    """A rounded decimal for a number that is not an integer; None otherwise."""
    return tex_decimal(expr) if expr.is_number and not expr.is_Integer else None


def rounded_line(lhs: str, *forms: str, value: sp.Expr) -> Line:
    """A line ending in an exact number, then ``≈`` its decimal unless it is an integer."""
    return Line.of(lhs, *forms, tex(value), approx=rounded(value))


def ratio_tex(form: IntensityForm) -> str:
    """FLOPs / Σ terms with the terms in declaration order when that is already in lowest terms."""
    if form.as_declared:
        return rf"\frac{{{tex(form.flops)}}}{{{tex_sum(form.terms)}}}"
    return tex(form.lowest)


def attainable_lines(
    attainable: sp.Expr, fraction_of_peak: sp.Expr, rule: str = r"\min(\pi, I \beta)"
) -> tuple[Line, Line]:
    """The roofline's two results: the attainable FLOP/s (``rule``) and its share of the peak."""
    return (
        rounded_line(r"\text{attainable}", rule, value=attainable),
        rounded_line(
            r"\text{fraction of peak}", r"\frac{\text{attainable}}{\pi}", value=fraction_of_peak
        ),
    )


def seconds_tex(value: sp.Expr) -> str:
    """An exact time with its unit: ``\\frac{1}{80}\\ \\text{s}`` (a line's last form before its reading)."""
    return tex(value) + r"\ \text{s}"


def reading_tex(value: sp.Expr) -> str | None:
    """A time as a person reads it, for a line's ``≈`` (``12.5\\ \\text{ms}``); None for a formula."""
    return time_tex(value) if value.is_number else None


def time_line(lhs: str, *forms: str, seconds: sp.Expr) -> Line:
    """A line ending in a time: its exact seconds, then ``≈`` its reading."""
    return Line.of(lhs, *forms, seconds_tex(seconds), approx=reading_tex(seconds))


def decimal_line(lhs: str, *forms: str, value: sp.Expr) -> Line:
    """A line ending in an exact number, then ``≈`` its decimal."""
    return Line.of(lhs, *forms, tex(value), approx=tex_decimal(value))
