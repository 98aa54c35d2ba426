"""A short worked solution as a document: a title, the givens, steps and a verdict, printed by
the kernel's templates (``kernel.*.j2``) and its JSON built by ``data``. The documents of
issue 36 (a budget, a what-if, a peak from the parts, a sharding) are each one of these."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from derive.present.formats import Document
from derive.solution.steps import Rich, Step


def worked_document(
    title: str,
    given: Rich,
    steps: Sequence[Step],
    verdict: Sequence[Rich],
    data: Callable[[], object],
    level: int = 2,
) -> Document:
    """The document of a worked solution of ``steps`` under ``title``."""
    return Document(
        template="kernel",
        context={
            "level": level,
            "title": title,
            "given": given,
            "steps": tuple(steps),
            "verdict": tuple(verdict),
        },
        data=data,
    )
