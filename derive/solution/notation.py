"""Printing exact expressions: one LaTeX printer with fixed settings, used by both
Markdown (inside ``$…$``) and LaTeX output, and sympy ``str`` for JSON.

Sums of per-tensor byte terms are printed in declaration order (X, Y, Z:
``2BD + DF + 2BF``), not in sympy's sorted order.
"""

from __future__ import annotations

import re
from functools import lru_cache

import sympy as sp
from sympy.printing.latex import LatexPrinter

from derive.formula.decimals import fmt_decimal

_E_NOTATION = re.compile(r"^([+-]?[\d.]+)e([+-]?\d+)$")


def _int_tex(n: int) -> str:
    """An integer, large round ones as ``a \\times 10^{k}`` (``3 \\times 10^{6}``, ``10^{6}``)."""
    digits = str(abs(n))
    zeros = len(digits) - len(digits.rstrip("0"))
    if len(digits) >= 7 and zeros >= 5:
        mant = digits.rstrip("0")
        k = len(digits) - 1
        m = mant[0] + ("." + mant[1:] if len(mant) > 1 else "")
        return ("-" if n < 0 else "") + (f"{m} \\times 10^{{{k}}}" if m != "1" else f"10^{{{k}}}")
    return str(n)


REMEMBERED = 1 << 16
"""Parts one printer remembers at most (a key of set20 fills 14 printers with 509 parts)."""


class _Printer(LatexPrinter):
    """sympy's LaTeX printer, with large round integers as ``a \\times 10^{k}``, that
    remembers what it printed: a key prints the same products, powers and symbols inside
    many expressions (``2 B D F``, ``w_{X}``), and sympy prints each part again each time.
    A part printed with extra arguments (an exponent, a style) is not remembered, and the
    memory is emptied when it holds :data:`REMEMBERED` parts (the printers live as long as
    the process: a class server prints every claim it reads)."""

    def __init__(self, settings: dict) -> None:
        super().__init__(settings)
        self._printed: dict[sp.Basic, str] = {}

    def _print(self, expr: object, **kwargs: object) -> str:
        if kwargs or not isinstance(expr, sp.Basic):
            return super()._print(expr, **kwargs)
        printed = self._printed.get(expr)
        if printed is None:
            if len(self._printed) >= REMEMBERED:
                self._printed.clear()
            printed = self._printed[expr] = super()._print(expr)
        return printed

    def _print_Integer(self, expr: sp.Integer) -> str:
        return _int_tex(int(expr))


_SETTINGS = {"mul_symbol": None, "fold_short_frac": False, "long_frac_ratio": None}


def tex(expr: sp.Basic, symbol_names: dict | None = None, mul_symbol: str | None = None) -> str:
    """LaTeX for an expression with derive's fixed settings.

    >>> tex(sp.Rational(9850, 41))
    '\\\\frac{9850}{41}'
    """
    if not symbol_names:  # the common case (~1,600 calls a key): no key to build
        return _tex(expr, (), mul_symbol)
    return _tex(expr, tuple(sorted(symbol_names.items(), key=lambda kv: kv[0].name)), mul_symbol)


@lru_cache(maxsize=64)
def _printer(symbol_names: tuple, mul_symbol: str | None) -> _Printer:
    """One printer per setting (building a printer costs about a fifth of printing)."""
    return _Printer(dict(_SETTINGS, symbol_names=dict(symbol_names), mul_symbol=mul_symbol))


@lru_cache(maxsize=16384)
def _tex(expr: sp.Basic, symbol_names: tuple, mul_symbol: str | None) -> str:
    """sympy's printer with one setting (a key prints the same expression many times)."""
    return _printer(symbol_names, mul_symbol).doprint(expr)


def tex_sum(terms: tuple[sp.Expr, ...] | list[sp.Expr]) -> str:
    """A sum printed in the given order."""
    parts = [tex(t) for t in terms]
    out = parts[0] if parts else "0"
    for p in parts[1:]:
        out += f" - {p[1:].lstrip()}" if p.startswith("-") else f" + {p}"
    return out


def str_sum(terms: tuple[sp.Expr, ...] | list[sp.Expr]) -> str:
    """A sum in sympy ``str`` syntax, in the given order (re-parses to the same value)."""
    return " + ".join(str(t) for t in terms) if terms else "0"


def tex_sub(expr: sp.Expr, values: dict[sp.Symbol, sp.Expr]) -> str:
    """The expression with numbers written in place of symbols, not evaluated.

    >>> B, D = sp.symbols("B D")
    >>> tex_sub(2*B*D, {D: sp.Integer(4096)})
    '2 \\\\cdot B \\\\cdot 4096'
    """
    names = {
        s: tex(v) if v.is_Integer and v >= 0 else f"\\left({tex(v)}\\right)"
        for s, v in values.items()
    }
    return tex(expr, symbol_names=names, mul_symbol="dot")


def tex_text_number(text: str) -> str:
    """A decimal as written (``1.97e14``) in LaTeX (``1.97 \\times 10^{14}``)."""
    match = _E_NOTATION.match(text.strip())
    if not match:
        return text.strip()
    mant, exp = match.group(1), int(match.group(2))
    return f"{mant} \\times 10^{{{exp}}}" if mant not in ("1", "1.0") else f"10^{{{exp}}}"


def tex_decimal(value: sp.Expr, digits: int = 5) -> str:
    """A rounded decimal (for display only) in LaTeX."""
    return tex_text_number(fmt_decimal(value, digits))
