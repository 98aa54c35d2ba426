"""``derive.check`` for a set's budget or what-if (issue 36): a claim about one of its
catalogue quantities (``params``, ``what_if_time``, …), judged against the exact value.

A claim is read as a defined quantity's is (a number with its unit, ``50.7 ms``, optionally
after ``name =``) and judged the same way (:func:`derive.checking.defined_check.judge_claim_text`):
within the tolerance, with the slips of a forgotten conversion named.

>>> from derive.problem.sets.natives import BudgetSpec
>>> import sympy as sp
>>> check_native(BudgetSpec(compute="5.76e23"), "params", "6.93e10", sp.Rational(1, 100)).verdict
<Verdict.CORRECT: 'correct'>
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy as sp

from derive.problem.sets.natives import BudgetSpec, NativeEntry, WhatIfSpec
from derive.questions.natives import native_answer

if TYPE_CHECKING:
    from derive.checking.api import CheckResult


def check_native(
    problem: BudgetSpec | WhatIfSpec | NativeEntry,
    quantity: str,
    claim: str,
    rtol: sp.Rational,
    hide_expected: bool = False,
) -> CheckResult:
    """Judge one claim about one quantity of a budget or a what-if.

    Raises:
        ProblemError: it has no such quantity (not the claim).
    """
    from derive.checking.defined_check import judge_claim_text

    return judge_claim_text(native_answer(problem, quantity), claim, {}, rtol, hide_expected)
