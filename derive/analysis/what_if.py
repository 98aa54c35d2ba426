"""A what-if on a measured step (Amdahl's law): a profile of its time by class and a speed-up
for some classes give the new time, its rate, the overall speed-up and its limit.

With shares f_c of the measured time T (they sum to 1) and speed-ups s_c (1 for a class not
changed), the new time is T' = T · Σ_c f_c / s_c, the speed-up S = T / T' = 1 / Σ_c f_c / s_c,
a measured rate r becomes r · S, and the limit (the changed classes costing nothing) is
1 / (1 − Σ_changed f_c) (None: every class changed, no limit).

>>> w = what_if("gemm=0.62,attention=0.2,other=0.18", "gemm=1.8", time="70ms")
>>> w.time, w.speedup, w.limit
(1141/22500, 225/163, 50/19)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.errors import ProblemError
from derive.formula.decimals import parse_decimal
from derive.problem.timing import parse_duration

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_CLASSES = 32


@dataclass(frozen=True)
class WhatIf:
    """A what-if on a measured step.

    Attributes:
        profile: (class, share of the measured time), as given.
        speedups: (class, speed-up), as given.
        measured_time: T in seconds (None: a rate was measured instead).
        measured_rate: r, the measured rate (None: a time was measured); ``rate_unit`` its unit.
        time: T' (None without T); ``rate``: r · S (None without r).
        speedup: S = T / T'; ``limit``: S with the changed classes free (None: unbounded).
        remaining: Σ f_c / s_c, the new time as a fraction of the old.
    """

    profile: tuple[tuple[str, sp.Rational], ...]
    speedups: tuple[tuple[str, sp.Rational], ...]
    measured_time: sp.Rational | None
    measured_rate: sp.Rational | None
    rate_unit: str
    remaining: sp.Rational
    time: sp.Rational | None
    rate: sp.Rational | None
    speedup: sp.Rational
    limit: sp.Rational | None


def _pairs(text: str, flag: str, percent: bool) -> tuple[tuple[str, sp.Rational], ...]:
    """``name=value,…`` read exactly (a value may end in % when ``percent``)."""
    where = f"{flag} {text!r}"
    items = [item.strip() for item in str(text).split(",") if item.strip()]
    if not items or len(items) > _MAX_CLASSES:
        raise ProblemError(
            where, f"write class=value pairs separated by commas (at most {_MAX_CLASSES})"
        )
    out: dict[str, sp.Rational] = {}
    for item in items:
        name, sign, value = (part.strip() for part in item.partition("="))
        if not sign or not _NAME.fullmatch(name):
            raise ProblemError(where, f"{item!r} is not class=value (e.g. gemm=0.62)")
        if name in out:
            raise ProblemError(where, f"class {name!r} is given twice")
        scale = sp.Rational(1, 100) if percent and value.endswith("%") else 1
        number = parse_decimal(value.removesuffix("%") if scale != 1 else value, where)
        if number <= 0:
            raise ProblemError(where, f"{name}: a value must be positive")
        out[name] = number * scale
    return tuple(out.items())


def what_if(
    profile: str, speedup: str, time: str | None = None, rate: str | None = None,
    rate_unit: str = "tokens/s", rate_flag: str = "--measured-tokens-per-s",
) -> WhatIf:  # fmt: skip
    """The what-if of the module docstring from the flags' text.

    Raises:
        ProblemError: shares that do not sum to 1, a speed-up for a class not in the profile,
            a value not positive, or no measurement (naming the flag).
    """
    shares = _pairs(profile, "--profile", percent=True)
    total = sum((f for _, f in shares), sp.Integer(0))
    if total != 1:
        raise ProblemError(f"--profile {profile!r}", f"the shares sum to {total}, not 1")
    speedups = _pairs(speedup, "--speedup", percent=False)
    classes = dict(shares)
    for name, _ in speedups:
        if name not in classes:
            why = f"{name!r} is not a class of --profile ({', '.join(classes)})"
            raise ProblemError(f"--speedup {speedup!r}", why)
    if time is None and rate is None:
        raise ProblemError("--profile", f"give the measured step: --measured-time or {rate_flag}")
    measured_time = None if time is None else parse_duration(time, "--measured-time")
    if measured_time is not None and measured_time <= 0:
        raise ProblemError(f"--measured-time {time}", "a measured time must be positive")
    measured_rate = None if rate is None else parse_decimal(rate, rate_flag)
    if measured_rate is not None and measured_rate <= 0:
        raise ProblemError(f"{rate_flag} {rate}", "a measured rate must be positive")
    faster = dict(speedups)
    remaining = sum((f / faster.get(c, 1) for c, f in shares), sp.Integer(0))
    changed = sum((f for c, f in shares if c in faster), sp.Integer(0))
    given = (shares, speedups, measured_time, measured_rate, rate_unit, remaining)
    new_time = None if measured_time is None else measured_time * remaining
    new_rate = None if measured_rate is None else measured_rate / remaining
    limit = None if changed == 1 else 1 / (1 - changed)
    return WhatIf(*given, new_time, new_rate, 1 / remaining, limit)
