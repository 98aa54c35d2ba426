"""The quantities of a model known by its size alone: weights, memory, fit, fewest devices.

The training steps (:func:`derive.model.serving.training`) follow as for any model; what
needs an architecture is left out with :data:`~derive.model.sized.NEEDS_ARCHITECTURE`.
"""

from __future__ import annotations

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.records import Sheet, Unit
from derive.model.sized import NEEDS_ARCHITECTURE, SizedModel
from derive.model.symbols import batch, context, sym

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


_KV = ("kv_bytes_per_token", "kv_bytes")


def by_size(sheet: Sheet, p: ModelProblem) -> None:
    """Parameters as given, the weights' bytes, the KV cache when its bytes per token are
    given (``--kv-bytes-per-token``), and on a capacity the fit of the weights (and cache)."""
    model = p.model
    assert isinstance(model, SizedModel)
    sheet.q("params", model.params, Unit.PARAMS)
    sheet.q("params_active", model.params_active, Unit.PARAMS)
    sheet.q("weights_bytes", sym("params") * sym("w_weights"), Unit.BYTES)
    kv = model.kv_bytes_per_token is not None
    if kv:
        sheet.q("kv_bytes_per_token", model.kv_bytes_per_token, Unit.BYTES_PER_TOKEN)
        sheet.q("kv_bytes", sym("kv_bytes_per_token") * batch * context, Unit.BYTES)
    sheet.left_out.extend(
        (key, NEEDS_ARCHITECTURE) for key in ARCHITECTURE_QUANTITIES if not (kv and key in _KV)
    )
    if p.capacity is None:
        sheet.left_out.append(("memory_total", "no HBM capacity: needs a chip or a capacity"))
        return
    C, N = sym("capacity"), sym("devices") if p.replicas == 1 else sym("tp")
    cache = sym("kv_bytes") if kv else 0
    sheet.q("memory_total", sym("weights_bytes") + cache, Unit.BYTES)
    sheet.q("memory_per_device", sym("memory_total") / N, Unit.BYTES)
    if sheet.known("memory_per_device"):
        sheet.q("fits", sp.Le(sym("memory_per_device"), C), Unit.BOOLEAN)
        sheet.q("headroom_per_device", C - sym("memory_per_device"), Unit.BYTES)
    else:  # the KV cache of B·S tokens, B or S left free
        sheet.left_out.append(("fits", "the memory depends on B and S: needs their values"))
    sheet.q("min_devices", sp.ceiling(sym("weights_bytes") / C), Unit.DEVICES)
