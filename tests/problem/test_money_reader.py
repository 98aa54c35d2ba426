"""One reader of a price: ``--price-per-hour`` (derive.problem.money) reads a text as the
formula reader of givens and defines (derive.questions.read.read_formula) reads it (issue 31,
"one reader").

Both move a currency written before its number after it (derive.formula.literals.currency_last)
and read the same units table. For random decimals, currency spellings (``$2.30``,
``2.30 $``, ``USD 2.30``) and times (``/h``, ``/min``, ``/s``, ``/day``), the price per
device-hour ``read_price`` keeps is the formula reader's dollars per second times 3600, and
both equal the number typed scaled by hand (a Fraction) — computed here, not copied.
A fraction before a unit (``1/2 $/h``) is half a dollar an hour to the formula reader and
refused by the price reader, never misread.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.errors import ProblemError
from derive.problem.money import read_price
from derive.questions.read import read_formula

#: seconds in one of each time unit, by hand
SECONDS = {"h": 3600, "hour": 3600, "min": 60, "s": 1, "day": 86400}

SPELLINGS = (
    "${n}/{t}",
    "{n} $/{t}",
    "{n} USD/{t}",
    "USD {n}/{t}",
    "$ {n}/{t}",
)


def _formula_dollars_per_second(text: str) -> sp.Rational:
    value = read_formula(text, {})
    assert value.measure.text == "$/s", text
    return sp.Rational(value.value)


decimals = st.builds(
    lambda whole, frac, digits: f"{whole}.{frac:0{digits}d}" if digits else str(whole),
    st.integers(0, 10_000),
    st.integers(0, 999),
    st.sampled_from([0, 3]),
)


@settings(max_examples=150, deadline=None)
@given(decimals, st.sampled_from(SPELLINGS), st.sampled_from(sorted(SECONDS)))
def test_a_price_reads_as_a_claim_reads_it(number, spelling, per):
    text = spelling.format(n=number, t=per)
    by_hand = Fraction(number) * 3600 / SECONDS[per]
    price = read_price(text, "--price-per-hour").value
    assert Fraction(int(price.p), int(price.q)) == by_hand, text
    formula = _formula_dollars_per_second(text) * 3600
    assert Fraction(int(formula.p), int(formula.q)) == by_hand, text


@settings(max_examples=60, deadline=None)
@given(decimals, st.sampled_from(["${n}", "USD {n}", "{n} $", "{n}"]))
def test_a_price_without_a_time_is_per_hour(number, spelling):
    text = spelling.format(n=number)
    price = read_price(text, "--price-per-hour").value
    assert Fraction(int(price.p), int(price.q)) == Fraction(number), text


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 1000), st.integers(1, 1000), st.sampled_from(sorted(SECONDS)))
def test_a_fraction_before_a_unit_is_read_first_or_refused(top, bottom, per):
    text = f"{top}/{bottom} $/{per}"
    by_hand = Fraction(top, bottom) / SECONDS[per]
    formula = _formula_dollars_per_second(text)
    assert Fraction(int(formula.p), int(formula.q)) == by_hand, text
    with pytest.raises(ProblemError):
        read_price(text, "--price-per-hour")


def test_two_currencies_are_refused():
    with pytest.raises(ProblemError):
        read_price("$2.30 $/h", "--price-per-hour")
