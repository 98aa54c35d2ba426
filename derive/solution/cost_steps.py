"""The step of a bill and an energy (issue 36): a serving step's or a training step's.

Reads :class:`~derive.model.costs.StepCost`; computes nothing.
"""

from __future__ import annotations

from derive.formula.decimals import counted
from derive.model.costs import HOUR, StepCost
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Step, StepKind, rich

__all__ = ["cost_step"]

_DOLLAR, _JOULE = r"\ \text{USD}", r"\ \text{J}"


def _line(lhs: str, symbolic: str, numbers: str, value: object, unit: str) -> Line:
    return Line.of(lhs, symbolic, numbers, tex(value), approx=tex_decimal(value) + unit)


def _money(cost: StepCost, t: str, tokens: str) -> list[Line]:
    assert cost.price is not None and cost.cost_per_step is not None
    assert cost.cost_per_million_tokens is not None
    per_step = tex(cost.cost_per_step)
    lines = [
        _line(
            r"C_{\text{step}}",
            rf"\frac{{p_h \cdot N \cdot t}}{{{HOUR}}}",
            rf"\frac{{{tex(cost.price)} \cdot {cost.devices} \cdot {t}}}{{{HOUR}}}",
            cost.cost_per_step,
            _DOLLAR,
        ),
        _line(
            r"c_{\text{Mtok}}",
            r"\frac{10^{6} \cdot C_{\text{step}}}{T}",
            rf"\frac{{10^{{6}} \cdot {per_step}}}{{{tokens}}}",
            cost.cost_per_million_tokens,
            _DOLLAR,
        ),
    ]
    if cost.cost_of_run is not None:
        lines.append(
            _line(
                r"C_{\text{run}}",
                r"n \cdot C_{\text{step}}",
                rf"{tex(cost.steps)} \cdot {per_step}",
                cost.cost_of_run,
                _DOLLAR,
            )
        )
    return lines


def _energy(cost: StepCost, t: str, tokens: str) -> list[Line]:
    assert cost.power is not None and cost.energy_per_token is not None
    watts = tex(cost.power)
    lines = [
        _line(
            r"E_{\text{token}}",
            r"\frac{W_{\text{dev}} \cdot N \cdot t}{T}",
            rf"\frac{{{watts} \cdot {cost.devices} \cdot {t}}}{{{tokens}}}",
            cost.energy_per_token,
            _JOULE,
        )
    ]
    if cost.energy_of_run is not None:
        lines.append(
            _line(
                r"E_{\text{run}}",
                r"n \cdot W_{\text{dev}} \cdot N \cdot t",
                rf"{tex(cost.steps)} \cdot {watts} \cdot {cost.devices} \cdot {t}",
                cost.energy_of_run,
                _JOULE,
            )
        )
    return lines


def cost_step(cost: StepCost, what: str) -> Step:
    """The step's bill and energy; ``what`` says which time t is and what the T tokens are."""
    t, tokens = tex(cost.step_time), tex(cost.tokens)
    lines = [] if cost.price is None else _money(cost, t, tokens)
    lines += [] if cost.power is None else _energy(cost, t, tokens)
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
