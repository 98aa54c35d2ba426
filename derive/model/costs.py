"""The money and energy of a step: a price per device-hour and a power per device.

Every device (``N``: a serving cluster's groups times their devices, a training run's
dp·tp·pp) is billed and draws power for the whole step of ``t`` seconds, in which the
devices make (or train on) ``T`` tokens together:

- ``cost_per_step`` = p_h · N · t / 3600 (dollars, p_h in dollars per device-hour);
- ``cost_per_million_tokens`` = 10^6 · cost_per_step / T;
- ``energy_per_token`` = W_dev · N · t / T (joules);
- with a number of steps ``n`` (a training run: its tokens over the tokens per step),
  ``cost_of_run`` = n · cost_per_step and ``energy_of_run`` = n · W_dev · N · t.

>>> c = step_cost(sp.Rational(249, 100), sp.Integer(700), sp.Integer(8), sp.Rational(1, 50), sp.Integer(64))
>>> c.cost_per_step, c.cost_per_million_tokens, c.energy_per_token
(83/750000, 83/48, 7/4)
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

HOUR = 3600
"""Seconds in the hour a price is per."""


@dataclass(frozen=True)
class StepCost:
    """A step's bill and energy (a field is None when its price, power or step count is not given).

    Attributes:
        price: dollars per device-hour; ``power``: watts per device; ``devices``: N.
        step_time: t, seconds; ``tokens``: T, the tokens of one step (every device's).
        steps: n, the steps of a run (None: no run length given).
        cost_per_step, cost_per_million_tokens, cost_of_run: dollars.
        energy_per_token, energy_of_run: joules.
    """

    price: sp.Rational | None
    power: sp.Rational | None
    devices: sp.Integer
    step_time: sp.Expr
    tokens: sp.Expr
    steps: sp.Expr | None
    cost_per_step: sp.Expr | None
    cost_per_million_tokens: sp.Expr | None
    cost_of_run: sp.Expr | None
    energy_per_token: sp.Expr | None
    energy_of_run: sp.Expr | None


def step_cost(
    price: sp.Rational | None,
    power: sp.Rational | None,
    devices: sp.Integer,
    step_time: sp.Expr,
    tokens: sp.Expr,
    steps: sp.Expr | None = None,
) -> StepCost:
    """The bill and energy of a step of ``step_time`` seconds on ``devices`` making ``tokens``
    tokens, and of ``steps`` such steps (see the module docstring)."""
    per_step = None if price is None else price * devices * step_time / HOUR
    joules = None if power is None else power * devices * step_time
    return StepCost(
        price=price,
        power=power,
        devices=devices,
        step_time=step_time,
        tokens=tokens,
        steps=steps,
        cost_per_step=per_step,
        cost_per_million_tokens=None if per_step is None else 10**6 * per_step / tokens,
        cost_of_run=None if per_step is None or steps is None else steps * per_step,
        energy_per_token=None if joules is None else joules / tokens,
        energy_of_run=None if joules is None or steps is None else steps * joules,
    )
