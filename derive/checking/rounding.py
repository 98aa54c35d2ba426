"""A number right to 2 significant figures, but outside the tolerance: say so.

``300`` for a ridge point of 295.22 is the answer rounded to 2 significant figures; with
the default tolerance of 1 % it is still wrong (1.6 % off), but the student's slip is the
rounding, not the method. The verdict stays as the tolerance says; the sentence names it
without stating the answer (it is kept under ``--hide-expected``).

>>> import sympy as sp
>>> sig_fig_sentence(sp.Integer(300), sp.Rational(19780, 67), sp.Rational(1, 100))
'right to 2 s.f., but outside the 1% tolerance: give more significant figures'
>>> sig_fig_sentence(sp.Integer(290), sp.Rational(19780, 67), sp.Rational(1, 100)) is None
True
"""

from __future__ import annotations

import sympy as sp

SIG_FIGS = 2
"""The significant figures named (3 always lie within 1 %: only 2 can fall outside it)."""


def _rounded(value: sp.Rational, digits: int) -> sp.Rational:
    """|value| rounded half-up to ``digits`` significant figures, with the sign of ``value``."""
    from derive.checking.variants import round_sig

    r, _, _ = round_sig(abs(value), digits)
    return r if value > 0 else -r


def right_to_sig_figs(claim: sp.Rational, exact: sp.Rational, digits: int = SIG_FIGS) -> bool:
    """True when ``claim`` is ``exact`` rounded to ``digits`` significant figures (and not exact)."""
    if claim == 0 or exact == 0 or claim == exact:
        return False
    return bool(_rounded(exact, digits) == claim)


def sig_fig_sentence(claim: sp.Expr, exact: sp.Expr, rtol: sp.Rational) -> str | None:
    """The sentence for a claim right to 2 s.f. but off by more than ``rtol``; else None."""
    if not (claim.is_Rational and exact.is_Rational) or exact == 0:
        return None
    if abs(claim - exact) <= rtol * abs(exact) or not right_to_sig_figs(claim, exact):
        return None
    from derive.checking.matching import as_percent

    return (
        f"right to {SIG_FIGS} s.f., but outside the {as_percent(rtol)} tolerance: "
        "give more significant figures"
    )


def rounded_as_written(
    raw: sp.Basic, value: sp.Expr, exact: sp.Expr, rtol: sp.Rational
) -> str | None:
    """:func:`sig_fig_sentence` judged on the number as written (``raw``, in its unit and
    before a percent, read as ``value``)."""
    if not isinstance(raw, sp.Expr) or not raw.is_Rational or raw == 0 or not value.is_Rational:
        return None
    return sig_fig_sentence(raw, exact * raw / value, rtol) if value != 0 else None
