"""Worked-solution steps for the time of a step: the per-kernel table and the summed bounds.

Reads :class:`~derive.analysis.step.StepTime` (a field of the analysis); computes nothing.
A step of one kernel with no transfer, overhead or derating is the plain roofline and
keeps the builder's usual bounds step; every other step is shown kernel by kernel.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.step import Binding, StepTime
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_tex, time_text
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import decimal_line, time_line

MICROSECONDS_PER_SECOND = 10**6

_COMMS = r"T_{\text{comms},k}"


def is_plain(step: StepTime) -> bool:
    """One kernel, nothing sent, no overhead, ceilings not derated: the plain roofline."""
    ceilings = step.ceilings
    return (
        len(step.kernels) == 1
        and step.comms_bytes == 0
        and step.launch_overhead == 0
        and ceilings.compute_efficiency == 1
        and ceilings.memory_efficiency == 1
    )


MAX_TERMS_SHOWN = 6  # longer sums are read off the table (one row per kernel)


def _decimal_sum(values: list[sp.Expr]) -> str:
    """The per-kernel numbers summed, when there are few enough to read on one line."""
    if len(values) > MAX_TERMS_SHOWN:
        return ""
    return " + ".join(time_tex(value) for value in values)


def _has_comms(step: StepTime) -> bool:
    return step.comms_bytes != 0 and not step.comms_unpriced


def _us(value: sp.Expr) -> Math:
    """A time in microseconds, 3 significant digits, short enough for a column of a
    two-column paper (the exact seconds are in the JSON)."""
    return Math(tex_decimal(value * MICROSECONDS_PER_SECOND, 3))


PER_MILLE = 1000  # a share under 1/1000 (0.1 %) shows as <0.1


def _percent(share: sp.Expr) -> str:
    """A kernel's share of the step in per cent with one decimal: ``51.3``; a share under
    0.1 % (but not none) as ``<0.1`` rather than a misleading ``0.0``.

    >>> _percent(sp.Rational(1, 2)), _percent(sp.Rational(1, 30000)), _percent(sp.Integer(0))
    ('50.0', '<0.1', '0')
    """
    if share == 0:
        return "0"
    if share * PER_MILLE < 1:
        return "<0.1"
    return f"{float(100 * share):.1f}"


def _table(step: StepTime) -> tuple:
    """Kernel, its times in µs, its bound, what it binds on, its share of T_lower.

    FLOPs and bytes per kernel are in the JSON (``step.kernels``) and, for a layer, in the
    per-part table; here the times, so the table fits a page.
    """
    comms = _has_comms(step)
    header: tuple[str, ...] = ("kernel", "T_math (µs)", "T_mem (µs)")
    header += ("T_comms (µs)",) if comms else ()
    header += ("bound (µs)", "binds on", "share (%)")
    rows = []
    for time in step.kernels:
        kernel = time.kernel
        name = kernel.name + (" (fused)" if kernel.fused else "")
        row: tuple[Rich, ...] = (rich(name), rich(_us(time.t_math)), rich(_us(time.t_mem)))
        row += (rich(_us(time.t_comms)),) if comms else ()
        row += (
            rich(_us(time.t_lower)),
            rich(time.binding.value),
            rich(_percent(time.share)),
        )
        rows.append(row)
    return (header, *rows)


def _binding_note(step: StepTime) -> Rich:
    shares = step.shares
    parts = []
    for binding in Binding:
        names = [time.kernel.name for time in step.kernels if time.binding is binding]
        if names:
            parts.append(
                f"{binding.value}: {', '.join(names)} ({fmt_decimal(100 * shares[binding], 3)} % of T_lower)"
            )
    return rich(f"Binding by kernel, {'; '.join(parts)}. The step is {step.binding.value}-bound.")


def _notes(step: StepTime) -> list[Rich]:
    ceilings = step.ceilings
    notes = [_binding_note(step)]
    if ceilings.compute_efficiency != 1 or ceilings.memory_efficiency != 1:
        notes.append(
            rich(
                "Ceilings derated by the efficiencies given: ",
                Math(
                    rf"\pi \eta_c = {tex(ceilings.effective_peak)},\ "
                    rf"\beta \eta_m = {tex(ceilings.effective_bandwidth)}"
                ),
                f" (η_c = {ceilings.compute_efficiency}, η_m = {ceilings.memory_efficiency}).",
            )
        )
    if step.launch_overhead != 0:
        notes.append(
            rich(
                f"Each of the {step.launches} kernel launches adds a launch overhead of "
                f"{time_text(ceilings.launch_overhead)} ({time_text(step.launch_overhead)} in all)."
            )
        )
    if _has_comms(step):
        notes.append(
            rich(
                "A kernel's transfer is waited for (+ T_comms) when declared as a Collective, and "
                "overlaps its compute (max(…, T_comms)) when declared overlap=True or as a plain comms tensor "
                "(the network roofline's third ceiling); both sums are shown."
            )
        )
    if step.comms_unpriced:
        notes.append(rich("Bytes are sent but no link bandwidth is given: T_comms = 0."))
    return notes


def _bounds_lines(step: StepTime) -> list[Line]:
    comms = _has_comms(step)
    launch = r" + t_{\text{launch}}" if step.launch_overhead != 0 else ""
    serial = [
        not time.kernel.comms_overlapped for time in step.kernels if time.kernel.comms_bytes != 0
    ]
    inner = r"\max(T_{\text{math},k}, T_{\text{mem},k})"
    if comms and all(serial):
        inner += " + " + _COMMS
    elif comms and not any(serial):
        inner = r"\max(T_{\text{math},k}, T_{\text{mem},k}, T_{\text{comms},k})"
    elif comms:
        inner = r"\text{per kernel as declared}"
    inner += launch
    upper = r"T_{\text{math},k} + T_{\text{mem},k}" + (" + " + _COMMS if comms else "") + launch
    lines = [
        time_line(
            r"T_{\text{lower}}",
            rf"\sum_k \left[{inner}\right]" if " + " in inner else rf"\sum_k {inner}",
            _decimal_sum([time.t_lower for time in step.kernels]),
            seconds=step.t_lower,
        ),
        time_line(
            r"T_{\text{upper}}",
            rf"\sum_k \left({upper}\right)",
            _decimal_sum([time.t_upper for time in step.kernels]),
            seconds=step.t_upper,
        ),
    ]
    if comms:
        lines += [
            time_line(
                r"T_{\text{lower}}^{\text{overlapped}}",
                r"\sum_k \max(T_{\text{math},k}, T_{\text{mem},k}, T_{\text{comms},k})" + launch,
                seconds=step.t_lower_overlapped,
            ),
            time_line(
                r"T_{\text{lower}}^{\text{serial}}",
                r"\sum_k \left[\max(T_{\text{math},k}, T_{\text{mem},k}) + T_{\text{comms},k}\right]"
                + launch,
                seconds=step.t_lower_serial,
            ),
        ]
    if len(step.kernels) > 1:
        lines += [
            decimal_line(
                r"I_{\text{aggregate}}",
                r"\frac{\sum_k \text{FLOPs}_k}{\sum_k \text{bytes}_k}",
                rf"\frac{{{tex(step.flops)}}}{{{tex(step.bytes)}}}",
                value=step.aggregate_intensity,
            ),
            time_line(
                r"T_{\text{single roofline}}",
                r"\max\left(\sum_k T_{\text{math},k}, \sum_k T_{\text{mem},k}\right)",
                rf"\max({time_tex(step.t_math)}, {time_tex(step.t_mem)})",
                seconds=step.single_roofline_t_lower,
            ),
        ]
    return lines


def step_steps(analysis: Analysis) -> list[tuple[Step, str]]:
    """The per-kernel table (topic ``step``) and the summed bounds (topic ``bounds``).

    Empty when the step is the plain roofline of one kernel (see :func:`is_plain`).
    """
    step = analysis.step
    if step is None or is_plain(step):
        return []
    if len(step.kernels) == 1:
        return kernel_steps(step, "the operator runs as one kernel")
    return kernel_steps(step)


def kernel_steps(
    step: StepTime, what: str = "each part is launched on its own, fused parts run as one kernel"
) -> list[tuple[Step, str]]:
    """The per-kernel table and the summed bounds of any step (a layer's, a model phase's)."""
    count = len(step.kernels)
    table = Step(
        StepKind.STEP,
        "a step is its kernels in order; each overlaps its own compute and memory, not its neighbours'",
        rich(
            f"{count} kernel{'s' if count != 1 else ''}: {what}; "
            "T_math = FLOPs/π, T_mem = bytes/β, T_comms = bytes sent/β_link + link latency × steps."
        ),
        (),
        tuple(_notes(step)),
        table=_table(step),
    )
    notes: list[Rich] = []
    if count > 1:
        notes.append(
            rich(
                "The aggregate intensity is the layer's single-roofline intensity; "
                "max(Σ T_math, Σ T_mem) would be a lower bound only if the step ran as one kernel, "
                "so T_lower sums the kernels' own bounds instead."
            )
        )
    bounds = Step(
        StepKind.BOUNDS,
        "Σ_k max(T_math,k, T_mem,k) ≤ T ≤ Σ_k (T_math,k + T_mem,k), transfers and launches added",
        rich("Perfect overlap inside each kernel gives the lower bound; none at all the upper."),
        tuple(_bounds_lines(step)),
        tuple(notes),
    )
    return [(table, q.STEP.name), (bounds, q.BOUNDS.name)]
