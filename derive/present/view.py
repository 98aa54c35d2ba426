"""The view of a solution for templates: every string already formatted.

Templates lay out; this module decides what the givens tables say.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.present.notation import tex, tex_text_number
from derive.solution.builder import Solution
from derive.solution.steps import Math, Rich, rich

__all__ = ["HardwareRow", "SolutionView", "TensorRow", "view_of"]


@dataclass(frozen=True)
class TensorRow:
    """One row of the tensors table."""

    name: str
    role: str
    shape: str
    dtype: str
    width: str


@dataclass(frozen=True)
class HardwareRow:
    """One row of the hardware table."""

    name: str
    symbol: str
    value: str
    unit: str
    source: str


@dataclass(frozen=True)
class SolutionView:
    """Everything a solution template prints."""

    title: str
    doc: str
    text: str
    problem: object
    compute_reason: str
    x: str
    bound: tuple[str, ...]
    tensors: tuple[TensorRow, ...]
    hardware: tuple[HardwareRow, ...]
    regime: Rich
    steps: tuple
    verdict: tuple
    warnings: tuple
    solution: Solution


def _shape(shape: tuple) -> str:
    return r" \times ".join(tex(s) for s in shape) if shape else r"\text{scalar}"


def view_of(solution: Solution, title: str | None = None, text: str = "") -> SolutionView:
    """Format a solution's givens for the templates."""
    a = solution.analysis
    p = a.problem
    rows = [
        TensorRow(t.tensor.name, t.role, _shape(t.tensor.shape), t.dtype, tex(t.width))
        for t in a.memory.terms
    ]
    if a.network is not None:
        rows += [
            TensorRow(t.tensor.name, "sent", _shape(t.tensor.shape), t.dtype, tex(t.width))
            for t in a.network.terms
        ]
    hw = [
        HardwareRow(
            f"peak ({p.compute_dtype})",
            r"\pi",
            tex_text_number(p.peak.text),
            "FLOP/s",
            p.peak.cite(),
        ),
        HardwareRow(
            "HBM bandwidth", r"\beta", tex_text_number(p.bandwidth.text), "B/s", p.bandwidth.cite()
        ),
    ]
    if p.link is not None and a.network is not None:
        name = p.chip.link_name if p.chip else "link"
        hw.append(
            HardwareRow(
                f"{name} bandwidth (one way)",
                r"\beta_{\text{link}}",
                tex_text_number(p.link.text),
                "B/s",
                p.link.cite(),
            )
        )
    regime = rich(Math(_regime_tex(p.regime.text)), f" — {p.regime.describe()}") if p.regime else ()
    name = (
        title
        or f"{p.operator.name}: {', '.join(sorted({d.name for _, d in p.dtypes}))} on {p.hardware_name}"
    )
    return SolutionView(
        title=name,
        doc=p.operator.doc,
        text=text,
        problem=p,
        compute_reason=p.compute_reason,
        x=tex(p.solve_for),
        bound=tuple(f"{tex(d)} = {v}" for d, v in p.bound),
        tensors=tuple(rows),
        hardware=tuple(hw),
        regime=regime,
        steps=solution.steps,
        verdict=solution.verdict,
        warnings=solution.warnings,
        solution=solution,
    )


def _regime_tex(text: str) -> str:
    out = text
    for a, b in (
        ("<<", r" \ll "),
        (">>", r" \gg "),
        ("->", r" \to "),
        ("oo", r"\infty"),
        ("≪", r" \ll "),
        ("≫", r" \gg "),
        ("→", r" \to "),
        ("∞", r"\infty"),
    ):
        out = out.replace(a, b)
    parts = [tex(sp.Symbol(w)) if w.isidentifier() else w for w in out.replace(",", " , ").split()]
    return " ".join(parts).replace(" , ", ", ")
