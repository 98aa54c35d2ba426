"""The quantities of a model known by its size alone: weights, memory, fit, fewest devices.

The training steps (:func:`derive.model.serving.training`) follow as for any model; what
needs an architecture is left out with :data:`~derive.model.sized.NEEDS_ARCHITECTURE`.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.model.binding import ModelProblem
from derive.model.records import Sheet
from derive.model.serving import batch_and_context
from derive.model.sized import NEEDS_ARCHITECTURE, SizedModel
from derive.model.symbols import batch, context, sym

__all__ = ["ARCHITECTURE_QUANTITIES", "by_size"]

# What a size alone cannot give (each left out, saying it needs an architecture), and what
# needs the cache's size (left out without --kv-bytes-per-token, saying so).
ARCHITECTURE_QUANTITIES = (q.PARAMS_EMBEDDING.name, q.FLOPS_PER_TOKEN.name)
_KV = (q.KV_BYTES_PER_TOKEN.name, q.KV_BYTES.name, q.MAX_BATCH.name, q.MAX_CONTEXT.name)
_NEEDS_KV = "needs an architecture, or the KV cache's bytes per token (--kv-bytes-per-token)"


def by_size(sheet: Sheet, p: ModelProblem) -> None:
    """Parameters as given, the weights' bytes, the KV cache when its bytes per token are
    given (``--kv-bytes-per-token``), and on a capacity the fit of the weights (and cache)
    and, with the cache, the largest batch and context."""
    model = p.model
    assert isinstance(model, SizedModel)
    sheet.q(q.PARAMS, model.params)
    sheet.q(q.PARAMS_ACTIVE, model.params_active)
    sheet.q(q.WEIGHTS_BYTES, sym(q.PARAMS) * sym("w_weights"))
    kv = model.kv_bytes_per_token is not None
    if kv:
        sheet.q(q.KV_BYTES_PER_TOKEN, model.kv_bytes_per_token)
        sheet.q(q.KV_BYTES, sym(q.KV_BYTES_PER_TOKEN) * batch * context)
    sheet.left_out.extend((key, NEEDS_ARCHITECTURE) for key in ARCHITECTURE_QUANTITIES)
    sheet.left_out.extend(() if kv else ((key, _NEEDS_KV) for key in _KV))
    if p.capacity is None:
        sheet.left_out.append((q.MEMORY_TOTAL.name, "no HBM capacity: needs a chip or a capacity"))
        return
    C, N = sym("capacity"), sym("devices") if p.replicas == 1 else sym("tp")
    cache = sym(q.KV_BYTES) if kv else 0
    sheet.q(q.MEMORY_TOTAL, sym(q.WEIGHTS_BYTES) + cache)
    sheet.q(q.MEMORY_PER_DEVICE, sym(q.MEMORY_TOTAL) / N)
    if sheet.known(q.MEMORY_PER_DEVICE):
        sheet.q(q.FITS, sp.Le(sym(q.MEMORY_PER_DEVICE), C))
        sheet.q(q.HEADROOM_PER_DEVICE, C - sym(q.MEMORY_PER_DEVICE))
    else:  # the KV cache of B·S tokens, B or S left free
        sheet.left_out.append((q.FITS.name, "the memory depends on B and S: needs their values"))
    if kv:
        batch_and_context(sheet, p)
    sheet.q(q.MIN_DEVICES, sp.ceiling(sym(q.WEIGHTS_BYTES) / C))
