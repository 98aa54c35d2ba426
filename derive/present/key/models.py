"""The models chapter of an answer key: a problem set's ``model = "NAME"`` problems.

:func:`model_chapter` renders each whole-model problem (derived by
:mod:`derive.pipeline.key`, with the steps its ``ask`` needs) and returns what the key templates print: items (Markdown and LaTeX worked
solutions), questions and the rows of the models-at-a-glance table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from derive.catalogue import table as q
from derive.figures.model import Series
from derive.model.analysis import ModelAnalysis
from derive.model.phase import DecodeCrossover, PhaseAnalysis
from derive.present.escape import md_escape, md_rich, tex_escape, tex_rich
from derive.present.formats import render
from derive.present.key.files import key_item
from derive.present.key.questions import QuestionRow
from derive.present.key.serving import crossover_part, serving_part
from derive.present.key.training import training_part
from derive.present.model_view import (
    ASK_PHRASES,
    EarlierGivens,
    glance,
    model_document,
)
from derive.problem.serving_spec import SERVING_ASK_KEYS
from derive.problem.sets.problem_set import ModelEntry, ProblemSet
from derive.problem.train_spec import TRAIN_ASK_KEYS, TRAIN_CHECK_KEYS
from derive.solution.model_steps import shown_quantities
from derive.training.analysis import StrategyRow, TrainingAnalysis


@dataclass(frozen=True)
class DerivedModel:
    """A model problem as the pipeline derived it: its analysis (the steps its ``ask``
    needs), its serving step (None without a ``phase``) or its training run (None without
    ``train``, with the strategies when asked), and its plot's curves."""

    analysis: ModelAnalysis
    phase: PhaseAnalysis | DecodeCrossover | None = None
    series: tuple[Series, ...] = ()
    training: TrainingAnalysis | None = None
    strategies: tuple[StrategyRow, ...] = ()
    winner: StrategyRow | None = None


@dataclass(frozen=True)
class ModelChapter:
    """What the key templates print for the model problems."""

    items: tuple[dict, ...]
    questions: tuple[dict, ...]
    rows: tuple[QuestionRow, ...]  # one per problem of the models-at-a-glance table


def model_ask(entry: ModelEntry) -> tuple[str, ...]:
    """The model quantities asked (a serving problem asking only for its step shows the bytes it
    reads; a training problem asking only for its run shows the parameters)."""
    if entry.train is not None:
        run = TRAIN_ASK_KEYS + TRAIN_CHECK_KEYS
        return tuple(key for key in entry.ask if key not in run) or (q.PARAMS.name,)
    defined = entry.questions.answers if entry.questions is not None else ()
    if entry.serving is None:
        return tuple(key for key in entry.ask if key not in defined)
    asked = tuple(key for key in entry.ask if key not in SERVING_ASK_KEYS + defined)
    return asked or ((q.WEIGHTS_BYTES.name, q.KV_BYTES.name) if entry.ask else ())


def model_chapter(
    pset: ProblemSet,
    derived: Sequence[DerivedModel],
    stem: str = "",
) -> ModelChapter:
    """Render every model problem of the set, numbered as the set's file numbers them.

    ``derived`` holds each problem as the pipeline derived it, in the set's order.
    """
    items, questions, rows = [], [], []
    tables: dict[str, EarlierGivens] = {}  # each model's givens table, printed once
    for entry, model in zip(pset.models, derived, strict=True):
        i = pset.number(entry.id)
        a, phase = model.analysis, model.phase
        earlier = tables.get(a.problem.model.name)
        if earlier is None:
            tables[a.problem.model.name] = EarlierGivens.of(a, i, entry.id)
        title = f"Problem {i} ({entry.id}): {entry.title}"
        worked = model_document(a, title, entry.text, level=2, earlier=earlier)
        md, tex = render(worked, "md"), render(worked, "tex")
        serving = (
            None
            if entry.serving is None or phase is None
            else crossover_part(
                a,
                cast(DecodeCrossover, phase),
                model.series,
                entry.serving,
                (stem, entry.id, entry.title),
            )
            if not phase.kind.roofline
            else serving_part(
                a,
                cast(PhaseAnalysis, phase),
                model.series,
                entry.serving,
                entry.ask,
                stem,
                entry.id,
                entry.title,
            )
        )
        training = (
            training_part(
                model.training,
                model.strategies,
                model.winner,
                model.series,
                entry.train,
                entry.ask,
                (stem, entry.id, entry.title),
            )
            if entry.train is not None and model.training is not None
            else None
        )
        for shown in (part for part in (serving, training) if part is not None):
            md = md.rstrip("\n") + "\n\n" + render(shown.document, "md")
            tex = tex.rstrip("\n") + "\n\n" + render(shown.document, "tex")
        part = serving if serving is not None else training
        label = "Serving step" if serving is not None else "Training run"
        items.append(key_item(entry.id, md, tex, part.figure if part is not None else None))
        asks = tuple(k for k in model_ask(entry) if k in ASK_PHRASES) or tuple(
            q.key for q in shown_quantities(a) if q.key in ASK_PHRASES
        )
        # the sheet asks what the teacher asked: the model quantities a serving step or a
        # training run shows on the way (the weights' bytes, the parameters) are steps of
        # the key and figures of its glance, not questions of their own
        sheet_asks = (
            tuple(k for k in asks if k in entry.ask) if part is not None and entry.ask else asks
        )
        sheet = model_document(a, entry.title, entry.text, 2, True, earlier=earlier)
        questions.append(
            {
                "title": entry.title,
                "text": entry.text,
                "model_body": render(sheet, "md")
                + (f"\n**{label}.** {md_rich(part.given)}\n" if part is not None else ""),
                "model_tex": render(sheet, "tex")
                + (
                    f"\n\\paragraph{{{label}.}} {tex_rich(part.given)}\n"
                    if part is not None
                    else ""
                ),
                "asks": tuple(ASK_PHRASES[k] for k in sheet_asks)
                + (part.asks if part is not None else ()),
            }
        )
        text, tex_text = glance(a, asks)
        if part is not None:
            text = f"{text}; {md_escape(part.glance)}"
            tex_text = f"{tex_text}; {tex_escape(part.glance)}"
        rows.append(
            QuestionRow(
                entry.id,
                entry.id.lower(),
                a.problem.model.name,
                a.problem.hardware_name,
                text,
                tex_text,
            )
        )
    return ModelChapter(tuple(items), tuple(questions), tuple(rows))
