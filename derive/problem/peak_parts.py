"""A peak from the microarchitecture: units × FLOPs per unit per clock × clock, exactly.

``--peak-from "units=132,flops_per_clock=1024,clock=1.83e9"`` (an H100 SXM's 132 SMs, 1024
dense bf16 FLOPs per SM per clock, 1.83 GHz boost) reads each part from its decimal text
(``clock`` may carry Hz, MHz or GHz) and multiplies: the peak is exact.

>>> parts = read_peak_parts("units=132,flops_per_clock=1024,clock=1.83e9")
>>> parts.peak
247357440000000
>>> read_peak_parts("units=132,flops_per_clock=1024,clock=1830 MHz").peak
247357440000000
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.errors import ProblemError
from derive.formula.decimals import fmt_ending_decimal, parse_positive

PARTS = ("units", "flops_per_clock", "clock")
"""The parts, in the order of the product."""
_HERTZ = {"hz": 1, "khz": 10**3, "mhz": 10**6, "ghz": 10**9}
_CLOCK = re.compile(r"\s*([^\s]+?)\s*([kKmMgG]?[hH][zZ])?\s*")


@dataclass(frozen=True)
class PeakParts:
    """The parts as read (exact) and their product.

    Attributes:
        units: compute units (SMs, cores); ``flops_per_clock``: FLOPs per unit per clock;
        clock: clock in Hz; ``peak``: their product, FLOP/s; ``text``: the flag as typed.
    """

    units: sp.Rational
    flops_per_clock: sp.Rational
    clock: sp.Rational
    peak: sp.Rational
    text: str

    @property
    def peak_text(self) -> str:
        """The peak as exact decimal text (what ``--peak`` would be given)."""
        return fmt_ending_decimal(self.peak) or str(self.peak)


def read_parts(text: str, flag: str = "--peak-from") -> dict[str, sp.Rational]:
    """The parts given in ``units=…,flops_per_clock=…[,clock=…]``, each exact (some may be
    missing: :func:`read_peak_parts` asks for all three).

    Raises:
        ProblemError: a part unknown or twice, or a value not positive (naming ``flag``).
    """
    where = f"{flag} {text!r}"
    values: dict[str, sp.Rational] = {}
    for item in (part.strip() for part in str(text)[:400].split(",") if part.strip()):
        name, sign, value = (piece.strip() for piece in item.partition("="))
        if not sign or name not in PARTS:
            raise ProblemError(where, f"{item!r}: write {'=…, '.join(PARTS)}=… (e.g. clock=1.83e9)")
        if name in values:
            raise ProblemError(where, f"{name} is given twice")
        scale = 1
        if name == "clock":
            found = _CLOCK.fullmatch(value)
            if found is not None and found.group(2):
                value, scale = found.group(1), _HERTZ[found.group(2).lower()]
        values[name] = parse_positive(value, f"{where}: {name}") * scale
    return values


def read_peak_parts(text: str, flag: str = "--peak-from") -> PeakParts:
    """The three parts of ``units=…,flops_per_clock=…,clock=…`` and their product.

    Raises:
        ProblemError: a part missing, unknown or twice, or a value not positive (naming ``flag``).
    """
    values = read_parts(text, flag)
    missing = [name for name in PARTS if name not in values]
    if missing:
        raise ProblemError(
            f"{flag} {text!r}", f"give {', '.join(missing)} too (units × flops_per_clock × clock)"
        )
    units, per_clock, clock = (values[name] for name in PARTS)
    return PeakParts(units, per_clock, clock, units * per_clock * clock, str(text).strip())
