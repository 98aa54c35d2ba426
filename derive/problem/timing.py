"""What a step's time takes besides the ceilings: efficiencies, overheads, measurements.

``TimingSpec`` holds the flags as typed (text); :func:`bind_timing` parses each one
exactly (numbers through :mod:`derive.formula.decimals`, durations through the small
whitelisted unit parser :func:`parse_duration`) into a frozen :class:`Timing`.

>>> parse_duration("5us", "--launch-overhead")
1/200000
>>> bind_timing(TimingSpec(efficiency="0.8")).compute_efficiency
4/5
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TypeVar

import sympy as sp

from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import parse_decimal, parse_positive

DURATION_UNITS: dict[str, sp.Rational] = {
    "s": sp.Integer(1),
    "ms": sp.Rational(1, 10**3),
    "us": sp.Rational(1, 10**6),
    "µs": sp.Rational(1, 10**6),
    "ns": sp.Rational(1, 10**9),
}
"""The units a duration may carry (none means seconds)."""

_D = TypeVar("_D")


def parse_duration(text: str, what: str) -> sp.Rational:
    """A non-negative duration in seconds from ``5us``, ``2.5 ms``, ``1e-6`` (seconds).

    Raises:
        ProblemError: a unit outside :data:`DURATION_UNITS`, or a negative duration.
    """
    if not isinstance(text, str):
        raise ProblemError(what, f"expected a duration as text, got {type(text).__name__}")
    stripped = text.strip()
    unit = next(
        (name for name in sorted(DURATION_UNITS, key=len, reverse=True) if stripped.endswith(name)),
        "s",
    )
    number = stripped[: -len(unit)] if stripped.endswith(unit) else stripped
    if not number.strip() or not re.fullmatch(r"[0-9.eE+_ -]+", number):
        raise ProblemError(
            f"{what} {text!r}",
            f"not a duration: a number with an optional unit ({', '.join(DURATION_UNITS)}), e.g. 5us",
        )
    value = parse_decimal(number.strip(), what) * DURATION_UNITS[unit]
    if value < 0:
        raise ProblemError(f"{what} {text!r}", "a duration cannot be negative")
    return value


def _efficiency(text: str, what: str) -> sp.Rational:
    value = parse_positive(text, what)
    if value > 1:
        raise ProblemError(
            f"{what} {text}", "an efficiency is a fraction of the ceiling, in (0, 1]"
        )
    return value


@dataclass(frozen=True)
class TimingSpec:
    """The timing flags as typed (every field text, None when not given)."""

    efficiency: str | None = None
    compute_efficiency: str | None = None
    memory_efficiency: str | None = None
    launch_overhead: str | None = None
    link_latency: str | None = None
    measured_time: str | None = None
    measured_flops_per_s: str | None = None
    measured_bytes_per_s: str | None = None
    measured_tokens_per_s: str | None = None


_ZERO, _ONE = sp.Integer(0), sp.Integer(1)
_RATES = ("measured_flops_per_s", "measured_bytes_per_s")

TIMING_KEYS = tuple(f.name for f in fields(TimingSpec) if f.name != "measured_tokens_per_s")
"""The timing keys of a problem set's problem (text values), named like the flags.

``measured_tokens_per_s`` is not among them: a model problem has it already (a training
rate), and it is a serving step's measured rate only when the problem has a ``phase``.
"""


@dataclass(frozen=True)
class Timing:
    """Exact timing settings of a problem.

    Attributes:
        compute_efficiency: η_c, the fraction of the compute peak reached (1: the ceiling).
        memory_efficiency: η_m, the fraction of the memory bandwidth reached.
        launch_overhead: seconds added to every kernel of a step.
        link_latency: seconds per step of a collective's algorithm (a hop on the ring).
        measured_time: a measured time of the step, in seconds.
        measured_flops_per_s: a measured compute rate.
        measured_bytes_per_s: a measured memory rate.
        measured_tokens_per_s: a serving step's measured rate, tokens per second of the
            whole cluster (a model phase turns it into a measured time; nothing else reads it).
    """

    compute_efficiency: sp.Rational = _ONE
    memory_efficiency: sp.Rational = _ONE
    launch_overhead: sp.Rational = _ZERO
    link_latency: sp.Rational = _ZERO
    measured_time: sp.Rational | None = None
    measured_flops_per_s: sp.Rational | None = None
    measured_bytes_per_s: sp.Rational | None = None
    measured_tokens_per_s: sp.Rational | None = None

    @property
    def derated(self) -> bool:
        """True when either efficiency is below 1."""
        return self.compute_efficiency != 1 or self.memory_efficiency != 1

    @property
    def measured(self) -> bool:
        """True when any measurement is given."""
        return any(
            value is not None
            for value in (self.measured_time, self.measured_flops_per_s, self.measured_bytes_per_s)
        )


def bind_timing(spec: TimingSpec) -> Timing:
    """Parse every timing flag exactly; bad values raise a one-line error naming the flag."""
    if spec.efficiency is not None and (
        spec.compute_efficiency is not None or spec.memory_efficiency is not None
    ):
        raise ProblemError(
            "--efficiency",
            "give one --efficiency for both ceilings, or --compute-efficiency/--memory-efficiency",
        )
    both = _given(_efficiency, spec.efficiency, "--efficiency", None)
    compute = _given(_efficiency, spec.compute_efficiency, "--compute-efficiency", both)
    memory = _given(_efficiency, spec.memory_efficiency, "--memory-efficiency", both)
    rates = [f"--{k.replace('_', '-')}" for k in _RATES if getattr(spec, k) is not None]
    if spec.measured_time is not None and rates:
        raise ProblemError(
            f"--measured-time with {rates[0]}",
            "a run is measured by its time or by its rates, not both (the rates follow from "
            "the time and the counts): give --measured-time, or the measured FLOP/s and bytes/s",
        )
    if spec.measured_time is not None and spec.measured_tokens_per_s is not None:
        raise ProblemError(
            "--measured-time with --measured-tokens-per-s",
            "a serving step takes one measurement of its time: give its time or its rate, not both",
        )

    def rate(text: str | None, flag: str) -> sp.Rational | None:
        return _given(parse_positive, text, flag, None)

    return Timing(
        compute_efficiency=compute if compute is not None else _ONE,
        memory_efficiency=memory if memory is not None else _ONE,
        launch_overhead=_given(parse_duration, spec.launch_overhead, "--launch-overhead", _ZERO),
        link_latency=_given(parse_duration, spec.link_latency, "--link-latency", _ZERO),
        measured_time=_given(_positive_duration, spec.measured_time, "--measured-time", None),
        measured_flops_per_s=rate(spec.measured_flops_per_s, "--measured-flops-per-s"),
        measured_bytes_per_s=rate(spec.measured_bytes_per_s, "--measured-bytes-per-s"),
        measured_tokens_per_s=rate(spec.measured_tokens_per_s, "--measured-tokens-per-s"),
    )


def _given(
    parse: Callable[[str, str], sp.Rational], text: str | None, flag: str, default: _D
) -> sp.Rational | _D:
    """``text`` parsed for ``flag``, or ``default`` when the flag is not given."""
    return parse(text, flag) if text is not None else default


def _positive_duration(text: str, what: str) -> sp.Rational:
    value = parse_duration(text, what)
    if value == 0:
        raise ProblemError(f"{what} {text}", "a measured time must be positive")
    return value


def _key(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def timing_error_in_keys(error: DeriveError, where: str) -> ProblemError:
    """A timing flag's error said in a problem set's keys, under ``where`` (file and problem).

    ``--launch-overhead 5 parsecs`` becomes ``<where>: key 'launch_overhead' (5 parsecs)``,
    ``--measured-time with --measured-tokens-per-s`` becomes ``<where>: key 'measured_time'
    with key 'measured_tokens_per_s'``; flags in the reason become keys.

    >>> timing_error_in_keys(ProblemError("--efficiency 2", "in (0, 1]"), "s.toml: problem 'q'").what
    "s.toml: problem 'q': key 'efficiency' (2)"
    """
    why = error.why
    for name in (f.name for f in fields(TimingSpec)):
        why = why.replace("--" + name.replace("_", "-"), name)
    flag, _, detail = error.what.partition(" ")
    if detail.startswith("with --"):
        what = f"key {_key(flag)!r} with key {_key(detail[len('with ') :])!r}"
    else:
        what = f"key {_key(flag)!r}" + (f" ({detail})" if detail else "")
    return ProblemError(f"{where}: {what}", why)
