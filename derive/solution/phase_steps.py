"""Worked-solution steps of a model's serving phase: kernels, rates, the decode crossover.

Reads :class:`~derive.model.phase.PhaseAnalysis`; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.formula.decimals import fmt_decimal
from derive.model.phase import Phase, PhaseAnalysis
from derive.solution.measured_steps import measured_step
from derive.solution.notation import tex, tex_decimal, tex_text_number
from derive.solution.step_steps import kernel_steps
from derive.solution.steps import Line, Rich, Step, StepKind, rich
from derive.solution.verdicts import verdict_text

__all__ = ["phase_steps", "phase_verdict"]


def _sec(value: sp.Expr) -> str:
    return tex_decimal(value) + r"\ \text{s}"


def _rates(phase: PhaseAnalysis) -> Step:
    t_lower = tex(phase.step.t_lower)
    if phase.phase is Phase.DECODE:
        lines = (
            Line.of(
                r"\text{tokens/s}",
                r"\frac{B}{T_{\text{lower}}}",
                rf"\frac{{{phase.batch}}}{{{t_lower}}}",
                tex(phase.tokens_per_s),
                approx=tex_decimal(phase.tokens_per_s),
            ),
            Line.of(
                r"\text{inter-token latency}",
                r"T_{\text{lower}}",
                t_lower,
                approx=_sec(phase.latency),
            ),
        )
        reason = "Each of the B sequences gains one token per decode step."
    else:
        lines = (
            Line.of(r"\text{TTFT}", r"T_{\text{lower}}", t_lower, approx=_sec(phase.latency)),
            Line.of(
                r"\text{prefill tokens/s}",
                r"\frac{B \cdot S}{T_{\text{lower}}}",
                rf"\frac{{{phase.tokens}}}{{{t_lower}}}",
                tex(phase.tokens_per_s),
                approx=tex_decimal(phase.tokens_per_s),
            ),
        )
        reason = "The B prompts of S tokens are read in one step; the first token follows it."
    return Step(
        StepKind.SERVING,
        "rate = tokens in flight / step time, at the step's lower bound (an upper bound on the rate)",
        rich(reason),
        lines,
    )


def _crossover(phase: PhaseAnalysis) -> Step | None:
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
        rich(
            f"The whole step at S = {phase.context} (attention's KV reads included): "
            f"{verdict_text(whole, phase.ridge)}."
        ),
    ]
    return Step(
        StepKind.CROSSOVER,
        "solve FLOPs(B)/π = bytes(B)/β exactly for B, the other dims bound",
        rich("The batch at which decode's weight-streaming matmuls become compute-bound."),
        tuple(lines),
        tuple(notes),
    )


def phase_steps(phase: PhaseAnalysis, peak_text: str, bandwidth_text: str) -> tuple[Step, ...]:
    """Every step of a serving phase, in order."""
    peak, bandwidth = tex_text_number(peak_text), tex_text_number(bandwidth_text)
    what = (
        f"the model's kernels on one of {phase.tp} devices (tensor parallel), "
        "a block's kernels once per layer (×L)"
    )
    steps = [step for step, _ in kernel_steps(phase.step, what)]
    steps.append(_rates(phase))
    cross = _crossover(phase)
    if cross is not None:
        steps.append(cross)
    if phase.measured is not None:
        steps.append(
            measured_step(phase.measured, phase.step.flops, phase.step.bytes, peak, bandwidth)
        )
    return tuple(steps)


def phase_verdict(phase: PhaseAnalysis) -> tuple[Rich, ...]:
    """One line: the phase, its bound, its time and rate."""
    if phase.phase is Phase.DECODE:
        rate = f"{fmt_decimal(phase.tokens_per_s)} tokens/s, inter-token latency {fmt_decimal(phase.latency)} s"
    else:
        rate = f"TTFT {fmt_decimal(phase.latency)} s, {fmt_decimal(phase.tokens_per_s)} prefill tokens/s"
    return (
        rich(
            f"{phase.phase.value.capitalize()} at B = {phase.batch}, S = {phase.context} on {phase.tp} device(s): "
            f"{phase.step.binding.value}-bound, step ≥ {fmt_decimal(phase.step.t_lower)} s, {rate}."
        ),
    )
