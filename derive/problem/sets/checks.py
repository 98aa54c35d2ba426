"""Validation of problem-set tables: known keys of the right types, well-formed unique ids.

Each check raises a :class:`~derive.errors.ProblemError` naming the file, the problem
and the key; :mod:`derive.problem.sets.problem_set` collects them per problem.
"""

from __future__ import annotations

import re

from derive.errors import ProblemError
from derive.formula.limits import show

NATIVE_TABLES = ("budget", "what_if")
"""The key that makes a ``[[problem]]`` a budget or a what-if (its parser:
:mod:`derive.problem.sets.natives`)."""

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_TEXT = 20_000


def type_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return " or ".join(type_name(k) for k in kind)
    return {str: "a string", int: "an integer", list: "a list", dict: "a table"}[kind]


def check_keys(table: dict, schema: dict, where: str) -> None:
    for key, value in table.items():
        at = f"{where}: key {key!r}"
        if key not in schema:
            raise ProblemError(at, f"unknown key; allowed: {', '.join(schema)}")
        want = schema[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            numbers = key in ("peak", "bandwidth", "link_bandwidth")
            hint = ' (hardware numbers are strings, e.g. "1.97e14")' if numbers else ""
            raise ProblemError(at, f"must be {type_name(want)}{hint}")


def str_map(value: dict, where: str, key: str, values: type) -> tuple[str, ...]:
    out = []
    for k, v in value.items():
        if not isinstance(v, values) or isinstance(v, bool):
            raise ProblemError(f"{where}: key {key!r}", f"entry {k!r} must be {type_name(values)}")
        out.append(f"{k}={v}")
    return tuple(out)


def problem_head(
    raw: object, index: int, origin: str, seen: set[str], schema: dict, required: str
) -> tuple[str, str, dict]:
    """The checks every problem shares: a table, known keys, a fresh id; returns (id, where, raw)."""
    where = f"{origin}: problem {index + 1}"
    if not isinstance(raw, dict):
        raise ProblemError(where, "each [[problem]] must be a table")
    pid = raw.get("id")
    if isinstance(pid, str) and ID_RE.match(pid):
        where = f"{origin}: problem {pid!r}"
    check_keys(raw, schema, where)
    for key in ("id", required):
        if key not in raw:
            kinds = " (a problem is an operator, a model or a kernel)" if key == "operator" else ""
            raise ProblemError(where, f"missing key {key!r}{kinds}")
    if not isinstance(pid, str) or not ID_RE.match(pid):
        raise ProblemError(
            f"{where}: key 'id'",
            "ids are 1-64 letters, digits, '-' or '_', starting with a letter or digit",
        )
    if pid.lower() in seen:
        raise ProblemError(f"{where}: key 'id'", "duplicate id (ids are unique ignoring case)")
    seen.add(pid.lower())
    for key in ("title", "text"):
        if len(raw.get(key, "")) > MAX_TEXT:
            raise ProblemError(f"{where}: key {key!r}", f"longer than {MAX_TEXT} characters")
    _refuse_repeats(raw.get("ask", ()), f"{where}: key 'ask'")
    return pid, where, raw


def refuse_others(raw: dict, index: int, origin: str, others: tuple[str, ...], why: str) -> None:
    """Refuse a problem that also has another kind's key (``why`` may name it as ``{other}``)."""
    for other in others:
        if other in raw:
            pid = raw.get("id")
            named = f"problem {pid!r}" if isinstance(pid, str) else f"problem {index + 1}"
            raise ProblemError(f"{origin}: {named}: key {other!r}", why.format(other=other))


def _refuse_repeats(items: object, where: str) -> None:
    """A quantity asked twice is a slip (and 100,000 of them once made a 13 MB key)."""
    if not isinstance(items, list):
        return  # the type is check_keys' to refuse
    seen: set[object] = set()
    for item in items:
        if not isinstance(item, str):
            return
        if item in seen:
            raise ProblemError(where, f"{show(item)} is asked twice; list each quantity once")
        seen.add(item)
