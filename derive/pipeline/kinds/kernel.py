"""The kernel kind: a kernel given by its numbers (FLOPs and bytes, or an intensity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind
from derive.pipeline.kinds.protocol import OneClaimAtATime, Problem
from derive.pipeline.kinds.surface import Shown
from derive.present.formats import Document
from derive.problem.sets.kernels import KernelEntry, kernel_asks, kernel_quantities_of

if TYPE_CHECKING:
    from derive.analysis.kernel_numbers import KernelNumbers
    from derive.problem.kernel_spec import KernelSpec


@dataclass(frozen=True, repr=False)
class KernelDerivation(Shown):
    """A kernel given by its numbers: its counts, ceilings and step, and the timing as typed."""

    kernel: KernelNumbers
    spec: KernelSpec

    kind = ProblemKind.KERNEL
    """A kernel given by its numbers."""

    def _roots(self) -> tuple[object, ...]:
        return (self.kernel,)

    def as_problem(self) -> KernelSpec:
        """The kernel as typed (what ``derive.check`` judges a claim against)."""
        return self.spec

    def document(self) -> Document:
        """The worked solution as a document (``derive solve --flops … --bytes …``)."""
        from derive.present.kernel_view import kernel_document

        return kernel_document(self.kernel, self.spec.timing)

    def as_json(self) -> dict:
        """Every quantity, as exact strings (``derive solve --flops … --format json``)."""
        from derive.present.kernel_view import kernel_json

        return kernel_json(self.kernel)


def derive_kernel(spec: KernelSpec) -> KernelDerivation:
    """A kernel given by its numbers, derived (cached)."""
    from derive.pipeline.cache import kernel_analysis

    return KernelDerivation(kernel_analysis(spec), spec)


def _spec(problem: Problem) -> KernelSpec:
    return cast("KernelSpec", problem.spec)  # KINDS is keyed by kind: a kernel's problem


@dataclass(frozen=True)
class KernelKind(OneClaimAtATime):
    """A kernel by its numbers: a :class:`KernelSpec`, or a set's :class:`KernelEntry`."""

    kind: ProblemKind = ProblemKind.KERNEL
    noun: str = "a kernel by its numbers"

    def derive(self, problem: Problem, operators: Sequence[str | Path] = ()) -> KernelDerivation:
        """:func:`derive.pipeline.derive_kernel` (a kernel declares no operator: ``operators`` unused)."""
        return derive_kernel(_spec(problem))

    def asks(self, problem: Problem) -> tuple[str, ...]:
        """A set's ``ask`` (else its headline quantities), or every quantity the kernel has."""
        if problem is problem.spec:  # typed: no ask
            return kernel_quantities_of(_spec(problem))
        return kernel_asks(cast("KernelEntry", problem))
