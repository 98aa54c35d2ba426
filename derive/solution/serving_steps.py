"""Worked-solution steps of a model's serving phase: kernels, rates, the decode crossover.

Reads :class:`~derive.model.phase.PhaseAnalysis`; computes nothing.
"""

from __future__ import annotations

from dataclasses import replace

from derive.analysis.crossover.records import Crossover
from derive.formula.decimals import counted, fmt_decimal
from derive.formula.durations import time_text
from derive.model.phase import DecodeCrossover, Phase, PhaseAnalysis
from derive.solution.cost_steps import cost_step
from derive.solution.measured_steps import measured_step
from derive.solution.notation import tex, tex_decimal, tex_text_number
from derive.solution.step_time_steps import kernel_steps
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import decimal_line, time_line
from derive.solution.verdicts import verdict_text

_REPLICAS = r"\text{replicas} \cdot "


def _times_replicas(phase: PhaseAnalysis) -> tuple[str, str]:
    """The symbolic and numeric factor of the replicas (empty with one group)."""
    if phase.replicas == 1:
        return "", ""
    return _REPLICAS, rf"{phase.replicas} \cdot "


def _rates(phase: PhaseAnalysis) -> Step:
    t_lower = tex(phase.step.t_lower)
    times, times_n = _times_replicas(phase)
    if phase.phase is Phase.DECODE:
        lines = (
            decimal_line(
                r"\text{tokens/s}",
                times + r"\frac{B}{T_{\text{lower}}}",
                times_n + rf"\frac{{{phase.batch}}}{{{t_lower}}}",
                value=phase.tokens_per_s,
            ),
            time_line(r"\text{inter-token latency}", r"T_{\text{lower}}", seconds=phase.latency),
        )
        reason = "Each of the B sequences gains one token per decode step."
    else:
        lines = (
            time_line(r"\text{TTFT}", r"T_{\text{lower}}", seconds=phase.latency),
            decimal_line(
                r"\text{prefill tokens/s}",
                times + r"\frac{B \cdot S}{T_{\text{lower}}}",
                times_n + rf"\frac{{{phase.tokens}}}{{{t_lower}}}",
                value=phase.tokens_per_s,
            ),
        )
        reason = (
            "The B prompts of S tokens (the prompt length, T = S) are read in one step; "
            "the first token follows it."
        )
    if phase.replicas > 1:
        reason += (
            f" Each of the {phase.replicas} data-parallel replicas runs its own step at the same "
            "time, so the cluster's rate is the replicas times one group's."
        )
    return Step(
        StepKind.SERVING,
        "rate = tokens in flight / step time, at the step's lower bound (an upper bound on the rate)",
        rich(reason),
        lines,
    )


def _crossover(phase: PhaseAnalysis | DecodeCrossover) -> Step | None:
    cross, lead, whole = phase.crossover, phase.crossover_regime, phase.crossover_step
    if cross is None or lead is None or whole is None:
        return None
    lines = [
        Line.of(r"\text{FLOPs}_{\text{matmuls}}(B)", tex(phase.matmul_flops)),
        Line.of(r"\text{bytes}_{\text{matmuls}}(B)", tex(phase.matmul_bytes)),
        Line.of(
            r"\frac{\text{FLOPs}_{\text{matmuls}}(B)}{\pi}",
            r"\frac{\text{bytes}_{\text{matmuls}}(B)}{\beta}",
            relation=r"=",
        ),
    ]
    if cross.exact is not None:
        lines.append(
            Line.of(
                "B^{*}",
                tex(cross.exact),
                approx=tex_decimal(cross.exact) if cross.exact.is_number else None,
            )
        )
    if lead.exact is not None:
        lines.append(
            Line.of(
                r"B^{*}_{B \ll d}",
                r"\frac{\pi}{\beta} \cdot \frac{\text{bytes}_{\text{matmuls}}(0)}{\text{FLOPs}_{\text{matmuls}}(B)/B}",
                tex(lead.exact),
                approx=tex_decimal(lead.exact) if lead.exact.is_number else None,
            )
        )
    notes: list[Rich] = [
        rich(f"Matmuls (weights streamed once per step): {verdict_text(cross, phase.ridge)}."),
        rich(
            "At leading order, B ≪ d (the activations' bytes dropped against the weights'): "
            f"{verdict_text(lead, phase.ridge)}."
        ),
        _whole_step(phase, whole),
    ]
    if phase.step_fraction is not None:  # a decode's crossover with S free
        top, bottom = phase.step_fraction
        lines.append(Line.of(r"B^{*}_{\text{step}}(S)", rf"\frac{{{tex(top)}}}{{{tex(bottom)}}}"))
    return Step(
        StepKind.CROSSOVER,
        "solve FLOPs(B)/π = bytes(B)/β exactly for B, the other dims bound",
        rich("The batch at which decode's weight-streaming matmuls become compute-bound."),
        tuple(lines),
        tuple(notes),
    )


def _whole_step(phase: PhaseAnalysis | DecodeCrossover, whole: Crossover) -> Rich:
    """The whole step's crossover: at the bound S, or in S (a batch only while S is short)."""
    if phase.context is not None:
        return rich(
            f"The whole step at S = {phase.context} (attention's KV reads included): "
            f"{verdict_text(whole, phase.ridge)}."
        )
    limit, last = phase.context_limit, phase.context_last  # None for a timed step
    if limit is None or last is None:
        return rich(
            "The whole step, S free (attention's KV reads included): "
            f"{verdict_text(whole, phase.ridge)}; give --set S=… for its batch."
        )
    return rich(
        "The whole step, S free (attention's KV reads included, growing with S): compute-bound "
        "for B ≥ ",
        Math(r"\lceil B^{*}_{\text{step}}(S) \rceil"),
        f" only while S < {limit} ≈ {fmt_decimal(limit)} (S ≤ {last}); "
        f"from S = {last + 1} on, the KV reads keep it memory-bound for every B. "
        "Give --set S=… for its batch at one context.",
    )


def _experts(phase: PhaseAnalysis) -> Step | None:
    """The experts one MoE layer reads in the step: both bounds, the convention, the expectation."""
    read = phase.experts_read
    if read is None:
        return None
    t = "B" if phase.phase is Phase.DECODE else r"B \cdot S"
    lines = (
        Line.of(r"E_{\text{read}}^{\min}", "k", tex(read.lower)),
        Line.of(
            r"E_{\text{read}}",
            rf"\min(E,\ k \cdot {t})",
            rf"\min({read.experts},\ {read.top_k} \cdot {read.tokens})",
            tex(read.read),
        ),
        Line.of(
            r"E_{\text{read}}^{\text{uniform}}",
            rf"E \cdot \left(1 - \left(1 - \frac{{k}}{{E}}\right)^{{{t}}}\right)",
            # the exact fraction has about T digits: shown while it is short
            tex(read.uniform) if len(str(read.uniform)) <= 24 else "",
            approx=tex_decimal(read.uniform),
        ),
    )
    notes = (
        rich(
            f"Convention: each layer reads min(E, k·T) = {read.read} of its {read.experts} experts' "
            f"weights, the upper bound; at least k = {read.lower} are read (every token routed to the "
            "same experts). Uniform routing would read the expectation shown, between the two."
        ),
    )
    return Step(
        StepKind.BYTES,
        "a MoE layer reads the experts its T tokens touch: k ≤ experts read ≤ min(E, k·T)",
        rich(
            f"Each of the T = {read.tokens} tokens in flight runs k = {read.top_k} of the "
            f"E = {read.experts} experts; an expert no token touches is not read."
        ),
        lines,
        notes,
        title="Experts read per layer",
    )


def phase_steps(phase: PhaseAnalysis, peak_text: str, bandwidth_text: str) -> tuple[Step, ...]:
    """Every step of a serving phase, in order."""
    peak, bandwidth = tex_text_number(peak_text), tex_text_number(bandwidth_text)
    what = (
        f"the model's kernels on one of {phase.tp} devices (tensor parallel), "
        if phase.tp > 1
        else "the model's kernels on one device, "
    ) + "a block's kernels once per layer (×L)"
    if phase.kv_ways < phase.tp:
        what += (
            f"; the model's {phase.kv_ways} KV heads are fewer than the {phase.tp} devices, so each "
            f"device holds one KV head (its K and V projections and its KV cache), replicated "
            f"{phase.tp // phase.kv_ways} times"
        )
    experts = _experts(phase)
    steps = [] if experts is None else [experts]
    steps += [step for step, _ in kernel_steps(phase.step, what)]
    steps.append(_rates(phase))
    steps += crossover_steps(phase)
    if phase.measured is not None:
        step = measured_step(phase.measured, phase.step.flops, phase.step.bytes, peak, bandwidth)
        steps.append(_from_rate(phase, step))
    if phase.cost is not None:
        what = (
            "t the step's lower bound (a floor on the cost), T the tokens every replica makes in it"
        )
        steps.append(cost_step(phase.cost, what))
    return tuple(steps)


def crossover_steps(cross: PhaseAnalysis | DecodeCrossover) -> tuple[Step, ...]:
    """The decode crossover (asked without a batch, or a phase's): its one step, if any."""
    step = _crossover(cross)
    return () if step is None else (step,)


def crossover_verdict(cross: DecodeCrossover) -> tuple[Rich, ...]:
    """One line: the batch the matmuls turn compute-bound at, and why no step is timed."""
    context = "" if cross.context is None else f", S = {cross.context}"
    return (
        rich(
            f"Decode crossover{context}: the matmuls are {verdict_text(cross.crossover, cross.ridge)}; "
            "no step is timed without a batch (--set B=… for the step, its rate and latency)."
        ),
    )


def _from_rate(phase: PhaseAnalysis, step: Step) -> Step:
    """A measured rate's step: first the step time it implies, then MFU and MBU as for a time."""
    rate, measured = phase.measured_tokens_per_s, phase.measured
    if rate is None or measured is None or measured.time is None:
        return step
    times, times_n = _times_replicas(phase)
    tokens = "B" if phase.phase is Phase.DECODE else r"B \cdot S"
    line = time_line(
        r"T_{\text{measured}}",
        rf"\frac{{{times}{tokens}}}{{\text{{tokens/s}}_{{\text{{measured}}}}}}",
        rf"\frac{{{times_n}{phase.tokens}}}{{{tex(rate)}}}",
        seconds=measured.time,
    )
    notes = step.notes
    if measured.lower_bound is not None and measured.time < measured.lower_bound:
        most = phase.replicas * phase.tokens / measured.lower_bound
        notes = (
            *notes,
            rich(f"At that bound the cluster makes at most {fmt_decimal(most)} tokens/s."),
        )
    return replace(
        step,
        notes=notes,
        rule="T_measured = tokens per step ÷ measured tokens/s; then " + step.rule,
        reason=rich(
            "A measured rate of the whole cluster is a measured step time: each step makes "
            + ("B tokens" if phase.phase is Phase.DECODE else "B·S prompt tokens")
            + (" in each replica" if phase.replicas > 1 else "")
            + ". The rates it achieved, as fractions of the nominal ceilings."
        ),
        lines=(line, *step.lines),
    )


def phase_verdict(phase: PhaseAnalysis) -> tuple[Rich, ...]:
    """One line: the phase, its bound, its time and rate."""
    if phase.phase is Phase.DECODE:
        rate = f"{fmt_decimal(phase.tokens_per_s)} tokens/s, inter-token latency {time_text(phase.latency)}"
    else:
        rate = (
            f"TTFT {time_text(phase.latency)}, {fmt_decimal(phase.tokens_per_s)} prefill tokens/s"
        )
    where = (
        counted(phase.tp, "device")
        if phase.replicas == 1
        else f"{phase.replicas * phase.tp} devices ({phase.replicas} replicas of {phase.tp})"
    )
    return (
        rich(
            f"{phase.phase.value.capitalize()} at B = {phase.batch}, S = {phase.context} on {where}: "
            f"{phase.step.binding.value}-bound, step ≥ {time_text(phase.step.t_lower)}, {rate}."
        ),
    )
