"""Reading what people type: exact decimals and a safe reader for formulas.

- ``decimals``: exact numbers from decimal text (``"1.97e14"`` → 197000000000000); light,
  imported by every stage that reads a number.
- ``reader`` (``parse_formula``, ``Parsed``, ``split_relations``, ...): formulas in LaTeX or
  plain text through a whitelisted grammar with size limits; nothing is ever evaluated.
- ``units``, ``answer``: answers as people write them (units, a named left side, relations).

The reader's names are exported here on first use (PEP 562), so importing
``derive.formula.decimals`` does not load the parser and pylatexenc.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from derive.formula.reader import (
        MAX_DEGREE,
        MAX_DEPTH,
        MAX_EXPONENT,
        MAX_LENGTH,
        MAX_LITERAL_DIGITS,
        MAX_LOG10,
        MAX_ROOT,
        MAX_TOKENS,
        SYNTAXES,
        Parsed,
        choose_syntax,
        parse_formula,
        split_relations,
    )

__all__ = [
    "MAX_DEGREE",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_LITERAL_DIGITS",
    "MAX_LOG10",
    "MAX_ROOT",
    "MAX_TOKENS",
    "SYNTAXES",
    "Parsed",
    "choose_syntax",
    "parse_formula",
    "split_relations",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        value = getattr(import_module("derive.formula.reader"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
