"""The crossover steps of a worked solution: T_math = T_mem solved exactly and at leading
order, the integer threshold, and whether the assumed regime holds at the answer."""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis, Threshold
from derive.analysis.crossover.records import ALWAYS, NEVER, UNDETERMINED, Crossover
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal
from derive.problem.regime import REGIME_FACTOR, Regime
from derive.solution.notation import tex
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich
from derive.solution.value_display import INTENSITY, math_of, ratio_tex, rounded_line


def crossover_lines(
    shown: str, ridge: sp.Expr, cross: Crossover, relation: str = "=", depends: bool = True
) -> tuple[Line, ...]:
    """``I(x) = I*`` (``shown`` is the intensity's LaTeX) and the root, when there is one.

    An intensity that does not depend on x is compared with the ridge, not solved.
    """
    x = cross.variable
    if not depends:
        return (
            Line.of(INTENSITY, shown, relation=relation),
            rounded_line(r"I^{*}", value=ridge),
        )
    lines = [Line.of(shown, tex(ridge), relation=relation)]
    if cross.exact is not None:
        lines.append(rounded_line(f"{tex(x)}^{{*}}", value=cross.exact))
    return tuple(lines)


def _shortfall_note(cross: Crossover, ridge: sp.Expr) -> Rich | None:
    """How far below the ridge the intensity stays, when it has a top and a shortfall."""
    top = cross.supremum_all if cross.supremum_all is not None else cross.supremum
    if top is None or cross.shortfall is None:
        return None
    return rich(
        "I never exceeds ",
        math_of(top),
        f", {fmt_decimal(cross.shortfall, 4)}× below the ridge ",
        math_of(ridge),
        ".",
    )


def crossover_notes(
    cross: Crossover, ridge: sp.Expr, depends: bool = True, below: str = "memory"
) -> tuple[Rich, ...]:
    """What the crossover's status means (``below``: what binds under the ridge, ``"link"`` on
    the network roofline)."""
    x = cross.variable
    if not depends and cross.status in (NEVER, ALWAYS):
        side = "below" if cross.status == NEVER else "at or above"
        bound = f"{below}-bound" if cross.status == NEVER else "compute-bound"
        notes = [
            rich(
                f"I does not depend on {x}: it is {side} the ridge for every {x}, so {bound} throughout."
            )
        ]
        shortfall = _shortfall_note(cross, ridge)
        if cross.status == NEVER and shortfall is not None:
            notes.append(shortfall)
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
            out.append(rich(f"As {x} → ∞, I → ", math_of(cross.supremum), "."))
        shortfall = _shortfall_note(cross, ridge)
        if shortfall is not None:
            out.append(shortfall)
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


def crossover_step(
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
        crossover_lines(shown, ridge, cross, rel, depends),
        crossover_notes(cross, ridge, depends),
    )


def threshold_step(threshold: Threshold, ridge: sp.Expr, cross: Crossover) -> Step:
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


def regime_step(analysis: Analysis, regime: Regime, found: sp.Expr) -> Step:
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


def crossover_steps(analysis: Analysis) -> list[tuple[Step, str]]:
    """The exact crossover (and its threshold), then the leading-order one (and its threshold)."""
    ridge, cross = analysis.memory.ridge, analysis.crossover
    if ridge is None:
        raise ValueError("the memory roofline has no ridge")
    bound_but_x = analysis.problem.bound_subs(except_dim=analysis.problem.solve_for)
    shown = ratio_tex(analysis.memory.written_of_x)
    steps = [
        (
            crossover_step(
                StepKind.CROSSOVER,
                shown,
                ridge,
                cross,
                bound_but_x,
                "exact intensity",
                analysis.memory.depends_on_x,
            ),
            q.CROSSOVER.name,
        )
    ]
    if analysis.memory.threshold is not None:
        steps.append((threshold_step(analysis.memory.threshold, ridge, cross), q.CROSSOVER.name))
    lead = analysis.crossover_regime
    if lead is not None and analysis.intensity_regime_of_x is not None:
        shown = tex(analysis.intensity_regime_of_x)
        steps.append(
            (
                crossover_step(
                    StepKind.CROSSOVER_REGIME,
                    shown,
                    ridge,
                    lead,
                    bound_but_x,
                    "leading-order intensity",
                    analysis.regime_depends_on_x,
                ),
                q.CROSSOVER_REGIME.name,
            )
        )
        if analysis.threshold_regime is not None:
            steps.append(
                (threshold_step(analysis.threshold_regime, ridge, lead), q.CROSSOVER_REGIME.name)
            )
    return steps
