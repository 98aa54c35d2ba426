"""A problem set's budgets and what-ifs: ``budget = { compute = "5.76e23" }`` and
``what_if = { profile = "gemm=0.62,other=0.38", speedup = "gemm=1.8", measured_time = "70 ms" }``.

A ``[[problem]]`` with a ``budget`` table is the problem of ``derive budget`` (its keys are
the flags: ``compute``, ``params``, ``tokens``, ``tokens_per_param``,
``flops_per_param_token``); one with a ``what_if`` table is the what-if of ``--profile``
and ``--speedup`` on a measured step (``profile``, ``speedup``, and ``measured_time`` or one
measured rate, ``measured_tokens_per_s`` or ``measured_flops_per_s``). ``ask`` and
``expect`` name the kind's catalogue quantities (:data:`BUDGET_ASK_KEYS`,
:data:`WHAT_IF_ASK_KEYS`). Each problem is solved here once, so a bad value is one line
naming the file, the problem and the key; nothing is evaluated.

>>> entry = native_problem({"id": "c", "budget": {"compute": "5.76e23"}}, 0, "s.toml", set())
>>> entry.kind.value, entry.spec.solve().params
('budget', 40000000000*sqrt(3))
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from derive.catalogue import ProblemKind, Use, did_you_mean, names_for
from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import parse_decimal
from derive.problem.sets.checks import problem_head

if TYPE_CHECKING:
    import sympy as sp

    from derive.analysis.what_if import WhatIf
    from derive.model.budget import Budget

__all__ = [
    "BUDGET_ASK_KEYS",
    "NATIVE_QUANTITIES",
    "NATIVE_TABLES",
    "WHAT_IF_ASK_KEYS",
    "BudgetSpec",
    "NativeEntry",
    "WhatIfSpec",
    "native_problem",
    "native_value",
]

BUDGET_ASK_KEYS = names_for(ProblemKind.BUDGET, Use.ASK)
WHAT_IF_ASK_KEYS = names_for(ProblemKind.WHAT_IF, Use.ASK)
NATIVE_QUANTITIES = BUDGET_ASK_KEYS + WHAT_IF_ASK_KEYS
"""Every quantity of a budget or a what-if (``derive check --quantity``)."""
NATIVE_TABLES = ("budget", "what_if")
"""The key that makes a ``[[problem]]`` a budget or a what-if."""

_BUDGET_KEYS = ("compute", "params", "tokens", "tokens_per_param", "flops_per_param_token")
_RATES = {"measured_tokens_per_s": "tokens/s", "measured_flops_per_s": "FLOP/s"}
_WHAT_IF_KEYS = ("profile", "speedup", "measured_time", *_RATES)
_PROBLEM: dict[str, type] = {
    "id": str,
    "title": str,
    "text": str,
    "budget": dict,
    "what_if": dict,
    "ask": list,
    "expect": dict,
}


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


@dataclass(frozen=True)
class BudgetSpec:
    """A budget as typed: the flags of ``derive budget`` (decimal text, or None)."""

    compute: str | None = None
    params: str | None = None
    tokens: str | None = None
    tokens_per_param: str | None = None
    flops_per_param_token: str | None = None

    @property
    def kind(self) -> ProblemKind:
        """A scaling-law budget."""
        return ProblemKind.BUDGET

    @property
    def spec(self) -> BudgetSpec:
        """A spec is its own spec."""
        return self

    def solve(self) -> Budget:
        """N, D and C, exact (:func:`derive.model.budget.compute_budget`)."""
        from derive.model.budget import compute_budget

        return compute_budget(**{f.name: getattr(self, f.name) for f in fields(self)})


@dataclass(frozen=True)
class WhatIfSpec:
    """A what-if as typed: ``--profile``, ``--speedup`` and the measured step."""

    profile: str
    speedup: str
    measured_time: str | None = None
    measured_rate: str | None = None
    rate_unit: str = "tokens/s"

    @property
    def kind(self) -> ProblemKind:
        """A what-if on a measured step."""
        return ProblemKind.WHAT_IF

    @property
    def spec(self) -> WhatIfSpec:
        """A spec is its own spec."""
        return self

    @property
    def rate_flag(self) -> str:
        """The flag (and set key) of its measured rate."""
        key = next(k for k, unit in _RATES.items() if unit == self.rate_unit)
        return _flag(key)

    def solve(self) -> WhatIf:
        """The new time, rate, speed-up and limit (:func:`derive.analysis.what_if.what_if`)."""
        from derive.analysis.what_if import what_if

        return what_if(
            self.profile,
            self.speedup,
            self.measured_time,
            self.measured_rate,
            self.rate_unit,
            self.rate_flag,
        )


@dataclass(frozen=True)
class NativeEntry:
    """One budget or what-if problem of a set.

    Attributes:
        id, title, text: as in every problem.
        spec: the budget or the what-if as typed.
        ask: the quantities asked (empty: every quantity it has).
        expect: checked answers (quantity → exact text), as a kernel's ``expect``.
    """

    id: str
    title: str
    text: str
    spec: BudgetSpec | WhatIfSpec
    ask: tuple[str, ...] = ()
    expect: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> ProblemKind:
        """A budget or a what-if, as its spec."""
        return self.spec.kind


def native_value(spec: BudgetSpec | WhatIfSpec, quantity: str) -> sp.Expr | None:
    """The exact value of a budget's or a what-if's quantity (None: it has none, as a what-if's
    rate without a measured rate, or its limit when every class changed)."""
    from derive.catalogue import table as q

    if isinstance(spec, BudgetSpec):
        b = spec.solve()
        values = {
            q.PARAMS.name: b.params,
            q.TOKENS.name: b.tokens,
            q.TRAINING_COMPUTE.name: b.compute,
            q.TOKENS_PER_PARAM.name: b.tokens_per_param,
        }
    else:
        w = spec.solve()
        values = {
            q.WHAT_IF_TIME.name: w.time,
            q.WHAT_IF_RATE.name: w.rate,
            q.WHAT_IF_SPEEDUP.name: w.speedup,
            q.WHAT_IF_LIMIT.name: w.limit,
        }
    return values.get(quantity)


def native_quantities(spec: BudgetSpec | WhatIfSpec) -> tuple[str, ...]:
    """The quantities it has, in the catalogue's order."""
    names = BUDGET_ASK_KEYS if isinstance(spec, BudgetSpec) else WHAT_IF_ASK_KEYS
    return tuple(name for name in names if native_value(spec, name) is not None)


def _strings(table: dict, allowed: tuple[str, ...], where: str, name: str) -> dict[str, str]:
    for key, value in table.items():
        if key not in allowed:
            raise ProblemError(
                f"{where}: key '{name}.{key}'",
                f"unknown key{did_you_mean(key, allowed)}; allowed: {', '.join(allowed)}",
            )
        if not isinstance(value, str):
            raise ProblemError(
                f"{where}: key '{name}.{key}'",
                'must be a string (numbers are decimal text, e.g. "5.76e23", so they stay exact)',
            )
    return dict(table)


def _spec(table: dict, where: str) -> BudgetSpec | WhatIfSpec:
    """The budget or the what-if a problem's table gives (read, not yet solved)."""
    if "budget" in table and "what_if" in table:
        raise ProblemError(
            f"{where}: key 'what_if'", "a problem is a budget or a what-if, not both"
        )
    if "budget" in table:
        return BudgetSpec(**_strings(table["budget"], _BUDGET_KEYS, where, "budget"))
    given = _strings(table["what_if"], _WHAT_IF_KEYS, where, "what_if")
    for key in ("profile", "speedup"):
        if key not in given:
            raise ProblemError(f"{where}: key 'what_if'", f"missing key {key!r}")
    rates = [key for key in _RATES if key in given]
    if len(rates) > 1:
        raise ProblemError(f"{where}: key 'what_if.{rates[1]}'", "give one measured rate")
    rate = rates[0] if rates else "measured_tokens_per_s"
    return WhatIfSpec(
        given["profile"],
        given["speedup"],
        given.get("measured_time"),
        given.get(rate),
        _RATES[rate],
    )


def _in_keys(error: DeriveError, where: str, name: str) -> ProblemError:
    """An error of the solver, which names a flag (``--compute -1``), said as the set's key."""
    keys = _BUDGET_KEYS if name == "budget" else _WHAT_IF_KEYS
    what, why = error.what, error.why
    for key in sorted(keys, key=len, reverse=True):  # --tokens-per-param before --tokens
        flag = _flag(key)
        why = why.replace(flag, f"{name}.{key}")
        if what.startswith(flag):
            detail = what[len(flag) :].strip()
            return ProblemError(
                f"{where}: key '{name}.{key}'" + (f" ({detail})" if detail else ""), why
            )
    return ProblemError(f"{where}: key {name!r}", why)


def _values(
    raw: dict, key: str, where: str, has: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    for item in raw.get(key, ()):
        if item not in allowed:
            hint = did_you_mean(item, allowed)
            raise ProblemError(
                f"{where}: key {key!r}",
                f"unknown quantity {item!r}{hint}; allowed: {', '.join(allowed)}",
            )
        if item not in has:
            raise ProblemError(
                f"{where}: key {key!r}",
                f"this problem has no {item!r}; its quantities: {', '.join(has)}",
            )


def native_problem(raw: object, index: int, origin: str, seen: set[str]) -> NativeEntry:
    """Check, read and solve one ``[[problem]]`` table with a ``budget`` or ``what_if`` key.

    Raises:
        ProblemError: naming the file, the problem and the key.
    """
    assert isinstance(raw, dict)  # the caller sends tables with one of NATIVE_TABLES here
    name = "budget" if "budget" in raw else "what_if"
    for other in ("operator", "model", "kernel"):
        if other in raw:
            pid = raw.get("id")
            named = f"problem {pid!r}" if isinstance(pid, str) else f"problem {index + 1}"
            raise ProblemError(
                f"{origin}: {named}: key {other!r}",
                f"a problem is a {name.replace('_', '-')} or an {other}, not both",
            )
    pid, where, table = problem_head(raw, index, origin, seen, _PROBLEM, name)
    spec = _spec(table, where)
    try:
        spec.solve()
    except DeriveError as error:
        raise _in_keys(error, where, name) from None
    allowed = BUDGET_ASK_KEYS if name == "budget" else WHAT_IF_ASK_KEYS
    has = native_quantities(spec)
    _values(table, "ask", where, has, allowed)
    _values({"expect": list(table.get("expect", {}))}, "expect", where, has, allowed)
    expect = []
    for quantity, value in table.get("expect", {}).items():
        try:
            if not isinstance(value, str):
                raise ProblemError(quantity, "must be a string")
            for part in value.split("/", 1):
                parse_decimal(part.strip(), quantity)
        except DeriveError:
            raise ProblemError(
                f"{where}: key 'expect' ({quantity})",
                'an exact value as text: a decimal or a fraction ("225/163", "0.0507")',
            ) from None
        expect.append((quantity, value.strip()))
    return NativeEntry(
        pid,
        table.get("title", pid),
        table.get("text", ""),
        spec,
        tuple(table.get("ask", ())),
        tuple(expect),
    )
