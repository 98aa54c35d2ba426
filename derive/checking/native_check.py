"""``derive.check`` for a set's budget or what-if (issue 36): a claim about one of its
catalogue quantities (``params``, ``what_if_time``, …), judged against the exact value.

A claim is read as a defined quantity's is (a number with its unit, ``50.7 ms``, optionally
after ``name =``) and judged the same way (:func:`derive.checking.defined_check.judge_value`):
within the tolerance, with the slips of a forgotten conversion named.

>>> from derive.problem.sets.natives import BudgetSpec
>>> import sympy as sp
>>> check_native(BudgetSpec(compute="5.76e23"), "params", "6.93e10", sp.Rational(1, 100)).verdict
<Verdict.CORRECT: 'correct'>
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import sympy as sp

from derive.catalogue import find
from derive.errors import ProblemError
from derive.formula.limits import RejectError
from derive.formula.units import Dimension, Measure, measure_atom
from derive.problem.sets.natives import BudgetSpec, WhatIfSpec, native_quantities, native_value
from derive.questions.read import NUMBER, read_formula
from derive.questions.records import Answer, Role

if TYPE_CHECKING:
    from derive.checking.api import CheckResult

__all__ = ["check_native", "native_answer"]

_NAMED = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=(?!=)")
_BASE = {Dimension.TIME: "s", Dimension.FLOPS: "FLOP"}


def _measure(spec: BudgetSpec | WhatIfSpec, quantity: str) -> Measure:
    """What the quantity measures: seconds, FLOPs, the what-if's rate unit, else a number."""
    row = find(quantity)
    assert row is not None  # native_quantities lists catalogue rows only
    if quantity == "what_if_rate" and isinstance(spec, WhatIfSpec):
        top, _, bottom = spec.rate_unit.partition("/")
        head, tail = measure_atom(top), measure_atom(bottom)
        assert head is not None and tail is not None  # tokens/s or FLOP/s
        out = head / tail
        return Measure(out.exponents, out.factor, spec.rate_unit)
    unit = _BASE.get(row.dimension) if row.dimension is not None else None
    found = measure_atom(unit) if unit else None
    return found or NUMBER


def native_answer(spec: BudgetSpec | WhatIfSpec, quantity: str) -> Answer:
    """The exact answer of a budget's or a what-if's quantity, as a defined quantity's record.

    Raises:
        ProblemError: the problem has no such quantity (naming the ones it has).
    """
    value = native_value(spec, quantity)
    if value is None:
        has = ", ".join(native_quantities(spec))
        raise ProblemError(
            f"--quantity {quantity}",
            f"not a quantity of this problem ({spec.kind.label}); its quantities: {has}",
        )
    return Answer(quantity, Role.DEFINED, quantity, value, value, value, _measure(spec, quantity))


def check_native(
    spec: BudgetSpec | WhatIfSpec,
    quantity: str,
    claim: str,
    rtol: sp.Rational,
    hide_expected: bool = False,
) -> CheckResult:
    """Judge one claim about one quantity of a budget or a what-if.

    Raises:
        ProblemError: it has no such quantity (not the claim).
    """
    from derive.checking.api import CheckResult
    from derive.checking.defined_check import judge_value
    from derive.checking.verdict import Verdict

    answer = native_answer(spec, quantity)
    text = claim
    named = _NAMED.match(claim)
    if named is not None and named.group(1) == quantity:
        text = claim[named.end() :]
    try:
        value = read_formula(text, {})
    except RejectError as reject:
        return CheckResult(Verdict.UNREADABLE, quantity, claim, None, (), None, reject.why)
    return judge_value(answer, value, claim, rtol, hide_expected)
