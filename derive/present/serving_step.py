"""One serving step of a model (``derive model MODEL --phase decode|prefill``), as a document.

The step (:mod:`derive.model.phase`, derived by the pipeline) as its worked solution
(Markdown or LaTeX, after the model's) or its keys (JSON):
``step``, ``tokens_per_s``, ``inter_token_latency`` (decode), ``ttft`` and
``prefill_tokens_per_s`` (prefill), the decode ``crossover`` (and ``crossover_regime``,
``crossover_step``), ``replicas`` (``--devices`` over ``--tp``), and ``step_mfu``/``step_mbu``
from ``--measured-time`` or ``--measured-tokens-per-s`` (the cluster's serving rate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.catalogue.reading import attributes, text_or_none
from derive.errors import ProblemError
from derive.formula.decimals import counted, fmt_decimal, fmt_ending_decimal
from derive.formula.durations import time_text

if TYPE_CHECKING:
    from derive.catalogue import Quantity
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover, PhaseAnalysis
    from derive.present.formats import Document


def _peak_text(analysis: ModelAnalysis) -> tuple[str, str]:
    problem = analysis.problem
    peak = problem.peak or (problem.chip.peak(problem.compute_dtype) if problem.chip else None)
    if peak is None or problem.bandwidth is None:
        raise ProblemError("--phase", "a step's time needs a peak and a bandwidth: give --chip")
    return peak.text, problem.bandwidth.text


def phase_given(phase: PhaseAnalysis, analysis: ModelAnalysis) -> str:
    """The serving step's givens in one sentence: the phase, the group and the ceilings."""
    problem = analysis.problem
    peak, bandwidth = _peak_text(analysis)
    chip = problem.chip
    link = (
        f", β_link = {chip.link.text} B/s ({chip.link_name}, one way)"
        if chip is not None and chip.link is not None and phase.tp > 1
        else ""
    )
    if phase.mesh_rules:
        ceilings = phase.step.ceilings
        alpha, beta = ceilings.link_latency, ceilings.link or 0
        why = (
            f", --mesh default: tp = {phase.tp} is more than one node" if phase.mesh_chosen else ""
        )
        link = (
            f"; TP's all-reduces on the mesh {phase.mesh}{why} ({'; then '.join(phase.mesh_rules)}): "
            f"β_link = {fmt_decimal(beta / 10**9)} GB/s, the bytes one device moves over "
            "the time per byte" + (f", and {time_text(alpha)} of latency a call" if alpha else "")
        )
    elif phase.mesh:
        link = f"; mesh {phase.mesh} (no all-reduce at tp = 1)"
    return (
        f"{problem.model.name}, {phase.phase.value} at B = {phase.batch}, S = {phase.context}, "
        f"tensor parallel {group_given(phase)}; counts and times per device; "
        f"π = {peak} FLOP/s ({problem.compute_dtype} peak), β = {bandwidth} B/s{link}"
        f"{_measured_given(phase)}.{assumed(phase)}{_convention(phase)}"
    )


def _convention(phase: PhaseAnalysis) -> str:
    """Under the book's convention, what it leaves out and derive's own time (empty otherwise)."""
    own = phase.default_latency
    if own is None:
        return ""
    typed = phase.mesh and not phase.mesh_chosen
    how = "timed 2V/W, its “Note on ICI bounds for generation”" if typed else "left out"
    return (
        " Convention scaling-book (Inference, “Theoretical estimates for LLM latency and throughput”): "
        f"TP's all-reduces {how}; derive's own step: {time_text(own)} "
        f"({fmt_decimal(phase.latency / own)}× here)."
    )


def assumed(phase: PhaseAnalysis | DecodeCrossover) -> str:
    """A model known by its size: what its step assumed, one clause each (empty otherwise)."""
    if not phase.assumptions:
        return ""
    return " Known by its size alone, the step assumes: " + "; ".join(phase.assumptions) + "."


def group_given(phase: PhaseAnalysis | DecodeCrossover) -> str:
    """The devices of the step as ``derive model`` words them after "tensor parallel":
    the group, and with data parallelism its replicas and the devices of all of them.

    The step's counts and times are one device's; its rates are all the replicas'.
    """
    replicas = (
        f", {phase.replicas} data-parallel replicas of it on {phase.replicas * phase.tp} devices "
        "(B sequences each; rates for all replicas)"
        if phase.replicas > 1
        else ""
    )
    return f"over {counted(phase.tp, 'device')}{replicas}"


def _measured_given(phase: PhaseAnalysis) -> str:
    """The measurement as given: the cluster's rate or the step's time (empty without one)."""

    measured = phase.measured
    if measured is None:
        return ""
    if phase.measured_tokens_per_s is not None:
        return (
            f"; measured: {fmt_ending_decimal(phase.measured_tokens_per_s) or fmt_decimal(phase.measured_tokens_per_s)}"
            " tokens/s for the whole cluster"
        )
    if measured.time is not None:
        return f"; measured: a step of {time_text(measured.time)}"
    return "; measured rates as given"


def phase_document(phase: PhaseAnalysis, analysis: ModelAnalysis, level: int = 2) -> Document:
    """The phase's worked solution, a section after the model's (``kernel.*.j2``; JSON:
    :func:`phase_json`)."""
    from derive.present.worked import worked_document
    from derive.solution.serving_steps import phase_steps, phase_verdict
    from derive.solution.steps import rich

    peak, bandwidth = _peak_text(analysis)
    return worked_document(
        f"{phase.phase.value.capitalize()} step",
        rich(phase_given(phase, analysis)),
        phase_steps(phase, peak, bandwidth),
        phase_verdict(phase),
        lambda: phase_json(phase),
        level,
    )


def phase_json(phase: PhaseAnalysis) -> dict[str, object]:
    """The phase's keys (exact strings; ``null`` where a key is for the other phase): its
    rows' values laid out in the contract's order, the step first and the crossovers, the
    measurement and the convention among them."""
    from derive.present.json_export import crossover_json, laid_out, measured_json, step_json

    head = {"phase": phase.phase.value, "tp": phase.tp, "replicas": phase.replicas}
    rate = phase.measured_tokens_per_s
    g = phase.tp_max_generation
    after: dict[Quantity, dict[str, object]] = {
        q.PREFILL_TOKENS_PER_S: {
            q.CROSSOVER.name: crossover_json(phase.crossover),
            q.CROSSOVER_REGIME.name: crossover_json(phase.crossover_regime),
            "crossover_step": crossover_json(phase.crossover_step),
        },
        q.STEP_MBU: {
            q.MEASURED.name: measured_json(phase.measured),
            "measured_tokens_per_s": text_or_none(rate),
            "experts_read": _experts_json(phase),
            **({"assumptions": list(phase.assumptions)} if phase.assumptions else {}),
        },
        q.ENERGY_PER_TOKEN: {
            **_convention_json(phase),
            **({"mesh": phase.mesh} if phase.mesh else {}),
            **({"tp_max_generation_scaling_book": str(g)} if g else {}),
        },
    }
    order = (q.TOKENS_PER_S, q.INTER_TOKEN_LATENCY, q.TTFT, q.PREFILL_TOKENS_PER_S, q.STEP_MFU,
             q.STEP_MBU, q.COST_PER_STEP, q.COST_PER_MILLION_TOKENS, q.ENERGY_PER_TOKEN)  # fmt: skip
    rows = laid_out(ProblemKind.SERVING, phase.roots, after, "serving", order)
    return {**head, q.STEP.name: step_json(phase.step), **rows}


def _convention_json(phase: PhaseAnalysis) -> dict[str, object]:
    own = phase.default_latency  # derive's own, under another convention
    if own is None:
        return {}
    ratio = {"value": str(own), "ratio": str(phase.latency / own)}
    return {"convention": phase.convention, "derive_convention": {"latency": ratio}}


def _experts_json(phase: PhaseAnalysis) -> dict[str, str] | None:
    """A MoE step's experts read per layer: both bounds, the convention and the expectation."""
    read = phase.experts_read
    if read is None:
        return None
    return {
        "lower": str(read.lower),
        "upper": str(read.read),
        "read": str(read.read),
        "uniform": str(read.uniform),
    }


def crossover_given(cross: DecodeCrossover, analysis: ModelAnalysis) -> str:
    """The decode crossover's givens in one sentence: B free, the context, the group, the ceilings."""
    problem = analysis.problem
    peak, bandwidth = _peak_text(analysis)
    context = (
        f"S = {cross.context}"
        if cross.context is not None
        else "S free (the matmuls' counts hold no S; the whole step's crossover is in S)"
    )
    return (
        f"{problem.model.name}, decode with B free (the batch solved for), {context}, tensor "
        f"parallel {group_given(cross)}; counts per device; π = {peak} FLOP/s "
        f"({problem.compute_dtype} peak), β = {bandwidth} B/s.{assumed(cross)}"
    )


def crossover_document(cross: DecodeCrossover, analysis: ModelAnalysis, level: int = 2) -> Document:
    """The decode crossover asked without a batch, a section after the model's (JSON:
    :func:`crossover_json`)."""
    from derive.present.worked import worked_document
    from derive.solution.serving_steps import crossover_steps, crossover_verdict
    from derive.solution.steps import rich

    return worked_document(
        "Decode crossover",
        rich(crossover_given(cross, analysis)),
        crossover_steps(cross),
        crossover_verdict(cross),
        lambda: crossover_json(cross),
        level,
    )


def crossover_json(cross: DecodeCrossover) -> dict[str, object]:
    """The crossover's keys, the step's keys ``null`` (no batch, no step) with the reason."""
    from derive.present.json_export import crossover_json as one

    no_step = "no batch given: --set B=… times the step"
    return {
        "phase": "decode",
        **attributes(cross, "tp replicas", None),
        "batch": None,
        "context": text_or_none(cross.context),
        q.STEP.name: None,
        q.TOKENS_PER_S.name: None,
        q.INTER_TOKEN_LATENCY.name: None,
        q.CROSSOVER.name: one(cross.crossover),
        q.CROSSOVER_REGIME.name: one(cross.crossover_regime),
        "crossover_step": one(cross.crossover_step),
        "crossover_step_context_limit": text_or_none(cross.context_limit),
        "left_out": dict.fromkeys(
            (q.STEP.name, q.TOKENS_PER_S.name, q.INTER_TOKEN_LATENCY.name), no_step
        ),
        **({"assumptions": list(cross.assumptions)} if cross.assumptions else {}),
    }
