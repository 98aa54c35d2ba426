"""Turn an :class:`~derive.analysis.analyse.Analysis` into a worked solution: givens, steps, verdict.

Each builder returns one typed step; :func:`build_solution` is the short list of them.
Every number shown is derived from lines shown before it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from derive.analysis.analyse import Analysis, Roofline
from derive.analysis.crossover.records import NEVER
from derive.analysis.leading_order import LeadingOrder
from derive.catalogue import table as q
from derive.formula.decimals import fmt_exact_decimal
from derive.problem.regime import Regime
from derive.solution.collective_steps import collective_steps
from derive.solution.crossover_steps import (
    crossover_lines,
    crossover_notes,
    crossover_steps,
    regime_step,
)
from derive.solution.layer_steps import parts_steps
from derive.solution.measured_steps import measured_step
from derive.solution.notation import tex, tex_sub, tex_sum, tex_text_number
from derive.solution.step_time_steps import step_steps
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import (
    BYTES,
    FLOPS,
    INTENSITY,
    RIDGE,
    attainable_lines,
    ratio_tex,
    reading_tex,
    rounded,
    rounded_line,
    seconds_tex,
)
from derive.solution.verdicts import verdicts_of


@dataclass(frozen=True)
class Solution:
    """A worked solution: the analysis it shows, its steps, the verdict and warnings."""

    analysis: Analysis
    steps: tuple[Step, ...]
    verdict: tuple[Rich, ...]
    warnings: tuple[Rich, ...]


def _flops_step(analysis: Analysis) -> Step:
    op, bound = analysis.problem.operator, analysis.problem.bound_subs()
    at_bound = bool(bound and analysis.flops.free_symbols & set(bound))
    subbed = (tex_sub(analysis.flops, bound), tex(analysis.flops_bound)) if at_bound else ()
    return Step(
        StepKind.FLOPS,
        q.FLOPS.rule,
        rich(op.doc or f"FLOPs of {op.name} as declared."),
        (Line.of(FLOPS, tex(analysis.flops), *subbed),),
    )


def _bytes_lines(roof: Roofline, lhs: str, bound: dict[sp.Symbol, sp.Integer]) -> list[Line]:
    terms = roof.terms
    symbolic = tex_sum([term.tensor.bytes_term for term in terms])
    has_width_symbol = any(isinstance(term.tensor.width_sym, sp.Symbol) for term in terms)
    subbed = (
        " + ".join(rf"{tex(term.width)} \cdot {tex(term.elements)}" for term in terms)
        if has_width_symbol
        else ""
    )
    collected = roof.bytes_collected
    per_tensor = tex_sum([term.bytes for term in terms])
    lines = [
        Line.of(
            lhs,
            symbolic,
            subbed,
            per_tensor,
            tex_sum(collected) if len(collected) < len(terms) else "",
        )
    ]
    if bound and roof.bytes.free_symbols & set(bound):
        lines.append(
            Line.of(
                lhs,
                " + ".join(tex_sub(term.bytes, bound) for term in terms),
                tex_sum(roof.terms_bound_collected),
            )
        )
    return lines


def _bytes_step(analysis: Analysis) -> Step:
    terms = analysis.memory.terms
    listing = "; ".join(
        f"{term.tensor.name} ({term.role}, {term.dtype}, {fmt_exact_decimal(term.width)} B/element)"
        for term in terms
    )
    memory = analysis.memory
    at = [
        f"{term.tensor.name} {fmt_exact_decimal(value)} B"
        for term, value in zip(terms, memory.terms_bound, strict=True)
        if value.is_number and term.bytes.free_symbols
    ]
    notes = (rich(f"Each tensor's bytes at the bound dims: {'; '.join(at)}."),) if at else ()
    return Step(
        StepKind.BYTES,
        q.BYTES.rule,
        rich(f"Each tensor moves once through memory: {listing}."),
        tuple(_bytes_lines(memory, BYTES, analysis.problem.bound_subs())),
        notes,
    )


def _intensity_step(analysis: Analysis) -> Step:
    memory = analysis.memory
    frac = rf"\frac{{{tex(analysis.flops)}}}{{{tex_sum(memory.bytes_collected)}}}"
    lines = [
        Line.of(
            INTENSITY,
            r"\frac{\text{FLOPs}}{\text{bytes}}",
            frac,
            ratio_tex(memory.written),
        )
    ]
    bound, at_bound = analysis.problem.bound_subs(), analysis.intensity_bound
    if bound and at_bound is not None and memory.intensity.free_symbols & set(bound):
        lines.append(
            rounded_line(
                INTENSITY,
                tex_sub(memory.intensity, bound) if at_bound.is_number else "",
                value=at_bound,
            )
        )
    where = " and then at the bound dims" if len(lines) > 1 else ""
    return Step(
        StepKind.INTENSITY,
        q.INTENSITY.rule,
        rich(f"FLOPs done per byte moved, in lowest terms{where}."),
        tuple(lines),
    )


def _leading_lines(analysis: Analysis, frac: str, lead: LeadingOrder) -> tuple[Line, ...]:
    """``I ≈ kept/kept = ratio``, then the ratio at the bound dims when any appear in it."""
    lines = [Line.of(INTENSITY, frac, tex(lead.ratio), relation=r"\approx")]
    bound, at_bound = analysis.problem.bound_subs(), analysis.intensity_regime_bound
    if bound and at_bound is not None and lead.ratio.free_symbols & set(bound):
        lines.append(
            Line.of(INTENSITY, tex(at_bound), relation=r"\approx", approx=rounded(at_bound))
        )
    return tuple(lines)


def _collected(analysis: Analysis, kept: tuple[sp.Expr, ...], side: str) -> tuple[sp.Expr, ...]:
    """The kept denominator as the analysis collected it (``4BHKS``, not ``2BHKS + 2BHKS``)."""
    collected = analysis.leading_den_collected if side == "denominator" else ()
    return collected if collected and len(collected) < len(kept) else kept


def _dropped_tensors(analysis: Analysis, dropped: tuple[sp.Expr, ...]) -> str:
    """The tensors whose bytes were dropped, each named once even when two move equal bytes."""
    pool, names = list(dropped), []
    for term in analysis.memory.terms:
        if term.bytes in pool:
            pool.remove(term.bytes)
            names.append(term.tensor.name)
    if pool or not names:
        return ""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _leading_step(analysis: Analysis, lead: LeadingOrder, regime: Regime) -> Step:
    grow = ", ".join(f"{dim} → t{dim}" for dim in regime.growing)
    frac = rf"\frac{{{tex_sum(lead.kept_num)}}}{{{tex_sum(_collected(analysis, lead.kept_den, 'denominator'))}}}"
    notes = []
    for side, dropped, kept, order in (
        ("numerator", lead.dropped_num, lead.kept_num, lead.num_order),
        ("denominator", lead.dropped_den, lead.kept_den, lead.den_order),
    ):
        if dropped:
            named = _dropped_tensors(analysis, dropped) if side == "denominator" else ""
            who = f" (bytes of {named})" if named else ""
            notes.append(
                rich(
                    f"Dropped from the {side}: ",
                    Math(tex_sum(dropped)),
                    who,
                    " grows more slowly than the kept "
                    if len(dropped) == 1
                    else " grow more slowly than the kept ",
                    Math(tex_sum(_collected(analysis, kept, side))),
                    " (order ",
                    Math(f"t^{{{order}}}"),
                    "), so it is negligible as t → ∞."
                    if len(dropped) == 1
                    else "), so they are negligible as t → ∞.",
                )
            )
    return Step(
        StepKind.LEADING_ORDER,
        q.INTENSITY_REGIME.rule,
        rich(
            f"Regime {regime.pretty}: {regime.describe()}. Scale {grow} and keep the highest power of t above and below."
        ),
        _leading_lines(analysis, frac, lead),
        tuple(notes),
    )


def _ridge_step(analysis: Analysis) -> Step:
    problem = analysis.problem
    peak, bandwidth = tex_text_number(problem.peak.text), tex_text_number(problem.bandwidth.text)
    line = rounded_line(
        r"I^{*}", RIDGE, rf"\frac{{{peak}}}{{{bandwidth}}}", value=analysis.memory.ridge
    )
    return Step(
        StepKind.RIDGE,
        q.RIDGE.rule,
        rich(
            f"The intensity at which compute time equals memory time on this hardware ({problem.compute_dtype} peak over HBM bandwidth)."
        ),
        (line,),
    )


def _times_step(analysis: Analysis) -> Step:
    problem = analysis.problem
    peak, bandwidth = tex_text_number(problem.peak.text), tex_text_number(problem.bandwidth.text)
    lines = (
        Line.of(
            r"T_{\text{math}}",
            r"\frac{\text{FLOPs}}{\pi}",
            rf"\frac{{{tex(analysis.flops_bound)}}}{{{peak}}}",
            _value(analysis.t_math),
            approx=reading_tex(analysis.t_math),
        ),
        Line.of(
            r"T_{\text{mem}}",
            r"\frac{\text{bytes}}{\beta}",
            rf"\frac{{{_ordered(analysis.memory)}}}{{{bandwidth}}}",
            _value(analysis.memory.time)
            or rf"\frac{{{tex_sum(analysis.memory.terms_bound_collected)}}}{{{bandwidth}}}",
            approx=reading_tex(analysis.memory.time),
        ),
    )
    return Step(
        StepKind.TIMES,
        q.TIMES.rule,
        rich("Time at peak compute and time at full memory bandwidth, in seconds."),
        lines,
    )


def _value(value: sp.Expr) -> str:
    """An exact time worth printing: numbers always (with their unit), formulas only when short."""
    return seconds_tex(value) if value.is_number else ""


def _ordered(roof: Roofline) -> str:
    """The bytes at the bound dims: a number, or the per-tensor terms in declaration order."""
    total = roof.bytes_bound
    return tex(total) if total.is_number else tex_sum(roof.terms_bound)


def _bounds_step(analysis: Analysis) -> Step:
    rows = (
        (r"T_{\text{lower}}", r"\max(T_{\text{math}}, T_{\text{mem}})", analysis.t_lower),
        (r"T_{\text{upper}}", r"T_{\text{math}} + T_{\text{mem}}", analysis.t_upper),
    )
    lines = tuple(
        Line.of(lhs, rule, _value(t) or tex(t), approx=reading_tex(t)) for lhs, rule, t in rows
    )
    return Step(
        StepKind.BOUNDS,
        q.BOUNDS.rule,
        rich("Perfect overlap of compute and memory gives the lower bound; none gives the upper."),
        lines,
    )


def _attainable_step(analysis: Analysis) -> Step:
    problem = analysis.problem
    lines = (
        rounded_line(r"I(\text{point})", value=analysis.intensity_at_point),
        *attainable_lines(analysis.attainable, analysis.fraction_of_peak),
    )
    return Step(
        StepKind.ATTAINABLE,
        q.ATTAINABLE.rule,
        rich(f"The roofline at the bound dims ({problem.compute_dtype} peak)."),
        lines,
    )


def _network_step(analysis: Analysis, net: Roofline) -> Step:
    problem = analysis.problem
    bound = problem.bound_subs()
    lines = _bytes_lines(net, r"\text{bytes}_{\text{link}}", bound)
    lines.append(
        Line.of(
            r"I_{\text{link}}",
            rf"\frac{{{tex(analysis.flops)}}}{{{tex_sum([term.bytes for term in net.terms])}}}",
            tex(net.intensity),
        )
    )
    notes: list[Rich] = []
    if net.ridge is None or net.crossover is None or net.time is None or problem.link is None:
        notes.append(rich("No link bandwidth given, so no network ridge or time."))
    else:
        lines.append(
            rounded_line(
                r"I^{*}_{\text{link}}",
                r"\frac{\pi}{\beta_{\text{link}}}",
                rf"\frac{{{tex_text_number(problem.peak.text)}}}{{{tex_text_number(problem.link.text)}}}",
                value=net.ridge,
            )
        )
        depends = not net.intensity_of_x.is_number
        if depends:
            lines.extend(crossover_lines(tex(net.intensity_of_x), net.ridge, net.crossover))
        else:  # a number against a number: compared, never set equal
            below = net.crossover.status == NEVER
            lines.append(
                Line.of(tex(net.intensity_of_x), tex(net.ridge), relation="<" if below else r"\ge")
            )
        if net.crossover.min_compute_bound is not None:
            lines.append(
                Line.of(rf"{tex(problem.solve_for)}_{{\min}}", str(net.crossover.min_compute_bound))
            )
        lines.append(
            Line.of(
                r"T_{\text{comms}}",
                r"\frac{\text{bytes}_{\text{link}}}{\beta_{\text{link}}}",
                tex(net.time),
                approx=reading_tex(net.time),
            )
        )
        notes.extend(crossover_notes(net.crossover, net.ridge, depends, below="link"))
    return Step(
        StepKind.NETWORK,
        q.NETWORK.rule,
        rich("Bytes sent over the chip interconnect (one way) instead of bytes through memory."),
        tuple(lines),
        tuple(notes),
    )


def build_solution(analysis: Analysis) -> Solution:
    """The worked solution of an analysis, step by step (each step tagged with its topic)."""
    steps = [
        (_flops_step(analysis), q.FLOPS.name),
        (_bytes_step(analysis), q.BYTES.name),
        (_intensity_step(analysis), q.INTENSITY.name),
    ]
    regime = analysis.problem.regime
    if analysis.leading is not None and regime is not None:
        steps.append((_leading_step(analysis, analysis.leading, regime), q.INTENSITY_REGIME.name))
    steps.append((_ridge_step(analysis), q.RIDGE.name))
    steps += crossover_steps(analysis)
    lead = analysis.crossover_regime
    if (
        analysis.regime_checks
        and regime is not None
        and lead is not None
        and lead.exact is not None
    ):
        steps.append((regime_step(analysis, regime, lead.exact), q.REGIME_HOLDS.name))
    steps.append((_times_step(analysis), q.TIMES.name))
    if analysis.all_bound:
        steps += step_steps(analysis) or [(_bounds_step(analysis), q.BOUNDS.name)]
        steps.append((_attainable_step(analysis), q.ATTAINABLE.name))
    if analysis.network is not None:
        steps.append((_network_step(analysis, analysis.network), q.NETWORK.name))
    steps += collective_steps(analysis)
    if analysis.measured is not None:
        problem, step = analysis.problem, analysis.step
        steps.append(
            (
                measured_step(
                    analysis.measured,
                    step.flops if step is not None else None,
                    step.bytes if step is not None else None,
                    tex_text_number(problem.peak.text),
                    tex_text_number(problem.bandwidth.text),
                ),
                q.MEASURED.name,
            )
        )
    if analysis.layer is not None:
        steps += [(step, q.PARTS.name) for step in parts_steps(analysis.layer, analysis)]
    verdict, warnings = verdicts_of(analysis)
    return Solution(
        analysis, tuple(replace(step, topic=topic) for step, topic in steps), verdict, warnings
    )


def select_steps(solution: Solution, ask: tuple[str, ...]) -> Solution:
    """Keep only the steps that answer the asked quantities (all when ``ask`` is empty)."""
    if not ask:
        return solution
    return replace(solution, steps=tuple(s for s in solution.steps if s.topic in ask))
