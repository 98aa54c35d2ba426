"""Printing a check: a few readable lines, or the JSON object (a contract: keys are kept).

Expressions are sympy ``str``; ``*_value`` fields are decimals for display.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue.reading import attributes
from derive.catalogue.reading import text_or_none as _s
from derive.checking.chain import ChainResult
from derive.checking.claims import Claim
from derive.checking.context import Context
from derive.checking.expected_text import show_expected
from derive.checking.judge import Judgement
from derive.checking.matching import as_percent, exactly, relative_error
from derive.checking.quantities import Target
from derive.formula.decimals import fmt_decimal
from derive.present.report import Entry, Report


def _decimal(expr: sp.Expr | None) -> str | None:
    return (
        fmt_decimal(expr) if expr is not None and expr.is_Rational and not expr.is_Integer else None
    )


def _target_json(t: Target | None, prefix: str, hidden: bool = False) -> dict:
    """``prefix`` (exact), ``prefix_value`` (a decimal for display) and ``prefix_threshold``; None when absent or hidden."""
    if hidden:
        t = None
    return {
        prefix: _s(t.value) if t else None,
        f"{prefix}_value": _decimal(t.value) if t else None,
        f"{prefix}_threshold": t.threshold if t else None,
    }


def unreadable_json(quantity: str | None, claim: str, reason: str, position: int | None) -> dict:
    """The JSON object for a claim (or derivation) that cannot be read."""
    return {
        "verdict": "unreadable",
        "quantity": quantity,
        "claim": claim,
        "reason": reason,
        "position": position,
        "diagnosis": [],
    }


def claim_json(
    ctx: Context,
    claim: Claim,
    j: Judgement,
    diagnosis: tuple[str, ...] | None = None,
    hidden: bool = False,
) -> dict:
    """The JSON object of ``derive check --claim`` (``hidden``: no expected values, ``diagnosis`` as kept)."""
    p = ctx.analysis.problem
    parsed = claim.parsed
    lead_rel = (
        relative_error(j.value, j.leading.value)
        if j.leading is not None and j.leading.value is not None
        else None
    )
    return {
        "verdict": j.verdict.value,
        "quantity": j.quantity,
        "claimed": str(j.claimed),
        "claimed_with_bound_dims": str(j.value) if j.value != j.claimed else None,
        "read_as": claim.read_as(),
        "unit": claim.unit.text if claim.unit else None,
        "syntax": parsed.syntax,
        "syntax_decided": parsed.decided,
        **_target_json(j.expected, "expected", hidden),
        "expected_text": None if hidden else show_expected(j.expected, j.quantity),
        "expected_note": None if hidden else j.expected.note or None,
        **_target_json(j.leading, "expected_leading_order", hidden),
        "expected_hidden": hidden,
        "relative_error": None
        if hidden or j.relative_error is None
        else as_percent(j.relative_error),
        "relative_error_exact": None if hidden else _s(j.relative_error),
        "relative_error_leading_order": None
        if hidden or lead_rel is None
        else as_percent(lead_rel),
        "rtol": str(ctx.rtol),
        "matched": j.match.how.value if j.match else None,
        "exact": exactly(j.verdict, j.relative_error, j.match.how if j.match else None),
        "diagnosis": list(j.diagnosis if diagnosis is None else diagnosis),
        "operator": p.operator.name,
        "regime": p.regime.text if p.regime else None,
        "set": {d.name: int(v) for d, v in p.bound},
    }


def _show(t: Target | None, quantity: str) -> str:
    return show_expected(t, quantity) or "none"


def syntax_note(claim: Claim) -> str:
    """How the claim's syntax was chosen; a value read as plain text after a LaTeX left side
    or relation (``B \\geq 121``) says so instead of claiming the text had no backslash."""
    decided = claim.parsed.decided
    latex_marks = any(c in claim.text for c in "\\{}")
    if decided.startswith("auto: read as plain text") and latex_marks:
        return "auto: the value after the left side read as plain text"
    return decided


def claim_report(
    ctx: Context,
    claim: Claim,
    j: Judgement,
    diagnosis: tuple[str, ...] | None = None,
    hidden: bool = False,
) -> Report:
    """The check of a claim as a report: verdict, reading, expected, error, diagnosis."""
    p = ctx.analysis.problem
    entries = [
        Entry("verdict", j.verdict.value),
        Entry("quantity", j.quantity),
        Entry("claim read as", f"{claim.read_as()}   ({syntax_note(claim)})"),
    ]
    if j.value != j.claimed:
        entries.append(Entry("with bound dims", str(j.value)))
    if not hidden:
        entries.append(Entry("expected", _show(j.expected, j.quantity)))
        if j.leading is not None and p.regime is not None:
            entries.append(
                Entry(f"leading order under {p.regime.text}", _show(j.leading, j.quantity))
            )
    if j.relative_error is not None and j.relative_error != 0 and not hidden:
        error = f"{as_percent(j.relative_error)} (tolerance {as_percent(ctx.rtol)})"
        entries.append(Entry("relative error", error))
    said = j.diagnosis if diagnosis is None else diagnosis
    return Report(tuple(entries), (("diagnosis", tuple(said)),) if said else ())


def chain_json(
    ctx: Context, r: ChainResult, diagnosis: tuple[str, ...] | None = None, hidden: bool = False
) -> dict:
    """The JSON object of ``derive check --chain``."""
    p = ctx.analysis.problem
    return {
        "verdict": r.verdict.value,
        "quantity": r.quantity,
        "quantities": list(r.quantities),
        "claimed": _s(r.first),
        "expected": _s(r.expected.value) if r.expected and not hidden else None,
        "expected_leading_order": _s(r.leading.value) if r.leading and not hidden else None,
        "expected_hidden": hidden,
        "diagnosis": list(r.diagnosis if diagnosis is None else diagnosis),
        "steps": [attributes(s, "line text relation ok why", None) for s in r.steps],
        "first_wrong_line": r.first_wrong_line,
        "wrong_lines": list(r.wrong_lines),
        "operator": p.operator.name,
        "regime": p.regime.text if p.regime else None,
        "set": {d.name: int(v) for d, v in p.bound},
    }


def chain_report(
    ctx: Context, r: ChainResult, diagnosis: tuple[str, ...] | None = None, hidden: bool = False
) -> Report:
    """The check of a derivation as a report: verdict, a line per step, the diagnosis."""
    entries = [Entry("verdict", r.verdict.value)]
    if r.quantity:
        shown = f" (expected {_show(r.expected, r.quantity)})" if r.expected and not hidden else ""
        entries.append(Entry("quantity", f"{r.quantity}{shown}"))
    for s in r.steps:
        mark = "ok " if s.ok else "WRONG"
        why = (s.why,) if not s.ok or s.why else ()
        entries.append(Entry(f"line {s.line}", f"{mark} {s.text}", why))
    if r.first_wrong_line is not None:
        entries.append(Entry("first wrong step", f"line {r.first_wrong_line}"))
    said = r.diagnosis if diagnosis is None else diagnosis
    return Report(tuple(entries), (("diagnosis", tuple(said)),) if said else ())
