"""Workbook pages for a set's whole-model problems (``model = "NAME"``).

A model page has the same shape as an operator page (``GET /api/problems/{id}``):
the question, the givens (the model's sizes, dtypes, devices and hardware with
sources), one answer box per asked quantity (``params``, ``kv_bytes_per_token``,
``max_batch``, …) and the steps of the model's worked solution as hints. It adds
``"kind": "model"`` and ``"derivation": false`` (a model is checked one quantity at a
time). Answers are checked by :func:`derive.check` like any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import quantity as catalogued
from derive.checking.serving_claims import SERVING_ASKED, SERVING_BOXES
from derive.checking.training_claims import (
    TRAINING_ASKED,
    TRAINING_BOXES,
    all_claims_analysis_for,
)
from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import counted
from derive.model.analysis import ModelAnalysis, select_quantities
from derive.model.records import Unit
from derive.pipeline import (
    DecodeCrossoverDerivation,
    ServingDerivation,
    derive_model,
    derive_set_serving,
    derive_training,
)
from derive.present.formats import render
from derive.present.key.models import model_ask
from derive.present.model_view import (
    ASK_PHRASES,
    JSON_KEYS,
    model_document,
    model_template_context,
)
from derive.present.serving_step import crossover_given, phase_given
from derive.problem.chips import Figure
from derive.problem.sets.problem_set import ModelEntry
from derive.solution.notation import tex_text_number
from derive.web.book import Asked, Page, html_env, page_of, step_chunks, steps_as_html, worked_steps

if TYPE_CHECKING:
    from derive.training.analysis import TrainingAnalysis


_BYTES = "bytes: a number with a unit (GB, GiB, KiB, …){dims}"
_PLACEHOLDERS = {
    Unit.PARAMS: "a number (3.7e9){dims}",
    Unit.BYTES: _BYTES,
    Unit.BYTES_PER_TOKEN: _BYTES,
    Unit.FLOPS: "FLOPs: a number (4.3e19){dims}",
    Unit.FLOPS_PER_TOKEN: "FLOPs per token: a number{dims}",
    Unit.SECONDS: "a time (s, ms, days)",
    Unit.DAYS: "days (or a time with its unit)",
    Unit.FRACTION: "a fraction, e.g. 0.42",
    Unit.SEQUENCES: "a whole number of sequences",
    Unit.TOKENS: "a whole number of tokens",
    Unit.TOKENS_PER_S: "tokens per second",
    Unit.DEVICES: "a whole number of devices",
    Unit.BOOLEAN: "yes or no",
    Unit.DOLLARS: "dollars: a number (1.2e6)",
    Unit.JOULES: "joules: a number (3.6e12)",
    Unit.JOULES_PER_TOKEN: "joules per token (0.5)",
}


def _asked(entry: ModelEntry, a: ModelAnalysis) -> tuple[Asked, ...]:
    """One box per quantity the question sheet's "Find:" names.

    A serving ask (``step``, ``crossover``, …) boxes its quantities; the bytes a step reads
    (the weights, the KV cache) are steps of its solution, boxed only when asked, as the
    question sheet asks them.
    """
    names = ", ".join(d.name for d in _free(a))
    free = f" or a formula in {names}" if names else ""
    out = []
    keys = entry.ask or JSON_KEYS
    for key in keys:
        if entry.train is not None and key in TRAINING_ASKED:
            for quantity in TRAINING_ASKED[key]:
                if a.quantity(quantity) is not None:
                    out.append(Asked(quantity, *TRAINING_BOXES[quantity]))
            continue
        if entry.serving is not None and key in SERVING_ASKED:
            for quantity in SERVING_ASKED[key]:
                if a.quantity(quantity) is not None:
                    out.append(Asked(quantity, *SERVING_BOXES[quantity]))
            continue
        q = a.quantity(key)
        if q is None:
            continue
        phrase = ASK_PHRASES.get(key, key)
        label = phrase[0].upper() + phrase[1:]
        symbol = catalogued(key).latex
        out.append(Asked(key, label, symbol, _PLACEHOLDERS[q.unit].format(dims=free)))
    return tuple(out)


def _free(a: ModelAnalysis) -> tuple:
    from derive.model.symbols import batch, context

    bound = {d for d, _ in a.problem.bound}
    return tuple(d for d in (batch, context, *a.problem.model.free_dims) if d not in bound)


def _givens(context: dict) -> dict:
    """The givens as data: symbols and values are LaTeX, the rest plain text."""
    chip = context["chip"]
    return {
        "model": context["model"].name,
        "describe": context["describe"],
        "chip": chip.name if chip else None,
        "chip_title": chip.title if chip else None,
        "devices": context["devices"],
        "dtypes": context["dtypes"],
        "bound": list(context["bound"]),
        "sizes": [{"symbol": s, "meaning": m, "value": v} for s, m, v in context["given"]],
        "hardware": [
            {"name": n, "symbol": s, "value": v, "source": src}
            for n, s, v, src in context["hardware"]
        ],
    }


def _serving_hardware(
    step: ServingDerivation | DecodeCrossoverDerivation | None,
) -> tuple[tuple[str, str, str, str], ...]:
    """The ceilings the step's time needs, as the question sheet gives them: π, β, β_link."""
    if step is None:
        return ()
    problem = step.analysis.problem
    chip = problem.chip
    peak = problem.peak or (chip.peak(problem.compute_dtype) if chip else None)
    rows: list[tuple[str, str, Figure, str]] = []  # name, symbol, figure, unit
    if peak is not None:
        rows.append((f"peak ({problem.compute_dtype})", r"\pi", peak, "FLOP/s"))
    if problem.bandwidth is not None:
        rows.append(("HBM bandwidth", r"\beta", problem.bandwidth, "B/s"))
    if chip is not None and chip.link is not None and step.phase.tp > 1:
        name = f"link bandwidth ({chip.link_name}, one way)"
        rows.append((name, r"\beta_{\text{link}}", chip.link, "B/s"))
    return tuple(
        (name, symbol, tex_text_number(f.text) + rf"\ \text{{{unit}}}", f.cite())
        for name, symbol, f, unit in rows
    )


def _serving_steps(
    serving: ServingDerivation | DecodeCrossoverDerivation | None, first: int
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The serving step's worked steps (Markdown chunks, HTML, titles), numbered from ``first``
    (a decode with no batch: its crossover's)."""
    from derive.solution.serving_steps import (
        crossover_steps,
        crossover_verdict,
        phase_steps,
        phase_verdict,
    )

    if serving is None:
        return (), (), ()
    if not serving.kind.roofline:
        cross = cast(DecodeCrossoverDerivation, serving).phase
        given = crossover_given(cross, serving.analysis)
        return worked_steps(
            "Decode crossover", given, crossover_steps(cross), crossover_verdict(cross), first
        )
    phase, problem = cast(ServingDerivation, serving).phase, serving.analysis.problem
    peak = problem.peak or (problem.chip.peak(problem.compute_dtype) if problem.chip else None)
    if peak is None or problem.bandwidth is None:
        return (), (), ()
    steps = phase_steps(phase, peak.text, problem.bandwidth.text)
    given = (
        f"{problem.model.name}, {phase.phase.value} at B = {phase.batch}, S = {phase.context}, "
        f"tensor parallel over {counted(phase.tp, 'device')}; counts and times per device."
    )
    return worked_steps("Serving step", given, steps, phase_verdict(phase), first)


def _training_steps(
    entry: ModelEntry, run: TrainingAnalysis | None, first: int
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The training run's worked steps (only those its ``ask`` needs), numbered from ``first``."""
    from derive.present.training_view import training_selected_steps
    from derive.solution.training_steps import training_given, training_verdict

    if run is None:
        return (), (), ()
    steps = training_selected_steps(run, ask=tuple(k for k in entry.ask if k in TRAINING_ASKED))
    return worked_steps("Training run", training_given(run), steps, training_verdict(run), first)


def model_page(entry: ModelEntry, operators: tuple[Path, ...], hints: bool) -> Page:
    """Derive one model problem and prepare its page.

    Raises:
        ProblemError: the problem cannot be derived (named by its id).
    """
    try:
        full = derive_model(entry.spec, operators).analysis
    except DeriveError as exc:
        raise ProblemError(f"problem {entry.id!r}", str(exc)) from None
    a = select_quantities(full, model_ask(entry))
    context = model_template_context(a, entry.title, entry.text)
    serving = derive_set_serving(entry, operators) if entry.serving is not None else None
    if serving is not None:
        named = {row[1] for row in context["hardware"]}
        extra = tuple(row for row in _serving_hardware(serving) if row[1] not in named)
        given = (
            crossover_given(cast(DecodeCrossoverDerivation, serving).phase, serving.analysis)
            if not serving.kind.roofline
            else phase_given(cast(ServingDerivation, serving).phase, serving.analysis)
        )
        context = {**context, "hardware": context["hardware"] + extra, "serving_given": given}
    run = (
        derive_training(entry.spec, entry.train, operators).analysis
        if entry.train is not None
        else None
    )
    if run is not None:  # the run's settings and ceilings are givens too (as on the sheet)
        from derive.solution.training_steps import training_given

        context = {**context, "training_given": training_given(run)}
    env = html_env()
    steps = context["steps"]
    steps_html = steps_as_html(steps, a.verdicts, a.warnings, template="model_step.html.j2")
    markdown = render(model_document(a, entry.title, entry.text), "md")
    asked = _asked(entry, all_claims_analysis_for(entry, operators))
    serving_md, serving_html, serving_titles = (
        _training_steps(entry, run, len(steps) + 1)
        if run is not None
        else _serving_steps(serving, len(steps) + 1)
    )
    steps_html += serving_html
    return page_of(
        entry,
        "model",
        asked,
        (_givens(context), env.get_template("model_givens.html.j2").render(**context)),
        (
            step_chunks(markdown) + serving_md,
            steps_html,
            tuple(step.title for step in steps) + serving_titles,
        ),
        hints,
        model=full.problem.model.name,
    )
