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

import sympy as sp

from derive.analysis.leading_order import leading_order
from derive.catalogue.table import CROSSOVER
from derive.checking.claims import quantity_named, read_step, same_quantity
from derive.checking.context import Context
from derive.checking.diagnose import diagnose, exact_is, value_text
from derive.checking.diagnosis_text import compact, exact_decimal
from derive.checking.judge import CORRECT, INCORRECT, LEADING
from derive.checking.matching import (
    How,
    Match,
    as_percent,
    constant_ratio,
    equal,
    match,
    relative_error,
)
from derive.checking.quantities import Target, describe, expected, leading
from derive.checking.verdict import Verdict
from derive.errors import LimitError, ParseError, ProblemError, RegimeError
from derive.formula.answer import rewrite_notation
from derive.formula.reader import split_relations
from derive.formula.relations import APPROX, EQUALS
from derive.problem.input_files import read_text_file
from derive.problem.regime import Regime

# Reading a derivation's text: a file or a string, LaTeX environments and line breaks taken apart.
#
# ``align``/``align*``/``aligned`` (and ``equation``, ``gather``, ``split``, ...) environments,
# ``&`` alignment, ``\\\\`` line breaks (with an optional ``[4pt]``), ``\\label``/``\\tag``/
# ``\\nonumber``, surrounding ``$``/``$$``/``\\[ \\]``, blank lines and ``%``/``#`` comments
# are dropped; each step keeps the number of the line it is on. Notation is rewritten
# as for claims (:func:`derive.formula.answer.rewrite_notation`).

MAX_CHAIN_LINES = 200
MAX_CHAIN_BYTES = 100_000


def read_chain_text(path: str) -> str:
    """The text of a derivation file.

    Raises:
        ProblemError: missing or not a regular file; LimitError: too big or too many lines;
        ParseError: not UTF-8 text, or no derivation in it.
    """
    return read_text_file(
        path,
        f"--chain {path!r}",
        MAX_CHAIN_BYTES,
        hint="give a text file with one derivation step per line",
    )


_ENVIRONMENT = re.compile(
    r"\\(?:begin|end)\{(?:align|aligned|alignat|equation|gather|gathered|split|eqnarray|multline)\*?\}"
)
_LABELS = re.compile(r"\\(?:nonumber|notag)(?![A-Za-z])|\\(?:label|tag)\{[^{}]*\}")
_BREAK_SPACE = re.compile(r"^\[[^\]]*\]")


def split_lines(text: str, what: str = "derivation") -> list[tuple[int, str]]:
    """The numbered, cleaned steps of a derivation text: ``align`` environments, ``&`` and labels
    dropped, ``\\\\`` splitting a line in two (both keep the line's number).

    Raises:
        LimitError: too big or too many lines; ParseError: NUL bytes, or no derivation in it.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_CHAIN_BYTES:
        raise LimitError(what, f"larger than {MAX_CHAIN_BYTES // 1000} KB")
    if "\x00" in text:
        raise ParseError(what, "not a text file (contains NUL bytes)")
    raw = text.lstrip("\ufeff").split("\n")
    if len(raw) > MAX_CHAIN_LINES + 1 or (len(raw) == MAX_CHAIN_LINES + 1 and raw[-1].strip()):
        raise LimitError(what, f"more than {MAX_CHAIN_LINES} lines")
    lines: list[tuple[int, str]] = []
    for n, line in enumerate(raw, 1):
        if line.strip().startswith(("%", "#")):
            continue
        line = _LABELS.sub(" ", _ENVIRONMENT.sub(" ", line))
        for piece in line.split("\\\\"):
            s = _clean(_BREAK_SPACE.sub("", piece.strip()))
            if s and not s.startswith(("%", "#")):
                lines.append((n, s))
    if not lines:
        raise ParseError(
            what, "no derivation in the file (write e.g. I = \\frac{2BDF}{2BD+DF+2BF})"
        )
    return lines


def _clean(line: str) -> str:
    s = line.rstrip("\r").strip().replace("&", " ")
    s = s.strip()
    for a, b in (("$$", "$$"), ("$", "$"), ("\\[", "\\]")):
        if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
            s = s[len(a) : -len(b)].strip()
    s = s.rstrip(",;").strip()
    return rewrite_notation(s) if s else s


_LEAD_REL = re.compile(r"^(=|\\approx(?![A-Za-z])|\\simeq(?![A-Za-z])|\\sim(?![A-Za-z])|\u2248|~)")


@dataclass(frozen=True)
class StepResult:
    """One checked step: its line, its text, ``start``/``=``/``approx``, whether it holds and why."""

    line: int
    text: str
    relation: str
    ok: bool
    why: str


@dataclass(frozen=True)
class ChainResult:
    """The verdict on a derivation, every step, and the first wrong line."""

    verdict: Verdict
    quantity: str | None
    first: sp.Expr | None
    expected: Target | None
    leading: Target | None
    steps: tuple[StepResult, ...]
    first_wrong_line: int | None
    diagnosis: tuple[str, ...]
    wrong_lines: tuple[int, ...] = ()
    quantities: tuple[str, ...] = ()


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


def _rounding(ctx: Context, left: sp.Expr, right: sp.Expr) -> str | None:
    """``\\frac{4925}{41} \\approx 120.12``: two numbers within the tolerance (why it holds), else None."""
    b = ctx.bound
    lv, rv = (left.subs(b), right.subs(b)) if b else (left, right)
    rel = relative_error(rv, lv)
    if rel is None or rel > ctx.rtol:
        return None
    return (
        f"rounded: within the {as_percent(ctx.rtol)} tolerance (relative error {as_percent(rel)})"
    )


def _approx_step(ctx: Context, left: sp.Expr, right: sp.Expr) -> tuple[bool, str, bool]:
    """An ``\\approx`` step: (holds, why, a leading-order step rather than a rounding)."""
    rounded = _rounding(ctx, left, right)
    if rounded is not None:
        return True, rounded, False
    b = ctx.bound
    if equal(left, right) or (b and equal(left.subs(b), right.subs(b))):
        return True, "the two sides are equal (= would do)", False
    regime = ctx.analysis.problem.regime
    if regime is None:
        return (
            False,
            "'\\approx' needs a regime: give --regime (e.g. 'B << D, F') to say which dims are large"
            " (a rounded number must be within the tolerance)",
            False,
        )
    try:
        lead_left, lead_right = _leading_form(left, regime), _leading_form(right, regime)
    except RegimeError as e:
        return False, e.why, False
    if not equal(lead_left, lead_right):
        return (
            False,
            (
                f"not a leading-order step under {regime.text}: the left side is ≈ {compact(lead_left)}, "
                f"the right side ≈ {compact(lead_right)}"
            ),
            False,
        )
    if equal(right, lead_left):
        return True, f"the leading-order form of the left side under {regime.text}", True
    return (
        True,
        f"same leading order as the left side under {regime.text} (both ≈ {compact(lead_left)})",
        True,
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
    m = match(claim, target, ctx.rtol) or (
        match(first, Target(target.symbolic), ctx.rtol) if target.symbolic is not None else None
    )
    if m is not None and (rel == EQUALS or m.how is not How.EXACT):
        return True, "" if m.how is How.EXACT else _how(m, ctx), lead, False

    def wrong() -> tuple[bool, str, Target | None, bool]:
        why = "; ".join(diagnose(ctx, quantity, first, claim, target))
        return False, f"this is not the {what}: {why}", lead, False

    if rel == EQUALS:
        if at_lead and regime is not None:
            return (
                True,
                f"the leading-order {what} under {regime.text} ({exact_is(what, target)})",
                lead,
                True,
            )
        return wrong()
    if m is not None:
        return True, "the two sides are equal (= would do)", lead, False
    if regime is None:
        return wrong()
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
    if m.how is How.THRESHOLD:
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
    name = _named_in_line(ctx, segs[0], rels) if lead_rel is None else None
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


def _named_in_line(ctx: Context, first_segment: str, rels: list) -> str | None:
    """The quantity a line's first side names; the bare dim a crossover is solved for names the crossover."""
    name = quantity_named(first_segment, ctx)
    if name is None and rels and first_segment.strip() == ctx.analysis.problem.solve_for.name:
        return CROSSOVER.name
    return name


@dataclass
class _Walk:
    """The state of a walk through a derivation (local to one call)."""

    steps: list[StepResult]
    named: list[str]
    prev: sp.Expr | None = None
    prev_text: str = ""
    first: sp.Expr | None = None
    lead: Target | None = None
    used_leading: bool = False


def check_chain(
    ctx: Context, lines: list[tuple[int, str]], syntax: str, quantity: str | None
) -> ChainResult:
    """Check every step of a derivation (lines from :func:`split_lines`).

    A line whose left side names a quantity (``\\text{bytes} = …``, ``B^* = …``) starts that
    quantity: its first expression is set against the quantity's exact value, and the
    steps after it continue from there. A derivation may so move from FLOPs to bytes to
    the intensity to the crossover.
    """
    w = _Walk([], [])
    for n, line in lines:
        name, name_text, segs, rels = _split_line(ctx, n, line, syntax, w.prev is None)
        exprs = [read_step(ctx, s, syntax, f"line {n}") for s in segs]
        if name is not None:
            if quantity is not None and not w.named and not same_quantity(name, quantity):
                raise ProblemError(
                    "--chain with --quantity",
                    f"the derivation names the {describe(name)} but --quantity is {quantity}",
                )
            w.named.append(quantity if quantity is not None and not w.named else name)
            ok, why, lead, lead_used = _start_step(ctx, w.named[-1], rels[0], exprs[0])
            w.lead = w.lead or lead
            w.used_leading |= lead_used
            sign = "=" if rels[0] == EQUALS else "\\approx"
            w.steps.append(StepResult(n, f"{name_text} {sign} {segs[0]}", "start", ok, why))
            w.prev, w.prev_text = exprs[0], segs[0]
            w.first = exprs[0] if w.first is None else w.first
            exprs, segs, rels = exprs[1:], segs[1:], rels[1:]
        elif w.prev is None:
            w.prev, w.prev_text, w.first = exprs[0], segs[0], exprs[0]
            if quantity is not None:
                w.named.append(quantity)
                ok, why, w.lead, lead_used = _start_step(ctx, quantity, EQUALS, w.prev)
                w.used_leading |= lead_used
                w.steps.append(StepResult(n, segs[0], "start", ok, why))
            exprs, segs, rels = exprs[1:], segs[1:], rels[1:]
        for expr, seg, rel in zip(exprs, segs, rels):
            if rel == EQUALS:
                ok, why = _equal_step(ctx, w.prev, expr)
            else:
                ok, why, lead_used = _approx_step(ctx, w.prev, expr)
                w.used_leading |= lead_used and ok
            sign = "=" if rel == EQUALS else "\\approx"
            w.steps.append(StepResult(n, f"{w.prev_text} {sign} {seg}", rel, ok, why))
            w.prev, w.prev_text = expr, seg
    return _result(ctx, w)


def _result(ctx: Context, w: _Walk) -> ChainResult:
    wrong = [s for s in w.steps if not s.ok]
    verdict = INCORRECT if wrong else (LEADING if w.used_leading else CORRECT)
    prev = w.prev if w.prev is not None else sp.Integer(0)
    end = exact_decimal(prev) if prev.is_Rational else compact(prev)
    diagnosis = (
        [f"line {s.line}: {s.why}" for s in wrong]
        if wrong
        else [f"every step holds; the derivation ends at {end}"]
    )
    if not w.named:
        diagnosis.append(
            "no quantity is named (start with I = ..., or give --quantity), so only the steps were checked"
        )
    named = w.named[0] if w.named else None
    return ChainResult(
        verdict,
        named,
        w.first,
        expected(ctx.analysis, named) if named else None,
        w.lead,
        tuple(w.steps),
        wrong[0].line if wrong else None,
        tuple(diagnosis),
        tuple(dict.fromkeys(s.line for s in wrong)),
        tuple(dict.fromkeys(w.named)),
    )
