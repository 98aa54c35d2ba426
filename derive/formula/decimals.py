"""Exact numbers from decimal text, and decimal text from exact numbers.

Hardware numbers are written as decimals (``"1.97e14"``); we parse the text
into an exact sympy ``Rational`` without ever going through a float or eval.
"""

from __future__ import annotations

import decimal
import math
import re
from fractions import Fraction

import sympy as sp

from derive.errors import LimitError, ParseError

MAX_DIGITS = 60
MAX_EXPONENT = 60
# ASCII digits only (re.ASCII): "١٦" or "１６" and "1_000" are refused by every numeric flag
_DECIMAL = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$", re.ASCII)


def parse_decimal(text: str, what: str = "number") -> sp.Rational:
    """Parse decimal text exactly.

    >>> parse_decimal("1.97e14")
    197000000000000
    >>> parse_decimal("0.5")
    1/2
    """
    if not isinstance(text, str):
        raise ParseError(what, f"expected a number written as text, got {type(text).__name__}")
    s = text.strip()
    m = _DECIMAL.match(s)
    if not m or not (m.group(2) or m.group(3)):
        shown = what if what.endswith(f" {s}") else f"{what} {text!r}"  # named once (issue 37)
        raise ParseError(shown, "not a decimal number (examples: 8.2e11, 197000000000000, 0.5)")
    sign, whole, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
    if len(whole) + len(frac) > MAX_DIGITS:
        raise LimitError(f"{what} {text[:20]!r}...", f"more than {MAX_DIGITS} digits")
    e = int(exp) if exp else 0
    if abs(e) > MAX_EXPONENT:
        raise LimitError(f"{what} {text!r}", f"exponent beyond ±{MAX_EXPONENT}")
    value = Fraction(int(whole + frac or "0"), 10 ** len(frac)) * Fraction(10) ** e
    if sign == "-":
        value = -value
    return sp.Rational(value.numerator, value.denominator)


def parse_positive(text: str, what: str) -> sp.Rational:
    """A strictly positive exact number (a peak, a bandwidth)."""
    value = parse_decimal(text, what)
    if value <= 0:
        raise ParseError(f"{what} {text!r}", "must be a positive number")
    return value


def parse_positive_int(text: str, what: str) -> sp.Integer:
    """A positive integer (a bound dim); ``3.5``, ``0``, ``-4`` are refused."""
    s = text.strip()
    if not re.fullmatch(rf"\+?\d{{1,{MAX_DIGITS}}}", s, re.ASCII) or int(s) <= 0:
        raise ParseError(f"{what}={text}", "dims are positive integers (e.g. D=4096)")
    return sp.Integer(int(s))


def set_items(sets: tuple[str, ...]) -> tuple[str, ...]:
    """``--set`` items, a comma list split (``B=8,S=1024`` is ``B=8`` and ``S=1024``), as a
    user writes them after ``--set`` or in ``set = {...}``.

    >>> set_items(("B=8,S=1024", "D=4096"))
    ('B=8', 'S=1024', 'D=4096')
    """
    return tuple(
        part.strip()
        for item in sets
        for part in (item.split(",") if isinstance(item, str) else [item])
        if not isinstance(part, str) or part.strip()
    )


def ascii_int(text: str) -> int:
    """``int(text)`` for ASCII digits only (an argparse type: ``int`` takes ``٣`` and ``1_0``).

    >>> ascii_int("8000")
    8000
    """
    if not re.fullmatch(r"\s*[+-]?\d{1,18}\s*", text, re.ASCII):
        raise ValueError(text)
    return int(text)


def ascii_float(text: str) -> float:
    """``float(text)`` for an ASCII decimal only (an argparse type, like :func:`ascii_int`).

    >>> ascii_float("2.5")
    2.5
    """
    m = _DECIMAL.match(text.strip())
    if not m or not (m.group(2) or m.group(3)):
        raise ValueError(text)
    return float(text)


ascii_int.__name__ = "int"  # argparse says "invalid int value: '٣'", as for any bad integer
ascii_float.__name__ = "float"


def fmt_decimal(value: sp.Expr, digits: int = 5) -> str:
    """A rounded decimal for display only (``4925/41`` -> ``120.12``).

    Exact integers print in full; other numbers with ``digits`` significant digits,
    using scientific notation outside [1e-3, 1e7).
    """
    if isinstance(value, int):
        value = sp.Integer(value)
    if value.is_Integer:
        return str(int(value))
    f = float(value)
    if f == 0:
        return "0"
    if 1e-3 <= abs(f) < 1e7:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(f))))
        return f"{f:.{decimals}f}"
    return f"{f:.{digits - 1}e}"


def _ending_decimal(value: sp.Rational) -> decimal.Decimal | None:
    """``value`` as an exact :class:`decimal.Decimal` when its decimal ends, else None."""
    p, q = int(value.p), int(value.q)
    with decimal.localcontext() as context:
        # q = 2^a 5^b has max(a, b) <= 3.33 * digits(q) + 1 places: room for all of them
        context.prec = len(str(abs(p))) + 4 * len(str(q)) + 4
        quotient = decimal.Decimal(p) / decimal.Decimal(q)
        # as_integer_ratio is exact (a product in the context would round back to p)
        return quotient.normalize() if quotient.as_integer_ratio() == (p, q) else None


def fmt_exact_decimal(value: sp.Expr, digits: int = 5) -> str:
    """A number exactly when its decimal ends (``1/2`` -> ``0.5``, ``17/32`` -> ``0.53125``),
    written out in full, else rounded as :func:`fmt_decimal`.

    >>> fmt_exact_decimal(sp.Rational(1, 2)), fmt_exact_decimal(sp.Rational(33, 32))
    ('0.5', '1.03125')
    >>> fmt_exact_decimal(sp.Rational(1, 3))
    '0.33333'
    """
    value = sp.Rational(value) if isinstance(value, int) else value
    if value.is_Rational and not value.is_Integer:
        exact = _ending_decimal(value)
        if exact is not None:
            return format(exact, "f")
    return fmt_decimal(value, digits)


def fmt_ending_decimal(value: sp.Expr) -> str | None:
    """The exact decimal of a rational whose decimal ends, written short by Python's
    :mod:`decimal` (``0.02``, ``1.3e-7``, ``1e-60``); None when the decimal never ends.

    >>> fmt_ending_decimal(sp.Rational(1, 50)), fmt_ending_decimal(sp.Rational(13, 10**8))
    ('0.02', '1.3e-7')
    >>> fmt_ending_decimal(sp.Rational(1, 3)) is None
    True
    """
    value = sp.Rational(value)
    if value.is_Integer:
        return str(int(value.p))
    exact = _ending_decimal(value)
    return None if exact is None else format(exact, "g").replace("E", "e").replace("e+", "e")


def counted(count: object, noun: str) -> str:
    """A count with its noun, singular for one: ``counted(1, "device")`` → ``"1 device"``,
    ``counted(8, "device")`` → ``"8 devices"`` (never "device(s)").

    >>> counted(1, "device"), counted(8, "device")
    ('1 device', '8 devices')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
