"""Names a module imports on first use (PEP 562): its ``__getattr__``.

``derive`` and ``derive.pipeline`` re-export objects from their submodules without
importing them up front: ``import derive.commands.cli`` imports no sympy, and a key of
operator problems loads no model, serving or training layer (benchmarks/README.md). Each
name is the real object once looked up (``help(derive.solve)`` shows its signature).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_getattr(namespace: dict[str, Any], names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the module whose globals are ``namespace``: a name of
    ``names`` (module, relative to the module's package → its names, space-separated) is
    imported from that module when first asked for, then kept in ``namespace``, so it is
    looked up once."""
    module, package = namespace["__name__"], namespace["__package__"]
    modules = {name: where for where, spaced in names.items() for name in spaced.split()}

    def lookup(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = namespace[name] = getattr(import_module(f".{modules[name]}", package), name)
        return value

    return lookup
