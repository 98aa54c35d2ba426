"""Sections a command adds after its document: a what-if (``--profile``/``--speedup``) and a
peak from the parts (``--peak-from``), on ``derive solve`` and ``derive model`` (issue 36).
Each section's JSON goes under its key (``what_if``, ``peak_from``)."""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from derive.errors import ProblemError

if TYPE_CHECKING:
    from derive.present.formats import Document


def resolve_peak_from(args: argparse.Namespace) -> argparse.Namespace:
    """``--peak-from`` read into ``--peak`` (its exact product), so every command that takes
    a peak uses it; refused beside ``--peak`` or ``--chip``."""
    text = getattr(args, "peak_from", None)
    if text is None:
        return args
    from derive.problem.peak_parts import read_peak_parts

    from_chip = text.strip().lower() == "chip"  # the chip's own rows (units, clock)
    for flag in ("peak",) if from_chip else ("peak", "chip"):
        if getattr(args, flag, None) is not None:
            raise ProblemError("--peak-from", f"give --peak-from or --{flag}, not both")
    if from_chip:
        return _chip_parts(args)
    if "clock" in (getattr(args, "unknown", None) or ()):
        return _clock_unknown(args, text)
    return argparse.Namespace(**{**vars(args), "peak": read_peak_parts(text).peak_text})


def _chip_parts(args: argparse.Namespace) -> argparse.Namespace:
    """``--peak-from chip --chip NAME``: the parts from the chip's rows (units, bf16 FLOPs per
    unit per clock, clock, each with its source in chips.toml), their product the peak."""
    from derive.problem.chips import get_chip
    from derive.problem.peak_parts import read_peak_parts

    name = getattr(args, "chip", None)
    if name is None:
        raise ProblemError("--peak-from chip", "takes the parts of --chip NAME: give --chip")
    chip = get_chip(name)
    text = chip.peak_parts_text()
    if text is None:
        raise ProblemError(
            "--peak-from chip",
            f"chip {chip.name} has no units/bf16_flops_per_clock/clock_hz rows in chips.toml: "
            "give the parts, e.g. units=132,flops_per_clock=4096,clock=1.83e9",
        )
    peak = read_peak_parts(text).peak_text
    # the chip's other figures as typed numbers, so the peak from the parts replaces its peak
    figures = {"peak_from": text, "peak": peak, "chip": None, "bandwidth": chip.hbm.text}
    if hasattr(args, "capacity") and args.capacity is None and chip.capacity is not None:
        figures["capacity"] = chip.capacity.text
    if hasattr(args, "link_bandwidth") and args.link_bandwidth is None and chip.link is not None:
        figures["link_bandwidth"] = chip.link.text
    return argparse.Namespace(**{**vars(args), **figures})


def _clock_unknown(args: argparse.Namespace, text: str) -> argparse.Namespace:
    """``--peak-from "units=…,flops_per_clock=…" --equation 'peak = …' --unknown clock``: the
    clock solved from a target peak, as a problem of givens and an equation (``units`` and
    ``flops_per_clock`` given, ``peak`` in the equations read as units · flops_per_clock ·
    clock), which the questions layer solves exactly."""
    from derive.formula.decimals import fmt_ending_decimal
    from derive.problem.peak_parts import read_parts

    parts = read_parts(text)
    if "clock" in parts:
        raise ProblemError("--unknown clock", "--peak-from gives clock=… too: drop one")
    missing = [name for name in ("units", "flops_per_clock") if name not in parts]
    if missing:
        raise ProblemError(f"--peak-from {text!r}", f"give {', '.join(missing)} too")
    if (
        getattr(args, "operator", None)
        or getattr(args, "flops", None)
        or getattr(args, "bytes", None)
    ):
        raise ProblemError(
            "--unknown clock", "solves a peak from its parts alone: drop the operator"
        )
    equations = list(getattr(args, "equation", None) or ())
    if not any(re.search(r"\bpeak\b", eq) for eq in equations):
        raise ProblemError(
            "--unknown clock", "give the target peak, e.g. --equation 'peak = 989.4e12 FLOP/s'"
        )

    def shown(value: object) -> str:
        return fmt_ending_decimal(value) or str(value)

    given = [
        *(getattr(args, "given", None) or ()),
        f"units={shown(parts['units'])}",
        f"flops_per_clock={shown(parts['flops_per_clock'])} FLOP",
    ]
    # the peak a defined quantity of the parts, which the equation names (solved through it)
    define = [*(getattr(args, "define", None) or ()), "peak=units * flops_per_clock * clock"]
    return argparse.Namespace(**{**vars(args), "peak_from": None, "given": given, "define": define})


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
