"""Printing a check: a few readable lines, or the JSON object (a contract: keys are kept).

Expressions are sympy ``str``; ``*_value`` fields are decimals for display.
"""

from __future__ import annotations

import sympy as sp

from derive.checking.chain import ChainResult
from derive.checking.context import Context
from derive.checking.judge import Judgement
from derive.checking.matching import as_percent, relative_error
from derive.checking.quantities import Target
from derive.formula import Parsed
from derive.problem.decimals import fmt_decimal

__all__ = ["chain_json", "chain_text", "claim_json", "claim_text"]


def _s(expr: sp.Expr | None) -> str | None:
    return None if expr is None else str(expr)


def _decimal(expr: sp.Expr | None) -> str | None:
    return (
        fmt_decimal(expr) if expr is not None and expr.is_Rational and not expr.is_Integer else None
    )


def _target_json(t: Target | None, prefix: str) -> dict:
    """``prefix`` (exact), ``prefix_value`` (a decimal for display) and ``prefix_threshold``; None when absent."""
    return {
        prefix: _s(t.value) if t else None,
        f"{prefix}_value": _decimal(t.value) if t else None,
        f"{prefix}_threshold": t.threshold if t else None,
    }


def claim_json(ctx: Context, parsed: Parsed, j: Judgement) -> dict:
    """The JSON object of ``derive check --claim``."""
    p = ctx.analysis.problem
    lead_rel = (
        relative_error(j.value, j.leading.value)
        if j.leading is not None and j.leading.value is not None
        else None
    )
    out = {
        "verdict": j.verdict,
        "quantity": j.quantity,
        "claimed": str(j.claimed),
        "claimed_with_bound_dims": str(j.value) if j.value != j.claimed else None,
        "syntax": parsed.syntax,
        "syntax_decided": parsed.decided,
        **_target_json(j.expected, "expected"),
        "expected_note": j.expected.note or None,
        **_target_json(j.leading, "expected_leading_order"),
        "relative_error": as_percent(j.relative_error) if j.relative_error is not None else None,
        "relative_error_exact": _s(j.relative_error),
        "relative_error_leading_order": as_percent(lead_rel) if lead_rel is not None else None,
        "rtol": str(ctx.rtol),
        "matched": j.match.how if j.match else None,
        "diagnosis": list(j.diagnosis),
        "operator": p.operator.name,
        "regime": p.regime.text if p.regime else None,
        "set": {d.name: int(v) for d, v in p.bound},
    }
    return out


def _show(t: Target | None) -> str:
    if t is None:
        return "none"
    if t.value is None:
        return t.note or "none"
    text = str(t.value)
    dec = _decimal(t.value)
    text += f" ≈ {dec}" if dec else ""
    return text + (
        f" (smallest compute-bound integer: {t.threshold})" if t.threshold is not None else ""
    )


def claim_text(ctx: Context, parsed: Parsed, j: Judgement) -> str:
    """A few readable lines: verdict, how the claim was read, what was expected, the diagnosis."""
    p = ctx.analysis.problem
    lines = [
        f"verdict: {j.verdict}",
        f"quantity: {j.quantity}",
        f"claim read as: {j.claimed}   ({parsed.decided})",
    ]
    if j.value != j.claimed:
        lines.append(f"with bound dims: {j.value}")
    lines.append(f"expected: {_show(j.expected)}")
    if j.leading is not None:
        lines.append(f"leading order under {p.regime.text}: {_show(j.leading)}")
    if j.relative_error is not None and j.relative_error != 0:
        lines.append(
            f"relative error: {as_percent(j.relative_error)} (tolerance {as_percent(ctx.rtol)})"
        )
    if j.diagnosis:
        lines.append("diagnosis:")
        lines += [f"  - {d}" for d in j.diagnosis]
    return "\n".join(lines) + "\n"


def chain_json(ctx: Context, r: ChainResult) -> dict:
    """The JSON object of ``derive check --chain``."""
    p = ctx.analysis.problem
    return {
        "verdict": r.verdict,
        "quantity": r.quantity,
        "claimed": _s(r.first),
        "expected": _s(r.expected.value) if r.expected else None,
        "expected_leading_order": _s(r.leading.value) if r.leading else None,
        "diagnosis": list(r.diagnosis),
        "steps": [
            {"line": s.line, "text": s.text, "relation": s.relation, "ok": s.ok, "why": s.why}
            for s in r.steps
        ],
        "first_wrong_line": r.first_wrong_line,
        "operator": p.operator.name,
        "regime": p.regime.text if p.regime else None,
        "set": {d.name: int(v) for d, v in p.bound},
    }


def chain_text(ctx: Context, r: ChainResult) -> str:
    """The chain's verdict, then one line per step (✓ or ✗), then the diagnosis."""
    lines = [f"verdict: {r.verdict}"]
    if r.quantity:
        lines.append(
            f"quantity: {r.quantity}" + (f" (expected {_show(r.expected)})" if r.expected else "")
        )
    for s in r.steps:
        mark = "ok " if s.ok else "WRONG"
        lines.append(f"line {s.line}: {mark} {s.text}")
        if not s.ok or s.why:
            lines.append(f"    {s.why}")
    if r.first_wrong_line is not None:
        lines.append(f"first wrong step: line {r.first_wrong_line}")
    if r.diagnosis:
        lines.append("diagnosis:")
        lines += [f"  - {d}" for d in r.diagnosis]
    return "\n".join(lines) + "\n"
