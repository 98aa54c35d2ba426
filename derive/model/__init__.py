"""Stage 4b, model: whole models stored and counted (after analysis, before solution).

- ``transformer``: :class:`Transformer`, the declaration API of a whole model.
- ``expand``: a model as kernels with tensors tagged by role (weight, KV cache, activation).
- ``counts``: parameter formulas per block and for the globals.
- ``binding``: a model problem as typed (:class:`ModelSpec`) bound exactly.
- ``symbols``: the notation table (symbol → LaTeX → meaning) every formula is written in.
- ``records``: :class:`Quantity`, :class:`ModelAnalysis` (frozen) and the sheet it is derived on.
- ``counting``, ``serving``: the quantities (parameters, bytes, FLOPs; memory, limits, training);
  the steps that show them are ``derive.solution.model_steps``.
- ``analysis``: :func:`analyse_model`, every derived quantity with its formula and value.
- ``registry``: loading model files (built-ins in ``models/`` and the user's).

To add a model, declare a ``Transformer`` in a file under ``models/`` (or pass your
own file with ``--operators``); nothing here needs to change.
"""

from derive.model.transformer import Mlp, Norm, Transformer

__all__ = ["Mlp", "Norm", "Transformer"]
