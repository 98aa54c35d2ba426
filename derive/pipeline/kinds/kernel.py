"""The kernel kind: a kernel given by its numbers (FLOPs and bytes, or an intensity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.pipeline import KernelDerivation, derive_kernel
from derive.pipeline.kinds.protocol import Problem
from derive.problem.kernel_spec import KernelSpec
from derive.problem.sets.kernels import KernelEntry, kernel_asks, kernel_quantities_of

__all__ = ["KernelKind"]


def _spec(problem: Problem) -> KernelSpec:
    return cast(KernelSpec, problem.spec)  # KINDS is keyed by kind: a kernel's problem


@dataclass(frozen=True)
class KernelKind:
    """A kernel by its numbers: a :class:`KernelSpec`, or a set's :class:`KernelEntry`."""

    kind: ProblemKind = ProblemKind.KERNEL
    noun: str = "a kernel by its numbers"
    chains: bool = False

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> KernelDerivation:
        """:func:`derive.pipeline.derive_kernel` (a kernel declares no operator: ``operators`` unused)."""
        return derive_kernel(_spec(problem))

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask`` (else its headline quantities), or every quantity the kernel has."""
        if problem is problem.spec:  # typed: no ask
            return kernel_quantities_of(_spec(problem))
        return kernel_asks(cast(KernelEntry, problem))
