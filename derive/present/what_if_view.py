"""A what-if on a measured step as a document (a section after ``solve``'s or ``model``'s):
its step and its JSON ``what_if: {time, rate, speedup, limit, …}`` (exact strings)."""

from __future__ import annotations

from derive.analysis.what_if import WhatIf
from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.present.formats import Document
from derive.present.json_export import laid_out
from derive.present.worked import worked_document
from derive.solution.what_if_steps import what_if_given, what_if_steps, what_if_verdict


def what_if_json(w: WhatIf) -> dict[str, object]:
    """The new time (s), its rate, the speed-up and its limit (null: unbounded), exact: its
    rows' values laid out, with the rate's unit after the rate and the classes last."""
    return laid_out(
        ProblemKind.WHAT_IF,
        (w,),
        {
            q.WHAT_IF_RATE: {"rate_unit": w.rate_unit if w.rate is not None else None},
            q.WHAT_IF_LIMIT: {
                "profile": {c: str(f) for c, f in w.profile},
                "speedups": {c: str(s) for c, s in w.speedups},
            },
        },
        "what_if",
    )


def what_if_document(w: WhatIf, level: int = 2) -> Document:
    """The what-if's worked step (the kernel's templates) and its JSON."""
    return worked_document(
        "What-if",
        what_if_given(w),
        what_if_steps(w),
        what_if_verdict(w),
        lambda: what_if_json(w),
        level,
    )
