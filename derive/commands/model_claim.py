"""Judging a claimed whole-model quantity: ``derive model MODEL … --quantity params --claim 124e6``.

The claim is read only by :mod:`derive.formula` (numbers, or formulas in the dims the
problem leaves free); it is right when it equals the exact value, or, for numbers, lies
within ``--rtol`` of it. A wrong number gets a hint when its ratio to the answer is a
known slip: GiB for GB, a factor 2 (K and V, or 2 FLOPs per multiply-accumulate), the 2N
shortcut for the FLOPs per token, total for active parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.errors import ProblemError
from derive.formula import parse_formula
from derive.formula.decimals import fmt_decimal, parse_decimal
from derive.model.analysis import ModelAnalysis
from derive.model.symbols import batch, context

__all__ = ["ClaimVerdict", "judge_model_claim", "parse_rtol"]

_GB, _GIB = sp.Integer(10) ** 9, sp.Integer(2) ** 30
_YES, _NO = ("yes", "true", "fits"), ("no", "false", "does not fit")


@dataclass(frozen=True)
class ClaimVerdict:
    """The verdict on one claim: right or not, the exact answer, and one line saying why."""

    quantity: str
    claim: str
    correct: bool
    exact: str
    sentence: str

    def as_json(self) -> dict:
        """The verdict as JSON (exact values as strings)."""
        return {
            "quantity": self.quantity,
            "claim": self.claim,
            "verdict": "correct" if self.correct else "incorrect",
            "exact": self.exact,
            "explanation": self.sentence,
        }


def parse_rtol(text: str) -> sp.Rational:
    """A relative tolerance in (0, 1), exactly."""
    value = parse_decimal(text, "--rtol")
    if not 0 < value < 1:
        raise ProblemError(f"--rtol {text}", "must be greater than 0 and less than 1 (0.01 is 1%)")
    return value


def _hint(
    a: ModelAnalysis, quantity: str, claim: sp.Expr, target: sp.Expr, rtol: sp.Rational
) -> str:
    ratio = claim / target
    slips = [
        (_GB / _GIB, "the claim looks like GiB (2^30 B) read as GB (10^9 B)"),
        (_GIB / _GB, "the claim looks like GB (10^9 B) read as GiB (2^30 B)"),
        (
            sp.Rational(1, 2),
            "the claim is half the answer (one of K and V? one FLOP per multiply-add?)",
        ),
        (sp.Integer(2), "the claim is twice the answer"),
    ]
    if quantity == "flops_per_token" and claim == a.value("flops_2n"):
        return "that is the 2N shortcut, not the matmul and attention FLOPs"
    if quantity == "params" and claim == a.value("params_active") != target:
        return "that is the active parameters; the total counts every expert"
    if quantity == "params_active" and claim == a.value("params") != target:
        return "that is the total; a token uses only its top-k experts"
    return next((why for r, why in slips if abs(ratio - r) <= rtol * r), "")


def judge_model_claim(
    a: ModelAnalysis, quantity: str, text: str, rtol: sp.Rational
) -> ClaimVerdict:
    """Judge ``text`` as the value of ``quantity``; the error names what was not derived."""
    q = a.quantity(quantity)
    if q is None:
        why = dict(a.left_out).get(quantity) or "; ".join(w for _, w in a.left_out)
        raise ProblemError(
            f"--quantity {quantity}", f"not derived for this problem ({why or 'not asked'})"
        )
    if isinstance(q.value, sp.logic.boolalg.BooleanAtom):
        said = text.strip().lower()
        if said not in _YES + _NO:
            raise ProblemError(f"--claim {text}", "for fits, claim yes or no")
        right = (said in _YES) == bool(q.value)
        exact = "yes" if bool(q.value) else "no"
        return ClaimVerdict(
            quantity, text, right, exact, f"it {'fits' if bool(q.value) else 'does not fit'}"
        )
    names = {d.name: d for d in (batch, context, *a.problem.model.free_dims)}
    claim = parse_formula(text, names, "auto", "claim").expr
    target = q.value
    exact = str(target)
    if sp.expand(claim - target) == 0:
        return ClaimVerdict(
            quantity, text, True, exact, f"the claim equals the exact {quantity}, {exact}"
        )
    if claim.is_number and target.is_number and target != 0:
        error = abs(claim - target) / abs(target)
        percent = f"{fmt_decimal(100 * error, 3)}%"
        if error <= rtol:
            return ClaimVerdict(
                quantity, text, True, exact,
                f"within {fmt_decimal(100 * rtol, 3)}% of the exact {quantity} {exact} (relative error {percent})",
            )  # fmt: skip
        hint = _hint(a, quantity, claim, target, rtol)
        approx = "" if target.is_Integer else f" (≈ {fmt_decimal(target)})"
        sentence = f"the exact {quantity} is {exact}{approx}; the claim is off by {percent}"
        return ClaimVerdict(quantity, text, False, exact, sentence + (f": {hint}" if hint else ""))
    return ClaimVerdict(quantity, text, False, exact, f"the exact {quantity} is {exact}")
