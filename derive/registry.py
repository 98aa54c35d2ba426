"""Compatibility alias: ``derive.registry`` moved to :mod:`derive.declare.registry`.

Operator files written before the move (``from derive.registry import load_registry``)
keep working; new code imports :mod:`derive.declare.registry`. The names are the very
objects of the new module, not copies.
"""

from derive.declare.registry import (
    Registry,
    builtin_operator_files,
    load_operator_file,
    load_registry,
)

__all__ = ["Registry", "builtin_operator_files", "load_operator_file", "load_registry"]
