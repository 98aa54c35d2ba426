"""Worked-solution steps of an operator that only communicates: its collectives and their time.

Reads :class:`~derive.analysis.comms_only.CommsAnalysis`; computes nothing. There is no
FLOP count, intensity, ridge or crossover to show: the steps say so once, in the verdict.
"""

from __future__ import annotations

from derive.analysis.comms_only import CommsAnalysis
from derive.formula.durations import time_text
from derive.solution.collective_steps import collective_step
from derive.solution.notation import tex
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import reading_tex, seconds_tex

_T_COMMS = r"T_{\text{comms}}"
_T_LINK = r"\beta_{\text{link}}"


def comms_given(analysis: CommsAnalysis) -> Rich:
    """The givens: the operator, its collectives' dtypes, the link and the bound dims."""
    problem = analysis.problem
    dtypes = ", ".join(f"{name} {dtype.name}" for name, dtype in problem.dtypes)
    where = f" ({problem.link_name})" if problem.link_name != "as given" else " (as given)"
    hardware = f" on {problem.chip.title}" if problem.chip is not None else ""
    latency = (
        f", link latency {time_text(problem.timing.link_latency)} a ring step"
        if problem.timing.link_latency
        else ", no link latency given (--link-latency)"
    )
    bound = ", ".join(f"{dim} = {value}" for dim, value in problem.bound)
    return rich(
        f"Operator {problem.operator.name}{hardware}, communication only ({dtypes}); ",
        Math(_T_LINK),
        f" = {problem.link.text} B/s{where}, one way, per link{latency}"
        + (f"; bound: {bound}" if bound else "; no dim bound")
        + ".",
    )


def _total(analysis: CommsAnalysis) -> Step:
    names = [item.collective.name.replace("_", r"\_") for item in analysis.collectives]
    parts = " + ".join(rf"T_{{\text{{{name}}}}}" for name in names)
    exact = seconds_tex(analysis.time) if analysis.time.is_number else tex(analysis.time)
    line = Line.of(
        r"T_{\text{comms}}",
        parts,
        " + ".join(tex(item.time) for item in analysis.collectives if item.time is not None)
        if len(analysis.collectives) > 1
        else "",
        exact,
        approx=reading_tex(analysis.time),
    )
    return Step(
        StepKind.STEP,
        "a transfer alone: the step is its collectives, one after another, on the link",
        rich(
            "No FLOPs and no bytes through HBM: nothing overlaps the transfer, so the time of "
            "the step is the communication time, ",
            Math(r"T_{\text{lower}} = T_{\text{upper}} = " + _T_COMMS),
            ".",
        ),
        (line,),
        (
            rich(
                "The interconnect binds, for every value of every dim: there is no compute, so "
                "no arithmetic intensity, no ridge and no crossover."
            ),
        ),
    )


def comms_steps(analysis: CommsAnalysis) -> tuple[Step, ...]:
    """The collectives (bytes per device, time on the link), then the step's time."""
    problem = analysis.problem
    return (
        collective_step(analysis.collectives, problem.link, problem.timing.link_latency),
        _total(analysis),
    )


def comms_verdict(analysis: CommsAnalysis) -> tuple[Rich, ...]:
    """One line: the interconnect binds, and the time."""
    time: tuple[str | Math, ...] = (
        (Math(_T_COMMS), f" = {time_text(analysis.time)}")
        if analysis.time.is_number
        else (Math(f"{_T_COMMS} = {tex(analysis.time)}"), " s")
    )
    return (
        rich(
            "Link-bound (the interconnect binds): ",
            *time,
            "; no compute, so no crossover.",
        ),
    )
