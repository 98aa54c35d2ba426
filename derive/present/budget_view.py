"""A scaling-law budget (``derive budget``) as a document: its worked step and its JSON keys
``compute``, ``params``, ``tokens``, ``tokens_per_param``, ``flops_per_param_token``
(each ``{exact, value}``), ``given`` and ``convention``."""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.model.budget import CHINCHILLA, KAPLAN, Budget
from derive.present.formats import Document
from derive.present.worked import worked_document
from derive.solution.budget_steps import budget_given, budget_steps, budget_verdict

__all__ = ["budget_document", "budget_json"]


def _number(value: sp.Expr) -> dict[str, object]:
    return {"exact": str(value), "value": float(value)}


def budget_json(b: Budget) -> dict[str, object]:
    """The budget's keys: every number exact (a surd stays a surd) with its float."""
    return {
        "given": b.given.value,
        "compute": _number(b.compute),
        q.PARAMS.name: _number(b.params),
        q.TOKENS.name: _number(b.tokens),
        q.TOKENS_PER_PARAM.name: _number(b.tokens_per_param),
        "flops_per_param_token": _number(b.flops_per_param_token),
        "convention": {
            "compute": f"C = k·N·D ({KAPLAN})",
            q.TOKENS.name: f"D = r·N ({CHINCHILLA})",
        },
    }


def budget_document(b: Budget, level: int = 1) -> Document:
    """The worked solution (the kernel's templates: given, steps, verdict) and its JSON."""
    return worked_document(
        "Compute-optimal budget",
        budget_given(b),
        budget_steps(b),
        budget_verdict(b),
        lambda: budget_json(b),
        level,
    )
