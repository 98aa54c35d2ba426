"""The quantities of a model known by its size alone: weights, memory, fit, fewest devices.

The training steps (:func:`derive.model.serving.training`) follow as for any model; what
needs an architecture is left out with :data:`~derive.model.sized.NEEDS_ARCHITECTURE`.
"""

from __future__ import annotations

from derive.catalogue import table as q
from derive.model.binding import ModelProblem
from derive.model.records import Sheet
from derive.model.serving import fit
from derive.model.sized import NEEDS_ARCHITECTURE, SizedModel
from derive.model.symbols import batch, context, sym

# What a size alone cannot give (each left out, saying it needs an architecture), and what
# needs the cache's size (left out without --kv-bytes-per-token, saying so).
ARCHITECTURE_QUANTITIES = (q.PARAMS_EMBEDDING.name, q.FLOPS_PER_TOKEN.name)
_KV = (q.KV_BYTES_PER_TOKEN.name, q.KV_BYTES.name, q.MAX_BATCH.name, q.MAX_CONTEXT.name)
_NEEDS_KV = "needs an architecture, or the KV cache's bytes per token (--kv-bytes-per-token)"


def by_size(sheet: Sheet, p: ModelProblem) -> None:
    """Parameters as given, the weights' bytes, the KV cache when its bytes per token are
    given (``--kv-bytes-per-token``), and on a capacity the fit of the weights (and cache)
    as for an architecture (:func:`~derive.model.serving.fit`)."""
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
    fit(sheet, p)
