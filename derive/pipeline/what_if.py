"""The way in for a what-if on a measured step (``--profile``/``--speedup`` on ``solve`` and
``model``): :func:`what_if_section`, the section its command adds after its document."""

from __future__ import annotations

from derive.analysis.what_if import what_if
from derive.present.formats import Document
from derive.present.what_if_view import what_if_document

__all__ = ["what_if_section"]


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
