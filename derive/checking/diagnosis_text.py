"""Small printing helpers for diagnoses: compact expressions, exact decimals, tensor labels."""

from __future__ import annotations

import re

import sympy as sp

from derive.catalogue import table as q
from derive.declare.operator import Tensor
from derive.formula.decimals import fmt_decimal

_SINGLE = re.compile(r"^[A-Za-z]$")


def compact(expr: sp.Expr) -> str:
    """An expression as people write it: ``2BD`` for ``2*B*D`` when every name is one letter."""
    text = str(expr)
    if all(_SINGLE.match(s.name) for s in expr.free_symbols):
        text = re.sub(r"(?<=[0-9A-Za-z)])\*(?=[A-Za-z(])", "", text)
    return text


def exact_decimal(value: sp.Expr) -> str:
    """An exact rational as a terminating decimal when it is one (``17/32`` -> ``0.53125``), else ``p/q``."""
    if not value.is_Rational:
        return str(value)
    if value.is_Integer:
        return str(int(value))
    q = int(value.q)
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return str(value)
    digits = max(twos, fives)
    scaled = int(value * 10**digits)
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10**digits)
    return f"{sign}{whole}.{str(frac).rjust(digits, '0').rstrip('0')}"


def sci(value: sp.Expr) -> str:
    """A hardware number as people write it: ``3.94e14`` for 394000000000000 (exact digits kept)."""
    if not value.is_Integer or abs(int(value)) < 10**6:
        return exact_decimal(value)
    digits = str(abs(int(value)))
    mant = digits.rstrip("0")
    text = mant[0] + ("." + mant[1:] if len(mant) > 1 else "") + f"e{len(digits) - 1}"
    return ("-" if value < 0 else "") + text


def plural(what: str) -> bool:
    """True for quantity names that take a plural verb (``FLOPs``, ``bytes``)."""
    return what.endswith((q.FLOPS.prose, q.BYTES.prose))


def approx(value: sp.Expr) -> str:
    """A number for prose: exact if short, else ``p/q ≈ 120.12``."""
    if value.is_Integer or not value.is_Rational:
        return str(value)
    text = exact_decimal(value)
    if "/" not in text and len(text) <= 12:
        return text
    return f"{value} ≈ {fmt_decimal(value)}"


def tensor_label(t: Tensor) -> str:
    """``Y[D,F]``, or the bare name for a scalar."""
    return f"{t.name}[{','.join(compact(s) for s in t.shape)}]" if t.shape else t.name


def per_element(width: sp.Expr) -> str:
    """``1 byte per element``, ``2 bytes per element``, ``0.5 bytes per element``."""
    return f"{exact_decimal(width)} byte{'' if width == 1 else 's'} per element"


_BIG = 10**6


def formula_text(value: sp.Expr) -> str:
    """A formula as people write it: ``BDF / 9.85e13`` when its coefficient is a hardware number.

    >>> B, D = sp.symbols("B D", positive=True)
    >>> formula_text(B * D / 98500000000000)
    'BD / 9.85e13'
    """
    coeff, rest = value.as_coeff_Mul()
    if coeff.is_Rational and coeff > 0 and rest.free_symbols:
        if coeff.p == 1 and coeff.q >= _BIG:
            return f"{compact(rest)} / {sci(sp.Integer(coeff.q))}"
        if coeff.q == 1 and coeff.p >= _BIG:
            return f"{sci(sp.Integer(coeff.p))} {compact(rest)}"
        if coeff.q >= _BIG and coeff.p < _BIG:
            return f"{coeff.p}{compact(rest)} / {sci(sp.Integer(coeff.q))}"
    return compact(value)
