"""Fast LaTeX for polynomials and ratios of polynomials, byte-identical to sympy's printer.

:class:`PolyTex` prints Integer, Rational, Symbol, ``Symbol**n`` and Add/Mul built from
them, including a Mul with at most one Add over and one Add under the fraction bar
(the sides ``fraction(expr, exact=True)`` splits), exactly as the given
:class:`LatexPrinter` would; for anything else, or under a sympy other than 1.14, it
returns ``None`` and the caller prints with sympy. It mirrors sympy 1.14's
``_print_Add``, ``_print_Mul`` (``convert_args``, the number-next-to-number
separator), ``_print_Pow``, ``_print_Rational``, ``Expr.as_ordered_terms`` (lex order
over generators sorted by name, the constant last, ``c - a*x`` kept in that order)
and ``Mul.as_ordered_factors`` (the number, then symbols by name, then the Add).
"""

from __future__ import annotations

from typing import Callable, Union

import sympy
from sympy.core.add import Add
from sympy.core.mul import Mul
from sympy.core.numbers import Half, Integer, NegativeOne, One, Rational, Zero
from sympy.core.power import Pow
from sympy.core.symbol import Symbol
from sympy.printing.latex import LatexPrinter, _between_two_numbers_p

__all__ = ["PolyTex"]

_INTEGERS = frozenset({Integer, One, NegativeOne, Zero})
_NUMBERS = _INTEGERS | {Rational, Half}
_ENDS_NUMBER, _STARTS_NUMBER = _between_two_numbers_p

Mono = tuple[int, int, tuple[tuple[Symbol, int], ...]]
"""A monomial ``p/q * s1**e1 * ...``: p != 0, q > 0, symbols by name, each e >= 1."""
Poly = tuple[Mono, ...]
"""An Add of distinct monomials, in its args' order."""
Factor = tuple[Union[Symbol, Poly], int]
"""A factor of a product: a symbol to a nonzero power, or a Poly to the power 1 or -1."""
Item = tuple[int, str, str, bool]
"""A factor ready for ``convert_args``: (rank, name, LaTeX, needs brackets)."""

_MIRRORED = {"fold_short_frac": False, "long_frac_ratio": None, "parenthesize_super": True,
             "order": None, "mode": "plain"}
"""The settings the code below reproduces; with any other value nothing is printed fast.

``symbol_names`` and ``mul_symbol`` may be anything: symbols are printed by the printer
itself and the two separators are read from its settings."""

_SYMPY = "1.14"
"""The sympy release whose printer the code below reproduces."""


class _Outside(Exception):
    """The expression is not one this module prints."""


class PolyTex:
    """Fast printing for one printer; symbols are printed by the printer itself, once each."""

    def __init__(self, printer: LatexPrinter, int_tex: Callable[[int], str]) -> None:
        """``int_tex`` must be what ``printer`` prints for an Integer with that value."""
        s = printer._settings
        self._enabled = (".".join(sympy.__version__.split(".")[:2]) == _SYMPY
                         and all(s.get(k) == v and type(s.get(k)) is type(v) for k, v in _MIRRORED.items()))
        self._printer = printer
        self._int = int_tex
        self._sep: str = s["mul_symbol_latex"]
        self._numsep: str = s["mul_symbol_latex_numbers"]
        self._symbols: dict[Symbol, str] = {}

    def __call__(self, expr: object) -> str | None:
        """The printer's LaTeX for ``expr``, or ``None`` when ``expr`` is outside the class."""
        if not self._enabled:
            return None
        try:
            return self._top(expr, {})
        except _Outside:
            return None

    # --- reading: check the structure, raise _Outside on anything else -----------------------

    def _top(self, x: object, names: dict[str, Symbol]) -> str:
        t = type(x)
        if t in _NUMBERS:
            return self._number(*_ratio(x))
        if t is Symbol:
            return self._sym(self._symbol(x, names))
        if t is Add:
            return self._add(self._poly(x, names))
        if t is Pow:
            base, e = x.args
            if type(base) is Add and type(e) in _INTEGERS and e.p == -1:
                return self._mul(1, 1, [(self._poly(base, names), -1)])
            s, n = self._power(x, names)
            return self._pow(s, n) if n > 0 else self._mul(1, 1, [(s, n)])
        if t is Mul:
            return self._mul(*self._product(x.args, names))
        raise _Outside

    def _symbol(self, s: Symbol, names: dict[str, Symbol]) -> Symbol:
        """A plain commutative Symbol, the only one of its name in the expression."""
        if not s.is_commutative or names.setdefault(s.name, s) != s:
            raise _Outside
        return s

    def _power(self, x: object, names: dict[str, Symbol]) -> tuple[Symbol, int]:
        """``Symbol`` (power 1) or ``Symbol**n`` with an integer n other than 0 and 1."""
        t = type(x)
        if t is Symbol:
            return self._symbol(x, names), 1
        if t is Pow:
            base, e = x.args
            if type(base) is Symbol and type(e) in _INTEGERS and e.p not in (0, 1):
                return self._symbol(base, names), e.p
        raise _Outside

    def _mono(self, x: object, names: dict[str, Symbol]) -> Mono:
        """A term of an Add: a nonzero number, or a number times positive symbol powers."""
        t = type(x)
        if t in _NUMBERS:
            p, q = _ratio(x)
            if p == 0:
                raise _Outside
            return p, q, ()
        args = x.args if t is Mul else (x,)
        p = q = 1
        if t is Mul and type(args[0]) in _NUMBERS:
            p, q = _coefficient(args[0])
            args = args[1:]
        factors = sorted((self._power(a, names) for a in args), key=lambda f: f[0].name)
        if not factors or any(e < 1 for _, e in factors) or _repeated(factors):
            raise _Outside
        return p, q, tuple(factors)

    def _poly(self, x: Add, names: dict[str, Symbol]) -> Poly:
        terms = tuple(self._mono(a, names) for a in x.args)
        if len(terms) < 2 or len({m[2] for m in terms}) != len(terms):
            raise _Outside
        return terms

    def _product(self, args: tuple, names: dict[str, Symbol]) -> tuple[int, int, list[Factor]]:
        """A Mul: a leading number (not 1), symbol powers, Adds to the power 1 or -1."""
        p = q = 1
        if type(args[0]) in _NUMBERS:
            p, q = _coefficient(args[0])
            args = args[1:]
        factors: list[Factor] = []
        for a in args:
            if type(a) is Add:
                factors.append((self._poly(a, names), 1))
            elif type(a) is Pow and type(a.args[0]) is Add:
                base, e = a.args
                if not (type(e) in _INTEGERS and e.p == -1):
                    raise _Outside
                factors.append((self._poly(base, names), -1))
            else:
                factors.append(self._power(a, names))
        symbols = sorted((f for f in factors if type(f[0]) is Symbol), key=lambda f: f[0].name)
        adds = [e for b, e in factors if type(b) is not Symbol]
        if (not factors or _repeated(symbols) or adds.count(1) > 1 or adds.count(-1) > 1
                or (len(factors) == 1 and adds == [1])):  # number*(Add): never left by sympy's Mul
            raise _Outside
        return p, q, factors

    # --- writing: sympy's printing methods, step by step ----------------------------------------

    def _number(self, p: int, q: int) -> str:
        """``_print_Integer`` / ``_print_Rational`` (the latter with plain ``%d``)."""
        if q == 1:
            return self._int(p)
        return ("- " if p < 0 else "") + r"\frac{%d}{%d}" % (abs(p), q)

    def _sym(self, s: Symbol) -> str:
        tex = self._symbols.get(s)
        if tex is None:
            tex = self._symbols[s] = self._printer._print(s)
        return tex

    def _pow(self, s: Symbol, n: int) -> str:
        """``_helper_print_standard_power`` for a symbol base and a positive integer power."""
        base = self._sym(s)
        if "^" in base:
            base = r"\left(%s\right)" % base
        return "%s^{%s}" % (base, self._int(n))

    def _factor(self, s: Symbol, n: int) -> str:
        return self._sym(s) if n == 1 else self._pow(s, n)

    def _add(self, poly: Poly) -> str:
        """``_print_Add``: ordered terms, later negative ones written as `` - `` and their negation."""
        terms = _ordered(poly)
        out = self._term(*terms[0])
        for p, q, f in terms[1:]:
            out += " - " + self._term(-p, q, f) if p < 0 else " + " + self._term(p, q, f)
        return out

    def _term(self, p: int, q: int, factors: tuple[tuple[Symbol, int], ...]) -> str:
        if not factors:
            return self._number(p, q)
        if p == q == 1 and len(factors) == 1:
            return self._factor(*factors[0])
        return self._mul(p, q, list(factors))

    def _mul(self, p: int, q: int, factors: list[Factor]) -> str:
        """``_print_Mul``: the sign, then ``fraction(exact=True)`` and ``convert`` of each side."""
        sign = ""
        if p < 0:
            sign, p = "- ", -p
        numer: list[Item] = [(0, "", self._int(p), False)] if p != 1 else []
        denom: list[Item] = [(0, "", self._int(q), False)] if q != 1 else []
        for base, e in factors:
            side = numer if e > 0 else denom
            if type(base) is Symbol:
                side.append((1, base.name, self._factor(base, abs(e)), False))
            else:
                side.append((2, "", self._add(base), True))
        if not denom:
            return sign + self._convert(numer)
        return sign + r"\frac{%s}{%s}" % (self._convert(numer), self._convert(denom))

    def _convert(self, items: list[Item]) -> str:
        """``convert`` of ``Mul(*items, evaluate=False)``: 1, one item alone, or ``convert_args``."""
        if not items:
            return self._int(1)
        if len(items) == 1:
            return items[0][2]
        items.sort(key=lambda it: (it[0], it[1]))
        out = last = ""
        for _, _, tex, brackets in items:
            if brackets:
                tex = r"\left(%s\right)" % tex
            if _ENDS_NUMBER.search(last) and _STARTS_NUMBER.match(tex):
                out += self._numsep
            elif out:
                out += self._sep
            out += tex
            last = tex
        return out


def _ratio(x: Rational) -> tuple[int, int]:
    """(p, q) of a number; a non-Integer with q == 1 (sympy never makes one) is refused."""
    if x.q == 1 and type(x) not in _INTEGERS:
        raise _Outside
    return x.p, x.q


def _coefficient(x: Rational) -> tuple[int, int]:
    """(p, q) of a Mul's leading number, which is neither 0 nor 1."""
    p, q = _ratio(x)
    if p == 0 or p == q == 1:
        raise _Outside
    return p, q


def _repeated(factors: list[tuple[Symbol, int]]) -> bool:
    """Whether two of the name-sorted factors share a symbol."""
    return any(a[0].name == b[0].name for a, b in zip(factors, factors[1:]))


def _ordered(poly: Poly) -> list[Mono]:
    """``Expr.as_ordered_terms()`` for an Add of monomials."""
    if len(poly) == 2:
        const, other = poly if not poly[0][2] else poly[::-1]
        if not const[2] and const[0] > 0 and len(other[2]) == 1 and other[0] < 0:
            return [const, other]  # sympy's special case: 3 - 2*B stays in that order
    gens = sorted({s.name for _, _, f in poly for s, _ in f})
    index = {g: i for i, g in enumerate(gens)}

    def key(m: Mono) -> tuple[int, ...]:
        v = [0] * len(gens)
        for s, e in m[2]:
            v[index[s.name]] = -e
        return tuple(v)

    return sorted(poly, key=key)
