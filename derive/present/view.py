"""The view of a solution for templates: every string already formatted.

Templates lay out; this module decides what the givens tables say.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.present.formats import Document
from derive.solution.builder import Solution
from derive.solution.notation import tex, tex_text_number
from derive.solution.steps import Math, Rich, rich


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
    analysis = solution.analysis
    problem = analysis.problem
    sent = analysis.network.terms if analysis.network is not None else ()
    rows = [
        TensorRow(t.tensor.name, role or t.role, _shape(t.tensor.shape), t.dtype, tex(t.width))
        for terms, role in ((analysis.memory.terms, ""), (sent, "sent"))
        for t in terms
    ]
    given = [(f"peak ({problem.compute_dtype})", r"\pi", problem.peak, "FLOP/s")]
    given.append(("HBM bandwidth", r"\beta", problem.bandwidth, "B/s"))
    if problem.link is not None and analysis.network is not None:
        name = problem.chip.link_name if problem.chip else "link"
        given.append((f"{name} bandwidth (one way)", r"\beta_{\text{link}}", problem.link, "B/s"))
    hardware = [
        HardwareRow(label, symbol, tex_text_number(v.text), unit, v.cite())
        for label, symbol, v, unit in given
    ]
    regime = (
        rich(Math(_regime_tex(problem.regime.text)), f" — {problem.regime.describe()}")
        if problem.regime
        else ()
    )
    name = (
        title
        or f"{problem.operator.name}: {', '.join(sorted({d.name for _, d in problem.dtypes}))} on {problem.hardware_name}"
    )
    return SolutionView(
        title=name,
        doc=problem.operator.doc,
        text=text,
        problem=problem,
        compute_reason=problem.compute_reason,
        x=tex(problem.solve_for),
        bound=tuple(f"{tex(d)} = {v}" for d, v in problem.bound),
        tensors=tuple(rows),
        hardware=tuple(hardware),
        regime=regime,
        steps=solution.steps,
        verdict=solution.verdict,
        warnings=solution.warnings,
        solution=solution,
    )


def solution_document(
    solution: Solution, title: str | None = None, text: str = "", level: int = 2
) -> Document:
    """An operator's worked solution as a document (``solution.*.j2``; JSON: its analysis)."""
    from derive.present.json_export import to_json

    return Document(
        template="solution",
        context={"view": view_of(solution, title, text), "level": level},
        data=lambda: to_json(solution.analysis),
    )


def _regime_tex(text: str) -> str:
    out = text
    for typed, latex in (
        ("<<", r" \ll "),
        (">>", r" \gg "),
        ("->", r" \to "),
        ("oo", r"\infty"),
        ("≪", r" \ll "),
        ("≫", r" \gg "),
        ("→", r" \to "),
        ("∞", r"\infty"),
    ):
        out = out.replace(typed, latex)
    parts = [
        tex(sp.Symbol(word)) if word.isidentifier() else word
        for word in out.replace(",", " , ").split()
    ]
    return " ".join(parts).replace(" , ", ", ")
