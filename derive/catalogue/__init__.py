"""The catalogue: what derive knows by name, declared once (problem kinds, quantities).

Every later stage reads its names from here instead of spelling them again: a problem
kind is a :class:`ProblemKind`; a quantity is one row of :mod:`derive.catalogue.table`
(its name, aliases, symbol, dimension, phrase, answer box, rule and slips; the records:
:mod:`derive.catalogue.records`), read through :mod:`derive.catalogue.lookup`.
"""

from derive.catalogue import table
from derive.catalogue.kinds import ProblemKind, Typed
from derive.catalogue.lookup import (
    box_of,
    did_you_mean,
    find,
    names_for,
    phrase_of,
    phrases,
    quantity,
    rows_for,
    shown_by,
    spelling_map,
)
from derive.catalogue.records import At, Box, Computation, Exactness, Quantity, Roof, Use
from derive.catalogue.table import QUANTITIES

__all__ = [
    "QUANTITIES",
    "At",
    "Box",
    "Computation",
    "Exactness",
    "ProblemKind",
    "Quantity",
    "Roof",
    "Typed",
    "Use",
    "box_of",
    "did_you_mean",
    "find",
    "names_for",
    "phrase_of",
    "phrases",
    "quantity",
    "rows_for",
    "shown_by",
    "spelling_map",
    "table",
]
