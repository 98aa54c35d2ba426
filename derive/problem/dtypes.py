"""Dtypes: exact byte widths, and which compute peak each one uses.

Block formats carry their scale in the width: mxfp4 is 4-bit values plus an
8-bit scale per 32 elements, (32·4 + 8)/(32·8) = 17/32 bytes per element.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.errors import UnknownNameError, did_you_mean


@dataclass(frozen=True)
class Dtype:
    """A number format: its name, exact bytes per element, and the peak it computes at."""

    name: str
    width: sp.Rational
    compute_as: str
    note: str = ""


_TABLE: tuple[tuple[str, sp.Rational, str, str], ...] = (
    ("fp64", sp.Integer(8), "fp64", ""),
    ("fp32", sp.Integer(4), "fp32", ""),
    ("tf32", sp.Integer(4), "tf32", "stored as fp32, multiplied with a 10-bit mantissa"),
    ("bf16", sp.Integer(2), "bf16", ""),
    ("fp16", sp.Integer(2), "fp16", ""),
    ("fp8", sp.Integer(1), "fp8", ""),
    ("fp8_e4m3", sp.Integer(1), "fp8", "alias of fp8"),
    ("fp8_e5m2", sp.Integer(1), "fp8", "alias of fp8"),
    ("int8", sp.Integer(1), "int8", ""),
    ("fp4", sp.Rational(1, 2), "fp4", ""),
    ("int4", sp.Rational(1, 2), "int4", ""),
    ("mxfp4", sp.Rational(17, 32), "fp4", "4-bit values plus an 8-bit scale per 32"),
    ("nvfp4", sp.Rational(9, 16), "fp4", "4-bit values plus an 8-bit scale per 16"),
    ("mxfp8", sp.Rational(33, 32), "fp8", "8-bit values plus an 8-bit scale per 32"),
)

DTYPES: dict[str, Dtype] = {name: Dtype(name, w, c, n) for name, w, c, n in _TABLE}


def get_dtype(name: str) -> Dtype:
    """Look a dtype up by name (case-insensitive)."""
    dt = DTYPES.get(name.strip().lower()) if isinstance(name, str) else None
    if dt is None:
        raise UnknownNameError(
            f"dtype {name!r}",
            f"unknown dtype; known: {', '.join(DTYPES)}" + did_you_mean(name, DTYPES),
        )
    return dt
