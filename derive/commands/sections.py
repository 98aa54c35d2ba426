"""Sections a command adds after its document: a what-if (``--profile``/``--speedup``) and a
peak from the parts (``--peak-from``), on ``derive solve`` and ``derive model`` (issue 36).
Each section's JSON goes under its key (``what_if``, ``peak_from``)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from derive.errors import ProblemError

if TYPE_CHECKING:
    from derive.present.formats import Document

__all__ = ["resolve_peak_from", "with_sections"]


def resolve_peak_from(args: argparse.Namespace) -> argparse.Namespace:
    """``--peak-from`` read into ``--peak`` (its exact product), so every command that takes
    a peak uses it; refused beside ``--peak`` or ``--chip``."""
    text = getattr(args, "peak_from", None)
    if text is None:
        return args
    from derive.problem.peak_parts import read_peak_parts

    for flag in ("peak", "chip"):
        if getattr(args, flag, None) is not None:
            raise ProblemError("--peak-from", f"give --peak-from or --{flag}, not both")
    return argparse.Namespace(**{**vars(args), "peak": read_peak_parts(text).peak_text})


def with_sections(
    document: Document, args: argparse.Namespace, rate_unit: str, rate_flag: str
) -> Document:
    """``document`` with the peak's and the what-if's sections last (when asked for).

    The what-if's measurement is ``--measured-time`` or the rate of ``rate_flag``.
    """
    from derive.pipeline.peak import peak_section

    sections = peak_section(getattr(args, "peak_from", None))
    profile, speedup = getattr(args, "profile", None), getattr(args, "speedup", None)
    if profile is not None or speedup is not None:
        from derive.pipeline.what_if import what_if_section

        rate = getattr(args, rate_flag[2:].replace("-", "_"), None)
        time = getattr(args, "measured_time", None)
        sections += what_if_section(profile, speedup, time, rate, rate_unit, rate_flag)
    if not sections:
        return document
    return replace(document, sections=(*document.sections, *sections))
