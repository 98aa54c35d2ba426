"""Names a derivation may start with (``I``, ``\\text{bytes}``, ``T_{math}``, ``B^*``) and the quantity each means."""

from __future__ import annotations

import re

from derive.catalogue import ProblemKind, spelling_map
from derive.catalogue import table as q
from derive.checking.context import Context
from derive.errors import ParseError
from derive.formula import parse_formula

NAMES: dict[str, str] = spelling_map(ProblemKind.OPERATOR)
"""Every spelling of a quantity an operator's check judges → its name (from the catalogue)."""

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
        found = q.CROSSOVER.name
    if found is None:
        return None
    try:
        parse_formula(text, ctx.symbols, "auto", "name")
    except ParseError:
        return found
    return None
