"""derive: exact, step-by-step roofline analysis of ML operators.

Declare an operator as sympy expressions, bind dtypes and a chip, and derive
FLOPs, bytes, arithmetic intensity, ridge point, crossover and times exactly.

>>> from derive import Operator, Tensor, dims
>>> B, D, F = dims("B D F")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from derive.errors import DeriveError

if TYPE_CHECKING:
    from derive.model_pipeline import ModelDerivation

__all__ = [
    "Composite",
    "DeriveError",
    "Operator",
    "Tensor",
    "Transformer",
    "__version__",
    "dims",
    "solve",
    "solve_model",
]

__version__ = "0.1.0"

# The declaration API is imported on first use (PEP 562), so that ``import derive.commands.cli``
# does not import sympy: the command line imports it itself, see ``cli.load_engine``.
_LAZY = {
    "Operator": "declare.operator",
    "Tensor": "declare.operator",
    "dims": "declare.operator",
    "Composite": "declare.composite",
    "Transformer": "model.transformer",
}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def solve(*args, **kwargs):
    """Derive an operator's roofline; see :func:`derive.pipeline.solve`."""
    from derive.pipeline import solve as _solve

    return _solve(*args, **kwargs)


def solve_model(*args: Any, **kwargs: Any) -> ModelDerivation:
    """Derive a whole model; see :func:`derive.model_pipeline.solve_model`."""
    from derive.model_pipeline import solve_model as _solve_model

    return _solve_model(*args, **kwargs)
