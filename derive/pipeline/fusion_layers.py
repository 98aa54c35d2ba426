"""The way in for a composite's fusion savings × a model's layers (``derive solve
COMPOSITE --layers N|MODEL``, issue 36): a section after the operator's document whose JSON
is the operator's ``fusion_savings`` with ``per_layer``, ``layers`` and ``total`` added.

>>> layers_of("80"), layers_of("llama-3-70b")
((80, '80 layers as given'), (80, 'llama-3-70b has 80 layers'))
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.errors import ProblemError
from derive.present.formats import Document
from derive.present.worked import worked_document
from derive.solution.fusion_layers_steps import (
    fusion_layers_given,
    fusion_layers_steps,
    fusion_layers_verdict,
)

_MAX_LAYERS = 10**6


def layers_of(text: str) -> tuple[int, str]:
    """``--layers``: a positive count, or a model's name (its layer count), with its source.

    Raises:
        ProblemError: not a positive integer and no model of that name, or a model whose
            layer count is not a number.
    """
    text = str(text).strip()
    if text.isdigit():
        count = int(text)
        if not 0 < count <= _MAX_LAYERS:
            raise ProblemError(f"--layers {text}", f"a layer count is 1 to {_MAX_LAYERS}")
        return count, f"{count} layers as given"
    from derive.model.registry import load_models

    try:
        model = load_models().get(text)
    except Exception as error:  # an unknown name: the registry's message lists the models
        why = getattr(error, "why", str(error))
        raise ProblemError(f"--layers {text}", f"not a layer count or a model: {why}") from None
    layers = model.layers  # an int, or a dim when the model leaves it free
    if not isinstance(layers, int | sp.Integer) or layers <= 0:
        raise ProblemError(f"--layers {text}", f"{model.name} has no fixed layer count")
    return int(layers), f"{model.name} has {int(layers)} layers"


def with_layers(analysis: Analysis, layers: str | None) -> Analysis:
    """``analysis`` with a set's ``layers`` (or ``--layers``) counted in its fusion savings."""
    return analysis if layers is None else replace(analysis, layers=layers_of(layers)[0])


def fusion_layers_section(analysis: object, text: str | None) -> tuple[tuple[str, Document], ...]:
    """``(("fusion_savings", document),)`` for ``--layers`` on a composite that fuses, else ``()``.

    Raises:
        ProblemError: ``--layers`` on an operator that fuses nothing, or a dim left free in
            the savings (every dim of the fused tensors must be bound).
    """
    if text is None:
        return ()
    layer = getattr(analysis, "layer", None)
    fusion = getattr(layer, "fusion", None)
    if fusion is None:
        raise ProblemError(
            f"--layers {text}", "the operator fuses nothing (--layers scales a composite's savings)"
        )
    per_layer: sp.Expr = fusion.savings
    if not per_layer.is_number:
        raise ProblemError(
            f"--layers {text}", "bind every dim (--set) so the savings per layer are a number"
        )
    count, source = layers_of(text)
    layers = sp.Integer(count)

    def data() -> dict[str, object]:
        return {
            "exact": str(per_layer),
            "unit": "B",
            "per_layer": str(per_layer),
            "layers": count,
            "total": str(per_layer * layers),
        }

    document = worked_document(
        "Fusion savings × layers",
        fusion_layers_given(per_layer, layers, source),
        fusion_layers_steps(per_layer, layers, source),
        fusion_layers_verdict(per_layer, layers),
        data,
        2,
    )
    return (("fusion_savings", document),)
