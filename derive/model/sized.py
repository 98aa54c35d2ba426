"""A model known only by its size: ``derive model --params 70e9 [--params-active 37e9]``.

Without an architecture derive still derives what needs only the parameter count: the
weights' bytes, the memory per device and the fit, the fewest devices that hold the
weights, the training state, FLOPs and time, and the MFU a measured rate implies. What
needs an architecture (FLOPs per token by part, the largest batch) is left out, each saying
so (:data:`NEEDS_ARCHITECTURE`). A serving step (``--phase``) needs only the size and the
KV cache's bytes per token (``--kv-bytes-per-token``): weights streamed once per step,
2·P_active FLOPs per token, attention's FLOPs left out unless given
(``--attention-flops-per-token``).

>>> m = sized_model("70e9", None)
>>> m.name, m.params, m.params_active
('params-70e9', 70000000000, 70000000000)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import sympy as sp

from derive.errors import ProblemError
from derive.formula.decimals import parse_decimal, parse_positive

NEEDS_ARCHITECTURE = "needs an architecture (a model's name or config.json), not only a size"
MAX_PARAMS = 10**16


@dataclass(frozen=True)
class SizedModel:
    """A model given by its total parameters and the parameters a token uses."""

    name: str
    params: sp.Integer
    params_active: sp.Integer
    params_text: str
    active_text: str | None = None
    kv_bytes_per_token: sp.Rational | None = None
    attention_flops_per_token: sp.Rational | None = None

    free_dims: ClassVar[tuple[sp.Symbol, ...]] = ()
    """No dims: the size is a number."""
    source: ClassVar[tuple[tuple[str, str], ...]] = ()
    """No config fields."""
    doc: ClassVar[str] = "given by its size alone (--params)"
    """One line on where the size came from."""

    def describe(self) -> str:
        """One line: the size, and that there is no architecture."""
        active = f", {self.active_text} active per token" if self.active_text else ""
        return f"{self.params_text} parameters{active}; no architecture"


def _count(text: object, flag: str) -> sp.Integer:
    if not isinstance(text, str):
        raise ProblemError(flag, f"expected a number as text, e.g. 70e9, got {text!r}")
    value = parse_positive(text, f"{flag} {text}")
    if not value.is_Integer or value > MAX_PARAMS:
        raise ProblemError(
            f"{flag} {text}", f"a parameter count is a whole number of at most {MAX_PARAMS:.0e}"
        )
    return sp.Integer(value)


def _per_token(text: object, flag: str) -> sp.Rational | None:
    """An exact number, zero or more (``--kv-bytes-per-token 327680``), or None when not given."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise ProblemError(flag, f"expected a number as text, e.g. 327680, got {text!r}")
    value = parse_decimal(text, f"{flag} {text}")
    if not 0 <= value <= MAX_PARAMS:  # 0: a model with no KV cache (a state-space model)
        raise ProblemError(f"{flag} {text}", f"a number from 0 to {MAX_PARAMS:.0e}")
    return sp.Rational(value)


def sized_model(
    params: str,
    params_active: str | None,
    kv_bytes_per_token: str | None = None,
    attention_flops_per_token: str | None = None,
) -> SizedModel:
    """The model ``--params`` (and ``--params-active``, the KV cache's bytes per token and
    attention's FLOPs per token) describe, checked exactly."""
    total = _count(params, "--params")
    active = total if params_active is None else _count(params_active, "--params-active")
    if active > total:
        raise ProblemError(
            f"--params-active {params_active}",
            f"exceeds --params {params} (a token uses at most every parameter)",
        )
    name = "params-" + re.sub(r"[^A-Za-z0-9_.-]", "", params.strip())[:56]
    active_text = None if params_active is None else params_active.strip()
    kv, attention = (
        _per_token(kv_bytes_per_token, "--kv-bytes-per-token"),
        _per_token(attention_flops_per_token, "--attention-flops-per-token"),
    )
    return SizedModel(name, total, active, params.strip(), active_text, kv, attention)
