"""Verdicts: the sentences that say where a problem is compute- or memory-bound."""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.crossover.records import ALWAYS, CROSSES, NEVER, UNDETERMINED, Crossover
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_text
from derive.solution.notation import tex
from derive.solution.steps import Math, Rich, rich

_INTENSITY_OF = {"memory": q.INTENSITY.prose, "link": f"link {q.INTENSITY.prose}"}


def verdict_text(
    cross: Crossover | None,
    ridge: sp.Expr | None,
    leading: bool = False,
    below: str = "memory",
) -> str:
    """The one-line verdict for a crossover, e.g. ``compute-bound for B ≥ 121 (exact crossover 4925/41 ≈ 120.12)``.

    A leading-order crossover is called ``crossover at leading order``, never ``exact``.
    ``below`` names what binds under the ridge: ``"memory"``, or ``"link"`` for the network
    roofline (the interconnect binds there, not HBM).
    """
    if cross is None:
        return "no verdict (no bandwidth given)"
    x = cross.variable
    if cross.status == CROSSES and cross.note.startswith("compute-bound only"):
        return f"{cross.note}; the smallest is {x} = {cross.min_compute_bound}"
    if cross.status == CROSSES and cross.min_compute_bound is not None and cross.exact is not None:
        approx = "" if cross.exact.is_Integer else f" ≈ {fmt_decimal(cross.exact)}"
        which = "crossover at leading order" if leading else "exact crossover"
        return f"compute-bound for {x} ≥ {cross.min_compute_bound} ({which} {cross.exact}{approx})"
    if cross.status == CROSSES and cross.condition is not None:
        return f"compute-bound for {x} ≥ {cross.exact} (when {cross.condition} > 0)"
    if cross.status == CROSSES:
        return f"compute-bound for {x} ≥ {cross.exact}"
    if cross.status == NEVER:
        return f"{below}-bound for every {x}: the {_INTENSITY_OF[below]} never reaches the ridge {ridge}"
    if cross.status == ALWAYS:
        return f"compute-bound for every {x} ≥ 1"
    return f"undetermined: {cross.note}"


def verdict_rich(
    cross: Crossover | None,
    ridge: sp.Expr | None,
    prefix: str,
    leading: bool = False,
    below: str = "memory",
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
        + verdict_text(cross, ridge, leading=leading, below=below)
        + ("" if prefix.startswith("Verdict (") else ".")
    )


def verdicts_of(analysis: Analysis) -> tuple[tuple[Rich, ...], tuple[Rich, ...]]:
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
                f"At {where}: {kind}runtime ≥ {time_text(analysis.t_lower)}, {fmt_decimal(100 * fraction, 4)} % of peak."
            )
        )
    if analysis.network is not None and analysis.network.crossover is not None:
        out.append(
            verdict_rich(
                analysis.network.crossover, analysis.network.ridge, "Network: ", below="link"
            )
        )
    if analysis.regime_holds is False and lead is not None and lead.exact is not None:
        warn.append(
            rich(
                f"WARNING: the leading-order answer {problem.solve_for} ≈ {fmt_decimal(lead.exact)} violates the regime {regime} it assumed"
                + (
                    "; the exact intensity never reaches the ridge"
                    if exact.status == NEVER
                    else "; use the exact result instead"
                )
                + f" ({verdict_text(exact, analysis.memory.ridge)})."
            )
        )
    return tuple(out), tuple(warn)
