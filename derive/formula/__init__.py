"""Reading what people type: exact decimals and a safe reader for formulas.

- ``decimals``: exact numbers from decimal text (``"1.97e14"`` → 197000000000000); light,
  imported by every stage that reads a number.
- ``reader`` (``parse_formula``, ``Parsed``, ``split_relations``, ...): formulas in LaTeX or
  plain text through a whitelisted grammar with size limits; nothing is ever evaluated.
- ``units``, ``answer``: answers as people write them (units, a named left side, relations).

The reader's names are imported from ``derive.formula.reader``, so importing
``derive.formula.decimals`` does not load the parser and pylatexenc.
"""
