"""The money and energy of a serving step: a price per device-hour and a power per device.

Every device of the cluster (``N``: the tensor-parallel group times its replicas) is billed
and draws power for the whole step, and the cluster makes ``tokens/s`` tokens a second:

- ``cost_per_step`` = p_h · N · t_step / 3600 (dollars, p_h in dollars per device-hour);
- ``cost_per_million_tokens`` = 10^6 · p_h · N / (3600 · tokens/s);
- ``energy_per_token`` = W_dev · N / (tokens/s) (joules).

>>> c = serving_cost(sp.Rational(249, 100), sp.Integer(700), sp.Integer(8), sp.Rational(1, 50), sp.Integer(3200))
>>> c.cost_per_step, c.cost_per_million_tokens, c.energy_per_token
(83/750, 2075/12, 7/4)
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["ServingCost", "serving_cost"]

_HOUR = 3600


@dataclass(frozen=True)
class ServingCost:
    """A serving step's bill and energy (None: no price, or no power, was given).

    Attributes:
        price: dollars per device-hour; ``power``: watts per device; ``devices``: N.
        cost_per_step, cost_per_million_tokens: dollars.
        energy_per_token: joules.
    """

    price: sp.Rational | None
    power: sp.Rational | None
    devices: sp.Integer
    cost_per_step: sp.Expr | None
    cost_per_million_tokens: sp.Expr | None
    energy_per_token: sp.Expr | None


def serving_cost(
    price: sp.Rational | None,
    power: sp.Rational | None,
    devices: sp.Integer,
    step_time: sp.Expr,
    tokens_per_s: sp.Expr,
) -> ServingCost:
    """The bill and energy of a step of ``step_time`` seconds on ``devices`` making
    ``tokens_per_s`` tokens a second (see the module docstring)."""
    return ServingCost(
        price=price,
        power=power,
        devices=devices,
        cost_per_step=None if price is None else price * devices * step_time / _HOUR,
        cost_per_million_tokens=(
            None if price is None else 10**6 * price * devices / (_HOUR * tokens_per_s)
        ),
        energy_per_token=None if power is None else power * devices / tokens_per_s,
    )
