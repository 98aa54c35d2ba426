"""A time as a person reads it: ``1.0329e-05 s`` prints as ``10.33 µs``, 90.712 days as ``90.71 days``.

One reading for every time derive prints for people (verdicts, prose, tables, the ``≈`` beside
an exact value in a derivation); the exact seconds stay in the JSON and beside the reading.

The unit is the largest of ns, µs, ms, s, min, h and days whose reading, rounded in it, reaches
the unit's threshold: 1 for the decimal units (999.96 µs reads ``1.000 ms``, not ``1000 µs``),
10 min, 2 h and 2 days for the others, as people say "a 60 s step", "90 min", "36 h".
The number has :data:`SIGNIFICANT` significant figures, rounded half up from the exact value
(never through a float); trailing zeros are dropped only when the reading is exact
(1/80 s is ``12.5 ms``, 0.012515 s is ``12.52 ms``).

>>> time_text(Fraction(1, 80)), time_text(Fraction(10329, 10**9)), time_text(90 * 86400)
('12.5 ms', '10.33 µs', '90 days')
>>> time_tex(Fraction(1, 80))
'12.5\\\\ \\\\text{ms}'
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable
from enum import Enum
from fractions import Fraction
from typing import TypeAlias

import sympy as sp

SIGNIFICANT = 4
"""Significant figures of a time read by a person: enough to tell 34.06 s from 34.09 s."""


class TimeUnit(Enum):
    """A unit a person times things in: its text in prose and Markdown (``µs``), its LaTeX in
    math mode (``\\mu\\text{s}``), the seconds in one, and the smallest reading it is used
    from (10 min; below, seconds)."""

    text: str
    tex: str
    seconds: Fraction
    threshold: int

    NS = ("ns", r"\text{ns}", Fraction(1, 10**9), 0)
    US = ("µs", r"\mu\text{s}", Fraction(1, 10**6), 1)
    MS = ("ms", r"\text{ms}", Fraction(1, 10**3), 1)
    S = ("s", r"\text{s}", Fraction(1), 1)
    MIN = ("min", r"\text{min}", Fraction(60), 10)
    H = ("h", r"\text{h}", Fraction(3600), 2)
    DAYS = ("days", r"\text{days}", Fraction(86400), 2)

    def __init__(self, text: str, tex: str, seconds: Fraction, threshold: int) -> None:
        self.text, self.tex, self.seconds, self.threshold = text, tex, seconds, threshold


_UNITS = tuple(TimeUnit)

Seconds: TypeAlias = Fraction | int | sp.Expr


def _exact(seconds: Seconds) -> Fraction:
    """The time as an exact Fraction (a sympy number that is not rational, through 30 digits)."""
    if isinstance(seconds, Fraction | int):
        return Fraction(seconds)
    if seconds.is_Rational:
        return Fraction(int(seconds.p), int(seconds.q))
    return Fraction(str(sp.Float(seconds, 30)))


def _rounded(value: Fraction, digits: int) -> tuple[int, int]:
    """|value| rounded half up to ``digits`` significant figures as (mantissa, exponent),
    the mantissa of exactly ``digits`` digits: :mod:`decimal` divides and rounds exactly."""
    value = abs(value)
    if value == 0:
        return 0, 0
    with decimal.localcontext() as context:
        context.prec, context.rounding = digits, decimal.ROUND_HALF_UP
        _, coefficient, exponent = (
            decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)
        ).as_tuple()
    mantissa = int("".join(map(str, coefficient)))
    shift = digits - len(str(mantissa))  # an exact quotient may have fewer digits
    return mantissa * 10**shift, int(exponent) - shift


def _reading(value: Fraction, unit: TimeUnit, digits: int) -> tuple[int, int]:
    return _rounded(value / unit.seconds, digits)


def time_unit(seconds: Seconds, digits: int = SIGNIFICANT) -> TimeUnit:
    """The unit a time is read in: the largest whose threshold it reaches once rounded in it.

    >>> [time_unit(t).text for t in (Fraction(99996, 10**8), 60, 3600, 7200, Fraction(1, 10**12))]
    ['ms', 's', 'min', 'h', 'ns']
    """
    value = abs(_exact(seconds))
    if value == 0:
        return TimeUnit.S
    chosen = TimeUnit.NS
    for unit in _UNITS:
        mantissa, exponent = _reading(value, unit, digits)
        if mantissa and Fraction(mantissa) * Fraction(10) ** exponent >= unit.threshold:
            chosen = unit
    return chosen


def column_unit(times: Iterable[Seconds], digits: int = SIGNIFICANT) -> TimeUnit:
    """One unit for a column of times (its header says it): the largest time's, so no cell
    reads 1000 or more (as ``derive compare``'s tables choose); seconds for no time.

    >>> column_unit([Fraction(1, 1340), Fraction(1, 1001), 0]).text
    'µs'
    >>> column_unit([Fraction(1, 1340), Fraction(1, 1000)]).text
    'ms'
    """
    values = [abs(_exact(t)) for t in times]
    return time_unit(max(values), digits) if any(values) else TimeUnit.S


def _number(value: Fraction, unit: TimeUnit, digits: int) -> str:
    mantissa, exponent = _reading(value, unit, digits)
    sign = "-" if value < 0 and mantissa else ""
    if exponent >= 0:
        return sign + str(mantissa * 10**exponent)
    text = str(mantissa).rjust(-exponent + 1, "0")
    whole, fraction = text[:exponent], text[exponent:]
    if Fraction(mantissa) * Fraction(10) ** exponent == abs(value) / unit.seconds:
        fraction = fraction.rstrip("0")
    return sign + whole + ("." + fraction if fraction else "")


def time_in(seconds: Seconds, unit: TimeUnit, digits: int = SIGNIFICANT) -> str:
    """The number of a time in a given unit, without the unit (a table column's cells).

    >>> time_in(Fraction(1, 80), TimeUnit.US)
    '12500'
    """
    return _number(_exact(seconds), unit, digits)


def time_text(seconds: Seconds, digits: int = SIGNIFICANT) -> str:
    """A time for prose, Markdown and plain text: ``10.33 µs``."""
    unit = time_unit(seconds, digits)
    return f"{time_in(seconds, unit, digits)} {unit.text}"


def time_tex(seconds: Seconds, digits: int = SIGNIFICANT) -> str:
    """A time in LaTeX math mode: ``10.33\\ \\mu\\text{s}``."""
    unit = time_unit(seconds, digits)
    return rf"{time_in(seconds, unit, digits)}\ {unit.tex}"
