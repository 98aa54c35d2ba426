"""Hidden means hidden: one verdict with everything that would let a student compute the answer removed.

Under ``--hide-expected`` (the command line, the grading CSV, the workbook) every check's
result passes through :func:`conceal`, whatever kind judged it: the expected value and the
relative error are dropped, and each diagnosis sentence keeps only the clauses that state
nothing of the answer. A clause goes when it gives a relative error, a factor or a
percentage (``off by 31.3 %``, ``twice the answer``, ``a factor of 3``), names the exact
value, or holds a number that is neither in the claim nor a small constant of a slip's name
(``2N``, ``16 B/param``, ``2^30``); numbers in parentheses go with their parentheses, and a
value a slip states goes with its ``=`` (``the ridge point π/β = 9850/41`` keeps ``the ridge
point π/β``). A named slip keeps its name (``GiB read as GB``). What is left is at most a coarse direction:
a wrong number's verdict says ``the claim is too large`` or ``too small`` when nothing else
said which side it is on.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import sympy as sp

from derive.checking.verdict import Verdict

if TYPE_CHECKING:
    from derive.checking.api import CheckResult

__all__ = ["conceal", "direction", "kept_back"]

_CUTS = (" — ", "; without the regime", "; without that regime")
_GROUP = re.compile(r"\s*\([^()]*\d[^()]*\)")
_CLAUSES = re.compile(r"(;\s+|:\s+|,\s+(?=but |so |where |which ))")
_BANNED = re.compile(
    r"off by|relative error|\bexact\b|factor|twice|\bhalf\b|times the|×\s*the\s+(?:expected|answer)"
    r"|%|≈|\d[^,;:]* would be right",
    re.IGNORECASE,
)
_STATED = re.compile(r"\s*=\s*(?P<value>[^,;:]*\d[^,;:]*)")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")
_SMALL = 16  # constants of slip names: 2N, 6N, 16 bytes per parameter, 8·P·T
_POWER = re.compile(r"\b(?:10|2)\^-?\d+")


def _plain(number: str) -> str:
    """A number token without the trailing zeros of its decimals (``13.0200`` is ``13.02``)."""
    if "." in number and "e" not in number.lower():
        return number.rstrip("0").rstrip(".")
    return number


def _numbers(text: str) -> set[str]:
    return {_plain(n) for n in _NUMBER.findall(text or "")}


def _small(number: str, allowed: set[str]) -> bool:
    """True for a number of the claim's own, or a small integer of a slip's name."""
    if _plain(number) in allowed:
        return True
    return (
        "." not in number and "e" not in number.lower() and int(number.replace(",", "")) <= _SMALL
    )


def _unstated(clause: str, allowed: set[str]) -> str:
    """``clause`` without the values it states (``the ridge point π/β = 9850/41 ≈ 240.24``)."""

    def cut(m: re.Match[str]) -> str:
        numbers = _NUMBER.findall(_POWER.sub("", m.group("value")))
        return m.group() if all(_small(n, allowed) for n in numbers) else ""

    return _STATED.sub(cut, clause)


def _clause_ok(clause: str, allowed: set[str]) -> bool:
    """True when ``clause`` states nothing of the answer."""
    if _BANNED.search(clause):
        return False
    return all(_small(n, allowed) for n in _NUMBER.findall(_POWER.sub("", clause)))


def kept_back(sentence: str, claim: str, read_as: str | None, tolerance: str = "") -> str:
    """``sentence`` with every clause that states the answer removed ('' when nothing is left).

    ``tolerance`` (``1%``) may be named: it is the grader's, not the answer's.
    """
    for cut in _CUTS:
        sentence = sentence.split(cut)[0]
    if tolerance:
        sentence = sentence.replace(f"{tolerance} tolerance", "tolerance")
    sentence = _GROUP.sub("", sentence)
    allowed = _numbers(claim) | _numbers(read_as or "")
    parts = _CLAUSES.split(sentence)  # clause, separator, clause, …
    out = ""
    for i in range(0, len(parts), 2):
        clause = _unstated(parts[i], allowed)
        if clause.strip() and _clause_ok(clause, allowed):
            out += (parts[i - 1] if out and i else "") + clause
    return out.strip()


def direction(claimed: object, exact: object) -> str | None:
    """``the claim is too large`` / ``too small`` for two comparable numbers (else None)."""
    if not (isinstance(claimed, sp.Expr) and isinstance(exact, sp.Expr)):
        return None
    if not (claimed.is_number and exact.is_number and claimed.is_real and exact.is_real):
        return None
    if claimed == exact:
        return None
    return "the claim is too large" if bool(claimed > exact) else "the claim is too small"


def conceal(
    result: CheckResult, claimed: object = None, exact: object = None, tolerance: str = ""
) -> CheckResult:
    """``result`` with the expected value, the relative error and every revealing clause kept back.

    ``claimed`` and ``exact`` (the numbers compared, when they are) give a wrong claim its
    side, said once.
    """
    said = [kept_back(s, result.claim, result.read_as, tolerance) for s in result.diagnosis]
    kept = list(dict.fromkeys(s for s in said if s))
    side = direction(claimed, exact) if result.verdict is Verdict.INCORRECT else None
    if side and not any(w in s for s in kept for w in ("too large", "too small")):
        kept.append(side)
    if result.exact is False and not any("not exact" in s for s in kept):  # said, not shown
        kept.append(f"right to {tolerance or 'the tolerance'}, not exact")
    return replace(result, diagnosis=tuple(kept), expected=None, relative_error=None)
