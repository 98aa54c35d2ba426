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
    from derive.declare.collective import Collective
    from derive.declare.composite import Composite
    from derive.declare.operator import Operator, Tensor, dims
    from derive.pipeline import Derivation, ModelDerivation

__all__ = [
    "CheckResult",
    "Collective",
    "Composite",
    "DerivationResult",
    "DeriveError",
    "Operator",
    "StepResult",
    "Tensor",
    "Transformer",
    "Verdict",
    "__version__",
    "check",
    "check_derivation",
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
    "Collective": "declare.collective",
    "CheckResult": "checking.api",
    "DerivationResult": "checking.api",
    "StepResult": "checking.api",
    "Verdict": "checking.verdict",
    "Transformer": "model.transformer",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def solve(*args: Any, **kwargs: Any) -> Derivation:
    """Derive an operator's roofline; see :func:`derive.pipeline.solve`."""
    from derive.pipeline import solve as _solve

    return _solve(*args, **kwargs)


def check(*args, **kwargs):
    """Judge one claim about one quantity of a problem; see :func:`derive.checking.api.check`."""
    from derive.checking.api import check as _check

    return _check(*args, **kwargs)


def check_derivation(*args, **kwargs):
    """Check a multi-line derivation; see :func:`derive.checking.api.check_derivation`."""
    from derive.checking.api import check_derivation as _check_derivation

    return _check_derivation(*args, **kwargs)


def solve_model(*args: Any, **kwargs: Any) -> ModelDerivation:
    """Derive a whole model; see :func:`derive.pipeline.solve_model`."""
    from derive.pipeline import solve_model as _solve_model

    return _solve_model(*args, **kwargs)
