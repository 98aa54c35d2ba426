"""The quantities of a model known by its size alone: weights, memory, fit, fewest devices.

The training steps (:func:`derive.model.serving.training`) follow as for any model; what
needs an architecture is left out with :data:`~derive.model.sized.NEEDS_ARCHITECTURE`.
"""

from __future__ import annotations

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.records import Sheet, Unit
from derive.model.sized import NEEDS_ARCHITECTURE, SizedModel
from derive.model.symbols import sym

__all__ = ["ARCHITECTURE_QUANTITIES", "by_size"]

# What a size alone cannot give (each left out, saying it needs an architecture).
ARCHITECTURE_QUANTITIES = (
    "params_embedding",
    "kv_bytes_per_token",
    "kv_bytes",
    "flops_per_token",
    "max_batch",
    "max_context",
)


def by_size(sheet: Sheet, p: ModelProblem) -> None:
    """Parameters as given, the weights' bytes, and on a capacity the fit of the weights."""
    model = p.model
    assert isinstance(model, SizedModel)
    sheet.q("params", model.params, Unit.PARAMS)
    sheet.q("params_active", model.params_active, Unit.PARAMS)
    sheet.q("weights_bytes", sym("params") * sym("w_weights"), Unit.BYTES)
    sheet.left_out.extend((key, NEEDS_ARCHITECTURE) for key in ARCHITECTURE_QUANTITIES)
    if p.capacity is None:
        sheet.left_out.append(("memory_total", "no HBM capacity: needs a chip or a capacity"))
        return
    C, N = sym("capacity"), sym("devices") if p.replicas == 1 else sym("tp")
    sheet.q("memory_total", sym("weights_bytes"), Unit.BYTES)
    sheet.q("memory_per_device", sym("memory_total") / N, Unit.BYTES)
    sheet.q("fits", sp.Le(sym("memory_per_device"), C), Unit.BOOLEAN)
    sheet.q("headroom_per_device", C - sym("memory_per_device"), Unit.BYTES)
    sheet.q("min_devices", sp.ceiling(sym("weights_bytes") / C), Unit.DEVICES)
