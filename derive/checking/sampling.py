"""Is a claim the expected expression? Decided at random points first, symbolically only when cheap.

A student's claim and the expected quantity are expressions in the problem's dims (positive
integers), with rational numbers, integer powers and rational powers (``B^{1/31}``).
:func:`compare` evaluates both at a few random points and answers :attr:`Sameness.DIFFERENT`
(a point where they differ: a proof, with nothing symbolic), :attr:`Sameness.SAME` (equal at
every point: equal with an error probability stated below) or :attr:`Sameness.UNDECIDED`
(the points could not settle it). The judge (:func:`derive.checking.matching.equal`) then
proves a SAME by ``cancel`` only when the difference is cheap to cancel, and falls back to
``cancel`` (under the command's time budget, the backstop) only when UNDECIDED.

**Exact evaluation, modulo a prime.** Each dim ``X`` is replaced by ``t^L``, where ``t`` is a
random residue modulo a large prime ``p`` and ``L`` is the least common multiple of the
denominators of the exponents ``X`` is raised to (``B^{1/31}`` and ``B^{1/29}`` give
``L = 899``): then ``X^{k/q} = t^{Lk/q}`` is an integer power, and both expressions become
rational functions of the ``t``'s, evaluated exactly in the field of integers modulo ``p``
(division by a modular inverse, powers by ``pow(x, n, p)``: the cost does not grow with the
size of the numbers, so ``B^{2000}`` or ``L = 988027`` cost microseconds). A point where a
denominator vanishes is skipped.

*Why a difference proves inequality.* At an integer point the two expressions are rational
numbers; if they were equal, their residues modulo ``p`` would be equal. So residues that
differ at one point prove the claim differs from the expected expression (for positive dims,
``t^L`` is a positive integer and its real ``q``-th roots are the integer powers used).

*Why agreement makes equality certain but for a negligible chance (Schwartz–Zippel).* If the
two differ, their difference is ``N(t)/D(t)`` with ``N`` a nonzero polynomial of total degree
``d``. For ``t`` drawn uniformly from the field of ``p`` elements, ``N(t) = 0`` with
probability at most ``d/p`` (the Schwartz–Zippel lemma; it needs ``N`` nonzero modulo ``p``,
which holds unless every coefficient is a multiple of ``p``, a number of 39 digits). With
``p = 2^127 − 1``, degrees below 10^9 (the parser's limits keep them far lower) and
:data:`POINTS` independent points, a wrong claim passes with probability below
``(10^9 / 2^127)^3 < 10^-86``. The first point is fixed; the next ones are drawn from a generator
seeded with the residues at the first, so a verdict is the same on every run and every
machine, and no claim can be written to vanish at points known in advance.

**Irrational constants.** ``2^{1/2}`` (and a root of a sum, which the claim parser refuses
today) has no exact residue, so such expressions are evaluated with mpmath at two
precisions (:data:`DIGITS` digits and twice that) at random rational points. A difference
that is the same at both precisions (to 5 digits) and larger than ``10^(10 - DIGITS)`` of
the values, far above the rounding error, proves inequality; agreement to
:data:`SAME_DIGITS` digits at every point is taken as equality (a numerical decision, as in
STACK and PrairieLearn, not a proof); anything else is UNDECIDED, and ``cancel`` decides.

>>> import sympy as sp
>>> B = sp.Symbol("B", positive=True, integer=True)
>>> compare((B**sp.Rational(1, 31) + B**sp.Rational(1, 29)) ** -2, 1 / (2 * B))
<Sameness.DIFFERENT: 'different'>
>>> compare(2 * B / (2 * B + 2), 1 - 1 / (B + 1))
<Sameness.SAME: 'same'>
>>> compare(sp.sqrt(2) * sp.sqrt(B), sp.sqrt(2 * B))
<Sameness.SAME: 'same'>
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator
from enum import Enum
from functools import lru_cache
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy as sp

PRIME = 2**127 - 1
"""The field the exact evaluation works in (a Mersenne prime)."""
POINTS = 3
"""Independent random points per comparison."""
DIGITS = 60
"""Decimal digits of the first numerical evaluation (the second uses twice as many)."""
SAME_DIGITS = 2 * DIGITS - 20
"""Digits two numerical values must share (at the higher precision) to count as equal at a point."""
_TRIES = 12  # points drawn before giving up on points where a denominator vanishes


class Sameness(Enum):
    """What the random points say about two expressions."""

    SAME = "same"
    DIFFERENT = "different"
    UNDECIDED = "undecided"


class _NotExactError(Exception):
    """The expression has a part with no exact residue (an irrational constant, a root of a sum)."""


class _PoleError(Exception):
    """A denominator vanishes at this point."""


def _seeded(*values: object) -> random.Random:
    """A generator seeded by values the caller computed from the expressions (reproducible)."""
    digest = hashlib.sha256(repr(values).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


@lru_cache(maxsize=4096)
def _degrees_of(expr: sp.Expr) -> tuple[tuple[sp.Symbol, int], ...]:
    """Each symbol of ``expr`` with the lcm of the denominators of the exponents it is raised to."""
    degrees: dict[sp.Symbol, int] = {s: 1 for s in expr.free_symbols}
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Pow) and node.base.is_Symbol and node.exp.is_Rational:
            q = int(node.exp.q)
            degrees[node.base] = degrees[node.base] * q // math.gcd(degrees[node.base], q)
    return tuple(degrees.items())


def _root_degrees(exprs: tuple[sp.Expr, ...]) -> dict[sp.Symbol, int]:
    """Each symbol's ``L``: the lcm of the denominators of the exponents it is raised to."""
    degrees: dict[sp.Symbol, int] = {}
    for e in exprs:
        for symbol, q in _degrees_of(e):
            degrees[symbol] = degrees.get(symbol, 1) * q // math.gcd(degrees.get(symbol, 1), q)
    return degrees


def _inverse(x: int) -> int:
    if x % PRIME == 0:
        raise _PoleError
    return pow(x, PRIME - 2, PRIME)


class _Modular:
    """Exact values modulo :data:`PRIME` at one point ``X = t_X^{L_X}``."""

    def __init__(self, roots: dict[sp.Symbol, int], degrees: dict[sp.Symbol, int]) -> None:
        self.roots, self.degrees = roots, degrees
        self.memo: dict[sp.Basic, int] = {}

    def power(self, base: int, n: int) -> int:
        return pow(base if n >= 0 else _inverse(base), abs(n), PRIME)

    def value(self, node: sp.Basic) -> int:
        if node in self.memo:
            return self.memo[node]
        if node.is_Integer:
            out = int(node) % PRIME
        elif node.is_Rational:
            out = int(node.p) * _inverse(int(node.q)) % PRIME
        elif node.is_Symbol:
            out = pow(self.roots[node], self.degrees[node], PRIME)
        elif isinstance(node, sp.Add):
            out = sum(self.value(a) for a in node.args) % PRIME
        elif isinstance(node, sp.Mul):
            out = 1
            for a in node.args:
                out = out * self.value(a) % PRIME
        elif isinstance(node, sp.Pow) and node.exp.is_Integer:
            out = self.power(self.value(node.base), int(node.exp))
        elif isinstance(node, sp.Pow) and node.base.is_Symbol and node.exp.is_Rational:
            k = node.exp * self.degrees[node.base]  # an integer: L is a multiple of q
            out = self.power(self.roots[node.base], int(k))
        else:
            raise _NotExactError
        self.memo[node] = out
        return out


class _Numeric:
    """Values with mpmath, at the precision of the enclosing ``mpmath.workdps``."""

    def __init__(self, point: dict[sp.Symbol, sp.Rational]) -> None:
        self.point = point
        self.memo: dict[sp.Basic, Any] = {}

    def value(self, node: sp.Basic) -> Any:
        if node in self.memo:
            return self.memo[node]
        if node.is_Rational:
            out = mpmath.mpf(int(node.p)) / int(node.q)
        elif node.is_Symbol:
            v = self.point[node]
            out = mpmath.mpf(int(v.p)) / int(v.q)
        elif node is sp.pi:
            out = +mpmath.pi
        elif node is sp.E:
            out = +mpmath.e
        elif isinstance(node, sp.Add):
            out = mpmath.fsum(self.value(a) for a in node.args)
        elif isinstance(node, sp.Mul):
            out = mpmath.fprod(self.value(a) for a in node.args)
        elif isinstance(node, sp.Pow) and node.exp.is_Rational:
            base = self.value(node.base)
            if base == 0 and node.exp < 0:
                raise _PoleError
            exp = node.exp
            out = (
                mpmath.power(base, int(exp))
                if exp.is_Integer
                else mpmath.power(base, mpmath.mpf(int(exp.p)) / int(exp.q))
            )
        else:
            raise _NotExactError
        self.memo[node] = out
        return out


def _modular_points(
    exprs: tuple[sp.Expr, ...],
) -> Iterator[tuple[int, ...]]:
    """The residues of ``exprs`` at successive points, skipping points where one has a pole.

    The first point comes from a fixed seed; the others from a seed made of the residues
    there, so the points are reproducible yet depend on the expressions (no claim can be
    built to vanish at points known in advance).
    """
    degrees = _root_degrees(exprs)
    symbols = sorted(degrees, key=lambda s: s.name)
    rng = random.Random(PRIME)
    for attempt in range(_TRIES):
        ev = _Modular({s: rng.randrange(2, PRIME - 1) for s in symbols}, degrees)
        try:
            values = tuple(ev.value(e) for e in exprs)
        except _PoleError:
            continue
        yield values
        if attempt == 0:
            rng = _seeded(*values)
        if not symbols:
            return


def _modular(a: sp.Expr, b: sp.Expr) -> Sameness:
    agreed = 0
    for x, y in _modular_points((a, b)):
        if x != y:
            return Sameness.DIFFERENT
        agreed += 1
        if agreed == POINTS:
            return Sameness.SAME
    return Sameness.SAME if agreed and not (a.free_symbols | b.free_symbols) else Sameness.UNDECIDED


def _numeric_at(a: sp.Expr, b: sp.Expr, point: dict[sp.Symbol, sp.Rational]) -> Sameness:
    diffs: list[Any] = []
    scales: list[Any] = []
    for digits in (DIGITS, 2 * DIGITS):
        with mpmath.workdps(digits):
            ev = _Numeric(point)
            x, y = ev.value(a), ev.value(b)
            diffs.append(abs(x - y))
            scales.append(max(abs(x), abs(y)))
    scale = scales[1]
    if diffs[1] <= scale * mpmath.mpf(10) ** (-SAME_DIGITS):
        return Sameness.SAME
    stable = abs(diffs[0] - diffs[1]) <= diffs[1] * mpmath.mpf(10) ** -5
    big = diffs[1] > scale * mpmath.mpf(10) ** (10 - DIGITS)
    return Sameness.DIFFERENT if stable and big else Sameness.UNDECIDED


def _point(rng: random.Random, symbols: list[sp.Symbol]) -> dict[sp.Symbol, sp.Rational]:
    """A random positive rational for each symbol, from 2 to 2·10⁶ over 1 to 10³."""
    return {
        s: sp.Rational(rng.randrange(2_000, 2_000_000), rng.randrange(1, 1_000)) for s in symbols
    }


def _numeric(a: sp.Expr, b: sp.Expr) -> Sameness:
    rng = _seeded(str(a), str(b))  # rare (irrational constants): the printed forms seed it
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    said: list[Sameness] = []
    for _ in range(_TRIES):
        point = _point(rng, symbols)
        try:
            found = _numeric_at(a, b, point)
        except (_PoleError, ZeroDivisionError, OverflowError):
            continue
        if found is Sameness.DIFFERENT:
            return found
        said.append(found)
        if len(said) == POINTS or not symbols:
            break
    if said and all(s is Sameness.SAME for s in said):
        return Sameness.SAME
    return Sameness.UNDECIDED


def compare(a: sp.Expr, b: sp.Expr) -> Sameness:
    """Whether ``a`` and ``b`` are the same function of positive dims, at random points.

    DIFFERENT is a proof; SAME is exact-modular agreement (Schwartz–Zippel) or numerical
    agreement to :data:`SAME_DIGITS` digits; UNDECIDED leaves it to symbolic algebra.
    """
    try:
        return _modular(a, b)
    except _NotExactError:
        pass
    try:
        return _numeric(a, b)
    except _NotExactError:
        return Sameness.UNDECIDED


def _reconstruct(r: int) -> sp.Rational | None:
    """The fraction n/d with |n|, d < sqrt(p/2) whose residue is ``r`` (None if there is none)."""
    bound = math.isqrt(PRIME // 2)
    r0, r1, s0, s1 = PRIME, r % PRIME, 0, 1
    while r1 > bound:
        q = r0 // r1
        r0, r1, s0, s1 = r1, r0 - q * r1, s1, s0 - q * s1
    if s1 == 0 or abs(s1) > bound:
        return None
    return sp.Rational(r1, s1)


def ratio_constant(a: sp.Expr, b: sp.Expr) -> sp.Rational | Sameness | None:
    """``a / b`` when it is a rational constant, None when it is not, UNDECIDED when the points cannot tell.

    The ratio is evaluated exactly modulo :data:`PRIME` at random points: two different
    residues prove it is not constant; the same residue everywhere is read back as a
    fraction (rational reconstruction: numerator and denominator below 2^63).
    """
    seen: set[int] = set()
    checks = 0
    try:
        for x, y in _modular_points((a, b)):
            if y == 0:
                continue
            seen.add(x * _inverse(y) % PRIME)
            if len(seen) > 1:
                return None
            checks += 1
            if checks == POINTS:
                break
    except _NotExactError:  # an irrational constant (a root of a given): numbers can still refute
        return None if _numeric_ratio_varies(a, b) else Sameness.UNDECIDED
    if not seen:
        return Sameness.UNDECIDED
    return _reconstruct(seen.pop()) or Sameness.UNDECIDED


def _numeric_ratio_varies(a: sp.Expr, b: sp.Expr) -> bool:
    """True when ``a / b`` takes two different values at two random points (a proof: both
    ratios are stable between :data:`DIGITS` and twice as many digits and differ by far more
    than either's error). False when the points cannot tell, so exact algebra decides."""
    ratio = a / b
    symbols = sorted(ratio.free_symbols, key=lambda s: s.name)
    if not symbols:
        return False
    rng = _seeded(str(a), str(b))
    values: list[tuple[Any, Any]] = []
    for _ in range(_TRIES):
        point = _point(rng, symbols)
        try:
            pair = []
            for digits in (DIGITS, 2 * DIGITS):
                with mpmath.workdps(digits):
                    ev = _Numeric(point)
                    pair.append(ev.value(a) / ev.value(b))
        except (_PoleError, ZeroDivisionError, OverflowError, _NotExactError):
            continue
        values.append((pair[0], pair[1]))
        if len(values) == 2:
            break
    if len(values) < 2:
        return False
    (low1, high1), (low2, high2) = values
    with mpmath.workdps(2 * DIGITS):
        error = abs(low1 - high1) + abs(low2 - high2)
        gap = abs(high1 - high2)
        scale = max(abs(high1), abs(high2))
        return bool(gap > 1000 * error and gap > scale * mpmath.mpf(10) ** (10 - DIGITS))
