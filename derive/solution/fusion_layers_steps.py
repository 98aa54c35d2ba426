"""The worked step of a composite's fusion savings over a model's layers (``derive solve
COMPOSITE --layers 80``): the bytes its fused version does not move, per layer and × L.
Reads the :class:`~derive.analysis.parts.Fusion` and the layer count; multiplies only.
"""

from __future__ import annotations

import sympy as sp

from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Rich, Step, StepKind, rich


def _bytes(value: sp.Expr) -> str:
    return f"{float(value):.5g}".replace("e+", "e") + " B"


def fusion_layers_steps(per_layer: sp.Expr, layers: sp.Integer, source: str) -> tuple[Step, ...]:
    """One step: savings per layer × L = the savings of every layer of the model."""
    total = per_layer * layers
    line = Line.of(
        r"\text{fusion savings}_{\text{model}}",
        r"L \cdot (\text{bytes}_{\text{unfused}} - \text{bytes}_{\text{fused}})",
        rf"{tex(layers)} \cdot {tex(per_layer)}\ \text{{B}}",
        rf"{tex(total)}\ \text{{B}}",
        approx=None if total.is_Integer else tex_decimal(total),
    )
    reason = (
        f"The composite runs once per layer ({source}), so the bytes its fused version keeps "
        "on chip are saved in every one of them."
    )
    return (
        Step(
            StepKind.FUSION,
            "savings × L",
            rich(reason),
            (line,),
            title="Fusion savings × layers",
            topic="fusion_layers",
        ),
    )


def fusion_layers_given(per_layer: sp.Expr, layers: sp.Integer, source: str) -> Rich:
    """The givens: the savings per layer and the layer count with where it comes from."""
    return rich(f"fusion savings {_bytes(per_layer)} per layer; L = {layers} layers ({source}).")


def fusion_layers_verdict(per_layer: sp.Expr, layers: sp.Integer) -> tuple[Rich, ...]:
    """The answer in one bold line."""
    return (rich(f"Fusion saves {_bytes(per_layer * layers)} over {layers} layers."),)
