"""A training run's quantities by their keys: one list, read by the checker and the formulas.

:func:`training_values` is what ``derive check`` judges and what ``--define``/``--equation``
name on ``derive train``; :func:`training_unit` is each key's unit (``t_*`` in seconds,
fractions bare, the critical batch in tokens, every other a byte count).
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import find
from derive.training.analysis import TrainingAnalysis, cost_values

__all__ = ["training_unit", "training_values"]


def training_unit(key: str) -> str:
    """The unit of a run's quantity: its catalogue row's display unit (``s``, ``byte``,
    ``tokens``, ``bool``, ``$`` or ``""``); a key the catalogue lacks is a time (``t_*``)
    or a byte count."""
    row = find(key)
    if row is not None:
        return row.display_unit
    return "s" if key.startswith("t_") else "byte"


def training_values(t: TrainingAnalysis) -> dict[str, sp.Basic | None]:
    """Every quantity of the run by its key (None where not derived)."""
    m, c = t.memory, t.comms
    return {
        "memory_per_device": m.total,
        "memory_weights": m.weights,
        "memory_grads": m.grads,
        "memory_optimizer": m.optimizer,
        "activations": m.activations,
        "fits": None if t.fits is None else sp.true if t.fits else sp.false,
        "headroom_per_device": t.headroom,
        "comms_bytes_per_device": c.total,
        "comms_dp": c.of("dp"),
        "comms_tp": c.of("tp"),
        "comms_pp": c.of("pp"),
        "comms_ep": c.of("ep"),
        "t_math": t.t_math,
        "t_comms": t.t_comms,
        "t_lower": t.t_lower,
        "t_upper": t.t_upper,
        "bubble_fraction": t.bubble_fraction,
        "mfu": t.mfu,
        "critical_tokens_per_device": t.critical_tokens_per_device,
        "critical_tokens_per_chip": t.critical_tokens_per_chip,
        "critical_batch_tokens": t.critical_batch_tokens,
        **cost_values(t),
    }
