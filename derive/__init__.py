"""derive: exact, step-by-step roofline analysis of ML operators.

Declare an operator as sympy expressions, bind dtypes and a chip, and derive
FLOPs, bytes, arithmetic intensity, ridge point, crossover and times exactly.

>>> from derive import Operator, Tensor, dims
>>> B, D, F = dims("B D F")
"""

from __future__ import annotations

from .composite import Composite
from .declare import Operator, Tensor, dims
from .errors import DeriveError

__all__ = ["Operator", "Tensor", "Composite", "dims", "DeriveError", "solve", "__version__"]

__version__ = "0.1.0"


def solve(*args, **kwargs):
    """Derive an operator's roofline; see :func:`derive.pipeline.solve`."""
    from .pipeline import solve as _solve

    return _solve(*args, **kwargs)
