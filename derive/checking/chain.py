"""Checking a whole derivation: every ``=`` an identity, every ``\\approx`` a leading-order step.

A derivation file has one step per line, e.g.::

    I = \\frac{2BDF}{2BD+0.5DF+2BF} \\approx \\frac{2BDF}{0.5DF} = 4B

A line may also continue the previous one by starting with a relation
(``= 4B``, ``\\approx ...``); a line starting with an expression is joined to
the previous one by ``=``. LaTeX alignment (``&``, a trailing ``\\\\``) and
surrounding ``$`` are ignored; blank lines and lines starting with ``%`` or
``#`` are skipped. A leading name (``I``, ``\\text{bytes}``, ``T_{math}``)
names the quantity, and the first expression must then equal it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import sympy as sp

from derive.analysis.leading_order import leading_order
from derive.checking.context import Context
from derive.checking.diagnose import diagnose, exact_is, value_text
from derive.checking.judge import CORRECT, INCORRECT, LEADING, read_claim
from derive.checking.matching import Match, as_percent, constant_ratio, equal, match, relative_error
from derive.checking.names import quantity_named
from derive.checking.quantities import Target, describe, expected, leading
from derive.checking.words import compact, exact_decimal
from derive.errors import LimitError, ParseError, ProblemError, RegimeError
from derive.formula import split_relations
from derive.formula.relations import APPROX, EQUALS
from derive.problem.regime import Regime

__all__ = ["MAX_CHAIN_BYTES", "MAX_CHAIN_LINES", "ChainResult", "Step", "check_chain", "read_chain"]

MAX_CHAIN_LINES = 200
MAX_CHAIN_BYTES = 100_000
_LEAD_REL = re.compile(r"^(=|\\approx(?![A-Za-z])|\\simeq(?![A-Za-z])|\\sim(?![A-Za-z])|\u2248|~)")


@dataclass(frozen=True)
class Step:
    """One checked step: its line, its text, ``start``/``=``/``approx``, whether it holds and why."""

    line: int
    text: str
    relation: str
    ok: bool
    why: str


@dataclass(frozen=True)
class ChainResult:
    """The verdict on a derivation, every step, and the first wrong line."""

    verdict: str
    quantity: str | None
    first: sp.Expr | None
    expected: Target | None
    leading: Target | None
    steps: tuple[Step, ...]
    first_wrong_line: int | None
    diagnosis: tuple[str, ...]


def read_chain(path: str) -> list[tuple[int, str]]:
    """The numbered, cleaned lines of a derivation file.

    Raises:
        ProblemError: missing or not a regular file; LimitError: too big or too many lines;
        ParseError: not UTF-8 text, or no derivation in it.
    """
    what = f"--chain {path!r}"
    p = Path(path)
    if not p.is_file():
        raise ProblemError(
            what, "no such file (give a text file with one derivation step per line)"
        )
    with p.open("rb") as fh:
        data = fh.read(MAX_CHAIN_BYTES + 1)
    if len(data) > MAX_CHAIN_BYTES:
        raise LimitError(what, f"larger than {MAX_CHAIN_BYTES // 1000} KB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ParseError(what, f"not UTF-8 text (byte {e.start + 1})") from None
    if "\x00" in text:
        raise ParseError(what, "not a text file (contains NUL bytes)")
    raw = text.lstrip("\ufeff").split("\n")
    if len(raw) > MAX_CHAIN_LINES + 1 or (len(raw) == MAX_CHAIN_LINES + 1 and raw[-1].strip()):
        raise LimitError(what, f"more than {MAX_CHAIN_LINES} lines")
    lines = [(n, _clean(line)) for n, line in enumerate(raw, 1)]
    lines = [(n, s) for n, s in lines if s and not s.startswith(("%", "#"))]
    if not lines:
        raise ParseError(
            what, "no derivation in the file (write e.g. I = \\frac{2BDF}{2BD+DF+2BF})"
        )
    return lines


def _clean(line: str) -> str:
    s = line.rstrip("\r").strip().replace("&", " ")
    if s.endswith("\\\\"):
        s = s[:-2]
    s = s.strip()
    for a, b in (("$$", "$$"), ("$", "$"), ("\\[", "\\]")):
        if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
            s = s[len(a) : -len(b)].strip()
    return s


def _leading_form(expr: sp.Expr, regime: Regime) -> sp.Expr:
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    return leading_order(num, den, regime, "this step").ratio


def _equal_step(ctx: Context, left: sp.Expr, right: sp.Expr) -> tuple[bool, str]:
    b = ctx.bound
    if equal(left, right) or (b and equal(left.subs(b), right.subs(b))):
        return True, ""
    lv, rv = (left.subs(b), right.subs(b)) if b else (left, right)
    rel = relative_error(rv, lv)
    if rel is not None and rel <= ctx.rtol:
        return (
            True,
            f"equal within the {as_percent(ctx.rtol)} tolerance (relative error {as_percent(rel)})",
        )
    why = f"not an identity: {compact(left)} ≠ {compact(right)}"
    c = constant_ratio(right.subs(b), left.subs(b)) if b else constant_ratio(right, left)
    if c is not None:
        times = {sp.Integer(2): "twice", sp.Rational(1, 2): "half"}.get(c, f"{c}×")
        why += f" (the right side is {times} the left)"
    regime = ctx.analysis.problem.regime
    if regime is not None:
        try:
            if equal(_leading_form(left, regime), _leading_form(right, regime)):
                why += f"; the two agree only at leading order under {regime.text}: write \\approx"
        except RegimeError:
            pass
    return False, why


def _approx_step(ctx: Context, left: sp.Expr, right: sp.Expr) -> tuple[bool, str]:
    regime = ctx.analysis.problem.regime
    if regime is None:
        return (
            False,
            "'\\approx' needs a regime: give --regime (e.g. 'B << D, F') to say which dims are large",
        )
    try:
        lead_left, lead_right = _leading_form(left, regime), _leading_form(right, regime)
    except RegimeError as e:
        return False, e.why
    if not equal(lead_left, lead_right):
        return False, (
            f"not a leading-order step under {regime.text}: the left side is ≈ {compact(lead_left)}, "
            f"the right side ≈ {compact(lead_right)}"
        )
    if equal(right, lead_left):
        return True, f"the leading-order form of the left side under {regime.text}"
    return (
        True,
        f"same leading order as the left side under {regime.text} (both ≈ {compact(lead_left)})",
    )


def _start_step(
    ctx: Context, quantity: str, rel: str, first: sp.Expr
) -> tuple[bool, str, Target | None, bool]:
    """Whether the first expression is the named quantity: (ok, why, leading target, ok only at leading order)."""
    a = ctx.analysis
    regime = a.problem.regime
    target, lead = expected(a, quantity), leading(a, quantity, regime)
    what = describe(quantity)
    claim = first.subs(ctx.bound) if ctx.bound else first
    at_lead = (
        lead is not None and lead.value is not None and match(claim, lead, ctx.rtol) is not None
    )
    if rel == EQUALS:
        m = match(claim, target, ctx.rtol) or (
            match(first, Target(target.symbolic), ctx.rtol) if target.symbolic is not None else None
        )
        if m is not None:
            return True, "" if m.how == "exact" else _how(m, ctx), lead, False
        if at_lead:
            return (
                True,
                f"the leading-order {what} under {regime.text} ({exact_is(what, target)})",
                lead,
                True,
            )
        return (
            False,
            f"this is not the {what}: " + "; ".join(diagnose(ctx, quantity, first, claim, target)),
            lead,
            False,
        )
    if regime is None:
        return (
            False,
            "'\\approx' needs a regime: give --regime to say which dims are large",
            lead,
            False,
        )
    if at_lead:
        return True, f"the leading-order {what} under {regime.text}", lead, True
    return (
        False,
        f"this is not the leading-order {what} under {regime.text} ({value_text(lead)})",
        lead,
        False,
    )


def _how(m: Match, ctx: Context) -> str:
    """Why a start that is not exactly equal still counts (threshold or tolerance)."""
    if m.how == "threshold":
        return "the smallest compute-bound integer"
    return f"equal within the {as_percent(ctx.rtol)} tolerance (relative error {as_percent(m.relative_error)})"


def _split_line(
    ctx: Context, n: int, line: str, syntax: str, first_line: bool
) -> tuple[str | None, str, list[str], list]:
    """(quantity named, its text, segments, relation before each segment).

    The first relation links the first segment to the previous line's last
    expression (None on the first line, which has nothing before it).
    """
    m = _LEAD_REL.match(line)
    lead_rel = None
    if m:
        lead_rel = EQUALS if m.group(1) == "=" else APPROX
        line = line[m.end() :].strip()
        if not line:
            raise ParseError(f"line {n}", "a relation with nothing after it")
    segs, rels = split_relations(line, syntax, f"line {n}")
    name = quantity_named(segs[0], ctx) if lead_rel is None else None
    if name is not None:
        if not rels:
            raise ParseError(
                f"line {n}", f"names the {describe(name)} but gives no expression for it"
            )
        return name, segs[0], segs[1:], rels
    if first_line and lead_rel is not None:
        raise ParseError(
            f"line {n}",
            "the derivation starts with a relation; start with I = ... or an expression",
        )
    before = None if first_line else (lead_rel or EQUALS)
    return None, "", segs, [before] + rels


def check_chain(
    ctx: Context, lines: list[tuple[int, str]], syntax: str, quantity: str | None
) -> ChainResult:
    """Check every step of a derivation (lines from :func:`read_chain`)."""
    steps: list[Step] = []
    named = prev = prev_text = first = lead = None
    used_approx = False
    for n, line in lines:
        name, name_text, segs, rels = _split_line(ctx, n, line, syntax, prev is None)
        exprs = [read_claim(ctx.symbols, s, syntax, f"line {n}").expr for s in segs]
        if name is not None and named is not None and name != named:
            raise ParseError(
                f"line {n}",
                f"names the {describe(name)}, but the derivation is about the {describe(named)}",
            )
        if name is not None and prev is None:
            named = name
            if quantity is not None and quantity != name:
                raise ProblemError(
                    "--chain with --quantity",
                    f"the derivation names the {describe(name)} but --quantity is {quantity}",
                )
            ok, why, lead, lead_used = _start_step(ctx, name, rels[0], exprs[0])
            used_approx |= lead_used
            sign = "=" if rels[0] == EQUALS else "\\approx"
            steps.append(Step(n, f"{name_text} {sign} {segs[0]}", "start", ok, why))
            used_approx |= rels[0] == APPROX
            prev, prev_text, first = exprs[0], segs[0], exprs[0]
            exprs, segs, rels = exprs[1:], segs[1:], rels[1:]
        elif prev is None:
            prev, prev_text, first = exprs[0], segs[0], exprs[0]
            if quantity is not None:
                named = quantity
                ok, why, lead, lead_used = _start_step(ctx, quantity, EQUALS, prev)
                used_approx |= lead_used
                steps.append(Step(n, segs[0], "start", ok, why))
            exprs, segs, rels = exprs[1:], segs[1:], rels[1:]
        for expr, seg, rel in zip(exprs, segs, rels):
            ok, why = (_equal_step if rel == EQUALS else _approx_step)(ctx, prev, expr)
            used_approx |= rel == APPROX
            sign = "=" if rel == EQUALS else "\\approx"
            steps.append(Step(n, f"{prev_text} {sign} {seg}", rel, ok, why))
            prev, prev_text = expr, seg
    wrong = next((s for s in steps if not s.ok), None)
    verdict = INCORRECT if wrong else (LEADING if used_approx else CORRECT)
    end = exact_decimal(prev) if prev.is_Rational else compact(prev)
    diagnosis = (
        [f"line {wrong.line}: {wrong.why}"]
        if wrong
        else [f"every step holds; the derivation ends at {end}"]
    )
    if named is None:
        diagnosis.append(
            "no quantity is named (start with I = ..., or give --quantity), so only the steps were checked"
        )
    exp = expected(ctx.analysis, named) if named else None
    return ChainResult(
        verdict,
        named,
        first,
        exp,
        lead,
        tuple(steps),
        wrong.line if wrong else None,
        tuple(diagnosis),
    )
