"""Stage 1, declare: operators, tensors and composite layers as sympy expressions.

- ``operator``: :class:`Tensor`, :class:`Operator`, :func:`dims` (the declaration API).
- ``composite``: :class:`Composite`, a layer of operators with fused intermediates.
- ``registry``: loading operator files (the built-ins in ``operators/`` and the user's).

To add an operator, declare it in a file under ``operators/`` (or pass your own file
with ``--operators``); nothing here needs to change.
"""

from derive.declare.composite import Composite
from derive.declare.operator import Operator, Tensor, dims

__all__ = ["Composite", "Operator", "Tensor", "dims"]
