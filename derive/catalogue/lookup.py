"""Reading the catalogue: a row by name, a kind's names for one use, spellings, suggestions.

>>> from derive.catalogue import ProblemKind, Use
>>> names_for(ProblemKind.KERNEL, Use.ASK)[:3]
('intensity', 'ridge', 'effective_ridge')
>>> quantity("t_comms").prose
'T_comms'
>>> did_you_mean("t_mth", names_for(ProblemKind.KERNEL, Use.ASK))
" (did you mean 't_math'?)"
"""

from __future__ import annotations

import difflib
from functools import cache

from derive.catalogue.kinds import ProblemKind
from derive.catalogue.records import At, Box, Quantity, Use
from derive.catalogue.table import QUANTITIES

_BY_NAME: dict[str, Quantity] = {row.name: row for row in QUANTITIES}


def find(name: str) -> Quantity | None:
    """The row named ``name``, or None."""
    return _BY_NAME.get(name)


def quantity(name: str) -> Quantity:
    """The row named ``name``.

    Raises:
        KeyError: no such quantity.
    """
    return _BY_NAME[name]


def _at(kind: ProblemKind, name: str) -> At | None:
    """The row named ``name`` in a problem of ``kind``, or None (no such row, or not there)."""
    row = find(name)
    return next((a for a in row.at if a.kind is kind), None) if row is not None else None


@cache
def rows_for(kind: ProblemKind, use: Use) -> tuple[Quantity, ...]:
    """The rows a problem of ``kind`` takes for ``use``, in the catalogue's order."""
    return tuple(row for row in QUANTITIES if use in row.uses(kind))


@cache
def names_for(kind: ProblemKind, use: Use) -> tuple[str, ...]:
    """The names a problem of ``kind`` takes for ``use`` (``ask`` keys, checked quantities …)."""
    return tuple(row.name for row in rows_for(kind, use))


def phrase_of(kind: ProblemKind, name: str) -> str:
    """What a question sheet asks for ``name`` in a problem of ``kind`` ("" when nothing)."""
    return at.phrase if (at := _at(kind, name)) else ""


@cache
def phrases(kind: ProblemKind) -> dict[str, str]:
    """Every ``ask`` of ``kind`` a question sheet words → its phrase, in the catalogue's order."""
    return {
        row.name: at.phrase for row in rows_for(kind, Use.ASK) if (at := row.in_kind(kind)).phrase
    }


def box_of(kind: ProblemKind, name: str) -> Box | None:
    """The answer box of ``name`` in a problem of ``kind`` (None: it has none there)."""
    return at.box if (at := _at(kind, name)) else None


def shown_by(kind: ProblemKind, ask: str) -> tuple[str, ...]:
    """The quantities whose answer boxes an ``ask`` shows in a problem of ``kind``."""
    if (at := _at(kind, ask)) is None:
        return ()
    return at.shows if at.shows is not None else (ask,) if Use.BOX in at.uses else ()


@cache
def spelling_map(*kinds: ProblemKind) -> dict[str, str]:
    """Every spelling of a quantity ``derive check`` judges in any of ``kinds`` → its name."""
    return {
        spelling: row.name
        for row in QUANTITIES
        if any(Use.CHECK in row.uses(kind) for kind in kinds)
        for spelling in row.spellings()
    }


def did_you_mean(word: object, names: tuple[str, ...]) -> str:
    """`` (did you mean 'ridge'?)`` for the closest of ``names``, or "" when none is close."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word.lower(), names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
