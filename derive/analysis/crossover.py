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
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy as sp
from sympy.polys.rings import PolyElement

from derive.analysis.algebra import (
    cancel_ratio,
    factor,
    gens_of,
    ring_of,
    to_expr,
    to_fraction,
    to_poly,
)

__all__ = [
    "ALWAYS",
    "CROSSES",
    "NEVER",
    "UNDETERMINED",
    "Crossover",
    "reduced_parts",
    "sign_on_positive",
    "solve_crossover",
]

CROSSES, NEVER, ALWAYS, UNDETERMINED = "crosses", "never", "always", "undetermined"


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
    """

    status: str
    variable: sp.Symbol
    g: sp.Expr
    exact: sp.Expr | None = None
    min_compute_bound: int | None = None
    condition: sp.Expr | None = None
    supremum: sp.Expr | None = None
    supremum_all: sp.Expr | None = None
    note: str = ""

    @property
    def is_number(self) -> bool:
        """True when the crossover is a number (not a formula in other dims)."""
        return self.exact is not None and self.exact.is_number


@lru_cache(maxsize=4096)
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
        coeffs = [c for c, _ in (t.as_coeff_Mul() for t in sp.Add.make_args(part))]
        if not all(c.is_number for c in coeffs):
            return None
        if all(c > 0 for c in coeffs):
            signs.append(1)
        elif all(c < 0 for c in coeffs):
            signs.append(-1)
        else:
            return None
    return signs[0] * signs[1]


@lru_cache(maxsize=2048)
def reduced_parts(num: sp.Expr, den: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """num/den in lowest terms when the reduced denominator is provably positive.

    Cancelling common factors (e.g. B·F in a sharded matmul) lets the crossover be
    solved as a number; without a provably positive denominator, the sign of
    num·β − den·π would not be the sign of I − ridge, so the original pair is kept.
    """
    n, d = sp.fraction(cancel_ratio(num, den))
    dp = to_poly(d, ring_of(gens_of(d)))
    sign = (
        sign_on_positive(d) if dp is None else _ring_sign(dp)
    )  # the same rule, on the ring when it can
    return (n, d) if sign == 1 else (num, den)


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
    rest = tuple(sorted(sup.free_symbols, key=lambda s: s.name))
    if not rest:
        return sup, None
    t = sp.Symbol("t", positive=True)
    n2, d2 = (
        sp.Poly(sp.expand(e.subs({s: t * s for s in rest}, simultaneous=True)), t)
        for e in sp.fraction(sup)
    )
    if n2.degree() > d2.degree():
        return sup, None
    return sup, (sp.cancel(n2.LC() / d2.LC()) if n2.degree() == d2.degree() else sp.Integer(0))


def _decide(g: sp.Expr, x: sp.Symbol, roots: list, compute_bound, ceil, exact) -> Crossover:
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
    probes = [(lo + hi) / 2 for lo, hi in itertools.pairwise(cuts)] + [cuts[-1] + 1]
    bound = [compute_bound(p) for p in probes]  # compute-bound on each open interval
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
        n = max(1, ceil(roots[-1]))
        while n > 1 and compute_bound(
            n - 1
        ):  # only at integer roots where g touches zero: finitely many
            n -= 1
        return Crossover(CROSSES, x, g, exact=exact(roots[-1]), min_compute_bound=n)
    ranges = [
        (lo, hi) for lo, hi, b in zip(cuts, cuts[1:] + [None], bound) if b
    ]  # closed, hi None is ∞
    shown = ", ".join(
        ("(0" if lo == zero else f"[{exact(lo)}") + (", ∞)" if hi is None else f", {exact(hi)}]")
        for lo, hi in ranges
    )
    found = [(max(1, ceil(lo)), lo) for lo, hi in ranges if hi is None or max(1, ceil(lo)) <= hi]
    if not found:
        return Crossover(
            NEVER, x, g, note=f"compute-bound only for {x} in {shown}, which holds no integer ≥ 1"
        )
    n, lo = found[0]
    return Crossover(
        CROSSES,
        x,
        g,
        exact=exact(lo),
        min_compute_bound=n,
        note=f"compute-bound only for {x} in {shown}",
    )


def _numeric(g: sp.Expr, x: sp.Symbol, poly: sp.Poly) -> Crossover:
    """The crossover of a numeric polynomial g (any real roots, rational or not)."""
    roots = sorted({r for r in poly.real_roots() if r > 0}, key=lambda r: sp.N(r, 30))
    return _decide(g, x, roots, lambda v: bool(g.subs(x, v) >= 0), _ceil, lambda r: r)


def _by_power(gp: PolyElement, i: int) -> list[PolyElement]:
    """Coefficients of ``gp`` in its i-th generator, highest power first (like ``Poly.all_coeffs``)."""
    parts: dict[int, dict] = {}
    for mon, c in gp.items():
        parts.setdefault(mon[i], {})[mon[:i] + (0,) + mon[i + 1 :]] = c
    return [gp.ring.from_dict(parts.get(k, {})) for k in range(max(parts), -1, -1)]


def _ring_sign(p: PolyElement) -> int | None:
    """:func:`sign_on_positive` of a polynomial held in a ring."""
    if not p:
        return 0
    if all(c > 0 for c in p.values()):
        return 1
    if all(c < 0 for c in p.values()):
        return -1
    return None


def _horner(coeffs: list[Fraction], v: Fraction) -> Fraction:
    out = Fraction(0)
    for c in coeffs:
        out = out * v + c
    return out


def _numeric_fast(g: sp.Expr, x: sp.Symbol, coeffs: list[PolyElement]) -> Crossover:
    """:func:`_numeric` for a polynomial with rational coefficients and rational positive roots."""
    qs = [
        to_fraction(c.LC) if c else Fraction(0) for c in coeffs
    ]  # each coefficient is a constant here
    if len(qs) == 2:
        roots = [-qs[1] / qs[0]]
    else:
        poly = sp.Poly.from_list([sp.Rational(q.numerator, q.denominator) for q in qs], x)
        found = poly.real_roots()
        if not all(r.is_Rational for r in found):
            return _numeric(g, x, poly)
        roots = [Fraction(int(r.p), int(r.q)) for r in found]
    roots = sorted({r for r in roots if r > 0})
    return _decide(
        g,
        x,
        roots,
        lambda v: _horner(qs, Fraction(v)) >= 0,
        math.ceil,
        lambda q: sp.Rational(q.numerator, q.denominator),
    )


def _top(p: PolyElement, idx: list[int]) -> tuple[int, PolyElement]:
    """The total degree of ``p`` in the generators ``idx`` and its part of that degree."""
    deg = max(sum(m[i] for i in idx) for m in p)
    return deg, p.ring.from_dict({m: c for m, c in p.items() if sum(m[i] for i in idx) == deg})


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
    rest = [i for i, s in enumerate(F.ring.symbols) if s in sup.free_symbols]
    if not rest:
        return sup, None
    sn, sd = ln.cancel(ld)
    (d2n, l2n), (d2d, l2d) = _top(sn, rest), _top(sd, rest)
    if d2n > d2d:
        return sup, None
    return sup, (cancel_ratio(to_expr(l2n), to_expr(l2d)) if d2n == d2d else sp.Integer(0))


@lru_cache(maxsize=1024)
def solve_crossover(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> Crossover:
    """Solve FLOPs/peak = bytes/bandwidth for x exactly (pure, so cached: keys repeat setups).

    Polynomial FLOPs and bytes (every built-in operator) are solved on sympy's sparse
    polynomial rings; anything else goes through :func:`_solve_general`.

    >>> B, D = sp.symbols("B D", positive=True, integer=True)
    >>> solve_crossover(2*B*D, B + D, 3, 1, B).exact
    3*D/(2*D - 3)
    """
    peak, bandwidth = (sp.Rational(v) if isinstance(v, int) else v for v in (peak, bandwidth))
    R = ring_of(gens_of(flops, bytes_, x))
    F, G = to_poly(flops, R), to_poly(bytes_, R)
    if F is None or G is None or not (peak.is_Rational and bandwidth.is_Rational) or not G:
        return _solve_general(flops, bytes_, peak, bandwidth, x)
    gp = F * to_poly(bandwidth, R) - G * to_poly(peak, R)
    g = to_expr(gp)
    if not gp:
        return Crossover(
            ALWAYS,
            x,
            g,
            min_compute_bound=1,
            note="compute and memory time are equal for every value",
        )
    xi = R.symbols.index(x)
    coeffs = _by_power(gp, xi)
    signs = [_ring_sign(c) for c in coeffs]
    if all(s is not None and s <= 0 for s in signs):
        sup, sup_all = _supremum_ring(F, G, xi) if F else _supremum(flops / bytes_, x)
        return Crossover(NEVER, x, g, supremum=sup, supremum_all=sup_all)
    if all(s is not None and s >= 0 for s in signs):
        return Crossover(ALWAYS, x, g, min_compute_bound=1)
    if all(c.is_ground for c in coeffs):
        return _numeric_fast(g, x, coeffs)
    degree = len(coeffs) - 1
    if degree == 0:
        cond = to_expr(coeffs[0]).as_content_primitive()[1]
        return Crossover(
            UNDETERMINED,
            x,
            g,
            condition=cond,
            note=f"{x} drops out: compute-bound for every {x} exactly when {cond} ≥ 0, which depends on the other dims",
        )
    if degree == 1:
        c1, c0 = (to_expr(c) for c in coeffs)
        exact = factor(cancel_ratio(-c0, c1))
        if signs[1] == -1 and signs[0] in (1, None):
            return Crossover(
                CROSSES,
                x,
                g,
                exact=exact,
                condition=None if signs[0] == 1 else c1.as_content_primitive()[1],
            )
        return Crossover(
            UNDETERMINED,
            x,
            g,
            exact=exact,
            note="whether the root is positive depends on the other dims; bind them with --set",
        )
    return Crossover(
        UNDETERMINED,
        x,
        g,
        note=f"degree {degree} in {x} with unbound dims; bind them with --set to solve exactly",
    )


def _solve_general(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol
) -> Crossover:
    """The same solve through sympy's general functions, for inputs that are not polynomials."""
    g = sp.expand(flops * bandwidth - bytes_ * peak)
    intensity = flops / bytes_
    if g == 0:
        return Crossover(
            ALWAYS,
            x,
            g,
            min_compute_bound=1,
            note="compute and memory time are equal for every value",
        )
    try:
        poly = sp.Poly(g, x)
    except sp.PolynomialError:
        return Crossover(UNDETERMINED, x, g, note=f"FLOPs·β − bytes·π is not a polynomial in {x}")
    coeffs = poly.all_coeffs()
    signs = [sign_on_positive(c) for c in coeffs]
    if all(s is not None and s <= 0 for s in signs):
        sup, sup_all = _supremum(intensity, x)
        return Crossover(NEVER, x, g, supremum=sup, supremum_all=sup_all)
    if all(s is not None and s >= 0 for s in signs):
        return Crossover(ALWAYS, x, g, min_compute_bound=1)
    if not (g.free_symbols - {x}):
        return _numeric(g, x, poly)
    if poly.degree() == 0:
        cond = coeffs[0].as_content_primitive()[1]
        return Crossover(
            UNDETERMINED,
            x,
            g,
            condition=cond,
            note=f"{x} drops out: compute-bound for every {x} exactly when {cond} ≥ 0, which depends on the other dims",
        )
    if poly.degree() == 1:
        c1, c0 = coeffs
        exact = sp.factor(sp.cancel(-c0 / c1))
        if signs[1] == -1 and signs[0] in (1, None):
            return Crossover(
                CROSSES,
                x,
                g,
                exact=exact,
                condition=None if signs[0] == 1 else c1.as_content_primitive()[1],
            )
        return Crossover(
            UNDETERMINED,
            x,
            g,
            exact=exact,
            note="whether the root is positive depends on the other dims; bind them with --set",
        )
    return Crossover(
        UNDETERMINED,
        x,
        g,
        note=f"degree {poly.degree()} in {x} with unbound dims; bind them with --set to solve exactly",
    )
