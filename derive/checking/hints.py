"""Every hint earned (issue 33, item 4): the one rule that picks the diagnosis a verdict names.

Every slip table of the checker (an operator's factors and variants, a step's slips, a
model's ratios, a serving step's and a training run's slips) is a list of :class:`Slip`
rows: the sentence naming the slip, the value the quantity takes when computed the slip's
way, the kinds of quantity its premise fits, and how specific it is (its :class:`Rank`).
A row is **earned** when

- its premise fits the quantity: ``fits`` meets the quantity's facets, read from its
  catalogue row (its dimension and computation: no GiB for a count, no K and V for the
  weights, no multiply-add for a rate of tokens); and
- its corrected computation reproduces the claim: the claim matches the row's value
  within the tolerance (exactly, for a formula).

Of the earned rows the most specific is named **alone**: the highest rank, then the value
closest to the claim, then the table's order. The others that reproduce the number are
coincidences of the numbers.

>>> rows = [Slip(sp.Integer(2), "a factor of 2", Rank.GENERIC),
...         Slip(sp.Integer(2), "one of K and V", Rank.NAMED, frozenset({Facet.KV}))]
>>> earned(rows, sp.Integer(2), sp.Rational(1, 100), frozenset({Facet.KV})).why
'one of K and V'
>>> earned(rows, sp.Integer(2), sp.Rational(1, 100), frozenset({Facet.COUNT})).why
'a factor of 2'
>>> earned(rows, sp.Integer(3), sp.Rational(1, 100), frozenset()) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, IntEnum

import sympy as sp

from derive.catalogue import Computation, find
from derive.checking.diagnosis_text import exact_decimal
from derive.checking.matching import match
from derive.checking.quantities import Target
from derive.formula.units import Dimension, parse_unit


class Rank(IntEnum):
    """How specific a slip is: of several that reproduce a claim, the highest is named."""

    RESTATED = 0  # the claim's own terms said back (``your bytes count 2BD``): no cause named
    GENERIC = 1  # a bare factor: 2× the expected, a power of ten slipped
    ROUNDING = 2  # hardware numbers rounded to 1–3 significant digits
    UNITS = 3  # a unit slip: GiB for GB, a unit left off, bits for bytes, a % sign left off
    VARIANT = 4  # one input of the computation changed: another peak, dtype or bandwidth, MACs
    NAMED = 5  # a slip named for this quantity: K and V, the embedding, ZeRO, the ridge, …


class Facet(Enum):
    """What a quantity is, as a slip's premise needs it (read from its catalogue row)."""

    BYTES = "a size in bytes"
    MOVES_BYTES = "computed from bytes moved"
    FLOPS = "a FLOP count"
    COUNTS_FLOPS = "computed from FLOPs"
    TIME = "a time"
    COUNT = "a count"
    RATE = "a rate"
    KV = "the K/V cache"


ANY: frozenset[Facet] | None = None
"""A premise that fits every quantity (a bare factor, a power of ten)."""

_FROM_BYTES = frozenset(
    {
        Computation.BYTES,
        Computation.INTENSITY,
        Computation.TRANSFER_TIME,
        Computation.CROSSOVER,
    }
)
_FROM_FLOPS = frozenset(
    {
        Computation.FLOPS,
        Computation.INTENSITY,
        Computation.COMPUTE_TIME,
        Computation.CROSSOVER,
        Computation.UTILISATION,
    }
)
_BY_DIMENSION: dict[Dimension, frozenset[Facet]] = {
    Dimension.BYTES: frozenset({Facet.BYTES, Facet.MOVES_BYTES}),
    Dimension.FLOPS: frozenset({Facet.FLOPS, Facet.COUNTS_FLOPS}),
    Dimension.TIME: frozenset({Facet.TIME}),
    Dimension.INTENSITY: frozenset({Facet.MOVES_BYTES, Facet.COUNTS_FLOPS}),
    Dimension.FLOP_RATE: frozenset({Facet.RATE, Facet.COUNTS_FLOPS}),
    Dimension.BYTE_RATE: frozenset({Facet.RATE, Facet.MOVES_BYTES}),
    Dimension.TOKEN_RATE: frozenset({Facet.RATE}),
    Dimension.COUNT: frozenset({Facet.COUNT}),
}


def facets(quantity: str) -> frozenset[Facet]:
    """What ``quantity`` is, from its catalogue row (empty for a name the catalogue lacks).

    >>> sorted(f.name for f in facets("params"))
    ['COUNT']
    >>> sorted(f.name for f in facets("kv_bytes_per_token"))
    ['BYTES', 'KV', 'MOVES_BYTES']
    """
    row = find(quantity)
    if row is None:
        return frozenset()
    out = set(_BY_DIMENSION.get(row.dimension, ())) if row.dimension is not None else set()
    if row.computation in _FROM_BYTES:
        out.add(Facet.MOVES_BYTES)
    if row.computation in _FROM_FLOPS:
        out.add(Facet.COUNTS_FLOPS)
    if quantity.startswith("kv_"):
        out.add(Facet.KV)
    return frozenset(out)


@dataclass(frozen=True)
class Slip:
    """One row of a slip table: a candidate diagnosis.

    Attributes:
        value: the quantity computed the slip's way (None: the slip cannot happen here).
        why: the sentence that names it.
        rank: how specific it is.
        fits: the facets of the quantities its premise fits (None: any quantity).
        threshold: for a crossover computed the slip's way, its smallest compute-bound
            integer (an integer claim equal to it reproduces the slip too).
    """

    value: sp.Expr | None
    why: str
    rank: Rank = Rank.NAMED
    fits: frozenset[Facet] | None = ANY
    threshold: int | None = None


def reproduces(slip: Slip, claim: sp.Expr, rtol: sp.Rational) -> sp.Rational | None:
    """How far the slip's value is from the claim (relative), or None when it does not reproduce it."""
    value = slip.value
    if value is None or not isinstance(value, sp.Expr) or value == 0:
        return None
    m = match(claim, Target(value, threshold=slip.threshold), rtol)
    if m is None:
        return None
    return m.relative_error if m.relative_error is not None else sp.Integer(0)


def _fits(slip: Slip, quantity: frozenset[Facet]) -> bool:
    return slip.fits is None or bool(slip.fits & quantity)


def earned(
    slips: Iterable[Slip | tuple[sp.Expr | None, str]],
    claim: sp.Expr,
    rtol: sp.Rational,
    quantity: frozenset[Facet],
) -> Slip | None:
    """The one slip to name: earned (fits, reproduces) and the most specific, or None.

    A row may be a plain ``(value, why)`` pair: a named slip of the quantity that fits it.
    """
    best: tuple[int, sp.Rational, int] | None = None
    found: Slip | None = None
    for order, row in enumerate(slips):
        slip = row if isinstance(row, Slip) else Slip(*row)
        if not _fits(slip, quantity):
            continue
        near = reproduces(slip, claim, rtol)
        if near is None:
            continue
        key = (-int(slip.rank), near, order)
        if best is None or key < best:
            best, found = key, slip
    return found


_POWERS = tuple(k for k in range(-15, 16) if k)


def factor_slips(what: str, exact: sp.Expr, plural: bool = False) -> list[Slip]:
    """The bare factors a number can be off by: a power of ten, bits for bytes, a factor of 2.

    The least specific rows of every table (a factor names no cause of its own); bits for
    bytes fits only a quantity computed from bytes.
    """
    is_ = "are" if plural else "is"
    out = [
        Slip(
            exact * sp.Integer(10) ** k,
            f"your {what} {is_} off by a factor of 10^{k}: a power of ten slipped "
            "(check exponents and units)",
            Rank.GENERIC,
        )
        for k in _POWERS
    ]
    out += [
        Slip(
            exact * f,
            f"your {what} {is_} off by a factor of {f}: bits and bytes confused (8 bits per byte)",
            Rank.UNITS,
            frozenset({Facet.MOVES_BYTES}),
        )
        for f in (sp.Integer(8), sp.Rational(1, 8))
    ]
    out += [
        Slip(
            exact * f, f"your {what} {is_} {f}× the expected (off by a factor of {f})", Rank.GENERIC
        )
        for f in (sp.Integer(2), sp.Rational(1, 2))
    ]
    return out


# Units with a hint: a bare number for a quantity with a unit, and the unit that would make it right.
#
# ``8.77`` for a time of 8.771 ms is off by a factor of a thousand as seconds; the slip is
# the missing unit, so the verdict says so: ``a time needs a unit — as 8.77 ms it would be right``.
# The hint is given only when it is true (the number in that unit is within the tolerance);
# the units tried are parsed by :func:`derive.formula.units.parse_unit`, as a claim's are.
_TRIED: dict[Dimension, tuple[str, str]] = {
    Dimension.TIME: ("a time", "ms µs ns min h days"),
    Dimension.BYTES: ("a size in bytes", "kB MB GB TB KiB MiB GiB TiB"),
}


def bare_number_slips(number: sp.Expr, target: sp.Expr, dimension: Dimension | None) -> list[Slip]:
    """The unit slips of a bare number: for each unit tried, the number that would be right in it.

    Rows of a slip table (:mod:`derive.checking.hints`): ``number`` read bare is right in a
    unit when it is the row's value, ``target`` in that unit.
    """
    if dimension not in _TRIED or not (number.is_Rational and target.is_Rational) or target == 0:
        return []
    what, spellings = _TRIED[dimension]
    rows = []
    for spelled in spellings.split():
        unit = parse_unit(spelled)
        if unit is not None and unit.dimension is dimension:
            rows.append(
                Slip(
                    target / unit.factor,
                    f"{what} needs a unit — as {exact_decimal(number)} {spelled} it would be right",
                    Rank.UNITS,
                )
            )
    return rows
