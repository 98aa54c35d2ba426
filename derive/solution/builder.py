"""Turn an :class:`~derive.analysis.analyse.Analysis` into a worked solution: givens, steps, verdict.

Each builder returns one typed step; :func:`build_solution` is the short list of them.
Every number shown is derived from lines shown before it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from derive.analysis.analyse import Analysis, IntensityForm, Roofline, Threshold
from derive.analysis.crossover import ALWAYS, CROSSES, NEVER, UNDETERMINED, Crossover
from derive.analysis.leading_order import LeadingOrder
from derive.analysis.parts import Fusion, LayerBreakdown
from derive.formula.decimals import fmt_decimal, fmt_exact_decimal
from derive.problem.regime import REGIME_FACTOR, Regime
from derive.solution.collective_steps import collective_steps
from derive.solution.measured_steps import measured_step
from derive.solution.notation import tex, tex_decimal, tex_sub, tex_sum, tex_text_number
from derive.solution.step_steps import step_steps
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich

__all__ = ["Solution", "build_solution", "select_steps", "verdict_text"]

FLOPS, BYTES, INTENSITY, RIDGE = r"\text{FLOPs}", r"\text{bytes}", "I", r"\frac{\pi}{\beta}"


@dataclass(frozen=True)
class Solution:
    """A worked solution: the analysis it shows, its steps, the verdict and warnings."""

    analysis: Analysis
    steps: tuple[Step, ...]
    verdict: tuple[Rich, ...]
    warnings: tuple[Rich, ...]


def _m(expr: sp.Expr) -> Math:
    return Math(tex(expr))


def _num(expr: sp.Expr) -> str | None:
    """A rounded decimal for a number that is not an integer; None otherwise."""
    return tex_decimal(expr) if expr.is_number and not expr.is_Integer else None


def _flops_step(analysis: Analysis) -> Step:
    op, bound = analysis.problem.operator, analysis.problem.bound_subs()
    lines = [Line.of(FLOPS, tex(analysis.flops))]
    if bound and analysis.flops.free_symbols & set(bound):
        lines = [
            Line.of(
                FLOPS,
                tex(analysis.flops),
                tex_sub(analysis.flops, bound),
                tex(analysis.flops_bound),
            )
        ]
    return Step(
        StepKind.FLOPS,
        "the operator's FLOP count",
        rich(op.doc or f"FLOPs of {op.name} as declared."),
        tuple(lines),
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
    return Step(
        StepKind.BYTES,
        "bytes = Σ width × elements over every tensor read or written",
        rich(f"Each tensor moves once through memory: {listing}."),
        tuple(_bytes_lines(analysis.memory, BYTES, analysis.problem.bound_subs())),
    )


def _ratio_tex(form: IntensityForm) -> str:
    """FLOPs / Σ terms with the terms in declaration order when that is already in lowest terms."""
    if form.as_declared:
        return rf"\frac{{{tex(form.flops)}}}{{{tex_sum(form.terms)}}}"
    return tex(form.lowest)


def _intensity_step(analysis: Analysis) -> Step:
    memory = analysis.memory
    frac = rf"\frac{{{tex(analysis.flops)}}}{{{tex_sum(memory.bytes_collected)}}}"
    lines = [
        Line.of(
            INTENSITY,
            r"\frac{\text{FLOPs}}{\text{bytes}}",
            frac,
            _ratio_tex(memory.written),
        )
    ]
    bound, at_bound = analysis.problem.bound_subs(), analysis.intensity_bound
    if bound and at_bound is not None and memory.intensity.free_symbols & set(bound):
        lines.append(
            Line.of(
                INTENSITY,
                tex_sub(memory.intensity, bound) if at_bound.is_number else "",
                tex(at_bound),
                approx=_num(at_bound),
            )
        )
    where = " and then at the bound dims" if len(lines) > 1 else ""
    return Step(
        StepKind.INTENSITY,
        "I = FLOPs / bytes",
        rich(f"FLOPs done per byte moved, in lowest terms{where}."),
        tuple(lines),
    )


def _leading_lines(analysis: Analysis, frac: str, lead: LeadingOrder) -> tuple[Line, ...]:
    """``I ≈ kept/kept = ratio``, then the ratio at the bound dims when any appear in it."""
    lines = [Line.of(INTENSITY, frac, tex(lead.ratio), relation=r"\approx")]
    bound, at_bound = analysis.problem.bound_subs(), analysis.intensity_regime_bound
    if bound and at_bound is not None and lead.ratio.free_symbols & set(bound):
        lines.append(Line.of(INTENSITY, tex(at_bound), relation=r"\approx", approx=_num(at_bound)))
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
        "leading order under a one-parameter scaling",
        rich(
            f"Regime {regime.pretty}: {regime.describe()}. Scale {grow} and keep the highest power of t above and below."
        ),
        _leading_lines(analysis, frac, lead),
        tuple(notes),
    )


def _ridge_step(analysis: Analysis) -> Step:
    problem = analysis.problem
    peak, bandwidth = tex_text_number(problem.peak.text), tex_text_number(problem.bandwidth.text)
    line = Line.of(
        r"I^{*}",
        RIDGE,
        rf"\frac{{{peak}}}{{{bandwidth}}}",
        tex(analysis.memory.ridge),
        approx=_num(analysis.memory.ridge),
    )
    return Step(
        StepKind.RIDGE,
        "ridge = peak / bandwidth",
        rich(
            f"The intensity at which compute time equals memory time on this hardware ({problem.compute_dtype} peak over HBM bandwidth)."
        ),
        (line,),
    )


def _crossover_lines(
    shown: str, ridge: sp.Expr, cross: Crossover, relation: str = "=", depends: bool = True
) -> tuple[Line, ...]:
    """``I(x) = I*`` (``shown`` is the intensity's LaTeX) and the root, when there is one.

    An intensity that does not depend on x is compared with the ridge, not solved.
    """
    x = cross.variable
    if not depends:
        return (
            Line.of(INTENSITY, shown, relation=relation),
            Line.of(r"I^{*}", tex(ridge), approx=_num(ridge)),
        )
    lines = [Line.of(shown, tex(ridge), relation=relation)]
    if cross.exact is not None:
        lines.append(Line.of(f"{tex(x)}^{{*}}", tex(cross.exact), approx=_num(cross.exact)))
    return tuple(lines)


def _crossover_notes(cross: Crossover, ridge: sp.Expr, depends: bool = True) -> tuple[Rich, ...]:
    x = cross.variable
    if not depends and cross.status in (NEVER, ALWAYS):
        side = "below" if cross.status == NEVER else "at or above"
        bound = "memory-bound" if cross.status == NEVER else "compute-bound"
        notes = [
            rich(
                f"I does not depend on {x}: it is {side} the ridge for every {x}, so {bound} throughout."
            )
        ]
        top = cross.supremum_all if cross.supremum_all is not None else cross.supremum
        if cross.status == NEVER and top is not None and cross.shortfall is not None:
            notes.append(
                rich(
                    "I never exceeds ",
                    _m(top),
                    f", {fmt_decimal(cross.shortfall, 4)}× below the ridge ",
                    _m(ridge),
                    ".",
                )
            )
        return tuple(notes)
    if cross.status == NEVER:
        out = [
            rich(f"No crossover: {cross.note}.")
            if cross.note
            else rich(
                f"No crossover: FLOPs·β − bytes·π has only non-positive coefficients, so I < I* for every {x} > 0."
            )
        ]
        if cross.supremum is not None:
            out.append(rich(f"As {x} → ∞, I → ", _m(cross.supremum), "."))
        top = cross.supremum_all if cross.supremum_all is not None else cross.supremum
        if top is not None and cross.shortfall is not None:
            out.append(
                rich(
                    "I never exceeds ",
                    _m(top),
                    f", {fmt_decimal(cross.shortfall, 4)}× below the ridge ",
                    _m(ridge),
                    ".",
                )
            )
        return tuple(out)
    if cross.status == ALWAYS:
        return (rich(f"I ≥ I* for every {x} > 0: compute-bound everywhere."),)
    notes = []
    if cross.condition is not None and depends:
        notes.append(
            rich(
                "The root exists (is positive) only when ", Math(tex(cross.condition) + " > 0"), "."
            )
        )
    if cross.status == UNDETERMINED and cross.condition is not None:  # the condition as maths
        x = cross.variable
        notes.append(
            rich(
                f"{x} drops out: compute-bound for every {x} exactly when ",
                Math(tex(cross.condition) + r" \ge 0"),
                ", which depends on the other dims.",
            )
        )
    elif cross.note:
        notes.append(rich(cross.note))
    return tuple(notes)


def _crossover_step(
    kind: StepKind,
    shown: str,
    ridge: sp.Expr,
    cross: Crossover,
    subs: dict,
    what: str,
    depends: bool = True,
) -> Step:
    rule = "T_math = T_mem ⇔ I = π/β, solved exactly" if depends else "T_math ≥ T_mem ⇔ I ≥ π/β"
    bound = " with the bound dims substituted" if subs else ""
    reason = (
        rich(f"Set the {what} equal to the ridge and solve for {cross.variable}{bound}.")
        if depends
        else rich(
            f"The {what}{bound} does not depend on {cross.variable}: compare it with the ridge."
        )
    )
    rel = r"\approx" if kind == StepKind.CROSSOVER_REGIME else "="
    return Step(
        kind,
        rule,
        reason,
        _crossover_lines(shown, ridge, cross, rel, depends),
        _crossover_notes(cross, ridge, depends),
    )


def _threshold_step(threshold: Threshold, ridge: sp.Expr, cross: Crossover) -> Step:
    x, smallest = cross.variable, threshold.smallest
    lines = [
        Line.of(
            rf"{tex(x)}_{{\min}}",
            rf"\left\lceil {tex(cross.exact)} \right\rceil" if cross.exact is not None else "",
            str(smallest),
        )
    ]
    checks = [
        rich(
            "Check: ",
            Math(rf"I({smallest}) = {tex(threshold.at)}"),
            f" ≥ {fmt_decimal(ridge)} (compute-bound)",
        )
    ]
    if threshold.below is not None:
        checks.append(
            rich(
                "and ",
                Math(rf"I({smallest - 1}) = {tex(threshold.below)}"),
                f" < {fmt_decimal(ridge)} (memory-bound).",
            )
        )
    return Step(
        StepKind.THRESHOLD,
        "smallest integer with T_math ≥ T_mem (a tie counts as compute-bound)",
        rich(f"{x} counts whole items, so round the crossover up."),
        tuple(lines),
        tuple(checks),
    )


def _regime_step(analysis: Analysis, regime: Regime, found: sp.Expr) -> Step:
    """The regime tested at the leading-order crossover ``found`` (and the bound dims)."""
    problem = analysis.problem
    values: dict[sp.Symbol, sp.Expr] = {**problem.bound_subs(), problem.solve_for: found}
    notes = []
    for (small, large), (_, holds) in zip(regime.pairs, analysis.regime_checks):
        lhs = (
            f"{REGIME_FACTOR} \\cdot {tex(values[small])}"
            if small is not None
            else str(REGIME_FACTOR)
        )
        mark, rel = ("holds", r"\le") if holds else ("FAILS", ">")
        small_tex = tex(small) if small is not None else "1"
        notes.append(
            rich(
                Math(f"{small_tex} \\ll {tex(large)}"),
                ": ",
                Math(f"{lhs} {rel} {tex(values[large])}"),
                f" — {mark}.",
            )
        )
    reason = rich(
        f"The leading-order answer assumed {regime.pretty}; test it with the values found (≪ taken as a factor of {REGIME_FACTOR})."
    )
    return Step(
        StepKind.REGIME_CHECK, f"a ≪ b holds when {REGIME_FACTOR}·a ≤ b", reason, (), tuple(notes)
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
            approx=_sec(analysis.t_math),
        ),
        Line.of(
            r"T_{\text{mem}}",
            r"\frac{\text{bytes}}{\beta}",
            rf"\frac{{{_ordered(analysis.memory)}}}{{{bandwidth}}}",
            _value(analysis.memory.time)
            or rf"\frac{{{tex_sum(analysis.memory.terms_bound_collected)}}}{{{bandwidth}}}",
            approx=_sec(analysis.memory.time),
        ),
    )
    return Step(
        StepKind.TIMES,
        "T_math = FLOPs / π, T_mem = bytes / β",
        rich("Time at peak compute and time at full memory bandwidth, in seconds."),
        lines,
    )


def _value(value: sp.Expr) -> str:
    """An exact result worth printing: numbers always, formulas only when they are short."""
    return tex(value) if value.is_number else ""


def _ordered(roof: Roofline) -> str:
    """The bytes at the bound dims: a number, or the per-tensor terms in declaration order."""
    total = roof.bytes_bound
    return tex(total) if total.is_number else tex_sum(roof.terms_bound)


def _sec(value: sp.Expr) -> str | None:
    return rf"{tex_decimal(value)}\ \text{{s}}" if value.is_number else None


def _bounds_step(analysis: Analysis) -> Step:
    lines = (
        Line.of(
            r"T_{\text{lower}}",
            r"\max(T_{\text{math}}, T_{\text{mem}})",
            tex(analysis.t_lower),
            approx=_sec(analysis.t_lower),
        ),
        Line.of(
            r"T_{\text{upper}}",
            r"T_{\text{math}} + T_{\text{mem}}",
            tex(analysis.t_upper),
            approx=_sec(analysis.t_upper),
        ),
    )
    return Step(
        StepKind.BOUNDS,
        "max(T_math, T_mem) ≤ T ≤ T_math + T_mem",
        rich("Perfect overlap of compute and memory gives the lower bound; none gives the upper."),
        lines,
    )


def _attainable_step(analysis: Analysis) -> Step:
    problem = analysis.problem
    lines = (
        Line.of(
            r"I(\text{point})",
            tex(analysis.intensity_at_point),
            approx=_num(analysis.intensity_at_point),
        ),
        Line.of(
            r"\text{attainable}",
            r"\min(\pi, I \beta)",
            tex(analysis.attainable),
            approx=_num(analysis.attainable),
        ),
        Line.of(
            r"\text{fraction of peak}",
            r"\frac{\text{attainable}}{\pi}",
            tex(analysis.fraction_of_peak),
            approx=_num(analysis.fraction_of_peak),
        ),
    )
    return Step(
        StepKind.ATTAINABLE,
        "attainable FLOP/s = min(π, I·β)",
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
            Line.of(
                r"I^{*}_{\text{link}}",
                r"\frac{\pi}{\beta_{\text{link}}}",
                rf"\frac{{{tex_text_number(problem.peak.text)}}}{{{tex_text_number(problem.link.text)}}}",
                tex(net.ridge),
                approx=_num(net.ridge),
            )
        )
        lines.extend(_crossover_lines(tex(net.intensity_of_x), net.ridge, net.crossover))
        if net.crossover.min_compute_bound is not None:
            lines.append(
                Line.of(rf"{tex(problem.solve_for)}_{{\min}}", str(net.crossover.min_compute_bound))
            )
        lines.append(
            Line.of(
                r"T_{\text{comms}}",
                r"\frac{\text{bytes}_{\text{link}}}{\beta_{\text{link}}}",
                tex(net.time),
                approx=_sec(net.time),
            )
        )
        notes.extend(_crossover_notes(net.crossover, net.ridge))
    return Step(
        StepKind.NETWORK,
        "the same roofline against the interconnect: I_link = FLOPs / bytes sent",
        rich("Bytes sent over the chip interconnect (one way) instead of bytes through memory."),
        tuple(lines),
        tuple(notes),
    )


def _parts_steps(layer: LayerBreakdown, fused: Analysis) -> list[Step]:
    """The per-part table and, when the layer fuses anything, fused against unfused."""
    header = ("part", "operator", "FLOPs", "bytes", "intensity", "time", "share")
    rows = []
    for row in layer.rows:
        time = (
            Math(tex_decimal(row.time) + r"\ \text{s}")
            if row.time.is_number
            else Math(tex(row.time))
        )
        share = f"{fmt_decimal(100 * row.share, 3)} %" if row.share is not None else "—"
        rows.append(
            (
                rich(row.label + (" (dominant)" if row.label == layer.dominant else "")),
                rich(row.operator),
                rich(_m(row.flops)),
                rich(_m(row.bytes)),
                _intensity_cell(row.intensity),
                rich(time),
                rich(share),
            )
        )
    notes = (
        (
            rich(
                f"{layer.dominant} dominates: it takes the largest share of the summed per-part times max(T_math, T_mem)."
            ),
        )
        if layer.dominant
        else ()
    )
    reason = rich(
        "Each part's FLOPs and bytes in the layer's dims, at the bound dims; the layer's totals are their sums."
    )
    steps = [
        Step(
            StepKind.PARTS,
            "layer = Σ parts; each part timed at max(T_math, T_mem)",
            reason,
            (),
            notes,
            table=(header, *rows),
        )
    ]
    if layer.fusion is not None:
        steps.append(_fusion_step(fused, layer.fusion))
    return steps


def _intensity_cell(value: sp.Expr) -> Rich:
    if value == sp.oo:
        return rich("— (no bytes)")
    return rich(Math(tex(value) if not value.is_number or value.is_Integer else tex_decimal(value)))


def _fusion_step(fused: Analysis, fusion: Fusion) -> Step:
    lines = [
        Line.of(r"\text{bytes}_{\text{unfused}}", tex(fusion.bytes_unfused)),
        Line.of(r"\text{bytes}_{\text{fused}}", tex(fusion.bytes_fused)),
        Line.of(
            r"\frac{\text{bytes}_{\text{unfused}}}{\text{bytes}_{\text{fused}}}",
            tex(fusion.ratio),
            approx=_num(fusion.ratio),
        ),
    ]
    notes = [
        rich(
            f"Kept on chip (neither written nor read back): {', '.join(fusion.kept_on_chip)}; the weights still have to be read."
        )
    ]
    unfused = fusion.unfused
    if unfused.t_lower is not None and fused.t_lower is not None:
        notes.append(
            rich(
                f"Runtime lower bound: {fmt_decimal(unfused.t_lower)} s unfused, {fmt_decimal(fused.t_lower)} s fused."
            )
        )
    return Step(
        StepKind.FUSION,
        "fusion removes the intermediate's write and read",
        rich("The same layer with every intermediate written to memory and read back."),
        tuple(lines),
        tuple(notes),
    )


def verdict_text(
    cross: Crossover | None,
    ridge: sp.Expr | None,
    bound_name: str = "compute-bound",
    leading: bool = False,
) -> str:
    """The one-line verdict for a crossover, e.g. ``compute-bound for B ≥ 121 (exact crossover 4925/41 ≈ 120.12)``.

    A leading-order crossover is called ``crossover at leading order``, never ``exact``.
    """
    if cross is None:
        return "no verdict (no bandwidth given)"
    x = cross.variable
    if cross.status == CROSSES and cross.note.startswith("compute-bound only"):
        return f"{cross.note.replace('compute-bound', bound_name, 1)}; the smallest is {x} = {cross.min_compute_bound}"
    if cross.status == CROSSES and cross.min_compute_bound is not None and cross.exact is not None:
        approx = "" if cross.exact.is_Integer else f" ≈ {fmt_decimal(cross.exact)}"
        which = "crossover at leading order" if leading else "exact crossover"
        return f"{bound_name} for {x} ≥ {cross.min_compute_bound} ({which} {cross.exact}{approx})"
    if cross.status == CROSSES and cross.condition is not None:
        return f"{bound_name} for {x} ≥ {cross.exact} (when {cross.condition} > 0)"
    if cross.status == CROSSES:
        return f"{bound_name} for {x} ≥ {cross.exact}"
    if cross.status == NEVER:
        return (
            f"memory-bound for every {x}: the intensity never reaches the ridge {ridge}"
            if bound_name == "compute-bound"
            else f"link-bound for every {x}"
        )
    if cross.status == ALWAYS:
        return f"{bound_name} for every {x} ≥ 1"
    return f"undetermined: {cross.note}"


def verdict_rich(
    cross: Crossover | None, ridge: sp.Expr | None, prefix: str, leading: bool = False
) -> Rich:
    """The verdict as rich text: formulas as math, numbers as in :func:`verdict_text`."""
    if (
        cross is not None
        and cross.status == CROSSES
        and cross.exact is not None
        and not cross.exact.is_number
    ):
        cond = (
            rich(" (when ", Math(tex(cross.condition) + " > 0"), ")")
            if cross.condition is not None
            else ()
        )
        return rich(
            f"{prefix}compute-bound for ",
            Math(f"{tex(cross.variable)} \\ge {tex(cross.exact)}"),
            *cond,
            ".",
        )
    if (
        cross is not None
        and cross.status == UNDETERMINED
        and cross.condition is not None
        and not cross.exact
    ):
        return rich(
            f"{prefix}{cross.variable} drops out: compute-bound for every {cross.variable} exactly when ",
            Math(tex(cross.condition) + r" \ge 0"),
            ".",
        )
    return rich(
        prefix
        + verdict_text(cross, ridge, leading=leading)
        + ("" if prefix.startswith("Verdict (") else ".")
    )


def _verdict(analysis: Analysis) -> tuple[tuple[Rich, ...], tuple[Rich, ...]]:
    problem = analysis.problem
    out: list[Rich] = []
    warn: list[Rich] = []
    exact, lead = analysis.crossover, analysis.crossover_regime
    regime = problem.regime.pretty if problem.regime is not None else ""
    # a leading-order verdict only where the exact one is undecided and the regime holds
    lead_usable = (
        lead is not None and lead.status != UNDETERMINED and analysis.regime_holds is not False
    )
    exact_decided = exact.is_number or exact.status in (NEVER, ALWAYS)
    if exact_decided or exact.status != CROSSES or not lead_usable:
        out.append(verdict_rich(exact, analysis.memory.ridge, "Verdict: "))
    if lead_usable and not exact_decided:
        out.append(
            verdict_rich(
                lead, analysis.memory.ridge, f"Verdict (leading order, {regime}): ", leading=True
            )
        )
    if (
        analysis.all_bound
        and analysis.t_lower is not None
        and analysis.fraction_of_peak is not None
    ):
        where = ", ".join(f"{dim} = {value}" for dim, value in problem.bound)
        step = analysis.step  # a step of kernels is bound as its kernels are
        fraction = step.fraction_of_peak if step is not None else analysis.fraction_of_peak
        bound = "compute-bound" if analysis.compute_bound_at_point else "memory-bound"
        kind = f"{step.binding.value}-bound" if step is not None else bound
        decided = exact.status == (ALWAYS if analysis.compute_bound_at_point else NEVER)
        kind = "" if decided and kind == bound else f"{kind}, "  # already said: bound so everywhere
        out.append(
            rich(
                f"At {where}: {kind}runtime ≥ {fmt_decimal(analysis.t_lower)} s, {fmt_decimal(100 * fraction, 4)} % of peak."
            )
        )
    if analysis.network is not None and analysis.network.crossover is not None:
        out.append(verdict_rich(analysis.network.crossover, analysis.network.ridge, "Network: "))
    if analysis.regime_holds is False and lead is not None and lead.exact is not None:
        warn.append(
            rich(
                f"WARNING: the leading-order answer {problem.solve_for} ≈ {fmt_decimal(lead.exact)} violates the regime {regime} it assumed"
                + (
                    f"; the exact intensity never reaches the ridge ({verdict_text(exact, analysis.memory.ridge)})."
                    if exact.status == NEVER
                    else f"; use the exact result instead ({verdict_text(exact, analysis.memory.ridge)})."
                )
            )
        )
    return tuple(out), tuple(warn)


def _crossover_steps(analysis: Analysis) -> list[tuple[Step, str]]:
    """The exact crossover (and its threshold), then the leading-order one (and its threshold)."""
    ridge, cross = analysis.memory.ridge, analysis.crossover
    if ridge is None:
        raise ValueError("the memory roofline has no ridge")
    bound_but_x = analysis.problem.bound_subs(except_dim=analysis.problem.solve_for)
    shown = _ratio_tex(analysis.memory.written_of_x)
    steps = [
        (
            _crossover_step(
                StepKind.CROSSOVER,
                shown,
                ridge,
                cross,
                bound_but_x,
                "exact intensity",
                analysis.memory.depends_on_x,
            ),
            "crossover",
        )
    ]
    if analysis.memory.threshold is not None:
        steps.append((_threshold_step(analysis.memory.threshold, ridge, cross), "crossover"))
    lead = analysis.crossover_regime
    if lead is not None and analysis.intensity_regime_of_x is not None:
        shown = tex(analysis.intensity_regime_of_x)
        steps.append(
            (
                _crossover_step(
                    StepKind.CROSSOVER_REGIME,
                    shown,
                    ridge,
                    lead,
                    bound_but_x,
                    "leading-order intensity",
                    analysis.regime_depends_on_x,
                ),
                "crossover_regime",
            )
        )
        if analysis.threshold_regime is not None:
            steps.append(
                (_threshold_step(analysis.threshold_regime, ridge, lead), "crossover_regime")
            )
    return steps


def build_solution(analysis: Analysis) -> Solution:
    """The worked solution of an analysis, step by step (each step tagged with its topic)."""
    steps = [
        (_flops_step(analysis), "flops"),
        (_bytes_step(analysis), "bytes"),
        (_intensity_step(analysis), "intensity"),
    ]
    regime = analysis.problem.regime
    if analysis.leading is not None and regime is not None:
        steps.append((_leading_step(analysis, analysis.leading, regime), "intensity_regime"))
    steps.append((_ridge_step(analysis), "ridge"))
    steps += _crossover_steps(analysis)
    lead = analysis.crossover_regime
    if (
        analysis.regime_checks
        and regime is not None
        and lead is not None
        and lead.exact is not None
    ):
        steps.append((_regime_step(analysis, regime, lead.exact), "regime_holds"))
    steps.append((_times_step(analysis), "times"))
    if analysis.all_bound:
        steps += step_steps(analysis) or [(_bounds_step(analysis), "bounds")]
        steps.append((_attainable_step(analysis), "attainable"))
    if analysis.network is not None:
        steps.append((_network_step(analysis, analysis.network), "network"))
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
                "measured",
            )
        )
    if analysis.layer is not None:
        steps += [(step, "parts") for step in _parts_steps(analysis.layer, analysis)]
    verdict, warnings = _verdict(analysis)
    return Solution(
        analysis, tuple(replace(step, topic=topic) for step, topic in steps), verdict, warnings
    )


def select_steps(solution: Solution, ask: tuple[str, ...]) -> Solution:
    """Keep only the steps that answer the asked quantities (all when ``ask`` is empty)."""
    if not ask:
        return solution
    return replace(solution, steps=tuple(s for s in solution.steps if s.topic in ask))
