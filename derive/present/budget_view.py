"""A scaling-law budget (``derive budget``) as a document: its worked step and its JSON keys
``compute``, ``params``, ``tokens``, ``tokens_per_param``, ``flops_per_param_token``
(each ``{exact, value}``), ``given`` and ``convention``."""

from __future__ import annotations

import sympy as sp

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.model.budget import CHINCHILLA, KAPLAN, Budget
from derive.present.formats import Document
from derive.present.json_export import laid_out
from derive.present.worked import worked_document
from derive.solution.budget_steps import budget_given, budget_steps, budget_verdict


def _number(value: sp.Basic | str) -> dict[str, object]:
    return {"exact": str(value), "value": float(value)}


def budget_json(b: Budget) -> dict[str, object]:
    """The budget's keys: every number exact (a surd stays a surd) with its float; its rows'
    values laid out in the contract's order, the convention last."""
    convention = {"compute": f"C = k·N·D ({KAPLAN})", q.TOKENS.name: f"D = r·N ({CHINCHILLA})"}
    after = {
        q.TOKENS_PER_PARAM: {
            "flops_per_param_token": _number(b.flops_per_param_token),
            "convention": convention,
        }
    }
    order = q.TRAINING_COMPUTE, q.PARAMS, q.TOKENS, q.TOKENS_PER_PARAM
    return {"given": b.given.value, **laid_out(ProblemKind.BUDGET, (b,), after, "", order, _number)}


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
