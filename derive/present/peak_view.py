"""A peak from the parts (``--peak-from``) as a document: its step and its JSON
``peak_from: {units, flops_per_clock, clock, peak}`` (exact strings)."""

from __future__ import annotations

from derive.catalogue.reading import attributes
from derive.present.formats import Document
from derive.present.worked import worked_document
from derive.problem.peak_parts import PeakParts
from derive.solution.peak_steps import peak_steps
from derive.solution.steps import rich


def peak_json(parts: PeakParts) -> dict[str, object]:
    """The parts and their product, exact."""
    return attributes(parts, "units flops_per_clock clock peak")


def peak_document(parts: PeakParts, level: int = 2) -> Document:
    """The step of the peak (the kernel's templates) and its JSON."""
    return worked_document(
        "Peak from the parts",
        rich(f"--peak-from {parts.text} (clock in Hz)."),
        peak_steps(parts),
        (rich(f"π = {parts.peak_text} FLOP/s."),),
        lambda: peak_json(parts),
        level,
    )
