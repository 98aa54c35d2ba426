"""What the coefficients of a polynomial prove over positive dims: its sign, and the
supremum of a ratio (the largest intensity of a ``never`` crossover).

A polynomial in positive variables whose coefficients are all ≤ 0 is ≤ 0 everywhere:
signs are read off coefficients, never sampled.
"""

from __future__ import annotations

import sympy as sp
from sympy.polys.rings import PolyElement

from derive.analysis.algebra.ratios import cancel_ratio
from derive.analysis.algebra.rings import to_expr


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


def coefficients_by_power(poly: PolyElement, index: int) -> list[PolyElement]:
    """Coefficients of ``gp`` in its i-th generator, highest power first (like ``Poly.all_coeffs``)."""
    parts: dict[int, dict] = {}
    for monomial, coefficient in poly.items():
        parts.setdefault(monomial[index], {})[monomial[:index] + (0,) + monomial[index + 1 :]] = (
            coefficient
        )
    return [poly.ring.from_dict(parts.get(power, {})) for power in range(max(parts), -1, -1)]


def ring_sign(poly: PolyElement) -> int | None:
    """:func:`sign_on_positive` of a polynomial held in a ring."""
    if not poly:
        return 0
    if all(coefficient > 0 for coefficient in poly.values()):
        return 1
    if all(coefficient < 0 for coefficient in poly.values()):
        return -1
    return None


def supremum_of(intensity: sp.Expr, x: sp.Symbol) -> tuple[sp.Expr | None, sp.Expr | None]:
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


def supremum_on_ring(
    F: PolyElement, G: PolyElement, xi: int
) -> tuple[sp.Expr | None, sp.Expr | None]:
    """:func:`supremum_of` of F/G on the ring: lim as x → ∞, then as every other dim grows too."""
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
