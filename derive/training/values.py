"""A training run's quantities by their keys: one list, read by the checker and the formulas.

:func:`training_values` is what ``derive check`` judges and what ``--define``/``--equation``
name on ``derive train``; every key is a catalogue row's name, and its unit is that row's
display unit (``quantity(key).display_unit``: the one unit table).
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.training.analysis import TrainingAnalysis, cost_values

__all__ = ["training_values"]


def training_values(t: TrainingAnalysis) -> dict[str, sp.Basic | None]:
    """Every quantity of the run by its catalogue name (None where not derived)."""
    m, c = t.memory, t.comms
    return {
        q.MEMORY_PER_DEVICE.name: m.total,
        q.MEMORY_WEIGHTS.name: m.weights,
        q.MEMORY_GRADS.name: m.grads,
        q.MEMORY_OPTIMIZER.name: m.optimizer,
        q.ACTIVATIONS.name: m.activations,
        q.FITS.name: None if t.fits is None else sp.true if t.fits else sp.false,
        q.HEADROOM_PER_DEVICE.name: t.headroom,
        q.COMMS_BYTES_PER_DEVICE.name: c.total,
        q.COMMS_DP.name: c.of("dp"),
        q.COMMS_TP.name: c.of("tp"),
        q.COMMS_PP.name: c.of("pp"),
        q.COMMS_EP.name: c.of("ep"),
        q.T_MATH.name: t.t_math,
        q.T_COMMS.name: t.t_comms,
        q.T_LOWER.name: t.t_lower,
        q.T_UPPER.name: t.t_upper,
        q.BUBBLE_FRACTION.name: t.bubble_fraction,
        q.MFU.name: t.mfu,
        q.CRITICAL_TOKENS_PER_DEVICE.name: t.critical_tokens_per_device,
        q.CRITICAL_TOKENS_PER_CHIP.name: t.critical_tokens_per_chip,
        q.CRITICAL_BATCH_TOKENS.name: t.critical_batch_tokens,
        **cost_values(t),
    }
