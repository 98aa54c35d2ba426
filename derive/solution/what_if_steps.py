"""The worked step of a what-if on a measured step (Amdahl's law).

Reads :class:`~derive.analysis.what_if.WhatIf`; computes nothing.
"""

from __future__ import annotations

from derive.analysis.what_if import WhatIf
from derive.formula.decimals import fmt_decimal, fmt_ending_decimal
from derive.formula.durations import time_text
from derive.solution.notation import tex
from derive.solution.steps import Line, Rich, Step, StepKind, rich
from derive.solution.value_display import decimal_line, seconds_tex, time_line


def _name(c: str) -> str:
    return rf"\text{{{c.replace('_', ' ')}}}"


def _lines(w: WhatIf) -> tuple[Line, ...]:
    faster = dict(w.speedups)
    symbolic = " + ".join(
        rf"\frac{{f_{{{_name(c)}}}}}{{s_{{{_name(c)}}}}}" if c in faster else rf"f_{{{_name(c)}}}"
        for c, _ in w.profile
    )
    numbers = " + ".join(
        rf"\frac{{{tex(f)}}}{{{tex(faster[c])}}}" if c in faster else tex(f) for c, f in w.profile
    )
    lines = [
        decimal_line(r"\frac{T'}{T}", symbolic, numbers, value=w.remaining),
        decimal_line("S", r"\frac{T}{T'}", rf"\frac{{1}}{{{tex(w.remaining)}}}", value=w.speedup),
    ]  # fmt: skip
    if w.time is not None and w.measured_time is not None:
        lines.append(
            time_line(
                "T'",
                r"T \cdot \frac{T'}{T}",
                rf"{seconds_tex(w.measured_time)} \cdot {tex(w.remaining)}",
                seconds=w.time,
            )
        )
    if w.rate is not None and w.measured_rate is not None:
        lines.append(
            decimal_line(
                "r'", r"r \cdot S", rf"{tex(w.measured_rate)} \cdot {tex(w.speedup)}", value=w.rate
            )
        )
    changed = r" - ".join(rf"f_{{{_name(c)}}}" for c, _ in w.speedups)
    if w.limit is not None:
        shares = " - ".join(tex(f) for c, f in w.profile if c in faster)
        lines.append(
            decimal_line(
                r"S_{\max}",
                rf"\frac{{1}}{{1 - {changed}}}",
                rf"\frac{{1}}{{1 - {shares}}}",
                value=w.limit,
            )
        )
    return tuple(lines)


def what_if_steps(w: WhatIf) -> tuple[Step, ...]:
    """One step: the new time, its rate, the speed-up and its Amdahl limit."""
    notes: tuple[Rich, ...] = ()
    if w.limit is None:
        notes = (rich("Every class is sped up: the speed-up has no limit short of infinity."),)
    return (
        Step(
            StepKind.WHAT_IF,
            "T' = T · Σ f_c / s_c; S = T / T'; the limit is 1 / (1 − Σ f_changed) (Amdahl)",
            rich(
                "Each class keeps its share f_c of the measured time, divided by its speed-up s_c "
                "(1 for a class not changed); the limit is the speed-up if the changed classes "
                "cost nothing."
            ),
            _lines(w),
            notes,
            topic="what_if",
        ),
    )


def _plain(value: object) -> str:
    """An exact decimal when the value has one (0.62), else rounded to 5 figures."""
    return fmt_ending_decimal(value) or fmt_decimal(value)


def what_if_given(w: WhatIf) -> Rich:
    """The profile, the change and the measurement in one sentence."""
    profile = ", ".join(f"{c} {_plain(f)}" for c, f in w.profile)
    change = ", ".join(f"{c} {_plain(s)}× faster" for c, s in w.speedups)
    measured = []
    if w.measured_time is not None:
        measured.append(f"a step of {time_text(w.measured_time)}")
    if w.measured_rate is not None:
        measured.append(f"{_plain(w.measured_rate)} {w.rate_unit}")
    return rich(f"measured {' and '.join(measured)}; shares of its time: {profile}; {change}.")


def what_if_verdict(w: WhatIf) -> tuple[Rich, ...]:
    """The answer in one bold line."""
    parts = [f"speed-up {_plain(w.speedup)}×"]
    if w.time is not None:
        parts.append(f"step {time_text(w.time)}")
    if w.rate is not None:
        parts.append(f"{_plain(w.rate)} {w.rate_unit}")
    limit = "none" if w.limit is None else f"{_plain(w.limit)}×"
    return (rich(f"What-if: {', '.join(parts)}; limit {limit}."),)
