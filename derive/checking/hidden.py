"""Hidden means hidden: one verdict with everything that would let a student compute the answer removed.

Under ``--hide-expected`` (the command line, the grading CSV, the workbook) every check's
result passes through :func:`conceal`, whatever kind judged it: the expected value and the
relative error are dropped, and each diagnosis sentence keeps only the clauses that state
nothing of the answer. A clause goes when it gives a relative error, a factor or a
percentage (``off by 31.3 %``, ``twice the answer``, ``a factor of 3``), names the exact
value, or holds a number that is neither in the claim nor a small constant of a slip's name
(``2N``, ``16 B/param``, ``2^30``); numbers in parentheses go with their parentheses, and a
value a slip states goes with its ``=`` (``the ridge point π/β = 9850/41`` keeps ``the ridge
point π/β``). A named slip keeps its name (``GiB read as GB``). No side is said (``too large``, ``still
below the ridge``): with checks to spare, a side lets a student bisect to the answer.

:func:`stating` says whether a text (a worked step) states an expected value in any form
derive prints it: the exact fraction, a decimal rounded to any precision, in a power of ten
(``2.68 × 10^{13}``), an SI or binary prefix (``555.9 µs``, ``16 GiB``), a percentage or
another unit of time; the workbook withholds such a step until the value is solved.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from derive.checking.verdict import Verdict

if TYPE_CHECKING:
    from derive.checking.api import CheckResult


_CUTS = (" — ", "; without the regime", "; without that regime")
_GROUP = re.compile(r"\s*\([^()]*\d[^()]*\)")
_CLAUSES = re.compile(r"(;\s+|:\s+|,\s+(?=but |so |where |which ))")
_BANNED = re.compile(
    r"off by|relative error|\bexact\b|factor|twice|\bhalf\b|times the|×\s*the\s+(?:expected|answer)"
    r"|%|≈|\d[^,;:]* would be right|too (?:large|small|high|low|many|few)"
    r"|\b(?:still|already)\b|\b(?:below|above) the\b|\bis (?:memory|compute)-bound",
    re.IGNORECASE,
)
_CONTEXT = re.compile(r"^\s*at leading order under [^;:]*$")  # a prefix left with nothing to say
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
    whole = "." not in number and "e" not in number.lower()
    return _plain(number) in allowed or (whole and int(number.replace(",", "")) <= _SMALL)


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
        if clause.strip() and _clause_ok(clause, allowed) and not _CONTEXT.match(clause):
            out += (parts[i - 1] if out and i else "") + clause
    return out.strip()


def conceal(result: CheckResult, tolerance: str = "") -> CheckResult:
    """``result`` with the expected value, the relative error and every revealing clause kept
    back; a wrong claim with nothing left to say is ``not the expected value``."""
    said = [kept_back(s, result.claim, result.read_as, tolerance) for s in result.diagnosis]
    kept = list(dict.fromkeys(s for s in said if s))
    if result.exact is False and not any("not exact" in s for s in kept):  # said, not shown
        kept.append(f"right to {tolerance or 'the tolerance'}, not exact")
    if result.verdict is Verdict.INCORRECT and not kept:
        kept.append("the claim is not the expected value")
    return replace(result, diagnosis=tuple(kept), expected=None, relative_error=None)


# a number as derive prints it: 9850/41, \frac{9850}{41}, 1.2e8, 2.68 \times 10^{13}, 8,030,261,248
_PRINTED = re.compile(
    r"(?P<result>(?:=|≈|\\approx)\s*)?(?<![\w#^{.])(?:\\frac\{(?P<fn>\d+)\}\{(?P<fd>\d+)\}"
    r"|(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)(?![\d^])(?:/(?P<den>\d+)|[eE](?P<e>[-+]?\d+)"
    r"|\s*(?:\\times|×|\\cdot|·)\s*10\^\{?(?P<power>[-−]?\d+)\}?)?)"
)
_POWERS = tuple(10.0**k for k in range(-18, 19, 3))
_SCALES = {
    "": (*_POWERS, 100.0, 0.01),  # a ratio: a percentage too
    "s": (*_POWERS, 1 / 60, 1 / 3600, 1 / 86400),  # a time: in minutes, hours, days
    "days": (1.0, 24.0, 1440.0, 86400.0),
    "B": (*_POWERS, *(2.0**-k for k in range(10, 51, 10))),  # bytes: GiB and the like
}
"""What a printed number may be the value times, by the value's unit: a prefix (µ, k, Gi), a
percentage, another unit of time."""


@lru_cache(maxsize=4096)
def _printed(text: str) -> tuple[tuple[Fraction, Fraction, int], ...]:
    """The numbers ``text`` prints: (value, half its last digit, significant digits); a number
    of fewer than three digits that is a result (after ``=`` or ``≈``) has -1 digits."""
    out = []
    for m in _PRINTED.finditer(text):
        if m["fn"]:
            out.append((Fraction(int(m["fn"]), int(m["fd"]) or 1), Fraction(0), 99))
            continue
        digits = m["num"].replace(",", "")
        if m["den"]:
            out.append((Fraction(digits) / (int(m["den"]) or 1), Fraction(0), 99))
            continue
        power = int((m["e"] or m["power"] or "0").replace("−", "-"))
        mantissa = digits.lstrip("0").replace(".", "").lstrip("0")
        decimals = len(digits.partition(".")[2])
        half = Fraction(1, 2) * Fraction(10) ** (power - decimals)
        shown = -1 if m["result"] and len(mantissa) < 3 else len(mantissa)
        out.append((Fraction(digits) * Fraction(10) ** power, half, shown))
    return tuple(out)


_ANSWER = re.compile(
    r"^(?:[A-Za-z_]\w* [≥≤<>] )?(?P<number>[\d.,/eE+-]+)(?: (?P<unit>[^\d*+^()]*))?$"
)


def answer_value(expected: str) -> tuple[Fraction, Fraction, str] | None:
    """The number an expected text states (``9850/41 ≈ 240.24 FLOPs/byte``, ``B ≥ 121``), with
    half its last digit when rounded and its unit's kind (``s``, ``B``, ``days``, ``""``);
    None for a formula or a truth value."""
    m = _ANSWER.match(expected.split(" ≈ ")[0].strip())
    found = _printed(m["number"]) if m else ()
    if not m or len(found) != 1 or found[0][0] == 0:
        return None
    unit = (m["unit"] or "").strip()
    kind = "s" if unit == "s" else "days" if unit == "days" else ""
    kind = "B" if re.fullmatch(r"B|bytes?|B/.*", unit) else kind
    rounded = "." in m["number"] or "e" in m["number"].lower()  # else exact (an integer, a/b)
    return found[0][0], found[0][1] if rounded else Fraction(0), kind


def stating(numbers: Mapping[str, str]) -> Callable[[str], tuple[str, ...]]:
    """What a text states of the answers, by their keys: ``numbers`` as derive writes them
    (``9850/41 ≈ 240.24 FLOPs/byte``, ``B ≥ 121``), printed in any form: exactly, or rounded to
    three or more significant digits, in any unit :data:`_SCALES` names for it.

    >>> said = stating({"t": "134217728/241455078125 s ≈ 555.9 µs", "B": "B ≥ 121"})
    >>> said("B_min = ⌈4925/41⌉ = 121"), said("T = 0.556 ms"), said("I(120) = 240 < 240.24")
    (('B',), ('t',), ())
    """
    exact: dict[Fraction, list[str]] = {}
    near: list[tuple[float, float, str]] = []  # (the value in a unit, its half digit, key)
    for key, text in numbers.items():
        answer = answer_value(text)
        if answer is None:
            continue
        v, vhalf, kind = answer
        exact.setdefault(v, []).append(key)
        near += [(float(v) * s, float(vhalf) * s, key) for s in _SCALES[kind]]
    near.sort()
    centers = [c for c, _, _ in near]
    spread = max((w / c for c, w, _ in near), default=0.0)  # the widest rounding, relative

    def said(text: str) -> tuple[str, ...]:
        found: set[str] = set()
        for x, half, digits in _printed(text):
            if 0 <= digits < 3:  # a small number is everywhere: only a result states it
                continue
            found.update(exact.get(x, ()))
            if digits < 3:
                continue
            xf, hf = float(x), float(half)
            reach = (hf + abs(xf) * spread) * (1 + 1e-9)
            for c, w, key in near[bisect_left(centers, xf - reach) :]:
                if c > xf + reach:
                    break
                if abs(xf - c) <= (hf + w) * (1 + 1e-9):
                    found.add(key)
        return tuple(key for key in numbers if key in found)

    return said
