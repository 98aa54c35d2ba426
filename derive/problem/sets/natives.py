"""A problem set's budgets and what-ifs: ``budget = { compute = "5.76e23" }`` and
``what_if = { profile = "gemm=0.62,other=0.38", speedup = "gemm=1.8", measured_time = "70 ms" }``.

A ``[[problem]]`` with a ``budget`` table is the problem of ``derive budget`` (its keys are
the flags: ``compute``, ``params``, ``tokens``, ``tokens_per_param``,
``flops_per_param_token``); one with a ``what_if`` table is the what-if of ``--profile``
and ``--speedup`` on a measured step (``profile``, ``speedup``, and ``measured_time`` or one
measured rate, ``measured_tokens_per_s`` or ``measured_flops_per_s``). ``ask`` and
``expect`` name the kind's catalogue quantities (:data:`BUDGET_ASK_KEYS`,
:data:`WHAT_IF_ASK_KEYS`). The keys are checked here and the values when the problem is solved
(:mod:`derive.questions.natives`), each error one line naming the file, the problem and the
key; nothing is evaluated.

>>> entry = native_problem({"id": "c", "budget": {"compute": "5.76e23"}}, 0, "s.toml", set())
>>> entry.kind.value, entry.spec.compute, entry.where
('budget', '5.76e23', "s.toml: problem 'c'")
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.catalogue import ProblemKind, Typed, Use, did_you_mean, names_for
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.problem.sets.checks import problem_head, refuse_others
from derive.problem.sets.problem_set import exact_expect, unknown_quantity

BUDGET_ASK_KEYS = names_for(ProblemKind.BUDGET, Use.ASK)
WHAT_IF_ASK_KEYS = names_for(ProblemKind.WHAT_IF, Use.ASK)
NATIVE_QUANTITIES = BUDGET_ASK_KEYS + WHAT_IF_ASK_KEYS
"""Every quantity of a budget or a what-if (``derive check --quantity``)."""

BUDGET_KEYS = (
    "compute",
    q.PARAMS.name,
    q.TOKENS.name,
    q.TOKENS_PER_PARAM.name,
    "flops_per_param_token",
)
"""The keys a budget table takes (the flags of ``derive budget``, without ``--``)."""
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
class BudgetSpec(Typed):
    """A budget as typed: the flags of ``derive budget`` (decimal text, or None)."""

    compute: str | None = None
    params: str | None = None
    tokens: str | None = None
    tokens_per_param: str | None = None
    flops_per_param_token: str | None = None

    kind = ProblemKind.BUDGET
    """A scaling-law budget."""


@dataclass(frozen=True)
class WhatIfSpec(Typed):
    """A what-if as typed: ``--profile``, ``--speedup`` and the measured step."""

    profile: str
    speedup: str
    measured_time: str | None = None
    measured_rate: str | None = None
    rate_unit: str = "tokens/s"

    kind = ProblemKind.WHAT_IF
    """A what-if on a measured step."""

    @property
    def rate_flag(self) -> str:
        """The flag (and set key) of its measured rate."""
        key = next(k for k, unit in _RATES.items() if unit == self.rate_unit)
        return _flag(key)


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
    where: str = ""  # "<file>: problem '<id>'", how its errors name it once it is solved

    @property
    def kind(self) -> ProblemKind:
        """A budget or a what-if, as its spec."""
        return self.spec.kind


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
        return BudgetSpec(**_strings(table["budget"], BUDGET_KEYS, where, "budget"))
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


def _values(raw: dict, key: str, where: str, allowed: tuple[str, ...]) -> None:
    for item in raw.get(key, ()):
        if item not in allowed:
            raise unknown_quantity(f"{where}: key {key!r}", item, allowed)


def native_problem(raw: object, index: int, origin: str, seen: set[str]) -> NativeEntry:
    """Check and read one ``[[problem]]`` table with a ``budget`` or ``what_if`` key.

    Raises:
        ProblemError: naming the file, the problem and the key.
    """
    assert isinstance(raw, dict)  # the caller sends tables with one of NATIVE_TABLES here
    name = "budget" if "budget" in raw else "what_if"
    why = f"a problem is a {name.replace('_', '-')} or an {{other}}, not both"
    refuse_others(raw, index, origin, ("operator", "model", "kernel"), why)
    pid, where, table = problem_head(raw, index, origin, seen, _PROBLEM, name)
    spec = _spec(table, where)
    allowed = BUDGET_ASK_KEYS if name == "budget" else WHAT_IF_ASK_KEYS
    _values(table, "ask", where, allowed)
    expect = exact_expect(table.get("expect", {}), where, allowed)
    return NativeEntry(
        pid,
        table.get("title", pid),
        table.get("text", ""),
        spec,
        tuple(table.get("ask", ())),
        expect,
        where,
    )
