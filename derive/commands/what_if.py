"""``--profile``/``--speedup`` on ``derive solve`` and ``derive model``: the what-if section
added after the command's document (its JSON under ``what_if``)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from derive.present.formats import Document

__all__ = ["with_what_if"]


def with_what_if(
    document: Document, args: argparse.Namespace, rate_unit: str, rate_flag: str
) -> Document:
    """``document`` with the what-if's section last (itself without ``--profile``/``--speedup``).

    The measurement is ``--measured-time`` or the rate of ``rate_flag``.
    """
    profile, speedup = getattr(args, "profile", None), getattr(args, "speedup", None)
    if profile is None and speedup is None:
        return document
    from derive.pipeline.what_if import what_if_section

    rate = getattr(args, rate_flag[2:].replace("-", "_"), None)
    time = getattr(args, "measured_time", None)
    section = what_if_section(profile, speedup, time, rate, rate_unit, rate_flag)
    return replace(document, sections=(*document.sections, *section))
