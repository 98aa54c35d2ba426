"""A set's budgets and what-ifs solved (issue 36): their exact quantities by catalogue name.

A :class:`~derive.problem.sets.natives.NativeEntry` (or its spec) is solved by the records
``derive budget`` and ``--profile``/``--speedup`` use (:func:`derive.model.budget.compute_budget`,
:func:`derive.analysis.what_if.what_if`); their refusals name a flag, said here in the set's
terms (``<file>: problem 'c': key 'budget.compute' (-1)``) when the problem comes from a set.

>>> from derive.problem.sets.natives import BudgetSpec
>>> native_value(BudgetSpec(compute="5.76e23"), "params")
40000000000*sqrt(3)
"""

from __future__ import annotations

from derive.analysis.what_if import WhatIf, what_if
from derive.catalogue import ProblemKind, find
from derive.catalogue import table as q
from derive.catalogue.reading import read_values
from derive.errors import DeriveError, ProblemError
from derive.formula.units import Dimension, Measure, measure_atom
from derive.model.budget import Budget, compute_budget
from derive.problem.sets.natives import (
    BUDGET_ASK_KEYS,
    BUDGET_KEYS,
    WHAT_IF_ASK_KEYS,
    BudgetSpec,
    NativeEntry,
    WhatIfSpec,
)
from derive.questions.read import NUMBER
from derive.questions.records import Answer, Role

_RATE_KEYS = {"tokens/s": "measured_tokens_per_s", "FLOP/s": "measured_flops_per_s"}
_WHAT_IF_KEYS = ("profile", "speedup", "measured_time", *_RATE_KEYS.values())
_BASE = {Dimension.TIME: "s", Dimension.FLOPS: "FLOP"}

Native = BudgetSpec | WhatIfSpec | NativeEntry


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def _in_keys(error: DeriveError, where: str, name: str) -> ProblemError:
    """A refusal naming a flag (``--compute -1``) said as the set's key (``budget.compute``)."""
    keys = BUDGET_KEYS if name == "budget" else _WHAT_IF_KEYS
    what, why = error.what, error.why
    for key in sorted(keys, key=len, reverse=True):  # --tokens-per-param before --tokens
        why = why.replace(_flag(key), f"{name}.{key}")
    for key in sorted(keys, key=len, reverse=True):
        if what.startswith(_flag(key)):
            detail = what[len(_flag(key)) :].strip()
            return ProblemError(
                f"{where}: key '{name}.{key}'" + (f" ({detail})" if detail else ""), why
            )
    return ProblemError(f"{where}: key {name!r}", why)


def solve_native(problem: Native) -> Budget | WhatIf:
    """The budget's N, D, C or the what-if's new time, rate, speed-up and limit, exact.

    Raises:
        ProblemError: a value the solver refuses (a negative compute, shares not summing to
            1, a speed-up for a class not in the profile), naming the set's key for a set's
            problem and the flag otherwise.
    """
    spec = problem.spec
    try:
        if isinstance(spec, BudgetSpec):
            return compute_budget(
                spec.compute,
                spec.params,
                spec.tokens,
                spec.tokens_per_param,
                spec.flops_per_param_token,
            )
        return what_if(
            spec.profile,
            spec.speedup,
            spec.measured_time,
            spec.measured_rate,
            spec.rate_unit,
            _flag(_RATE_KEYS[spec.rate_unit]),
        )
    except DeriveError as error:
        if isinstance(problem, NativeEntry) and problem.where:
            name = "budget" if isinstance(spec, BudgetSpec) else "what_if"
            raise _in_keys(error, problem.where, name) from None
        raise


def native_value(problem: Native, quantity: str) -> object:
    """The exact value of a quantity (None: it has none, as a what-if's rate without a
    measured rate, or its limit when every class changed)."""
    solved = solve_native(problem)
    kind = ProblemKind.BUDGET if isinstance(solved, Budget) else ProblemKind.WHAT_IF
    row = find(quantity)
    return None if row is None else read_values(kind, (solved,)).get(row)


def native_quantities(problem: Native) -> tuple[str, ...]:
    """The quantities it has, in the catalogue's order."""
    names = BUDGET_ASK_KEYS if isinstance(problem.spec, BudgetSpec) else WHAT_IF_ASK_KEYS
    return tuple(name for name in names if native_value(problem, name) is not None)


def _measure(spec: BudgetSpec | WhatIfSpec, quantity: str) -> Measure:
    """What the quantity measures: seconds, FLOPs, the what-if's rate unit, else a number."""
    row = find(quantity)
    assert row is not None  # native_quantities lists catalogue rows only
    if quantity == q.WHAT_IF_RATE.name and isinstance(spec, WhatIfSpec):
        top, _, bottom = spec.rate_unit.partition("/")
        head, tail = measure_atom(top), measure_atom(bottom)
        assert head is not None and tail is not None  # tokens/s or FLOP/s
        out = head / tail
        return Measure(out.exponents, out.factor, spec.rate_unit)
    unit = _BASE.get(row.dimension) if row.dimension is not None else None
    found = measure_atom(unit) if unit else None
    return found or NUMBER


def native_answer(problem: Native, quantity: str) -> Answer:
    """The exact answer of a quantity, as a defined quantity's record (what a claim is judged
    against and the key's glance shows).

    Raises:
        ProblemError: the problem has no such quantity (naming the ones it has).
    """
    value = native_value(problem, quantity)
    if value is None:
        has = ", ".join(native_quantities(problem))
        raise ProblemError(
            f"--quantity {quantity}",
            f"not a quantity of this problem ({problem.spec.kind.label}); its quantities: {has}",
        )
    measure = _measure(problem.spec, quantity)
    return Answer(quantity, Role.DEFINED, quantity, value, value, value, measure)
