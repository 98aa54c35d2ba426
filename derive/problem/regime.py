"""Asymptotic regimes: which dims grow and which stay fixed.

Grammar (dims are the operator's)::

    A, B << C, D     C and D grow while A and B stay fixed
    A >> C           A grows while C stays fixed
    A -> oo          A grows
    A, C >> 1        A and C grow

The leading order under a regime is :mod:`derive.analysis.leading_order`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.errors import RegimeError

REGIME_FACTOR = 10  # "A << C" is taken to hold when 10·A ≤ C; "A >> 1" when A ≥ 10
MAX_REGIME_CHARS = 200
_NAMES = r"[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*"
_REGIME = re.compile(rf"^\s*({_NAMES})\s*(<<|>>|->|≪|≫|→)\s*({_NAMES}|1|oo|∞|inf)\s*$")


@dataclass(frozen=True)
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
        return f"{grow} {verb}" + (
            f" while {fixed} {'stays' if len(self.fixed) == 1 else 'stay'} fixed" if fixed else ""
        )


def _dims_of(names: str, known: dict[str, sp.Symbol], text: str) -> tuple[sp.Symbol, ...]:
    out = []
    for name in (n.strip() for n in names.split(",")):
        if name not in known:
            raise RegimeError(
                f"regime {text!r}",
                f"unknown dim {name!r}; the operator's dims are {', '.join(known)}",
            )
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
    match = _REGIME.match(text)
    if not match:
        raise RegimeError(
            f"regime {text!r}",
            "not a regime; write 'A, B << C, D', 'A >> C', 'A -> oo' or 'A, C >> 1' with the operator's dims",
        )
    known = {d.name: d for d in dims}
    left, rel, right = match.group(1), match.group(2), match.group(3)
    rel = {"≪": "<<", "≫": ">>", "→": "->"}.get(rel, rel)
    to_one = right in ("1", "oo", "∞", "inf")
    if rel == "<<":
        if to_one:
            raise RegimeError(
                f"regime {text!r}", "'A << 1' is not a growth regime; write 'A >> C' or 'C -> oo'"
            )
        small, large = _dims_of(left, known, text), _dims_of(right, known, text)
        growing, fixed = large, small
        pairs = tuple((s, g) for s in small for g in large)
    elif rel == ">>":
        large = _dims_of(left, known, text)
        small = () if to_one else _dims_of(right, known, text)
        growing, fixed = large, small
        pairs = tuple((s, g) for s in (small or (None,)) for g in large)
    else:
        if not to_one:
            raise RegimeError(f"regime {text!r}", "'->' is followed by oo (infinity)")
        growing, fixed = _dims_of(left, known, text), ()
        pairs = tuple((None, g) for g in growing)
    if set(growing) & set(fixed):
        raise RegimeError(f"regime {text!r}", "a dim cannot both grow and stay fixed")
    return Regime(text.strip(), growing, fixed, pairs)
