"""The budget and what-if kinds: a scaling-law budget (``derive budget``) and a what-if on a
measured step (``--profile``/``--speedup``), each a set problem of its own (issue 36)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.analysis.what_if import WhatIf
from derive.catalogue import ProblemKind
from derive.model.budget import Budget
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.problem.sets.natives import BudgetSpec, NativeEntry, WhatIfSpec
from derive.questions.natives import native_quantities, solve_native

if TYPE_CHECKING:  # their modules import this package (the surface): imported when derived
    from derive.pipeline.budget import BudgetDerivation
    from derive.pipeline.what_if import WhatIfDerivation


class _Native(OneClaimAtATime):
    """What the two kinds share: their asks."""

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask``, else every quantity the problem has."""
        native = cast(BudgetSpec | WhatIfSpec | NativeEntry, problem)
        asked = native.ask if isinstance(native, NativeEntry) else ()
        return asked or native_quantities(native)


@dataclass(frozen=True)
class BudgetKind(_Native):
    """A scaling-law budget: a :class:`BudgetSpec`, or a set's :class:`NativeEntry`."""

    kind: ProblemKind = ProblemKind.BUDGET
    noun: str = "a scaling-law budget"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> BudgetDerivation:
        """N, D and C solved exactly, with the step naming the convention."""
        from derive.pipeline.budget import BudgetDerivation

        spec = cast(BudgetSpec, problem.spec)
        return BudgetDerivation(cast(Budget, solve_native(cast(NativeEntry, problem))), spec)


@dataclass(frozen=True)
class WhatIfKind(_Native):
    """A what-if on a measured step: a :class:`WhatIfSpec`, or a set's :class:`NativeEntry`."""

    kind: ProblemKind = ProblemKind.WHAT_IF
    noun: str = "a what-if on a measured step"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> WhatIfDerivation:
        """The new time, rate, speed-up and Amdahl limit, exact."""
        from derive.pipeline.what_if import WhatIfDerivation

        spec = cast(WhatIfSpec, problem.spec)
        return WhatIfDerivation(cast(WhatIf, solve_native(cast(NativeEntry, problem))), spec)
