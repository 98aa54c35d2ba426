"""The crossover: where compute time equals memory (or link) time, solved exactly.

Compute-bound means T_math ≥ T_mem, i.e. FLOPs/π ≥ bytes/β, i.e.

    g(x) = FLOPs·β − bytes·π ≥ 0        (bytes > 0, so sign g = sign(I − π/β))

``g`` is a polynomial in the solved-for dim x whose coefficients are polynomials
in the other dims. Signs of those coefficients over positive dims decide the
status without sampling: a polynomial in positive variables whose coefficients
are all ≤ 0 is ≤ 0 everywhere.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy as sp
from sympy.polys.rings import PolyElement

from derive.analysis.algebra import gens_of, ring_of, to_expr, to_poly
from derive.analysis.algebra_ratios import cancel_ratio, factor

__all__ = [
    "ALWAYS",
    "CROSSES",
    "NEVER",
    "UNDETERMINED",
    "Crossover",
    "CrossoverStatus",
    "reduced_parts",
    "sign_on_positive",
    "solve_crossover",
]


class CrossoverStatus(str, Enum):
    """Where the intensity stands against the ridge over every positive value of the dim.

    The values are the strings JSON output has always carried (a contract); a status
    prints, formats and compares as its value (``CROSSES == "crosses"``).
    """

    CROSSES = "crosses"  # memory-bound below the crossover, compute-bound from it on
    NEVER = "never"  # I < ridge for every x > 0 (or compute-bound only off the integers)
    ALWAYS = "always"  # I ≥ ridge for every x > 0
    UNDETERMINED = "undetermined"  # depends on unbound dims (see the crossover's note)

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


CROSSES, NEVER, ALWAYS, UNDETERMINED = (
    CrossoverStatus.CROSSES,
    CrossoverStatus.NEVER,
    CrossoverStatus.ALWAYS,
    CrossoverStatus.UNDETERMINED,
)


@dataclass(frozen=True)
class Crossover:
    """Where I(x) meets the ridge.

    Attributes:
        status: ``crosses``, ``never`` (I < ridge for every x > 0), ``always``
            (I ≥ ridge for every x > 0), or ``undetermined`` (see ``note``).
        exact: the root, a number or a closed form in the other dims; else None.
        min_compute_bound: smallest integer x ≥ 1 with T_math ≥ T_mem, when numeric.
        condition: for a closed form, an expression that must be > 0 for the root to exist.
        supremum: for ``never``, lim I(x) as x → ∞ (in the other dims).
        supremum_all: ``supremum`` as every remaining dim grows too, when finite.
        note: a sentence for the unusual cases.
        shortfall: for ``never``, how many times the ridge exceeds the largest intensity
            (``supremum_all``, else ``supremum``), when that is a positive number.
    """

    status: CrossoverStatus
    variable: sp.Symbol
    g: sp.Expr
    exact: sp.Expr | None = None
    min_compute_bound: int | None = None
    condition: sp.Expr | None = None
    supremum: sp.Expr | None = None
    supremum_all: sp.Expr | None = None
    note: str = ""
    shortfall: sp.Expr | None = None

    @property
    def is_number(self) -> bool:
        """True when the crossover is a number (not a formula in other dims)."""
        return self.exact is not None and self.exact.is_number


def sign_on_positive(expr: sp.Expr) -> int | None:
    """Sign of ``expr`` for all positive values of its symbols, if its coefficients decide it.

    Returns 1 (> 0 everywhere), -1 (< 0 everywhere), 0 (identically 0), or None.

    >>> B, D = sp.symbols("B D", positive=True)
    >>> sign_on_positive(3*B*D + 2), sign_on_positive(-B - 1), sign_on_positive(B - D)
    (1, -1, None)
    """
    num, den = (
        (expr, sp.Integer(1)) if expr.is_polynomial() else sp.fraction(sp.cancel(sp.together(expr)))
    )
    signs = []
    for part in (num, den):
        part = sp.expand(part)
        if part == 0:
            return 0
        coeffs = [
            coefficient
            for coefficient, _ in (term.as_coeff_Mul() for term in sp.Add.make_args(part))
        ]
        if not all(coefficient.is_number for coefficient in coeffs):
            return None
        if all(coefficient > 0 for coefficient in coeffs):
            signs.append(1)
        elif all(coefficient < 0 for coefficient in coeffs):
            signs.append(-1)
        else:
            return None
    return signs[0] * signs[1]


def reduced_parts(num: sp.Expr, den: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """num/den in lowest terms when the reduced denominator is provably positive.

    Cancelling common factors (e.g. B·F in a sharded matmul) lets the crossover be
    solved as a number; without a provably positive denominator, the sign of
    num·β − den·π would not be the sign of I − ridge, so the original pair is kept.
    """
    numerator, denominator = sp.fraction(cancel_ratio(num, den))
    denominator_poly = to_poly(denominator, ring_of(gens_of(denominator)))
    sign = (
        sign_on_positive(denominator) if denominator_poly is None else _ring_sign(denominator_poly)
    )  # the same rule, on the ring when it can
    return (numerator, denominator) if sign == 1 else (num, den)


def _ceil(value: sp.Expr) -> int:
    if value.is_Rational:
        return math.ceil(Fraction(int(value.p), int(value.q)))
    return int(sp.ceiling(value))


def _supremum(intensity: sp.Expr, x: sp.Symbol) -> tuple[sp.Expr | None, sp.Expr | None]:
    num, den = sp.fraction(sp.cancel(intensity))
    pn, pd = sp.Poly(num, x), sp.Poly(den, x)
    if pn.degree() > pd.degree():
        return None, None
    sup = sp.cancel(pn.LC() / pd.LC()) if pn.degree() == pd.degree() else sp.Integer(0)
    rest = tuple(sorted(sup.free_symbols, key=lambda symbol: symbol.name))
    if not rest:
        return sup, None
    scale = sp.Symbol("t", positive=True)
    n2, d2 = (
        sp.Poly(
            sp.expand(side.subs({symbol: scale * symbol for symbol in rest}, simultaneous=True)),
            scale,
        )
        for side in sp.fraction(sup)
    )
    if n2.degree() > d2.degree():
        return sup, None
    return sup, (sp.cancel(n2.LC() / d2.LC()) if n2.degree() == d2.degree() else sp.Integer(0))


def _decide(
    g: sp.Expr,
    x: sp.Symbol,
    roots: list[Any],
    compute_bound: Callable[[Any], bool],
    ceil: Callable[[Any], int],
    exact: Callable[[Any], sp.Expr],
) -> Crossover:
    """Status, crossover and smallest compute-bound integer from the positive roots of g.

    ``roots`` are the distinct positive real roots in increasing order (Fractions or
    sympy numbers); ``compute_bound(v)`` says whether g(v) ≥ 0 at a rational v;
    ``ceil`` rounds a root up; ``exact`` turns a root into its sympy form. g keeps its
    sign between roots, so one probe per open interval decides it. A root where g only
    touches zero is a tie (compute-bound) but starts no compute-bound range. Integers
    are found from the ranges' ends, and the only stepping is over integer roots, so
    this always ends.
    """
    zero = roots[0] - roots[0] if roots else 0  # an exact zero of the roots' type
    cuts = [zero] + roots
    probes = [(low + high) / 2 for low, high in itertools.pairwise(cuts)] + [cuts[-1] + 1]
    bound = [compute_bound(probe) for probe in probes]  # compute-bound on each open interval
    if not any(bound):
        return Crossover(
            NEVER,
            x,
            g,
            note="the intensity touches the ridge only at isolated points" if roots else "",
        )
    if all(bound):
        return Crossover(ALWAYS, x, g, min_compute_bound=1)
    if (
        bound[-1] and bound.count(True) == 1
    ):  # memory-bound, then compute-bound from the last root on
        smallest = max(1, ceil(roots[-1]))
        while smallest > 1 and compute_bound(
            smallest - 1
        ):  # only at integer roots where g touches zero: finitely many
            smallest -= 1
        return Crossover(CROSSES, x, g, exact=exact(roots[-1]), min_compute_bound=smallest)
    ranges = [
        (low, high) for low, high, is_bound in zip(cuts, cuts[1:] + [None], bound) if is_bound
    ]  # closed, hi None is ∞
    shown = ", ".join(
        ("(0" if low == zero else f"[{exact(low)}")
        + (", ∞)" if high is None else f", {exact(high)}]")
        for low, high in ranges
    )
    found = [
        (max(1, ceil(low)), low)
        for low, high in ranges
        if high is None or max(1, ceil(low)) <= high
    ]
    if not found:
        return Crossover(
            NEVER, x, g, note=f"compute-bound only for {x} in {shown}, which holds no integer ≥ 1"
        )
    smallest, low = found[0]
    return Crossover(
        CROSSES,
        x,
        g,
        exact=exact(low),
        min_compute_bound=smallest,
        note=f"compute-bound only for {x} in {shown}",
    )


def _by_power(poly: PolyElement, index: int) -> list[PolyElement]:
    """Coefficients of ``gp`` in its i-th generator, highest power first (like ``Poly.all_coeffs``)."""
    parts: dict[int, dict] = {}
    for monomial, coefficient in poly.items():
        parts.setdefault(monomial[index], {})[monomial[:index] + (0,) + monomial[index + 1 :]] = (
            coefficient
        )
    return [poly.ring.from_dict(parts.get(power, {})) for power in range(max(parts), -1, -1)]


def _ring_sign(poly: PolyElement) -> int | None:
    """:func:`sign_on_positive` of a polynomial held in a ring."""
    if not poly:
        return 0
    if all(coefficient > 0 for coefficient in poly.values()):
        return 1
    if all(coefficient < 0 for coefficient in poly.values()):
        return -1
    return None


def _horner(coefficients: list[Fraction], value: Fraction) -> Fraction:
    out = Fraction(0)
    for coefficient in coefficients:
        out = out * value + coefficient
    return out


def _numeric(g: sp.Expr, x: sp.Symbol, coefficients: tuple[sp.Expr, ...]) -> Crossover:
    """The crossover of a polynomial g in x alone (numbers for coefficients, highest power first).

    Rational coefficients with rational roots (every built-in operator) stay in exact
    Fractions; any other root goes through sympy's ``real_roots`` and ``subs``.
    """
    if all(coefficient.is_Rational for coefficient in coefficients):
        rationals = [
            Fraction(int(coefficient.p), int(coefficient.q)) for coefficient in coefficients
        ]
        if len(rationals) == 2:
            roots = [-rationals[1] / rationals[0]]
        else:
            found = sp.Poly.from_list(list(coefficients), x).real_roots()
            if not all(root.is_Rational for root in found):
                return _numeric_sympy(g, x)
            roots = [Fraction(int(root.p), int(root.q)) for root in found]
        return _decide(
            g,
            x,
            sorted({root for root in roots if root > 0}),
            lambda value: _horner(rationals, Fraction(value)) >= 0,
            math.ceil,
            lambda fraction: sp.Rational(fraction.numerator, fraction.denominator),
        )
    return _numeric_sympy(g, x)


def _numeric_sympy(g: sp.Expr, x: sp.Symbol) -> Crossover:
    """:func:`_numeric` for any real roots (irrational ones too), through sympy."""
    roots = sorted(
        {root for root in sp.Poly(g, x).real_roots() if root > 0}, key=lambda root: sp.N(root, 30)
    )
    return _decide(g, x, roots, lambda value: bool(g.subs(x, value) >= 0), _ceil, lambda root: root)


def _top(poly: PolyElement, indices: list[int]) -> tuple[int, PolyElement]:
    """The total degree of ``p`` in the generators ``idx`` and its part of that degree."""
    degree = max(sum(monomial[i] for i in indices) for monomial in poly)
    return degree, poly.ring.from_dict(
        {
            monomial: coefficient
            for monomial, coefficient in poly.items()
            if sum(monomial[i] for i in indices) == degree
        }
    )


def _supremum_ring(
    F: PolyElement, G: PolyElement, xi: int
) -> tuple[sp.Expr | None, sp.Expr | None]:
    """:func:`_supremum` of F/G on the ring: lim as x → ∞, then as every other dim grows too."""
    P, Q = F.cancel(G)
    dn, ln = _top(P, [xi])
    dd, ld = _top(Q, [xi])
    if dn > dd:
        return None, None
    sup = cancel_ratio(to_expr(ln), to_expr(ld)) if dn == dd else sp.Integer(0)
    rest = [index for index, symbol in enumerate(F.ring.symbols) if symbol in sup.free_symbols]
    if not rest:
        return sup, None
    sn, sd = ln.cancel(ld)
    (d2n, l2n), (d2d, l2d) = _top(sn, rest), _top(sd, rest)
    if d2n > d2d:
        return sup, None
    return sup, (cancel_ratio(to_expr(l2n), to_expr(l2d)) if d2n == d2d else sp.Integer(0))


@dataclass(frozen=True)
class _InX:
    """g = FLOPs·β − bytes·π as a polynomial in the solved-for dim x.

    Attributes:
        g: the polynomial, as an expression.
        coefficients: its coefficients in x, highest power first (expressions in the other dims).
        signs: each coefficient's sign over positive dims, when its coefficients decide it.
        supremum: lim I(x) as x → ∞, then as every other dim grows too (for ``never``).
    """

    g: sp.Expr
    coefficients: tuple[sp.Expr, ...]
    signs: tuple[int | None, ...]
    supremum: Callable[[], tuple[sp.Expr | None, sp.Expr | None]]


def _in_x_on_ring(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> _InX | None:
    """The fast path: g read on sympy's sparse polynomial ring; None when it does not fit one."""
    ring = ring_of(gens_of(flops, bytes_, x))
    flops_p, bytes_p = to_poly(flops, ring), to_poly(bytes_, ring)
    if flops_p is None or bytes_p is None or not bytes_p:
        return None
    if not (peak.is_Rational and bandwidth.is_Rational):
        return None
    bandwidth_p, peak_p = to_poly(bandwidth, ring), to_poly(peak, ring)
    assert bandwidth_p is not None and peak_p is not None  # rationals are ring constants
    g = flops_p * bandwidth_p - bytes_p * peak_p
    x_index = ring.symbols.index(x)
    by_power = _by_power(g, x_index) if g else []
    return _InX(
        to_expr(g),
        tuple(to_expr(coefficient) for coefficient in by_power),
        tuple(_ring_sign(coefficient) for coefficient in by_power),
        lambda: (
            _supremum_ring(flops_p, bytes_p, x_index) if flops_p else _supremum(flops / bytes_, x)
        ),
    )


def _in_x_by_sympy(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> _InX | Crossover:
    """The reference path: g through sympy's ``expand`` and ``Poly`` (any expressions).

    A g that is not a polynomial in x is answered at once (undetermined).
    """
    g = sp.expand(flops * bandwidth - bytes_ * peak)
    if g == 0:
        return _InX(g, (), (), lambda: (None, None))
    try:
        poly = sp.Poly(g, x)
    except sp.PolynomialError:
        return Crossover(UNDETERMINED, x, g, note=f"FLOPs·β − bytes·π is not a polynomial in {x}")
    coefficients = tuple(poly.all_coeffs())
    return _InX(
        g,
        coefficients,
        tuple(sign_on_positive(coefficient) for coefficient in coefficients),
        lambda: _supremum(flops / bytes_, x),
    )


def _never(in_x: _InX, x: sp.Symbol, ridge: sp.Expr) -> Crossover:
    """I < ridge everywhere: with the supremum of I and how far below the ridge it stays."""
    supremum, supremum_all = in_x.supremum()
    top = supremum_all if supremum_all is not None else supremum
    shortfall = ridge / top if top is not None and top.is_number and top > 0 else None
    return Crossover(
        NEVER, x, in_x.g, supremum=supremum, supremum_all=supremum_all, shortfall=shortfall
    )


def _decide_in_x(in_x: _InX, x: sp.Symbol, ridge: sp.Expr) -> Crossover:
    """The one decision tree: identically zero, signs, numbers, then degree 0 or 1 in x."""
    g, coefficients, signs = in_x.g, in_x.coefficients, in_x.signs
    if not coefficients:
        return Crossover(
            ALWAYS,
            x,
            g,
            min_compute_bound=1,
            note="compute and memory time are equal for every value",
        )
    if all(sign is not None and sign <= 0 for sign in signs):
        return _never(in_x, x, ridge)
    if all(sign is not None and sign >= 0 for sign in signs):
        return Crossover(ALWAYS, x, g, min_compute_bound=1)
    if all(coefficient.is_number for coefficient in coefficients):
        return _numeric(g, x, coefficients)
    degree = len(coefficients) - 1
    if degree == 0:
        condition = coefficients[0].as_content_primitive()[1]
        return Crossover(
            UNDETERMINED,
            x,
            g,
            condition=condition,
            note=f"{x} drops out: compute-bound for every {x} exactly when {condition} ≥ 0, which depends on the other dims",
        )
    if degree == 1:
        (slope, constant), (slope_sign, constant_sign) = coefficients, signs
        exact = factor(cancel_ratio(-constant, slope))
        if constant_sign == -1 and slope_sign in (1, None):
            return Crossover(
                CROSSES,
                x,
                g,
                exact=exact,
                condition=None if slope_sign == 1 else slope.as_content_primitive()[1],
            )
        return Crossover(
            UNDETERMINED,
            x,
            g,
            exact=exact,
            note="whether the root is positive depends on the other dims; give them values to decide",
        )
    return Crossover(
        UNDETERMINED,
        x,
        g,
        note=f"degree {degree} in {x} with unbound dims; give them values to solve exactly",
    )


def _solve(
    flops: sp.Expr,
    bytes_: sp.Expr,
    peak: sp.Expr,
    bandwidth: sp.Expr,
    x: sp.Symbol,
    *,
    on_ring: bool = True,
) -> Crossover:
    """:func:`solve_crossover`, with the ring fast path on or off (off: sympy, the reference)."""
    peak, bandwidth = (
        sp.Rational(value) if isinstance(value, int) else value for value in (peak, bandwidth)
    )
    in_x = _in_x_on_ring(flops, bytes_, peak, bandwidth, x) if on_ring else None
    found = in_x if in_x is not None else _in_x_by_sympy(flops, bytes_, peak, bandwidth, x)
    if isinstance(found, Crossover):
        return found
    return _decide_in_x(found, x, peak / bandwidth)


@lru_cache(maxsize=1024)
def solve_crossover(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> Crossover:
    """Solve FLOPs/peak = bytes/bandwidth for x exactly (pure, so cached: keys repeat setups).

    g = FLOPs·β − bytes·π is read as a polynomial in x, on sympy's sparse polynomial
    rings when FLOPs and bytes are polynomials (every built-in operator) and through
    sympy's ``Poly`` otherwise; one decision tree then reads the status off its
    coefficients (tests/test_algebra.py checks the two readings agree on every field).

    >>> B, D = sp.symbols("B D", positive=True, integer=True)
    >>> solve_crossover(2*B*D, B + D, 3, 1, B).exact
    3*D/(2*D - 3)
    """
    return _solve(flops, bytes_, peak, bandwidth, x)
