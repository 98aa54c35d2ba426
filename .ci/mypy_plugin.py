"""A mypy plugin (the quality gate's): a derivation's quantity attributes are its kind's rows.

A record's quantities are attributes through ``Shown.__getattr__``
(derive/pipeline/kinds/surface.py), which mypy types as a ``Value`` for any name. With this
plugin (``plugins = [".ci/mypy_plugin.py"]`` in pyproject.toml's ``[tool.mypy]``), an
attribute so read must be a name or alias of a row the record may have a value for
(``Shown._rows``: the catalogue's rows of its kind), of one record of a union at least:
``m.paramz`` is an error, ``m.params`` a ``Value``. The rows are read from the catalogue,
the one place a quantity is declared, so the two cannot drift; a record defined outside
derive may read any row's name. It is tooling, never imported by derive (so no line of
derive/ in .ci/sz.py's count): tests/pipeline/test_mypy_plugin.py pins it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from contextlib import suppress
from functools import cache
from pathlib import Path

from mypy.errorcodes import ATTR_DEFINED
from mypy.plugin import AttributeContext, Plugin, ReportConfigContext
from mypy.types import AnyType, Instance, Type, TypeOfAny, UnionType, get_proper_type

_GETATTR = "derive.pipeline.kinds.surface.Shown."


@cache
def quantity_names(module: str, name: str) -> frozenset[str]:
    """The attribute names of the quantities of the record ``module.name`` (every row's,
    for a record whose rows are no kind's: ``Shown`` itself, or outside derive)."""
    root = str(Path(__file__).resolve().parents[1])  # this tree's derive, not an installed one
    if root not in sys.path:
        sys.path.insert(0, root)
    from derive.catalogue.table import QUANTITIES

    rows = QUANTITIES
    if module.startswith("derive."):
        record = getattr(importlib.import_module(module), name)
        with suppress(NotImplementedError):  # Shown's own kind is none: every row
            rows = object.__new__(record)._rows()  # its kind's rows: no field is read
    return frozenset(n for row in rows for n in (row.name, *row.aliases))


def _checked(attribute: str) -> Callable[[AttributeContext], Type]:
    def check(ctx: AttributeContext) -> Type:
        """The default type (a ``Value``) of a quantity of the record, or of any record
        of a union (``solve_model`` gives a model, a serving step or a crossover)."""
        typ = get_proper_type(ctx.type)
        items = [get_proper_type(t) for t in (typ.items if isinstance(typ, UnionType) else [typ])]
        records = [t.type for t in items if isinstance(t, Instance)]
        if len(records) < len(items) or any(
            r.get(attribute) is not None or attribute in quantity_names(r.module_name, r.name)
            for r in records  # a declared attribute (a field, a property), or a quantity
        ):
            return ctx.default_attr_type
        named = " | ".join(r.name for r in records)
        ctx.api.fail(
            f'"{named}" has no attribute "{attribute}" (no quantity of its kind)',
            ctx.context,
            code=ATTR_DEFINED,
        )
        return AnyType(TypeOfAny.from_error)

    return check


class QuantityPlugin(Plugin):
    """Checks each quantity read through ``Shown.__getattr__`` against the catalogue."""

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        return _checked(fullname[len(_GETATTR) :]) if fullname.startswith(_GETATTR) else None

    def report_config_data(self, ctx: ReportConfigContext) -> object:
        """The catalogue's rows by kind: a cached check is redone when one comes or goes."""
        every = sorted(quantity_names("", ""))  # this tree's derive on the path first
        from derive.catalogue import ProblemKind
        from derive.catalogue.reading import rows_valued_in

        return every + [
            f"{kind.name}.{row.name}" for kind in ProblemKind for row in rows_valued_in(kind)
        ]


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return QuantityPlugin
