"""The training part of a model problem in an answer key: the run, its steps, a figure.

A ``model = "NAME"`` problem with ``train = { … }`` gets, after the model's worked solution,
the training run's (:mod:`derive.training`), only the steps its ``ask`` needs; with
``compare_strategies`` asked, the strategies side by side; with ``train_plot`` a figure of
T_lower against the tokens per DP rank for DP (ZeRO ≤ 2) and FSDP (ZeRO-3) on the run's
devices, each curve's critical batch marked (SVG for the Markdown, TikZ for the LaTeX).
The run, the strategies and the curves are derived by :mod:`derive.pipeline.key`.
"""

from __future__ import annotations

from derive.catalogue import ProblemKind, Use, names_for, phrase_of
from derive.catalogue import table as q
from derive.figures.model import Series, SweepFigure
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_text
from derive.present.key.figures import Figure, sweep_figure
from derive.present.key.serving import KeyPart
from derive.present.training_view import training_document
from derive.problem.train_spec import TrainSpec
from derive.solution.model_steps import verdict_words
from derive.solution.training_steps import training_given
from derive.training.analysis import StrategyRow, TrainingAnalysis

TRAINING_PHRASES = {
    name: phrase_of(ProblemKind.TRAINING, name) for name in names_for(ProblemKind.TRAINING, Use.ASK)
}
"""What a question sheet asks for each of a training problem's ``ask`` keys (the catalogue's)."""


def _figure(
    a: TrainingAnalysis, series: tuple[Series, ...], stem: str, pid: str, title: str
) -> Figure:
    p = a.problem
    links = (
        f"β_link = {p.link_text} B/s"
        if p.placement is None
        else f"on the mesh {p.placement.mesh.text()} ({p.placement.text()})"
    )
    caption = (
        f"{title}: T_lower of a step against the tokens per DP rank b on dp·tp·pp = "
        f"{p.dp}·{p.tp}·{p.pp} devices, {links}; each curve's critical batch marked"
    )
    figure = SweepFigure(f"{title}: T_lower against b", "b", "T_lower (s)", series)
    return sweep_figure(f"{stem}-{pid}-training.svg", caption, figure)


def _glance(a: TrainingAnalysis) -> str:
    fit = (
        "no capacity" if a.fits is None else verdict_words(q.FITS.name, a.fits).removeprefix("it ")
    )
    star = a.critical_tokens_per_device
    bound = "compute-bound" if a.compute_bound else "communication-bound"
    where = f", b* ≈ {fmt_decimal(star)} tokens/rank" if star is not None else ""
    mfu = f", MFU {fmt_decimal(a.mfu, 3)}" if a.mfu is not None else ""
    return (
        f"{fmt_decimal(a.memory.total / 10**9)} GB/device ({fit}); "
        f"step ≥ {time_text(a.t_lower)}, {bound}{where}{mfu}"
    )


def training_part(
    a: TrainingAnalysis,
    rows: tuple[StrategyRow, ...],
    winner: StrategyRow | None,
    series: tuple[Series, ...],
    spec: TrainSpec,
    ask: tuple[str, ...],
    names: tuple[str, str, str],
) -> KeyPart:
    """The training run of a model problem, rendered for the key.

    ``names`` is the key's stem, the problem's id and its title (the figure's file and caption).
    """
    stem, pid, title = names
    asked = tuple(k for k in ask if k in TRAINING_PHRASES)
    figure = _figure(a, series, stem, pid, title) if spec.plot is not None and series else None
    heading = f"Training run: {title}"
    default = (q.MEMORY_PER_DEVICE.name, q.T_LOWER.name, q.CRITICAL_TOKENS_PER_DEVICE.name)
    return KeyPart(
        document=training_document(a, rows, winner, title=heading, ask=asked, level=3),
        figure=figure,
        given=training_given(a),
        glance=_glance(a),
        asks=tuple(TRAINING_PHRASES[k] for k in (asked or default)),
    )
