"""Names a package imports on first use (PEP 562): its ``__getattr__``.

``derive`` and ``derive.pipeline`` re-export objects from their submodules without
importing them up front: ``import derive.commands.cli`` imports no sympy, and a key of
operator problems loads no model, serving or training layer (benchmarks/README.md). Each
name is the real object once looked up (``help(derive.solve)`` shows its signature).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name of ``modules`` (name → submodule,
    relative) is imported from its submodule when first asked for, then kept in
    ``namespace`` (the package's globals), so it is looked up once."""

    def lookup(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(import_module(f".{modules[name]}", package), name)
        return value

    return lookup
