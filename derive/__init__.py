"""derive: exact, step-by-step roofline analysis of ML operators.

Declare an operator as sympy expressions, bind dtypes and a chip, and derive
FLOPs, bytes, arithmetic intensity, ridge point, crossover and times exactly.

>>> from derive import Operator, Tensor, dims
>>> B, D, F = dims("B D F")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from derive.errors import DeriveError
from derive.lazy import lazy_getattr

if TYPE_CHECKING:
    from derive.checking.api import (
        CheckResult,
        DerivationResult,
        StepResult,
        check,
        check_derivation,
    )
    from derive.checking.verdict import Verdict
    from derive.declare.collective import Collective
    from derive.declare.composite import Composite
    from derive.declare.operator import Operator, Tensor, dims
    from derive.model.transformer import Transformer
    from derive.pipeline import (
        CommsDerivation,
        DecodeCrossoverDerivation,
        Derivation,
        ModelDerivation,
        ServingDerivation,
        TrainingDerivation,
        chips,
        solve,
        solve_model,
        solve_training,
    )
    from derive.problem.binding import ProblemSpec
    from derive.problem.chips import Chip
    from derive.problem.kernel_spec import KernelSpec
    from derive.problem.model_spec import ModelSpec
    from derive.problem.timing import TimingSpec

__all__ = [
    "CheckResult",
    "Chip",
    "Collective",
    "CommsDerivation",
    "Composite",
    "DecodeCrossoverDerivation",
    "Derivation",
    "DerivationResult",
    "DeriveError",
    "KernelSpec",
    "ModelDerivation",
    "ModelSpec",
    "Operator",
    "ProblemSpec",
    "ServingDerivation",
    "StepResult",
    "Tensor",
    "TimingSpec",
    "TrainingDerivation",
    "Transformer",
    "Verdict",
    "__version__",
    "check",
    "check_derivation",
    "chips",
    "dims",
    "solve",
    "solve_model",
    "solve_training",
]

__version__ = "0.1.0"

# The public API is imported on first use (PEP 562), so that ``import derive.commands.cli``
# does not import sympy: the command line imports it itself, see ``cli.load_engine``. Each
# name is the real object (``help(derive.solve)`` shows its signature and docstring).
_LAZY = {
    "declare.operator": "Operator Tensor dims",
    "declare.composite": "Composite",
    "declare.collective": "Collective",
    "model.transformer": "Transformer",
    "problem.kernel_spec": "KernelSpec",
    "problem.binding": "ProblemSpec",
    "problem.model_spec": "ModelSpec",
    "problem.timing": "TimingSpec",
    "problem.chips": "Chip",
    "pipeline": "chips solve solve_model solve_training Derivation CommsDerivation "
    "DecodeCrossoverDerivation ModelDerivation ServingDerivation TrainingDerivation",
    "checking.api": "check check_derivation CheckResult DerivationResult StepResult",
    "checking.verdict": "Verdict",
}


__getattr__ = lazy_getattr(globals(), _LAZY)


def __dir__() -> list[str]:
    """The public face: ``__all__`` (not the helpers this module imports for itself)."""
    return sorted(__all__)
