"""A price per device-hour and a power per device, read exactly from the text typed.

``--price-per-hour`` takes ``2.49``, ``$2.49``, ``2.49 $/h``, ``2.49 USD/hour`` or a price per
another time (``0.0415 $/min``); the value kept is dollars per device-hour. ``--power`` takes
``700``, ``700 W`` or ``0.7 kW``; the value kept is watts per device. A currency before the
number (``$2.49``, ``USD 2.49/h``) is moved after it by
:func:`derive.formula.literals.currency_last`, the rule every reader of derive applies; the
unit is read by :func:`derive.formula.units.measure_atom` (the units table), the number by
:func:`derive.formula.decimals.parse_decimal`: nothing typed is evaluated.
tests/problem/test_money_reader.py pins that a price reads as the claim reader reads the same text.

>>> read_price("$2.49", "--price-per-hour").value
249/100
>>> read_price("0.05 $/min", "--price-per-hour").value
3
>>> read_power("0.7 kW", "--power").value
700
"""

from __future__ import annotations

import re

import sympy as sp

from derive.errors import ProblemError
from derive.formula.decimals import parse_decimal
from derive.formula.literals import currency_last
from derive.formula.units import Measure, measure_atom
from derive.problem.chips import Figure

_DOLLAR = (0, 0, 0, 0, 1, 0)
_TIME = (0, 0, 1, 0, 0, 0)
_WATT = (0, 0, -1, 0, 0, 1)
_TEXT = re.compile(r"\s*(\$?)\s*([-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*")


def _split(text: str, flag: str, example: str) -> tuple[bool, sp.Rational, str]:
    """(a leading ``$``, the exact number, the unit text) of ``text``; refuses a negative."""
    ok, where = isinstance(text, str) and len(text) <= 80, f"{flag} {text!r}"
    found = _TEXT.fullmatch(currency_last(text)) if ok else None
    if found is None:
        raise ProblemError(where, f"write a number with an optional unit, e.g. {example}")
    dollar, number, unit = found.groups()
    value = parse_decimal(number, where)
    if value < 0:
        raise ProblemError(where, "a price or power is not negative")
    return bool(dollar), value, unit


def _atom(text: str) -> Measure | None:
    return measure_atom(text.strip()) if text.strip() else None


def read_price(text: str, flag: str) -> Figure:
    """Dollars per device-hour from ``2.49``, ``$2.49``, ``2.49 $/h`` (exact).

    Raises:
        ProblemError: a negative price, or a unit that is not dollars per a time.
    """
    dollar, value, unit = _split(text, flag, "'$2.49' or '2.49 $/h'")
    money, _, per = unit.partition("/")
    head = _atom(money) if money.strip() else None
    tail = _atom(per) if per.strip() else measure_atom("h")
    if money.strip() and (head is None or head.exponents != _DOLLAR or dollar):
        raise ProblemError(f"{flag} {text!r}", "a price is dollars per device-hour, e.g. 2.49 $/h")
    if tail is None or tail.exponents != _TIME or (per and not per.strip()):
        raise ProblemError(f"{flag} {text!r}", "a price is per a time ($/h, $/s), e.g. 2.49 $/h")
    hours = sp.Integer(3600) / tail.factor  # the price is per ``tail``; one hour is this many
    return Figure(sp.Rational(value * hours), text.strip(), source="given")


def read_power(text: str, flag: str) -> Figure:
    """Watts per device from ``700``, ``700 W``, ``0.7 kW`` (exact).

    Raises:
        ProblemError: a negative power, or a unit that is not a power.
    """
    dollar, value, unit = _split(text, flag, "'700 W'")
    measure = _atom(unit) if unit else measure_atom("W")
    if dollar or measure is None or measure.exponents != _WATT:
        raise ProblemError(f"{flag} {text!r}", "a power is watts per device, e.g. 700 W or 0.7 kW")
    return Figure(sp.Rational(value * measure.factor), text.strip(), source="given")
