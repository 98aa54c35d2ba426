"""Names a derivation may start with (``I``, ``\\text{bytes}``, ``T_{math}``, ``B^*``) and the quantity each means."""

from __future__ import annotations

import re

from derive.checking.context import Context
from derive.errors import ParseError
from derive.formula import parse_formula

__all__ = ["NAMES", "normalise_name", "quantity_named"]

NAMES: dict[str, str] = {}
for _quantity, _spellings in {
    "intensity": (
        "i",
        "intensity",
        "ai",
        "arithmeticintensity",
        "arithmetic_intensity",
        "i_mem",
        "i_memory",
        "flops/bytes",
        "fracflopsbytes",
    ),
    "intensity_regime": ("intensity_regime", "i_regime", "i_leading", "i_lead"),
    "flops": ("flops", "flop", "#flops", "n_flops", "flopcount"),
    "bytes": (
        "bytes",
        "byte",
        "bytesmoved",
        "bytes_moved",
        "bytes_mem",
        "bytes_memory",
        "memorybytes",
    ),
    "ridge": (
        "ridge",
        "ridgepoint",
        "ridge_point",
        "i_ridge",
        "pi/beta",
        "fracpibeta",
        "i_*",
        "i^*",
    ),
    "crossover": ("crossover",),
    "t_math": ("t_math", "tmath", "t_compute", "t_comp", "t_flops", "flops/pi", "fracflopspi"),
    "t_mem": ("t_mem", "tmem", "t_memory", "bytes/beta", "fracbytesbeta"),
    "t_comms": ("t_comms", "t_comm", "tcomms", "t_network", "t_net", "t_ici"),
    "network_bytes": ("network_bytes", "bytes_network", "bytes_comms", "bytes_net"),
    "network_intensity": ("network_intensity", "i_network", "i_net", "i_comms", "i_comm"),
    "network_ridge": ("network_ridge", "ridge_network"),
    "network_crossover": ("network_crossover", "crossover_network"),
    "t_lower": ("t_lower", "t_low", "t_lowerbound", "t_min", "t_step", "t_lower,serial"),
    "t_lower_overlapped": ("t_lower_overlapped", "t_lower,overlapped", "t_overlapped"),
    "t_upper": ("t_upper", "t_up", "t_upperbound", "t_max"),
    "mfu": ("mfu", "eta_mfu"),
    "mbu": ("mbu", "eta_mbu"),
}.items():
    for _s in _spellings:
        NAMES[_s] = _quantity

_MACROS = re.compile(r"\\(?:text|mathrm|mathit|mathsf|mathbf|textrm|textit|operatorname)\s*")


def normalise_name(text: str) -> str:
    """``T_{\\text{math}}`` -> ``t_math``; ``\\text{FLOPs}`` -> ``flops``; ``\\pi/\\beta`` -> ``pi/beta``."""
    s = _MACROS.sub("", text)
    return re.sub(r"[{}\\$\s]", "", s).lower()


def quantity_named(text: str, ctx: Context) -> str | None:
    """The quantity a leading name stands for, or None when ``text`` is not such a name.

    A text that reads as a formula over the operator's dims is a formula, not a name.
    """
    key = normalise_name(text)
    x = ctx.analysis.problem.solve_for.name.lower()
    found = NAMES.get(key)
    if found is None and key in (
        f"{x}^*",
        f"{x}_*",
        f"{x}_crit",
        f"{x}_cross",
        f"{x}_crossover",
        f"{x}^*_crit",
    ):
        found = "crossover"
    if found is None:
        return None
    try:
        parse_formula(text, ctx.symbols, "auto", "name")
    except ParseError:
        return found
    return None
