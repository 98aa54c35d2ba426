"""From syntax tree to sympy: resolve names, bound sizes, then build.

Two passes. :meth:`Evaluator.bound` walks the tree and carries, for every
node, an upper bound on log10 of the numerator and of the denominator any
numeric part can reach, and on the total degree in the symbols; a node past
:data:`MAX_LOG10` or :data:`MAX_DEGREE` is refused *before* its operation is
carried out. Because the bounds compose through every operation, towers such
as ``(((9**64)**64)**64)**64`` are refused however they are nested.

Constant subtrees are folded exactly on the way (each step only after its
bound passed), so their bounds are exact heights rather than estimates: a sum
of many decimals is not refused, and an exponent's value is known when its
power is bounded. Only then does :meth:`Evaluator.build` make sympy objects,
with exact literals, ``sp.Add``, ``sp.Mul``, ``sp.Pow`` and the caller's symbols.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from derive.formula.limits import MAX_DEGREE, MAX_EXPONENT, MAX_LOG10, MAX_ROOT, RejectError, at
from derive.formula.parser import Name, Node, Num, Power, Product, Sum

Symbols = Mapping[str, sp.Symbol]
_GIVEN_NAMES = ("pi", "beta", "FLOPs", "FLOP", "flops", "bytes", "Bytes")
"""Names a checker may add to the dims (the problem's peak, bandwidth, FLOPs and bytes)."""


@dataclass(frozen=True)
class Bound:
    """Upper bounds for one node.

    Attributes:
        num: log10 of the largest numerator a numeric part can have.
        den: log10 of the largest denominator.
        degree: total degree in the symbols (a divisor's degree counts too).
        value: the exact value of a constant subtree, when it is rational.
    """

    num: float
    den: float
    degree: float
    value: sp.Rational | None = None


def _known(symbols: Symbols) -> str:
    """The known names, sorted, for messages."""
    if not symbols:
        return "no symbols are known here"
    dims = [n for n in sorted(symbols) if n not in _GIVEN_NAMES]
    given = [n for n in _GIVEN_NAMES if n in symbols]
    text = "the problem's dims are " + ", ".join(dims) if dims else "the problem has no dims"
    if "pi" in given:
        text += "; \\pi and \\beta are the peak and the bandwidth"
    return text


def resolve(name: Name, symbols: Symbols) -> tuple[sp.Symbol, ...]:
    """The symbols a typed name stands for.

    A name that is a key of ``symbols`` is that symbol. Otherwise a run of
    letters is a product of single-letter symbols (``BDF`` -> B, D, F); a name
    with a subscript may carry single-letter factors in front (``Bd_model`` ->
    B, d_model). Multi-letter names are never guessed.

    Raises:
        RejectError: ``unknown symbol 'Q' ...`` listing the known names.
    """
    if name.text in symbols:
        return (symbols[name.text],)
    head, sep, tail = name.text.partition("_")
    if not name.exact and head.isalpha():
        for split in range(len(head) if sep else len(head) + 1):
            rest = head[split:] + sep + tail
            letters = head[:split]
            if all(c in symbols for c in letters) and (not rest or rest in symbols):
                return tuple(symbols[c] for c in letters) + ((symbols[rest],) if rest else ())
    raise RejectError(
        f"unknown symbol {_unknown_part(name, symbols)} {at(name.pos)} ({_known(symbols)})"
    )


def _unknown_part(name: Name, symbols: Symbols) -> str:
    """Name the offending part: ``'Q' in 'BDQ'`` when the other letters are known."""
    text = name.text
    if name.exact or not text.isalpha() or not any(c in symbols for c in text):
        return f"'{text}'"
    missing = "".join(dict.fromkeys(c for c in text if c not in symbols))
    return f"'{missing}' in '{text}'" if len(text) > 1 else f"'{text}'"


def _log10(q: sp.Rational) -> tuple[float, float]:
    """log10 of |numerator| and denominator of an exact number (0 for 0)."""
    p, d = abs(int(q.p)), int(q.q)
    return (math.log10(p) if p else 0.0), math.log10(d)


def _exact(value: sp.Rational) -> Bound:
    """The bound of a known constant: its own height."""
    num, den = _log10(value)
    return Bound(num, den, 0.0, value)


def _logadd(a: float, b: float) -> float:
    """log10(10**a + 10**b) without overflow."""
    hi, lo = max(a, b), min(a, b)
    return hi + math.log10(1 + 10 ** (lo - hi)) if hi - lo < 20 else hi


def _check(b: Bound, pos: int) -> Bound:
    """Refuse a bound past the limits."""
    if max(b.num, b.den) > MAX_LOG10:
        raise RejectError(
            f"number too large {at(pos)}: could reach 10^{max(b.num, b.den):.0f} "
            f"(at most 10^{MAX_LOG10:.0f})",
            limit=True,
        )
    if b.degree > MAX_DEGREE:
        raise RejectError(
            f"degree too high {at(pos)}: could reach {b.degree:.0f} (at most {MAX_DEGREE})",
            limit=True,
        )
    return b


def _short(value: sp.Rational) -> str:
    """A number for a message: in full if short, else its order of magnitude."""
    text = str(value)
    if len(text) <= 24:
        return text
    num, den = _log10(value)
    return f"of about 10^{num - den:.0f}"


def _has_sum(node: Node) -> bool:
    """True if the tree adds or subtracts anything (a lone minus sign does not count)."""
    if isinstance(node, Sum):
        return len(node.terms) > 1 or _has_sum(node.terms[0][1])
    if isinstance(node, Product):
        return any(_has_sum(factor) for _, factor, _ in node.factors)
    return isinstance(node, Power) and _has_sum(node.base)


def _division_by_zero(pos: int) -> RejectError:
    """The error for a zero divisor."""
    return RejectError(f"division by zero {at(pos)}")


class Evaluator:
    """Bounds and builds trees over one set of symbols.

    Exponent values are cached by node, so a tower of exponents is bounded and
    built once per level, not once per path.
    """

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols
        self.exponents: dict[int, sp.Rational] = {}

    # -- bounds -------------------------------------------------------------
    def bound(self, node: Node) -> Bound:
        """Bounds of ``node`` (resolving names on the way); refuses what is too big.

        Raises:
            RejectError: unknown names, symbolic exponents, sizes past the limits,
                a constant divisor that is zero.
        """
        if isinstance(node, Num):
            return _exact(node.value)
        if isinstance(node, Name):
            return Bound(0.0, 0.0, float(len(resolve(node, self.symbols))))
        if isinstance(node, Sum):
            return self._bound_sum(node)
        if isinstance(node, Product):
            return self._bound_product(node)
        return self._bound_power(node)

    def _bound_sum(self, node: Sum) -> Bound:
        """a/b + c/d = (ad + bc)/(bd); degrees take the maximum; constants are added exactly."""
        acc = _exact(sp.Integer(0))
        for sign, term in node.terms:
            t = self.bound(term)
            num, den = _logadd(acc.num + t.den, t.num + acc.den), acc.den + t.den
            _check(Bound(num, den, max(acc.degree, t.degree)), node.pos)
            if acc.value is not None and t.value is not None:
                acc = _exact(acc.value + sign * t.value)
            else:
                acc = Bound(num, den, max(acc.degree, t.degree))
        return acc

    def _bound_product(self, node: Product) -> Bound:
        """Numerators and denominators multiply (swapped for divisors); degrees add."""
        acc = _exact(sp.Integer(1))
        for divide, factor, pos in node.factors:
            f = self.bound(factor)
            if divide and f.value == 0:
                raise _division_by_zero(pos)
            num, den = (
                (acc.num + f.den, acc.den + f.num) if divide else (acc.num + f.num, acc.den + f.den)
            )
            _check(Bound(num, den, acc.degree + f.degree), pos)
            if acc.value is not None and f.value is not None:
                acc = _exact(acc.value / f.value if divide else acc.value * f.value)
            else:
                acc = Bound(num, den, acc.degree + f.degree)
        return acc

    def _bound_power(self, node: Power) -> Bound:
        """|x^e|: both logs and the degree scale by |e|, swapped for a negative exponent."""
        base = self.bound(node.base)
        e = self.exponent(node)
        if e < 0 and base.value == 0:
            raise _division_by_zero(node.pos)
        if e.q != 1 and base.value is not None and base.value < 0:
            raise RejectError(
                f"root of a negative number {at(node.pos)} (the value would not be real)"
            )
        if e.q != 1 and base.value is None and _has_sum(node.base):
            # sympy would query the sign of the sum, which can take seconds for a high degree
            raise RejectError(
                f"fractional exponent {at(node.pos)} of a sum (a fractional exponent may apply "
                "to a number or a product of symbols, as in (BD)^{1/2})"
            )
        scale = float(abs(e))
        num, den = (base.num, base.den) if e >= 0 else (base.den, base.num)
        checked = _check(Bound(num * scale, den * scale, base.degree * scale), node.pos)
        if base.value is None:
            return checked
        value = sp.Pow(base.value, e)  # safe: the bound above passed
        return _exact(value) if isinstance(value, sp.Rational) else checked

    def exponent(self, node: Power) -> sp.Rational:
        """The exact value of a power's exponent, which must be a modest constant.

        Raises:
            RejectError: for a symbolic exponent, one larger than :data:`MAX_EXPONENT`,
                or a fraction with a denominator above :data:`MAX_ROOT`.
        """
        key = id(node)
        if key not in self.exponents:
            self.exponents[key] = self._exponent(node.exp, node.pos)
        return self.exponents[key]

    def _exponent(self, exp: Node, pos: int) -> sp.Rational:
        """Bound (and so fold) an exponent; see :meth:`exponent`."""
        b = self.bound(exp)
        if b.degree > 0:
            raise RejectError(
                f"symbolic exponent {at(pos)} (exponents must be numbers, as in B^2 or 10^{{14}})"
            )
        if b.value is None:
            raise RejectError(f"exponent {at(pos)} is not a rational number")
        if abs(b.value) > MAX_EXPONENT:
            raise RejectError(
                f"exponent {_short(b.value)} {at(pos)} is too large (at most {MAX_EXPONENT})",
                limit=True,
            )
        if b.value.q > MAX_ROOT:
            raise RejectError(
                f"exponent {_short(b.value)} {at(pos)} has a denominator above {MAX_ROOT}"
            )
        return b.value

    # -- building -----------------------------------------------------------
    def build(self, node: Node) -> sp.Expr:
        """The sympy expression of a tree whose bounds were checked."""
        if isinstance(node, Num):
            return node.value
        if isinstance(node, Name):
            return sp.Mul(*resolve(node, self.symbols))
        if isinstance(node, Sum):
            return sp.Add(
                *(self.build(t) if sign > 0 else -self.build(t) for sign, t in node.terms)
            )
        if isinstance(node, Product):
            return self._build_product(node)
        return self._build_power(node)

    def _build_product(self, node: Product) -> sp.Expr:
        """Multiply the factors, refusing a divisor that is zero."""
        parts: list[sp.Expr] = []
        for divide, factor, pos in node.factors:
            value = self.build(factor)
            if divide:
                if value == 0:  # structural: sympy folds D - D to 0; no assumption queries
                    raise _division_by_zero(pos)
                value = sp.Pow(value, -1)
            parts.append(value)
        return sp.Mul(*parts)

    def _build_power(self, node: Power) -> sp.Expr:
        """``base ** exp``, refusing zero to a negative power."""
        base = self.build(node.base)
        e = self.exponent(node)
        if e < 0 and base == 0:
            raise _division_by_zero(node.pos)
        return sp.Pow(base, e)


def evaluate(node: Node, symbols: Symbols) -> sp.Expr:
    """Bound the whole tree, then build it; refuse a result that is not finite.

    Raises:
        RejectError: unknown names, limits, division by zero.
    """
    evaluator = Evaluator(symbols)
    evaluator.bound(node)
    expr = evaluator.build(node)
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise RejectError("division by zero (the formula has no finite value)")
    if expr.has(sp.I):
        raise RejectError("the value is not a real number")
    return expr
