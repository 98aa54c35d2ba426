"""The step of a bill and an energy (issue 36): a serving step's or a training step's.

Reads :class:`~derive.model.costs.StepCost`; computes nothing.
"""

from __future__ import annotations

from derive.formula.decimals import counted
from derive.model.costs import HOUR, StepCost
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Step, StepKind, rich

_DOLLAR, _JOULE = r"\ \text{USD}", r"\ \text{J}"


def cost_step(cost: StepCost, what: str) -> Step:
    """The step's bill and energy; ``what`` says which time t is and what the T tokens are."""
    t, tokens, n = tex(cost.step_time), tex(cost.tokens), tex(cost.steps)
    per_step, watts, devices = tex(cost.cost_per_step), tex(cost.power), cost.devices
    rows = (  # a line each value given: (lhs, symbolic, numbers, value, unit)
        (
            r"C_{\text{step}}",
            rf"\frac{{p_h \cdot N \cdot t}}{{{HOUR}}}",
            rf"\frac{{{tex(cost.price)} \cdot {devices} \cdot {t}}}{{{HOUR}}}",
            cost.cost_per_step,
            _DOLLAR,
        ),
        (
            r"c_{\text{Mtok}}",
            r"\frac{10^{6} \cdot C_{\text{step}}}{T}",
            rf"\frac{{10^{{6}} \cdot {per_step}}}{{{tokens}}}",
            cost.cost_per_million_tokens,
            _DOLLAR,
        ),
        (
            r"C_{\text{run}}",
            r"n \cdot C_{\text{step}}",
            rf"{n} \cdot {per_step}",
            cost.cost_of_run,
            _DOLLAR,
        ),
        (
            r"E_{\text{token}}",
            r"\frac{W_{\text{dev}} \cdot N \cdot t}{T}",
            rf"\frac{{{watts} \cdot {devices} \cdot {t}}}{{{tokens}}}",
            cost.energy_per_token,
            _JOULE,
        ),
        (
            r"E_{\text{run}}",
            r"n \cdot W_{\text{dev}} \cdot N \cdot t",
            rf"{n} \cdot {watts} \cdot {devices} \cdot {t}",
            cost.energy_of_run,
            _JOULE,
        ),
    )
    lines = [
        Line.of(lhs, symbolic, numbers, tex(value), approx=tex_decimal(value) + unit)
        for lhs, symbolic, numbers, value, unit in rows
        if value is not None
    ]
    run = "" if cost.steps is None else f"; a run of n = {cost.steps} steps (its tokens / T)"
    return Step(
        StepKind.COST,
        "cost = p_h · N · t / 3600 (p_h dollars per device-hour); E = W_dev · N · t",
        rich(
            f"All {counted(int(cost.devices), 'device')} are billed and draw power for the whole "
            f"step: {what}{run}."
        ),
        tuple(lines),
    )
