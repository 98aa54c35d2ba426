"""Size suffixes people write after a count: ``8B`` parameters, ``15T`` tokens, ``2.1 billion`` FLOPs.

A scale is a word (``thousand``, ``million``, ``billion``, ``trillion``) or a letter
(``K``/``k``, ``M``, ``B``/``bn``, ``T``) right after a number, optionally followed by a
unit (``1.2 trillion tokens``, ``215K tok/s``). Every factor is an exact power of ten.

The letters collide with symbols (``B`` is a batch dim and the byte unit), so whether a
letter may be read as a scale is the caller's decision (:mod:`derive.checking.scales`);
this module only finds the suffix. Nothing is evaluated: a table lookup on a matched
pattern.

>>> found = split_scale("8B")
>>> found.number, found.scale.factor, found.rest
('8', 1000000000, '')
>>> split_scale("2 billion FLOPs").rest
'FLOPs'
>>> split_scale("2BDF") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Scale:
    """One size suffix: how it was spelled, its name, its exact factor, whether it is a letter.

    Attributes:
        text: as written (``B``, ``bn``, ``billion``).
        name: the word it stands for (``billion``).
        factor: the exact factor (``10**9``).
        letter: True for a one- or two-letter suffix (it may collide with a symbol).
    """

    text: str
    name: str
    factor: sp.Integer
    letter: bool


_WORDS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_LETTERS = {"K": 3, "k": 3, "M": 6, "B": 9, "bn": 9, "Bn": 9, "T": 12}
_NAME_OF = {k: w for w, k in _WORDS.items()}
SCALES: dict[str, Scale] = {
    **{w: Scale(w, w, sp.Integer(10) ** k, False) for w, k in _WORDS.items()},
    **{s: Scale(s, _NAME_OF[k], sp.Integer(10) ** k, True) for s, k in _LETTERS.items()},
}
"""Every suffix read, by its spelling (words in lower case)."""

_SUFFIX = "|".join(
    sorted((re.escape(s) for s in _LETTERS), key=len, reverse=True) + [f"(?i:{w})" for w in _WORDS]
)
_PATTERN = re.compile(
    r"^\s*(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*"
    rf"(?P<suffix>{_SUFFIX})(?![A-Za-z0-9_])\s*(?P<rest>.*?)\s*$"
)


@dataclass(frozen=True)
class ScaleFound:
    """A number followed by a scale: the number's text, the scale, and what follows (a unit or "")."""

    number: str
    scale: Scale
    rest: str


def split_scale(value: str) -> ScaleFound | None:
    """The number, scale and rest of ``value`` when it is ``<number> <scale> [rest]``, else None.

    ``rest`` is not checked here (the caller reads it as a unit, or refuses the reading).
    """
    m = _PATTERN.match(value)
    if m is None:
        return None
    suffix = m.group("suffix")
    scale = SCALES.get(suffix) or SCALES[suffix.lower()]
    if not scale.letter:
        scale = Scale(suffix, scale.name, scale.factor, False)
    return ScaleFound(m.group("number"), scale, m.group("rest"))
