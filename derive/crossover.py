"""The crossover: where compute time equals memory (or link) time, solved exactly.

Compute-bound means T_math ≥ T_mem, i.e. FLOPs/π ≥ bytes/β, i.e.

    g(x) = FLOPs·β − bytes·π ≥ 0        (bytes > 0, so sign g = sign(I − π/β))

``g`` is a polynomial in the solved-for dim x whose coefficients are polynomials
in the other dims. Signs of those coefficients over positive dims decide the
status without sampling: a polynomial in positive variables whose coefficients
are all ≤ 0 is ≤ 0 everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction

import sympy as sp

__all__ = ["Crossover", "solve_crossover", "sign_on_positive", "CROSSES", "NEVER", "ALWAYS", "UNDETERMINED"]

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
    num, den = (expr, sp.Integer(1)) if expr.is_polynomial() else sp.fraction(sp.cancel(sp.together(expr)))
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


def _ceil(value: sp.Expr) -> int:
    if value.is_Rational:
        return math.ceil(Fraction(int(value.p), int(value.q)))
    return int(sp.ceiling(value))


def _min_integer(g: sp.Expr, x: sp.Symbol, root: sp.Expr) -> int:
    """Smallest integer n ≥ 1 with g(n) ≥ 0, starting from ceil(root), verified exactly."""
    n = max(1, _ceil(root))
    while n > 1 and g.subs(x, n - 1) >= 0:
        n -= 1
    while g.subs(x, n) < 0:
        n += 1
    return n


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
    n2, d2 = (sp.Poly(sp.expand(e.subs({s: t * s for s in rest}, simultaneous=True)), t) for e in sp.fraction(sup))
    if n2.degree() > d2.degree():
        return sup, None
    return sup, (sp.cancel(n2.LC() / d2.LC()) if n2.degree() == d2.degree() else sp.Integer(0))


def _numeric(g: sp.Expr, x: sp.Symbol, poly: sp.Poly) -> Crossover:
    roots = sorted({r for r in poly.real_roots() if r > 0}, key=lambda r: sp.N(r, 30))
    cuts = [sp.Integer(0)] + roots
    probes = [(a + b) / 2 for a, b in zip(cuts, cuts[1:])] + [cuts[-1] + 1]
    bound = [g.subs(x, p) >= 0 for p in probes]  # compute-bound on each open interval
    if not any(bound) and not roots:
        return Crossover(NEVER, x, g)
    if all(bound):
        return Crossover(ALWAYS, x, g, min_compute_bound=1)
    if bound[-1] and not any(bound[:-1][:1]) and bound.count(True) == 1:
        root = roots[-1]
        return Crossover(CROSSES, x, g, exact=root, min_compute_bound=_min_integer(g, x, root))
    if not any(bound):
        return Crossover(NEVER, x, g, note="the intensity touches the ridge only at isolated points")
    first = next(i for i, b in enumerate(bound) if b)
    root = cuts[first]
    return Crossover(
        CROSSES, x, g, exact=root, min_compute_bound=_min_integer(g, x, root),
        note=f"compute-bound only on part of the range: g changes sign at {', '.join(map(str, roots))}",
    )


@lru_cache(maxsize=1024)
def solve_crossover(flops: sp.Expr, bytes_: sp.Expr, peak: sp.Expr, bandwidth: sp.Expr, x: sp.Symbol) -> Crossover:
    """Solve FLOPs/peak = bytes/bandwidth for x exactly (pure, so cached: keys repeat setups).

    >>> B, D = sp.symbols("B D", positive=True, integer=True)
    >>> solve_crossover(2*B*D, B + D, 3, 1, B).exact
    3*D/(2*D - 3)
    """
    g = sp.expand(flops * bandwidth - bytes_ * peak)
    intensity = flops / bytes_
    if g == 0:
        return Crossover(ALWAYS, x, g, min_compute_bound=1, note="compute and memory time are equal for every value")
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
        return Crossover(UNDETERMINED, x, g, condition=cond,
                         note=f"{x} drops out: compute-bound for every {x} exactly when {cond} ≥ 0, which depends on the other dims")
    if poly.degree() == 1:
        c1, c0 = coeffs
        exact = sp.factor(sp.cancel(-c0 / c1))
        if signs[1] == -1 and signs[0] in (1, None):
            return Crossover(CROSSES, x, g, exact=exact, condition=None if signs[0] == 1 else c1.as_content_primitive()[1])
        return Crossover(UNDETERMINED, x, g, exact=exact, note="whether the root is positive depends on the other dims; bind them with --set")
    return Crossover(UNDETERMINED, x, g, note=f"degree {poly.degree()} in {x} with unbound dims; bind them with --set to solve exactly")
