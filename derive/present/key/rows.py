"""The rows of a key's answers-at-a-glance table: one per operator problem or kernel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from derive.analysis.analyse import Analysis
from derive.analysis.crossover.records import NEVER
from derive.catalogue import table as q
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_text
from derive.present.escape import md_rich
from derive.present.tex_layout import tex_is_wide, tex_slashed
from derive.problem.sets.problem_set import ProblemEntry
from derive.solution.notation import tex, tex_decimal
from derive.solution.verdicts import verdict_rich

if TYPE_CHECKING:
    from derive.analysis.kernel_numbers import KernelNumbers


@dataclass(frozen=True)
class Row:
    """One row of the answers-at-a-glance table."""

    id: str
    anchor: str
    hardware: str
    ridge: str
    crossover: str
    threshold: str
    verdict: str
    ridge_tex: str
    crossover_tex: str
    threshold_tex: str


def tex_ratio(value: object) -> str:
    """A rational as ``p/q`` math that may break after its slash in a narrow cell, but only
    if it must: the penalty, 900, is above the 500 of a break after the ``\\approx`` next to it.
    """
    return str(value).replace("/", r"/\penalty900 ", 1)


def operator_row(entry: ProblemEntry, analysis: Analysis) -> Row:
    """The row of an operator problem: its ridge, crossover, threshold and verdict."""
    crossover, leading = analysis.headline
    ridge = analysis.memory.ridge
    network = analysis.network
    link = False
    if (
        entry.ask
        and q.NETWORK.name in entry.ask
        and q.CROSSOVER.name not in entry.ask
        and network is not None
        and network.crossover is not None
    ):
        crossover, leading, ridge, link = network.crossover, False, network.ridge, True
    approx = lambda v: "" if v.is_Integer else f" ≈ {fmt_decimal(v)}"  # noqa: E731
    tapprox = lambda v: "" if v.is_Integer else rf" \approx {tex_decimal(v)}"  # noqa: E731
    if crossover.exact is not None and crossover.exact.is_Rational:
        cross, cross_tex = (
            f"{crossover.exact}{approx(crossover.exact)}",
            f"${tex_ratio(crossover.exact)}{tapprox(crossover.exact)}$",
        )
    elif crossover.exact is not None and crossover.exact.is_number:
        cross, cross_tex = (
            f"${tex(crossover.exact)}${approx(crossover.exact)}",
            f"${tex(crossover.exact)}{tapprox(crossover.exact)}$",
        )
    elif crossover.exact is not None:  # a formula: written (a)/(b) so a narrow cell can break it
        formula = tex(crossover.exact)
        cross = f"${formula}$"
        cross_tex = (
            "a formula in the other dims (in the problem)"
            if tex_is_wide(formula, 24)
            else f"${tex_slashed(formula)}$"
        )
    else:
        cross = cross_tex = crossover.status
    suffix = " (leading order)" if leading else " (link)" if link else ""
    threshold = (
        f"{crossover.variable} ≥ {crossover.min_compute_bound}"
        if crossover.min_compute_bound is not None and crossover.status != NEVER
        else "—"
    )
    threshold_tex = (
        f"${tex(crossover.variable)} \\ge {crossover.min_compute_bound}$"
        if threshold != "—"
        else "---"
    )
    return Row(
        entry.id,
        entry.id.lower(),
        analysis.problem.hardware_name,
        f"{ridge}{approx(ridge)}",
        cross + suffix,
        threshold,
        md_rich(
            verdict_rich(
                crossover,
                ridge,
                "on the link: " if link else "",
                leading=leading,
                below="link" if link else "memory",
            )
        ),
        f"${tex_ratio(ridge)}{tapprox(ridge)}$",
        cross_tex + suffix,
        threshold_tex,
    )


def kernel_row(problem_id: str, kernel: KernelNumbers) -> Row:
    """The row of a kernel given by its numbers: no dims, so no crossover; its intensity decides."""
    ridge = kernel.ridge
    against = (
        f"the ridge {fmt_decimal(ridge)}"
        if kernel.effective_ridge == ridge
        else f"the derated ridge {fmt_decimal(kernel.effective_ridge)}"
    )
    approx = "" if ridge.is_Integer else f" ≈ {fmt_decimal(ridge)}"
    tapprox = "" if ridge.is_Integer else rf" \approx {tex_decimal(ridge)}"
    finite = bool(kernel.intensity.is_finite)  # FLOPs alone: ∞ (issue 36)
    intensity = fmt_decimal(kernel.intensity) if finite else "∞"
    intensity_tex = tex_decimal(kernel.intensity) if finite else r"\infty"
    bound = f" ≥ {time_text(kernel.step.t_lower)}" if kernel.step is not None else ""
    return Row(
        problem_id,
        problem_id.lower(),
        kernel.chip.name if kernel.chip else "given numbers",
        f"{ridge}{approx}",
        f"— (a kernel by its numbers: I = {intensity})",
        "—",
        f"{kernel.binding}-bound (I = {intensity} against {against})"
        + (f", runtime{bound}" if bound else ""),
        f"${tex_ratio(ridge)}{tapprox}$",
        f"none (a kernel, $I = {intensity_tex}$): {kernel.binding}-bound",
        "---",
    )
