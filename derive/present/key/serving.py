"""The serving part of a model problem in an answer key: the step, its rates, a figure.

A ``model = "NAME"`` problem with ``phase = "decode"`` (or ``"prefill"``) gets, after the
model's worked solution, the serving step's (:mod:`derive.model.phase`); with
``serving_plot`` a figure of decode tokens/s against the batch, one curve per context
length, the matmuls' crossover marked (SVG for the Markdown, TikZ for the LaTeX).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from derive.analysis.measured import MeasuredVerdict
from derive.catalogue import ProblemKind, phrases
from derive.catalogue import table as q
from derive.figures.model import Series, SweepFigure
from derive.formula.decimals import counted, fmt_decimal
from derive.formula.durations import time_text
from derive.model.analysis import ModelAnalysis
from derive.model.phase import (
    DecodeCrossover,
    Phase,
    PhaseAnalysis,
)
from derive.present.formats import Document
from derive.present.key.figures import Figure, sweep_figure
from derive.present.serving_step import (
    crossover_document,
    crossover_given,
    phase_document,
    phase_given,
)
from derive.problem.serving_spec import ServingSpec
from derive.solution.steps import Rich

SERVING_PHRASES = phrases(ProblemKind.SERVING)


@dataclass(frozen=True)
class KeyPart:
    """What a serving or training problem adds to its key item: its worked solution (a
    section after the model's), its figure, its line at a glance and its Given line (prose,
    or prose and math: each format escapes them where it prints them), and what its
    question sheet asks."""

    document: Document
    figure: Figure | None
    glance: str
    given: str | Rich
    asks: tuple[str, ...]


def _figure(
    series: tuple[Series, ...],
    phase: PhaseAnalysis | DecodeCrossover,
    stem: str,
    pid: str,
    title: str,
) -> Figure:
    devices = (
        counted(phase.tp, "device")
        if phase.replicas == 1
        else f"{phase.replicas * phase.tp} devices ({phase.replicas} replicas of {phase.tp}, B each)"
    )
    caption = (
        f"{title}: decode tokens/s against the batch B on {devices} "
        "(the step's lower bound; memory capacity not checked), the matmuls' crossover B* marked"
    )
    figure = SweepFigure(f"{title}: decode tokens/s against B", "B", "tokens/s", series)
    return sweep_figure(f"{stem}-{pid}-serving.svg", caption, figure)


def _glance(phase: PhaseAnalysis) -> str:
    bound = f"{phase.step.binding.value}-bound, step at least {time_text(phase.step.t_lower)}"
    if phase.phase is Phase.DECODE:
        cross = phase.crossover
        where = (
            f"; compute-bound matmuls from B = {cross.min_compute_bound}"
            if cross is not None and cross.min_compute_bound is not None
            else ""
        )
        return f"{fmt_decimal(phase.tokens_per_s)} tokens/s ({bound}){where}{_measured(phase)}{_cost(phase)}"
    return f"TTFT {time_text(phase.latency)} ({bound}){_measured(phase)}{_cost(phase)}"


def _cost(phase: PhaseAnalysis) -> str:
    """The step's bill, for the glance (empty without a price): per step and per Mtok."""
    cost = phase.cost
    if cost is None or cost.cost_per_step is None:
        return ""
    return (
        f"; {_plain(cost.cost_per_step)} USD a step, "
        f"{_plain(cost.cost_per_million_tokens)} USD per million tokens"
    )


def _plain(value: object) -> str:
    """A positive amount to 5 significant figures without e-notation (0.000069249)."""
    text = fmt_decimal(value)
    if "e" not in text:
        return text
    x = float(value)  # type: ignore[arg-type]
    return f"{x:.{max(0, 4 - math.floor(math.log10(x)))}f}"


def _measured(phase: PhaseAnalysis) -> str:
    """What a measurement implies, for the glance (empty without one)."""
    measured = phase.measured
    if measured is None or measured.mfu is None or measured.mbu is None:
        return ""
    word = "" if measured.verdict is MeasuredVerdict.POSSIBLE else ", impossible"
    return (
        f"; measured: MFU {fmt_decimal(measured.mfu, 3)}, MBU {fmt_decimal(measured.mbu, 3)}{word}"
    )


def _crossover_glance(cross: DecodeCrossover) -> str:
    """A decode asked without a batch, at a glance: where its matmuls turn compute-bound."""
    where = cross.crossover.min_compute_bound
    bound = (
        f"compute-bound matmuls from B = {where}"
        if where is not None
        else f"matmuls' crossover {cross.crossover.status}"
    )
    return f"decode crossover: {bound} (no batch given, no step timed)"


def crossover_part(
    analysis: ModelAnalysis,
    cross: DecodeCrossover,
    series: tuple[Series, ...],
    spec: ServingSpec,
    ids: tuple[str, str, str],
) -> KeyPart:
    """A decode asked without a batch, rendered for the key: its crossover alone, as
    ``derive model --phase decode`` prints it (``ids``: the key's stem, the problem's id
    and title, for the serving plot)."""
    stem, pid, title = ids
    given = crossover_given(cross, analysis)
    return KeyPart(
        document=crossover_document(cross, analysis, level=3),
        figure=_figure(series, cross, stem, pid, title) if spec.plot is not None else None,
        given=given,
        glance=_crossover_glance(cross),
        asks=(SERVING_PHRASES[q.CROSSOVER.name],),
    )


def serving_part(
    analysis: ModelAnalysis,
    phase: PhaseAnalysis,
    series: tuple[Series, ...],
    spec: ServingSpec,
    ask: tuple[str, ...],
    stem: str,
    pid: str,
    title: str,
) -> KeyPart:
    """The serving step of a model problem, rendered for the key.

    ``phase`` is the step and ``series`` the curves of its ``serving_plot`` (empty without
    one), both derived by the pipeline (:mod:`derive.pipeline.key`).
    """
    figure = _figure(series, phase, stem, pid, title) if spec.plot is not None else None
    decode = phase.phase is Phase.DECODE
    default = (
        tuple(r.name for r in (q.STEP, q.TOKENS_PER_S, q.INTER_TOKEN_LATENCY, q.CROSSOVER))
        if decode
        else tuple(r.name for r in (q.STEP, q.TTFT, q.PREFILL_TOKENS_PER_S))
    )
    asks = tuple(key for key in ask if key in SERVING_PHRASES) or default
    return KeyPart(
        document=phase_document(phase, analysis, 3),
        figure=figure,
        given=phase_given(phase, analysis),
        glance=_glance(phase),
        asks=tuple(SERVING_PHRASES[key] for key in asks),
    )
