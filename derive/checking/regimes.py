"""Candidate regimes built from an operator's dims, to say under which one a claim is right.

The leading order depends only on which dims grow, so one regime is tried per
set of growing dims, written the way a person would: ``B << D, F`` (one dim
fixed, the rest grow), ``B >> D, F`` (one dim grows), then larger splits, and
``B, D, F >> 1`` (everything grows).
"""

from __future__ import annotations

from itertools import combinations

import sympy as sp

from derive.errors import RegimeError
from derive.problem.regime import Regime, parse_regime

MAX_CANDIDATE_DIMS = 7
"""Operators with more dims are tried with single-dim splits only."""


def _text(growing: tuple[sp.Symbol, ...], fixed: tuple[sp.Symbol, ...]) -> str:
    grow = ", ".join(s.name for s in growing)
    if not fixed:
        return f"{grow} >> 1"
    keep = ", ".join(s.name for s in fixed)
    if len(fixed) <= len(growing):
        return f"{keep} << {grow}"
    return f"{grow} >> {keep}"


def _growing_sets(dims: tuple[sp.Symbol, ...]) -> list[tuple[sp.Symbol, ...]]:
    n = len(dims)
    out: list[tuple[sp.Symbol, ...]] = []
    out += [tuple(d for d in dims if d != x) for x in dims] if n > 1 else []  # X << rest
    out += [(x,) for x in dims]  # X >> rest
    if n <= MAX_CANDIDATE_DIMS:
        for size in range(2, n - 1):
            out += list(combinations(dims, size))
    out.append(tuple(dims))
    return list(dict.fromkeys(out))


def candidate_regimes(dims: tuple[sp.Symbol, ...], skip: Regime | None = None) -> list[Regime]:
    """Regimes to try, most natural first, one per set of growing dims (``skip``'s set left out).

    >>> B, D, F = sp.symbols("B D F", positive=True, integer=True)
    >>> [r.text for r in candidate_regimes((B, D, F))][:4]
    ['B << D, F', 'D << B, F', 'F << B, D', 'B >> D, F']
    """
    out = []
    for growing in _growing_sets(tuple(dims)):
        if skip is not None and set(growing) == set(skip.growing):
            continue
        fixed = tuple(d for d in dims if d not in growing)
        try:
            out.append(parse_regime(_text(growing, fixed), tuple(dims)))
        except RegimeError:  # pragma: no cover - the texts are built to parse
            continue
    return out
