"""A ``[[model]]`` table of a problem set as a :class:`~derive.model.transformer.Transformer`.

Sizes written as text are read by derive's whitelisted formula parser over the table's
dims; every other field is passed as TOML gave it, and ``Transformer`` validates all of
them as it validates a declaration in Python. A key that is not a field is refused.
"""

from __future__ import annotations

from dataclasses import fields

from derive.declare.operator import dims
from derive.errors import DeclarationError, ProblemError
from derive.model.transformer import OPTIONAL_SIZE_FIELDS, SIZE_FIELDS, Transformer
from derive.problem.sets.model_tables import ModelTable

_SIZES = frozenset(SIZE_FIELDS + OPTIONAL_SIZE_FIELDS)
_FIELDS = frozenset(f.name for f in fields(Transformer)) - {"name", "source", "stored_as"}


def table_model(table: ModelTable) -> Transformer:
    """The model a ``[[model]]`` table declares.

    Raises:
        ProblemError: a key that is not a Transformer field. ParseError, LimitError: a size
            formula outside the grammar. DeclarationError: what ``Transformer`` refuses.
    """
    from derive.formula.reader import parse_formula

    symbols = {d.name: d for d in dims(" ".join(table.dims))} if table.dims else {}
    values: dict[str, object] = {}
    for key, value in table.fields:
        if key not in _FIELDS:
            raise ProblemError(
                f"{table.where}: key {key!r}",
                f"not a model field; fields: {', '.join(sorted(_FIELDS))}",
            )
        if key in _SIZES and isinstance(value, str):
            value = parse_formula(value, symbols, what=f"{table.where}: key {key!r}").expr
        values[key] = value
    try:
        return Transformer(name=table.name, **values)  # type: ignore[arg-type]
    except DeclarationError as exc:
        raise DeclarationError(
            f"{table.where}: key {exc.what.rsplit(' ', 1)[-1]!r}", exc.why
        ) from None
