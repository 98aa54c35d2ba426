"""Units with a hint: a bare number for a quantity with a unit, and the unit that would make it right.

``8.77`` for a time of 8.771 ms is off by a factor of a thousand as seconds; the slip is
the missing unit, so the verdict says so: ``a time needs a unit — as 8.77 ms it would be right``.
The hint is given only when it is true (the number in that unit is within the tolerance);
the units tried are parsed by :func:`derive.formula.units.parse_unit`, as a claim's are.
"""

from __future__ import annotations

import sympy as sp

from derive.checking.diagnosis_text import exact_decimal
from derive.checking.hints import Rank, Slip
from derive.formula.units import Dimension, parse_unit

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
