"""Units people write after a number: ``0.14 ms``, ``85.9 GB``, ``240 FLOPs/byte``, ``2 TFLOP/s``.

A unit is one or two atoms (``numerator`` or ``numerator/denominator``); an atom is an
optional prefix and a base. Decimal prefixes (k, M, G, T, P) step by 10^3, binary ones
(Ki, Mi, Gi, Ti) by 2^10 and apply to bytes only; m, µ, n apply to seconds only. Every
factor is an exact rational, so ``128 MiB`` is exactly 134217728 bytes.

A unit is read from a short text by a table lookup, never evaluated. Its dimension is a
tuple of exponents of (FLOP, byte, second, token), so ``FLOPs/byte`` is (1, -1, 0, 0).

Units in arithmetic (the givens and defined quantities of :mod:`derive.questions`) are
:class:`Measure` records: exponents over :data:`MEASURE_BASES` (the four above, dollars and
joules) and an exact factor, multiplied and divided as the quantities are, so ``$/h × s``
is ``$`` times exactly 1/3600 and adding a time to a byte count is refused by
:meth:`Measure.same`. :func:`measure_atom` reads one unit name (``GiB``, ``ms``, ``h``,
``$``, ``kW``, ``%``). derive reads its own units rather than pint's: pint has no FLOP,
token or dollar, counts a byte as dimensionless, and costs ~0.23 s to import and load
its registry on every cold start (measured with pint 0.24, ``non_int_type=Fraction``).

>>> parse_unit("MiB").factor
1048576
>>> parse_unit(r"\\mu s").text
'µs'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

import sympy as sp

MAX_UNIT_LENGTH = 40
"""A longer text is never a unit."""


class Dimension(Enum):
    """What a unit measures (and so what quantity it may follow)."""

    FLOPS = (1, 0, 0, 0)
    BYTES = (0, 1, 0, 0)
    TIME = (0, 0, 1, 0)
    INTENSITY = (1, -1, 0, 0)
    FLOP_RATE = (1, 0, -1, 0)
    BYTE_RATE = (0, 1, -1, 0)
    TOKEN_RATE = (0, 0, -1, 1)
    COUNT = (0, 0, 0, 1)


_DESCRIPTION = {
    Dimension.FLOPS: ("a FLOP count", "FLOPs"),
    Dimension.BYTES: ("a byte count", "bytes"),
    Dimension.TIME: ("a time", "s"),
    Dimension.INTENSITY: ("an intensity", "FLOPs/byte"),
    Dimension.FLOP_RATE: ("a compute rate", "FLOP/s"),
    Dimension.BYTE_RATE: ("a bandwidth", "bytes/s"),
    Dimension.TOKEN_RATE: ("a throughput", "tokens/s"),
    Dimension.COUNT: ("a count", ""),
}


def describe_dimension(dimension: Dimension) -> tuple[str, str]:
    """(``a time``, ``s``): how to name a dimension in prose, and its base unit."""
    return _DESCRIPTION[dimension]


@dataclass(frozen=True)
class Unit:
    """A unit as read: its canonical spelling, what it measures and its exact factor to base units.

    Attributes:
        text: the canonical spelling (``µs``, ``GiB``, ``FLOPs/byte``).
        dimension: what it measures.
        factor: base units per one of this unit (``ms`` -> 1/1000 s).
        prefix: the prefix of the numerator atom (``Gi``), for confusions.
    """

    text: str
    dimension: Dimension
    factor: sp.Rational
    prefix: str = ""


_DECIMAL = {"": 0, "k": 1, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5}
_SUB = {"m": -1, "µ": -2, "u": -2, "n": -3}
# base -> (exponents, canonical spelling, factor, prefixes allowed)
_BASES: dict[str, tuple[tuple[int, int, int, int], str, int, str]] = {
    "FLOP": ((1, 0, 0, 0), "FLOP", 1, "dec"),
    "FLOPs": ((1, 0, 0, 0), "FLOPs", 1, "dec"),
    "flop": ((1, 0, 0, 0), "FLOP", 1, "dec"),
    "flops": ((1, 0, 0, 0), "FLOPs", 1, "dec"),
    "OP": ((1, 0, 0, 0), "OP", 1, "dec"),
    "OPs": ((1, 0, 0, 0), "OPs", 1, "dec"),
    "ops": ((1, 0, 0, 0), "OPs", 1, "dec"),
    "FLOPS": ((1, 0, -1, 0), "FLOP/s", 1, "dec"),
    "OPS": ((1, 0, -1, 0), "OP/s", 1, "dec"),
    "B": ((0, 1, 0, 0), "B", 1, "bytes"),
    "byte": ((0, 1, 0, 0), "byte", 1, "bytes"),
    "bytes": ((0, 1, 0, 0), "bytes", 1, "bytes"),
    "s": ((0, 0, 1, 0), "s", 1, "time"),
    "sec": ((0, 0, 1, 0), "s", 1, "time"),
    "secs": ((0, 0, 1, 0), "s", 1, "time"),
    "second": ((0, 0, 1, 0), "s", 1, "none"),
    "seconds": ((0, 0, 1, 0), "s", 1, "none"),
    "min": ((0, 0, 1, 0), "min", 60, "none"),
    "h": ((0, 0, 1, 0), "h", 3600, "none"),
    "hours": ((0, 0, 1, 0), "h", 3600, "none"),
    "day": ((0, 0, 1, 0), "day", 86400, "none"),
    "days": ((0, 0, 1, 0), "days", 86400, "none"),
    "week": ((0, 0, 1, 0), "weeks", 604800, "none"),
    "token": ((0, 0, 0, 1), "token", 1, "dec"),
    "tokens": ((0, 0, 0, 1), "tokens", 1, "dec"),
}
# Units spelled out in words, and short forms, each read as the atom the table above spells
# (kept apart from ``_BASES`` so unit arithmetic elsewhere can grow that table on its own).
_SPELLED: dict[str, str] = {
    **{f"{word}{plural}": atom for word, atom in (
        ("nanosecond", "ns"), ("microsecond", "µs"), ("millisecond", "ms"), ("minute", "min"),
        ("hour", "h"), ("week", "week"), ("kilobyte", "kB"), ("megabyte", "MB"),
        ("gigabyte", "GB"), ("terabyte", "TB"), ("petabyte", "PB"), ("kibibyte", "KiB"),
        ("mebibyte", "MiB"), ("gibibyte", "GiB"), ("tebibyte", "TiB"),
    ) for plural in ("", "s")},
    "mins": "min", "hr": "h", "hrs": "h", "usec": "µs", "usecs": "µs", "msec": "ms",
    "msecs": "ms", "nsec": "ns", "nsecs": "ns", "tok": "tokens", "toks": "tokens",
    "wk": "week",
}  # fmt: skip
_SPELLING_MACROS = re.compile(r"\\(?:text|mathrm|mathit|textrm|operatorname)\s*\{([^{}]*)\}")
_PER = re.compile(r"\s+per\s+")
_SPACES = re.compile(r"\\[,;:! ]|\\quad|\\qquad|~|\s")


def _normalise(text: str) -> str:
    """Drop ``\\text{}`` wrappers, LaTeX spacing and spaces; ``\\mu``/``μ`` become ``µ``."""
    s = _SPELLING_MACROS.sub(r"\1", text)
    s = s.replace("\\mu", "µ").replace("\u03bc", "µ").replace("\\per", "/")
    s = _PER.sub("/", s)
    s = _SPACES.sub("", s)
    return s.replace("{", "").replace("}", "")


def _atom(text: str) -> tuple[tuple[int, int, int, int], str, sp.Rational, str] | None:
    """(exponents, spelling, factor, prefix) of one atom, or None."""
    text = _SPELLED.get(text, _SPELLED.get(text.lower(), text) if len(text) > 3 else text)
    for base, (dims, spelled, factor, allowed) in _BASES.items():
        if not text.endswith(base):
            continue
        prefix = text[: len(text) - len(base)]
        if prefix == "":
            return dims, spelled, sp.Integer(factor), ""
        if allowed in ("dec", "bytes", "time") and prefix in _DECIMAL and allowed != "time":
            return dims, prefix + spelled, sp.Integer(1000) ** _DECIMAL[prefix] * factor, prefix
        if allowed == "bytes" and prefix in _BINARY:
            return dims, prefix + spelled, sp.Integer(1024) ** _BINARY[prefix] * factor, prefix
        if allowed == "time" and prefix in _SUB:
            shown = "µ" if prefix == "u" else prefix
            return dims, shown + spelled, sp.Integer(1000) ** _SUB[prefix], shown
    return None


def parse_unit(text: str) -> Unit | None:
    """The unit a short text spells, or None when it spells none.

    >>> parse_unit("FLOPs/byte").dimension
    <Dimension.INTENSITY: (1, -1, 0, 0)>
    >>> parse_unit("BDF") is None
    True
    """
    if len(text) > MAX_UNIT_LENGTH:
        return None
    s = _normalise(text)
    if not s or len(s) > MAX_UNIT_LENGTH:
        return None
    parts = s.split("/")
    if len(parts) > 2 or not all(parts):
        return None
    top = _atom(parts[0])
    if top is None:
        return None
    dims, spelled, factor, prefix = top
    if len(parts) == 2 and spelled.endswith(("FLOP/s", "OP/s")):
        # "FLOPS/byte": the S is a plural there, not "per second"
        dims, spelled = (1, 0, 0, 0), spelled.replace("/s", "s")
    if len(parts) == 2:
        bottom = _atom(parts[1])
        if bottom is None:
            return None
        dims = tuple(a - b for a, b in zip(dims, bottom[0]))  # type: ignore[assignment]
        spelled, factor = f"{spelled}/{bottom[1]}", factor / bottom[2]
    try:
        dimension = Dimension(dims)
    except ValueError:
        return None
    return Unit(spelled, dimension, factor, prefix)


def unit_alternatives(unit: Unit) -> list[tuple[str, sp.Rational]]:
    """Units the writer may have meant instead, as (spelling, factor): GB for GiB and back, ms for s.

    >>> [t for t, _ in unit_alternatives(parse_unit("GB"))]
    ['GiB']
    """
    out: list[tuple[str, sp.Rational]] = []
    head = unit.text.split("/")[0]
    base = head[len(unit.prefix) :]
    if unit.dimension in (Dimension.BYTES, Dimension.BYTE_RATE) and unit.prefix:
        if unit.prefix in _BINARY:
            other = unit.prefix[0].replace("K", "k")
            out.append((other + base, sp.Integer(1000) ** _BINARY[unit.prefix]))
        elif unit.prefix in _DECIMAL:
            other = unit.prefix.upper() + "i"
            out.append((other + base, sp.Integer(1024) ** _DECIMAL[unit.prefix]))
    if unit.dimension is Dimension.TIME and unit.factor in (
        1,
        *(sp.Integer(1000) ** -k for k in (1, 2, 3)),
    ):
        for shown, k in (("s", 0), ("ms", -1), ("µs", -2), ("ns", -3)):
            if sp.Integer(1000) ** k != unit.factor:
                out.append((shown, sp.Integer(1000) ** k))
    return out


# -- units in arithmetic ---------------------------------------------------------------

MEASURE_BASES = ("FLOP", "byte", "s", "token", "$", "J")
"""The base units of :class:`Measure` exponents, in order."""

_DOLLAR = (0, 0, 0, 0, 1, 0)
_JOULE = (0, 0, 0, 0, 0, 1)
_WATT = (0, 0, -1, 0, 0, 1)
# name -> (exponents, factor, canonical spelling): units beyond the answer reader's
_MORE_ATOMS: dict[str, tuple[tuple[int, ...], sp.Rational, str]] = {
    "$": (_DOLLAR, sp.Integer(1), "$"),
    "USD": (_DOLLAR, sp.Integer(1), "$"),
    "dollar": (_DOLLAR, sp.Integer(1), "$"),
    "dollars": (_DOLLAR, sp.Integer(1), "$"),
    "J": (_JOULE, sp.Integer(1), "J"),
    "kJ": (_JOULE, sp.Integer(10) ** 3, "kJ"),
    "MJ": (_JOULE, sp.Integer(10) ** 6, "MJ"),
    "GJ": (_JOULE, sp.Integer(10) ** 9, "GJ"),
    "W": (_WATT, sp.Integer(1), "W"),
    "kW": (_WATT, sp.Integer(10) ** 3, "kW"),
    "MW": (_WATT, sp.Integer(10) ** 6, "MW"),
    "Wh": (_JOULE, sp.Integer(3600), "Wh"),
    "kWh": (_JOULE, sp.Integer(3600) * 10**3, "kWh"),
    "MWh": (_JOULE, sp.Integer(3600) * 10**6, "MWh"),
    "percent": ((0,) * 6, sp.Rational(1, 100), "%"),
    "hour": ((0, 0, 1, 0, 0, 0), sp.Integer(3600), "h"),
    "hr": ((0, 0, 1, 0, 0, 0), sp.Integer(3600), "h"),
}
_NAMES: dict[tuple[int, ...], str] = {
    (1, 0, 0, 0, 0, 0): "a FLOP count",
    (0, 1, 0, 0, 0, 0): "a byte count",
    (0, 0, 1, 0, 0, 0): "a time",
    (0, 0, 0, 1, 0, 0): "a token count",
    _DOLLAR: "a cost",
    _JOULE: "an energy",
    _WATT: "a power",
    (1, -1, 0, 0, 0, 0): "an intensity",
    (1, 0, -1, 0, 0, 0): "a compute rate",
    (0, 1, -1, 0, 0, 0): "a bandwidth",
    (0, 0, -1, 1, 0, 0): "a throughput",
    (0, 0, -1, 0, 1, 0): "a cost rate",
    (0, 0, 0, -1, 1, 0): "a cost per token",
    (0, 0, 0, 0, 0, 0): "a number",
}


@dataclass(frozen=True)
class Measure:
    """A unit in arithmetic: exponents over :data:`MEASURE_BASES` and its exact factor to them.

    Attributes:
        exponents: one exponent per base unit (``$/h`` is ``(0, 0, -1, 0, 1, 0)``).
        factor: base units per one of this unit (``$/h`` -> 1/3600 $/s).
        text: how to write it (``$/h``); the base units' spelling when made by arithmetic.

    >>> (measure_atom("$") / measure_atom("h") * measure_atom("s")).factor
    1/3600
    """

    exponents: tuple[int, ...]
    factor: sp.Rational = sp.S.One
    text: str = ""

    def __mul__(self, other: Measure) -> Measure:
        exps = tuple(a + b for a, b in zip(self.exponents, other.exponents))
        return Measure(exps, self.factor * other.factor, base_text(exps))

    def __truediv__(self, other: Measure) -> Measure:
        exps = tuple(a - b for a, b in zip(self.exponents, other.exponents))
        return Measure(exps, self.factor / other.factor, base_text(exps))

    def power(self, exponent: sp.Rational) -> Measure | None:
        """This unit to a rational power, or None when an exponent would not be whole."""
        exps = [e * exponent for e in self.exponents]
        if any(not sp.Rational(e).is_integer for e in exps):
            return None
        whole = tuple(int(e) for e in exps)
        return Measure(whole, self.factor**exponent, base_text(whole))

    @property
    def dimensionless(self) -> bool:
        """True for a pure number (``%`` included)."""
        return not any(self.exponents)

    def describe(self) -> str:
        """What it measures, in words, and its base unit: ``a time (s)``."""
        name = _NAMES.get(self.exponents, "a quantity")
        unit = base_text(self.exponents)
        return f"{name} ({unit})" if unit else name


def base_text(exponents: tuple[int, ...]) -> str:
    """The spelling of exponents in base units: ``$/s``, ``FLOP/byte``, ``J``, '' for a number.

    >>> base_text((1, 0, -1, 0, 0, 0))
    'FLOP/s'
    """
    top = [_power(name, e) for name, e in zip(MEASURE_BASES, exponents) if e > 0]
    bottom = [_power(name, -e) for name, e in zip(MEASURE_BASES, exponents) if e < 0]
    head = "·".join(top) or ("1" if bottom else "")
    if not bottom:
        return head
    tail = bottom[0] if len(bottom) == 1 else "(" + "·".join(bottom) + ")"
    return f"{head}/{tail}"


def _power(name: str, exponent: int) -> str:
    return name if exponent == 1 else f"{name}^{exponent}"


def measure_atom(text: str) -> Measure | None:
    """The unit one name spells (``GiB``, ``ms``, ``h``, ``tokens``, ``$``, ``kW``), or None.

    >>> measure_atom("GiB").factor
    1073741824
    >>> measure_atom("BDF") is None
    True
    """
    if text in _MORE_ATOMS:
        exps, factor, spelled = _MORE_ATOMS[text]
        return Measure(exps, factor, spelled)
    found = _atom(text.replace("µ", "u"))
    if found is None:
        return None
    dims, spelled, factor, _ = found
    return Measure((*dims, 0, 0), factor, spelled)
