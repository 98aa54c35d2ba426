"""The way in for a scaling-law budget (``derive budget``; :func:`derive_budget`)."""

from __future__ import annotations

from dataclasses import dataclass

from derive.catalogue import ProblemKind
from derive.model.budget import Budget, compute_budget
from derive.pipeline.kinds.surface import Shown
from derive.present.budget_view import budget_document, budget_json
from derive.present.formats import Document
from derive.problem.sets.natives import BudgetSpec


@dataclass(frozen=True, repr=False)
class BudgetDerivation(Shown):
    """A budget solved: its record, its document and its JSON (one surface: ``b.params``)."""

    budget: Budget
    spec: BudgetSpec | None = None

    kind = ProblemKind.BUDGET
    """A scaling-law budget."""

    def as_problem(self) -> BudgetSpec:
        """The budget as typed (what ``derive.check`` judges a claim against)."""
        return self.spec or BudgetSpec(**dict(self.budget.texts))

    def document(self, level: int = 1) -> Document:
        """The worked solution as a document (any report format)."""
        return budget_document(self.budget, level)

    def as_json(self) -> dict[str, object]:
        """The JSON report."""
        return budget_json(self.budget)

    def _roots(self) -> tuple[object, ...]:
        return (self.budget,)


def derive_budget(
    compute: str | None = None,
    params: str | None = None,
    tokens: str | None = None,
    tokens_per_param: str | None = None,
    flops_per_param_token: str | None = None,
) -> BudgetDerivation:
    """N and D from C (or the rest from one or two of C, N, D), exactly.

    >>> derive_budget("5.76e23").budget.params
    40000000000*sqrt(3)
    >>> derive_budget("5.76e23").tokens_per_param.exact
    20
    """
    spec = BudgetSpec(compute, params, tokens, tokens_per_param, flops_per_param_token)
    return BudgetDerivation(
        compute_budget(compute, params, tokens, tokens_per_param, flops_per_param_token), spec
    )
