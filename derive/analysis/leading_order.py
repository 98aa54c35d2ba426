"""The leading order of a ratio (an intensity) under an asymptotic regime.

The leading order is computed by a one-parameter scaling: every growing dim g
becomes t·g, and the ratio of the highest powers of t in numerator and
denominator is kept (sympy's multivariate ``O()`` is not reliable for this).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.algebra.ratios import cancel_ratio
from derive.analysis.algebra.rings import expand
from derive.catalogue import table as q
from derive.errors import RegimeError
from derive.problem.regime import Regime

_T = sp.Symbol("t", positive=True)


@dataclass(frozen=True)
class LeadingOrder:
    """Leading order of a ratio under a regime, with the terms kept and dropped."""

    numerator: sp.Expr
    denominator: sp.Expr
    kept_num: tuple[sp.Expr, ...]
    dropped_num: tuple[sp.Expr, ...]
    kept_den: tuple[sp.Expr, ...]
    dropped_den: tuple[sp.Expr, ...]
    num_order: sp.Rational
    den_order: sp.Rational

    @property
    def ratio(self) -> sp.Expr:
        """The leading-order ratio, cancelled."""
        return cancel_ratio(self.numerator, self.denominator)


def _monomial_orders(term: sp.Expr, growing: frozenset) -> set | None:
    """Powers of t in ``term`` with every growing dim scaled by t, read off the monomials.

    None when a monomial is not a product of numbers and integer powers of symbols.
    """
    orders = set()
    for mono in sp.Add.make_args(term):
        order = 0
        for factor in sp.Mul.make_args(mono):
            if factor.is_Number:
                continue
            if factor.is_Symbol:
                order += factor in growing
            elif factor.is_Pow and factor.base.is_Symbol and factor.exp.is_Integer:
                order += int(factor.exp) if factor.base in growing else 0
            else:
                return None
        orders.add(sp.Integer(order))
    return orders


def _split_by_order(
    terms: tuple[sp.Expr, ...], growing: tuple[sp.Symbol, ...], what: str
) -> tuple[sp.Expr, tuple[sp.Expr, ...], tuple[sp.Expr, ...]] | None:
    """The highest order of t among ``terms``, the terms of that order and the rest.

    None when a term mixes orders (the caller then splits the expanded monomials).
    """
    scale = {dim: _T * dim for dim in growing}
    grow = frozenset(growing)
    orders = []
    for term in terms:
        orders_of_term = _monomial_orders(term, grow)
        if orders_of_term is not None:
            if len(orders_of_term) != 1:
                return None
            orders.append(orders_of_term.pop())
            continue
        orders_of_term = set()
        for part in sp.Add.make_args(sp.expand(term.subs(scale, simultaneous=True))):
            coeff, power = part.as_coeff_exponent(_T)
            if coeff.has(_T) or not power.is_Rational:
                raise RegimeError(
                    what, f"term {term} does not scale as a power of the growing dims"
                )
            orders_of_term.add(power)
        if len(orders_of_term) != 1:
            return None
        orders.append(orders_of_term.pop())
    top = max(orders)
    kept = tuple(term for term, order in zip(terms, orders) if order == top)
    dropped = tuple(term for term, order in zip(terms, orders) if order != top)
    return top, kept, dropped


def _terms(expr_or_terms: sp.Expr | tuple[sp.Expr, ...]) -> tuple[sp.Expr, ...]:
    if isinstance(expr_or_terms, (tuple, list)):
        return tuple(term for term in expr_or_terms if term != 0)
    return sp.Add.make_args(expand(expr_or_terms))


def leading_order(
    numerator: sp.Expr | tuple[sp.Expr, ...],
    denominator: sp.Expr | tuple[sp.Expr, ...],
    regime: Regime,
    what: str = q.INTENSITY.prose,
) -> LeadingOrder:
    """Leading order of numerator/denominator as the regime's growing dims scale together.

    ``numerator`` and ``denominator`` are expressions or tuples of terms (per-tensor
    byte terms stay whole, so the solution can name which tensor's bytes are dropped).
    """
    parts = []
    where = f"regime {regime.text!r} for {what}"
    for side in (numerator, denominator):
        terms = _terms(side)
        split = _split_by_order(terms, regime.growing, where)
        if split is None:  # a per-tensor term mixes orders: fall back to expanded monomials
            split = _split_by_order(_terms(sp.Add(*terms)), regime.growing, where)
        if split is None:  # a monomial has one order, so this is only a guard
            raise RegimeError(where, "a term does not scale as one power of the growing dims")
        parts.append(split)
    (n_order, n_kept, n_drop), (d_order, d_kept, d_drop) = parts
    return LeadingOrder(
        sp.Add(*n_kept), sp.Add(*d_kept), n_kept, n_drop, d_kept, d_drop, n_order, d_order
    )
