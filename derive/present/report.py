"""A short labelled report (a check's verdict) as a document in any format.

A :class:`Report` is ``label: value`` entries (each with indented detail lines) and then
labelled lists; ``templates/report.txt.j2`` prints it as the terminal always showed a
check, ``report.md.j2`` and ``report.tex.j2`` as a list a handout can hold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from derive.present.formats import Document


@dataclass(frozen=True)
class Entry:
    """One ``label: value`` line, with indented detail lines under it."""

    label: str
    value: str
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Report:
    """Entries, then labelled lists of items (``diagnosis:`` and its points)."""

    entries: tuple[Entry, ...]
    lists: tuple[tuple[str, tuple[str, ...]], ...] = ()


def report_document(report: Report, data: Callable[[], object]) -> Document:
    """The report's document: ``report.*.j2``; ``data`` builds its JSON object."""
    return Document(template="report", context={"report": report}, data=data)
