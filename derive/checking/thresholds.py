"""Exact answers: a claim of the smallest compute-bound integer, or of a count, judged exactly.

A crossover is a real number (``B* = 4925/41 ≈ 120.12``), judged within the tolerance; the
smallest integer at which the operator is compute-bound is an integer (121), and a claim
that states it (``B \\geq 121``, ``B > 120``) is right only when it states that integer:
``B \\geq 120`` is wrong however close 120 is to 120.12, because at B = 120 the intensity is
below the ridge point. The reason is computed, not asserted: the intensity at the integer
the claim names, against the ridge.

A count defined by a floor or a ceiling (``max_batch``, ``min_devices``, ``max_context``;
the catalogue row's :class:`~derive.catalogue.Exactness` is ``COUNT``) is judged the same
way: only the exact integer is right.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.checking.diagnosis_text import approx, exact_decimal
from derive.formula.answer import Relation


@dataclass(frozen=True)
class Edge:
    """Where a crossing's integer threshold is decided: the intensity in ``variable``, the ridge."""

    variable: sp.Symbol
    intensity: sp.Expr
    ridge: sp.Expr

    def at(self, n: int) -> sp.Expr:
        """The intensity at ``variable = n``."""
        return sp.nsimplify(self.intensity.subs(self.variable, n))


def stated_threshold(value: sp.Basic, relation: Relation) -> int | None:
    """The smallest integer an order claim says is compute-bound, or None.

    ``B \\geq 121`` states 121 and ``B > 120`` states 121; a claim that is not an integer
    (``B > 120.12``: the real crossover) or not an order states none.

    >>> stated_threshold(sp.Integer(120), Relation.GREATER)
    121
    >>> stated_threshold(sp.Rational(12012, 100), Relation.GREATER) is None
    True
    """
    if not isinstance(value, sp.Expr) or not value.is_Integer:
        return None
    if relation is Relation.GREATER_EQUAL:
        return int(value)
    if relation is Relation.GREATER:
        return int(value) + 1
    return None


def threshold_reason(
    stated: int, threshold: int, edge: Edge | None, relation: Relation, claimed: sp.Expr
) -> tuple[str, str]:
    """Why ``stated`` is not the smallest compute-bound integer: (with numbers, without).

    The first names the intensity at the edge and the ridge; the second says only on
    which side the claim lies (for ``--hide-expected``).
    """
    var = str(edge.variable) if edge is not None else "B"
    says = f"{var} {relation.value} {claimed}"
    if stated < threshold:
        hidden = (
            f"{says} is too small: at {var} = {stated} the intensity is still below the ridge "
            f"point, so {var} = {stated} is memory-bound"
        )
        at, side = stated, "below"
    else:
        hidden = (
            f"{says} is too large: {var} = {stated - 1} is already compute-bound, so "
            f"{stated} is not the smallest compute-bound {var}"
        )
        at, side = stated - 1, "at or above"
    if edge is None:
        return f"{hidden} — the smallest compute-bound integer is {threshold}", hidden
    said = (
        f"{hidden} — at {var} = {at} the intensity {approx(edge.at(at))} is {side} the ridge "
        f"point {approx(edge.ridge)}; the smallest compute-bound integer is {threshold}"
    )
    return said, hidden


def count_reason(label: str, claimed: sp.Expr, exact: sp.Expr) -> tuple[str, str]:
    """Why an integer count is wrong however near: (with the answer, without)."""
    side = "too large" if claimed > exact else "too small"
    hidden = f"the {label} is an integer, judged exactly (no tolerance): {exact_decimal(claimed)} is {side}"
    return f"{hidden} — the exact {label} is {exact}", hidden
