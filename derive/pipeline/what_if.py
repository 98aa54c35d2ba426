"""The way in for a what-if on a measured step (``--profile``/``--speedup`` on ``solve`` and
``model``): :func:`what_if_section`, the section its command adds after its document."""

from __future__ import annotations

from dataclasses import dataclass

from derive.analysis.what_if import WhatIf, what_if
from derive.catalogue import ProblemKind
from derive.pipeline.kinds.surface import Shown
from derive.present.formats import Document
from derive.present.what_if_view import what_if_document, what_if_json
from derive.problem.sets.natives import WhatIfSpec


@dataclass(frozen=True, repr=False)
class WhatIfDerivation(Shown):
    """A what-if solved (a set's what-if problem): its record, document and JSON."""

    what_if: WhatIf
    spec: WhatIfSpec | None = None

    kind = ProblemKind.WHAT_IF
    """A what-if on a measured step."""

    def _roots(self) -> tuple[object, ...]:
        return (self.what_if,)

    def as_problem(self) -> WhatIfSpec | None:
        """The what-if as typed (what ``derive.check`` judges a claim against)."""
        return self.spec

    def document(self, level: int = 1) -> Document:
        """The worked solution as a document (any report format)."""
        return what_if_document(self.what_if, level)

    def as_json(self) -> dict[str, object]:
        """The JSON report: ``what_if: {time, rate, speedup, limit, …}``, as ``solve``'s section."""
        return {"what_if": what_if_json(self.what_if)}


def what_if_section(
    profile: str | None,
    speedup: str | None,
    time: str | None,
    rate: str | None,
    rate_unit: str = "tokens/s",
    rate_flag: str = "--measured-tokens-per-s",
) -> tuple[tuple[str, Document], ...]:
    """``(("what_if", document),)`` when ``--profile`` is given, else ``()``.

    Raises:
        ProblemError: ``--speedup`` without ``--profile`` or the reverse, and the what-if's
            own refusals (:func:`derive.analysis.what_if.what_if`).
    """
    from derive.errors import ProblemError

    if profile is None and speedup is None:
        return ()
    if profile is None or speedup is None:
        missing = "--profile" if profile is None else "--speedup"
        given = "--speedup" if profile is None else "--profile"
        raise ProblemError(given, f"a what-if needs both --profile and --speedup: give {missing}")
    w = what_if(profile, speedup, time, rate, rate_unit, rate_flag)
    return (("what_if", what_if_document(w)),)
