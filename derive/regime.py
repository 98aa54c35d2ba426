"""Asymptotic regimes: which dims grow, and the leading-order intensity.

Grammar (dims are the operator's)::

    A, B << C, D     C and D grow while A and B stay fixed
    A >> C           A grows while C stays fixed
    A -> oo          A grows
    A, C >> 1        A and C grow

The leading order is computed by a one-parameter scaling: every growing dim g
becomes t·g, and the ratio of the highest powers of t in numerator and
denominator is kept (sympy's multivariate ``O()`` is not reliable for this).
"""

from __future__ import annotations

import re
from functools import lru_cache

import sympy as sp

from .algebra import cancel_ratio, expand
from .errors import RegimeError
from .record import frozen

__all__ = ["Regime", "parse_regime", "LeadingOrder", "leading_order", "REGIME_FACTOR"]

REGIME_FACTOR = 10  # "A << C" is taken to hold when 10·A ≤ C; "A >> 1" when A ≥ 10
MAX_REGIME_CHARS = 200
_NAMES = r"[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*"
_REGIME = re.compile(rf"^\s*({_NAMES})\s*(<<|>>|->|≪|≫|→)\s*({_NAMES}|1|oo|∞|inf)\s*$")
_T = sp.Symbol("t", positive=True)


@frozen
class Regime:
    """A parsed regime: the dims that grow, the ones held fixed, and the pairs to check."""

    text: str
    growing: tuple[sp.Symbol, ...]
    fixed: tuple[sp.Symbol, ...]
    pairs: tuple[tuple[sp.Symbol | None, sp.Symbol], ...]  # (small, large); small None means 1

    @property
    def pretty(self) -> str:
        """The regime with unicode relations (``B ≪ D, F``), for prose."""
        out = self.text
        for a, b in (("<<", "≪"), (">>", "≫"), ("->", "→"), ("oo", "∞")):
            out = out.replace(a, b)
        return out

    def describe(self) -> str:
        """A sentence: which dims grow and which stay fixed."""
        grow = ", ".join(map(str, self.growing))
        fixed = ", ".join(map(str, self.fixed))
        verb = "grows" if len(self.growing) == 1 else "grow"
        return f"{grow} {verb}" + (f" while {fixed} {'stays' if len(self.fixed) == 1 else 'stay'} fixed" if fixed else "")


def _dims_of(names: str, known: dict[str, sp.Symbol], text: str) -> tuple[sp.Symbol, ...]:
    out = []
    for name in (n.strip() for n in names.split(",")):
        if name not in known:
            raise RegimeError(f"regime {text!r}", f"unknown dim {name!r}; the operator's dims are {', '.join(known)}")
        out.append(known[name])
    return tuple(dict.fromkeys(out))


def parse_regime(text: str, dims: tuple[sp.Symbol, ...]) -> Regime:
    """Parse a regime over the operator's ``dims``.

    >>> B, D, F = __import__("derive").dims("B D F")
    >>> parse_regime("B << D, F", (B, D, F)).growing
    (D, F)
    """
    if not isinstance(text, str) or len(text) > MAX_REGIME_CHARS:
        raise RegimeError("regime", f"must be text of at most {MAX_REGIME_CHARS} characters")
    m = _REGIME.match(text)
    if not m:
        raise RegimeError(
            f"regime {text!r}",
            "not a regime; write 'A, B << C, D', 'A >> C', 'A -> oo' or 'A, C >> 1' with the operator's dims",
        )
    known = {d.name: d for d in dims}
    left, rel, right = m.group(1), m.group(2), m.group(3)
    rel = {"≪": "<<", "≫": ">>", "→": "->"}.get(rel, rel)
    to_one = right in ("1", "oo", "∞", "inf")
    if rel == "<<":
        if to_one:
            raise RegimeError(f"regime {text!r}", "'A << 1' is not a growth regime; write 'A >> C' or 'C -> oo'")
        small, large = _dims_of(left, known, text), _dims_of(right, known, text)
        growing, fixed = large, small
        pairs = tuple((s, g) for s in small for g in large)
    elif rel == ">>":
        large = _dims_of(left, known, text)
        small = () if to_one else _dims_of(right, known, text)
        growing, fixed = large, small
        pairs = tuple((s, g) for s in small for g in large) if small else tuple((None, g) for g in large)
    else:
        if not to_one:
            raise RegimeError(f"regime {text!r}", "'->' is followed by oo (infinity)")
        growing, fixed = _dims_of(left, known, text), ()
        pairs = tuple((None, g) for g in growing)
    if set(growing) & set(fixed):
        raise RegimeError(f"regime {text!r}", "a dim cannot both grow and stay fixed")
    return Regime(text.strip(), growing, fixed, pairs)


@frozen
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
        for f in sp.Mul.make_args(mono):
            if f.is_Number:
                continue
            if f.is_Symbol:
                order += f in growing
            elif f.is_Pow and f.base.is_Symbol and f.exp.is_Integer:
                order += int(f.exp) if f.base in growing else 0
            else:
                return None
        orders.add(sp.Integer(order))
    return orders


def _split_by_order(terms: tuple[sp.Expr, ...], growing: tuple[sp.Symbol, ...], what: str):
    scale = {g: _T * g for g in growing}
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
                raise RegimeError(what, f"term {term} does not scale as a power of the growing dims")
            orders_of_term.add(power)
        if len(orders_of_term) != 1:
            return None
        orders.append(orders_of_term.pop())
    top = max(orders)
    kept = tuple(t for t, o in zip(terms, orders) if o == top)
    dropped = tuple(t for t, o in zip(terms, orders) if o != top)
    return top, kept, dropped


def _terms(expr_or_terms) -> tuple[sp.Expr, ...]:
    if isinstance(expr_or_terms, (tuple, list)):
        return tuple(t for t in expr_or_terms if t != 0)
    return sp.Add.make_args(expand(expr_or_terms))


@lru_cache(maxsize=1024)
def leading_order(numerator, denominator, regime: Regime, what: str = "intensity") -> LeadingOrder:
    """Leading order of numerator/denominator as the regime's growing dims scale together.

    ``numerator`` and ``denominator`` are expressions or tuples of terms (per-tensor
    byte terms stay whole, so the solution can name which tensor's bytes are dropped).
    """
    parts = []
    for side in (numerator, denominator):
        terms = _terms(side)
        split = _split_by_order(terms, regime.growing, f"regime {regime.text!r} for {what}")
        if split is None:  # a per-tensor term mixes orders: fall back to expanded monomials
            split = _split_by_order(_terms(sp.Add(*terms)), regime.growing, f"regime {regime.text!r} for {what}")
        parts.append(split)
    (n_order, n_kept, n_drop), (d_order, d_kept, d_drop) = parts
    return LeadingOrder(sp.Add(*n_kept), sp.Add(*d_kept), n_kept, n_drop, d_kept, d_drop, n_order, d_order)
