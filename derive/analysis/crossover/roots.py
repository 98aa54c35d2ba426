"""The crossover when g = FLOPs·β − bytes·π has numbers for coefficients: from its roots.

Rational coefficients with rational roots (every built-in operator) stay in exact
Fractions; any other root goes through sympy. g keeps its sign between roots, so one
probe per interval decides where it is compute-bound.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp

from derive.analysis.crossover.records import ALWAYS, CROSSES, NEVER, Crossover


def _ceil(value: sp.Expr) -> int:
    if value.is_Rational:
        return math.ceil(Fraction(int(value.p), int(value.q)))
    return int(sp.ceiling(value))


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
        note = "the intensity touches the ridge only at isolated points" if roots else ""
        return Crossover(NEVER, x, g, note=note)
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


def _horner(coefficients: list[Fraction], value: Fraction) -> Fraction:
    out = Fraction(0)
    for coefficient in coefficients:
        out = out * value + coefficient
    return out


def numeric_crossover(g: sp.Expr, x: sp.Symbol, coefficients: tuple[sp.Expr, ...]) -> Crossover:
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
    """:func:`numeric_crossover` for any real roots (irrational ones too), through sympy."""
    roots = sorted(
        {root for root in sp.Poly(g, x).real_roots() if root > 0}, key=lambda root: sp.N(root, 30)
    )
    return _decide(g, x, roots, lambda value: bool(g.subs(x, value) >= 0), _ceil, lambda root: root)
