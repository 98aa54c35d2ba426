"""The way in for a peak from the parts (``--peak-from`` on ``solve`` and ``model``)."""

from __future__ import annotations

from derive.present.formats import Document
from derive.present.peak_view import peak_document
from derive.problem.peak_parts import read_peak_parts


def peak_section(text: str | None) -> tuple[tuple[str, Document], ...]:
    """``(("peak_from", document),)`` for ``--peak-from TEXT``, else ``()``."""
    return () if text is None else (("peak_from", peak_document(read_peak_parts(text))),)
