"""Why a claim is wrong, one sentence per finding.

With a regime given, the claim is first set against the leading order (the
answer the user was after). Otherwise: a named constant factor, an inverted
ridge, a hardware mistake (another dtype's peak, the sparse peak, the wrong
bandwidth, rounded numbers), other dtype bindings, per-tensor byte terms, and
the candidate regime under which the claim is the leading order (first when
the claim is a single term such as ``2B``, the shape of a leading-order
answer). When none applies, a plain sentence says how the claim differs.
"""

from __future__ import annotations

import os

import sympy as sp

from derive.analysis.leading_order import leading_order
from derive.catalogue import table as q
from derive.checking.claims import dimension_of
from derive.checking.context import Context
from derive.checking.diagnosis_text import approx, compact, formula_text, plural
from derive.checking.expected_text import said_number, said_time
from derive.checking.matching import (
    as_percent,
    cheap,
    constant_ratio,
    equal,
    match,
    relative_error,
)
from derive.checking.quantities import (
    NETWORK,
    STEP_KINDS,
    Kind,
    Target,
    basis_of,
    describe,
    expected,
    hardware_of,
    kind_of,
    leading,
    roof_of,
)
from derive.checking.regimes import candidate_regimes
from derive.checking.rounding import sig_fig_sentence
from derive.checking.terms import moved, term_diagnoses
from derive.checking.variants import ROUNDED, dtype_variants, flop_variants, hardware_variants
from derive.errors import DeriveError
from derive.problem.regime import Regime

__all__ = ["diagnose", "exact_is", "formula_expected", "strict", "value_text"]

_POWERS = tuple(k for k in range(-15, 16) if k)
_NAMED = (sp.Integer(2), sp.Rational(1, 2), sp.Integer(8), sp.Rational(1, 8)) + tuple(
    sp.Integer(10) ** k for k in _POWERS
)


def _is_named(c: sp.Rational) -> bool:
    return c in _NAMED


def value_text(t: Target | None) -> str:
    """The expected value for prose, with the integer threshold of a crossover."""
    if t is None:
        return "none"
    if t.value is None:
        return t.note or "none"
    text = approx(t.value) if t.value.is_number else formula_text(t.value)
    return text + (
        f" (smallest compute-bound integer {t.threshold})" if t.threshold is not None else ""
    )


def exact_is(what: str, t: Target) -> str:
    """``the exact intensity is …``, or what happens instead when there is no value (a crossover that never happens)."""
    if t.value is None:
        return f"there is no exact {what}: {t.note}" if t.note else f"there is no exact {what}"
    return f"the exact {what} {'are' if plural(what) else 'is'} {value_text(t)}"


def _regime_sentence(
    ctx: Context, quantity: str, claim: sp.Expr, target: Target, primary: bool = True
) -> str | None:
    """Under which candidate regime the claim is the leading order; ``primary`` when that is the main finding."""
    if kind_of(quantity) == Kind.RIDGE or quantity == q.INTENSITY_REGIME.name:
        return None
    a, given = ctx.analysis, ctx.analysis.problem.regime
    what = describe(quantity)
    bound = set(ctx.bound)
    for regime in candidate_regimes(a.problem.operator.dims, skip=given):
        if bound & set(regime.growing):
            continue  # a bound dim is a number: it does not grow
        t = leading(a, quantity, regime)
        if (
            t is None
            or t.value is None
            or (target.value is not None and equal(t.value, target.value))
        ):
            continue
        if match(claim, t, ctx.rtol):
            drops = _dropped(ctx, quantity, regime)
            if not primary:
                return (
                    f"it would be the leading-order {what} if the regime {regime.text} were meant"
                )
            if given is None:
                return (
                    f"this is the leading-order {what} when {regime.text}{drops}; without that regime {exact_is(what, target)} "
                    f"(rerun with --regime '{regime.text}' to accept it as leading order)"
                )
            return f"this is the leading-order {what} when {regime.text}{drops}, not under the regime given ({given.text})"
    return None


def _dropped(ctx: Context, quantity: str, regime: Regime) -> str:
    """`` (which drops the read of X[B,D] (2BD bytes))`` for byte quantities, else empty."""
    if kind_of(quantity) not in (Kind.BYTES, Kind.INTENSITY, Kind.TRANSFER_TIME, Kind.CROSSOVER):
        return ""
    terms = basis_of(ctx.analysis, roof_of(quantity)).terms
    try:
        lo = leading_order(ctx.analysis.flops, tuple(t.bytes for t in terms), regime)
    except DeriveError:
        return ""
    gone = [moved(t) for t in terms if any(t.bytes == d for d in lo.dropped_den)]
    return f" (which drops {' and '.join(gone)})" if gone else ""


def _named_factor(ctx: Context, quantity: str, c: sp.Rational) -> str:
    """A sentence naming the likely cause of a constant factor ``c`` = claim / expected."""
    what, doc = describe(quantity), ctx.analysis.problem.operator.doc
    mac = "multiply-accumulate" in doc
    kind = kind_of(quantity)
    if c == 2 and kind == Kind.FLOPS and mac:
        return "your FLOPs are 2× the expected: 2 FLOPs per multiply-accumulate counted twice (a multiply-accumulate is 2 FLOPs)"
    if c == sp.Rational(1, 2) and kind in (Kind.FLOPS, Kind.COMPUTE_TIME) and mac:
        return (
            f"MACs counted as one FLOP: your {what} {'are' if plural(what) else 'is'} half the expected "
            "(a multiply-accumulate is 2 FLOPs, one multiply and one add)"
        )
    flop_twice, flop_once = (
        ("FLOPs counted twice per multiply-accumulate", "MACs counted as one FLOP")
        if mac
        else ("FLOPs doubled", "FLOPs halved")
    )
    if c == 2 and kind == Kind.INTENSITY:
        return f"your {what} is 2× the expected: {flop_twice}, or bytes halved"
    if c == sp.Rational(1, 2) and kind == Kind.INTENSITY:
        return f"your {what} is half the expected: {flop_once}, or every byte counted twice"
    is_ = "are" if plural(what) else "is"
    if c in (8, sp.Rational(1, 8)):
        return (
            f"your {what} {is_} off by a factor of {c}: bits and bytes confused (8 bits per byte)"
        )
    k = next((k for k in _POWERS if c == sp.Integer(10) ** k), None)
    if k is not None:
        return f"your {what} {is_} off by a factor of 10^{k}: a power of ten slipped (check exponents and units)"
    return f"your {what} {is_} {c}× the expected (off by a factor of {c})"


def _factor_sentence(ctx: Context, quantity: str, claim: sp.Expr, value: sp.Expr) -> str | None:
    """The factor sentence when claim / value is a constant (for numbers: close to a named factor)."""
    c = constant_ratio(claim, value)
    if c is not None and c != 1 and (value.free_symbols or _is_named(c)):
        return _named_factor(ctx, quantity, c)
    if claim.is_Rational and value.is_Rational and value != 0 and claim != 0:
        r = claim / value
        near = next((f for f in _NAMED if abs(r / f - 1) <= ctx.rtol), None)
        if near is not None:
            return _named_factor(ctx, quantity, near)
    return None


def _inverted(ctx: Context, quantity: str, claim: sp.Expr, target: Target) -> str | None:
    """A ridge claimed as bandwidth / peak."""
    if kind_of(quantity) != Kind.RIDGE or target.value is None:
        return None
    if match(claim, Target(1 / target.value), ctx.rtol):
        return f"this is β/π (bandwidth over peak), the inverse of the ridge point; the ridge point is π/β = {approx(target.value)} FLOPs per byte"
    return None


def _variant_sentences(
    ctx: Context, quantity: str, claim: sp.Expr, target: Target, regime: Regime | None = None
) -> list[str]:
    """The hardware and dtype variants the claim matches: up to two named ones, or one rounding, per family."""
    out: list[str] = []
    a = ctx.analysis
    basis = basis_of(a, roof_of(quantity), regime)
    for family in (
        flop_variants(a, quantity, basis),
        hardware_variants(a, quantity, basis),
        dtype_variants(a, quantity, ctx.spec, ctx.registry, regime),
    ):
        found: list[str] = []
        for stem, t in family:
            if (
                isinstance(t, Target)
                and t.value is not None
                and not equal(t.value, target.value)
                and match(claim, t, ctx.rtol)
            ):
                if ROUNDED in stem and found:
                    break  # a named mistake already explains it
                found.append(
                    f"{stem} — {'leading order' if regime else 'exact'} is {value_text(target)}"
                )
                if ROUNDED in stem or len(found) == 2:
                    break
        out += found
    return out


def _unless_said(factor: str | None, variants: list[str]) -> str | None:
    """The factor sentence, unless a variant already names MACs counted as one FLOP."""
    if factor and factor.startswith("MACs") and any(v.startswith("MACs") for v in variants):
        return None
    return factor


def _fallback(ctx: Context, quantity: str, claim: sp.Expr, target: Target) -> str:
    """A plain sentence when no finding explains the claim."""
    what, value = describe(quantity), target.value
    if value is None:
        return f"there is no single {what} to claim: {target.note}"
    if value.free_symbols and not claim.free_symbols:
        dims = ", ".join(sorted(s.name for s in value.free_symbols))
        return f"the {what} depends on {dims}; a number needs them bound with --set (the {what} is {compact(value)})"
    if claim.free_symbols and not value.free_symbols:
        dims = ", ".join(sorted(s.name for s in claim.free_symbols))
        return f"with the dims bound, the {what} is the number {approx(value)}; your claim still depends on {dims}"
    rel = relative_error(claim, value)
    if rel is not None:
        dimension = dimension_of(quantity)  # two positive times read in µs, ms, s, …
        timed = said_time(claim, dimension) is not None and said_time(value, dimension) is not None
        stated, yours = (
            (said_number(value, dimension), said_time(claim, dimension))
            if timed
            else (value_text(target), approx(claim))
        )
        return f"the exact {what} is {stated}; your {yours} is off by {as_percent(rel)} (tolerance {as_percent(ctx.rtol)})"
    return f"your claim is not equal to the exact {what} (shown above): their difference does not cancel"


def _is_monomial(expr: sp.Expr) -> bool:
    """True for a claim like ``2B`` or ``N/2``: the shape of a leading-order answer."""
    if not cheap(expr):  # a large sum, or roots: not a leading-order answer, and costly to cancel
        return False
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    return len(sp.Add.make_args(num)) == 1 and len(sp.Add.make_args(den)) == 1


def _leading_findings(
    ctx: Context, quantity: str, claim: sp.Expr, target: Target
) -> list[str | None]:
    """With a regime given, how the claim misses the leading order (the answer the user was after)."""
    a = ctx.analysis
    regime = a.problem.regime
    lead = target if quantity == q.INTENSITY_REGIME.name else leading(a, quantity, regime)
    if (
        regime is None
        or lead is None
        or lead.value is None
        or (quantity != q.INTENSITY_REGIME.name and equal(lead.value, target.value))
    ):
        return []
    prefix = f"at leading order under {regime.text}: "
    variants = _variant_sentences(ctx, quantity, claim, lead, regime)
    factor = _factor_sentence(ctx, quantity, claim, lead.value)
    if variants and factor and not factor.startswith(("your FLOPs", "MACs")):
        factor = None
    factor = _unless_said(factor, variants)
    out: list[str | None] = [prefix + s for s in ([factor] if factor else []) + variants]
    if kind_of(quantity) in (Kind.BYTES, Kind.INTENSITY, Kind.TRANSFER_TIME) and cheap(claim):
        basis = basis_of(a, roof_of(quantity), regime)
        out += [
            prefix + text
            for text, _ in term_diagnoses(
                kind_of(quantity), claim, basis, hardware_of(a), ctx.bound
            )
        ]
    return out


def _findings(
    ctx: Context, quantity: str, raw: sp.Expr, claim: sp.Expr, target: Target
) -> list[str | None]:
    a = ctx.analysis
    if quantity == q.INTENSITY_REGIME.name:
        return _leading_findings(ctx, quantity, claim, target)
    lead = _leading_findings(ctx, quantity, claim, target)
    if lead:
        return lead
    monomial = _is_monomial(claim)
    regime = _regime_sentence(ctx, quantity, claim, target, primary=monomial)
    inverted = _inverted(ctx, quantity, claim, target)
    variants = _variant_sentences(ctx, quantity, claim, target) if target.value is not None else []
    factor = None if target.value is None else _factor_sentence(ctx, quantity, claim, target.value)
    if inverted or (variants and factor and not factor.startswith(("your FLOPs", "MACs"))):
        factor = None  # a more specific finding names the cause of the factor
    factor = _unless_said(factor, variants)
    terms: list[tuple[str, bool]] = []
    if (
        kind_of(quantity) in (Kind.BYTES, Kind.INTENSITY, Kind.TRANSFER_TIME)
        and quantity != q.INTENSITY_REGIME.name
        and cheap(raw)  # term by term only for a claim cancel reads in milliseconds
    ):
        terms = term_diagnoses(
            kind_of(quantity), raw, basis_of(a, roof_of(quantity)), hardware_of(a), ctx.bound
        )
    if regime and monomial:
        # a leading-order answer: the regime explains it, and names the terms it drops
        return (
            [regime, factor, inverted]
            + variants
            + [text for text, left_out in terms if not left_out]
        )
    return [factor, inverted] + variants + [text for text, _ in terms] + [regime]


def _ridge_for_crossover(ctx: Context, quantity: str, claim: sp.Expr) -> str | None:
    """A crossover answered with the ridge point's value (π/β is an intensity, not a batch)."""
    if kind_of(quantity) != Kind.CROSSOVER or not claim.is_number:
        return None
    ridge = (q.NETWORK_RIDGE if roof_of(quantity) == NETWORK else q.RIDGE).name
    t = expected(ctx.analysis, ridge)
    if t.value is None or match(claim, t, ctx.rtol) is None or _ridge_is_leading(ctx, quantity, t):
        return None
    var = ctx.analysis.problem.solve_for
    return (
        f"this is the {describe(ridge)} π/β = {approx(t.value)} FLOPs/byte, not the "
        f"{describe(quantity)}: the {describe(quantity)} is the {var} at which the intensity "
        f"reaches the {describe(ridge)} (solve I({var}) = π/β for {var})"
    )


def _ridge_is_leading(ctx: Context, quantity: str, ridge: Target) -> bool:
    """True when the ridge is the crossover at leading order in some regime (I ≈ B: bf16 matmuls)."""
    a, bound = ctx.analysis, set(ctx.bound)
    regimes = [a.problem.regime] if a.problem.regime else []
    regimes += [r for r in candidate_regimes(a.problem.operator.dims) if not bound & set(r.growing)]
    for regime in regimes:
        t = leading(a, quantity, regime)
        if t is not None and t.value is not None and match(t.value, ridge, ctx.rtol):
            return True
    return False


def _first(ctx: Context, quantity: str, claim: sp.Expr, target: Target) -> list[str]:
    """Findings that come before every other: the ridge given for a crossover, a number right to 2 s.f."""
    found = [_ridge_for_crossover(ctx, quantity, claim)]
    if target.value is not None and claim.is_Rational and target.value.is_Rational:
        found.append(sig_fig_sentence(claim, target.value, ctx.rtol))
    return [s for s in found if s]


def diagnose(
    ctx: Context, quantity: str, raw: sp.Expr, claim: sp.Expr, target: Target
) -> list[str]:
    """Sentences explaining why ``claim`` (``raw`` before bound dims are substituted) is not ``target``.

    The ridge given for a crossover is said alone: it explains the number, and the other
    slips that happen to reproduce it (half the FLOPs, another peak) are coincidences.
    """
    ridge = _ridge_for_crossover(ctx, quantity, claim)
    if ridge:
        return [ridge]
    first = _first(ctx, quantity, claim, target)
    return first + [s for s in _diagnose(ctx, quantity, raw, claim, target) if s not in first]


def _diagnose(
    ctx: Context, quantity: str, raw: sp.Expr, claim: sp.Expr, target: Target
) -> list[str]:
    a = ctx.analysis
    if _only_formulas(ctx, quantity, target) and not claim.free_symbols:
        # no slip is guessed from a number; only a regime in which it is the answer is named
        in_regime = _regime_sentence(ctx, quantity, claim, target, primary=True)
        return [s for s in (in_regime, formula_expected(ctx, quantity, target.value)) if s]
    if kind_of(quantity) in STEP_KINDS:
        from derive.checking.step_slips import step_slips

        slips = step_slips(ctx, quantity, claim, target)
        factor = (
            None
            if slips or target.value is None
            else _factor_sentence(ctx, quantity, claim, target.value)
        )
        return slips or [factor or _fallback(ctx, quantity, claim, target)]
    out: list[str] = []
    regime = a.problem.regime
    if (
        quantity == q.INTENSITY_REGIME.name
        and regime is not None
        and equal(claim, sp.cancel(a.memory.intensity.subs(ctx.bound)))
    ):
        out.append(
            f"this is the exact intensity; at leading order under {regime.text} it is {value_text(target)}"
        )
    try:
        out += [s for s in _findings(ctx, quantity, raw, claim, target) if s]
    except DeriveError:
        if strict():
            raise
    return out or [_fallback(ctx, quantity, claim, target)]


def _only_formulas(ctx: Context, quantity: str, target: Target) -> bool:
    """True when the quantity is a formula here, at leading order under the regime given too."""
    if target.value is None or not target.value.free_symbols:
        return False
    regime = ctx.analysis.problem.regime
    if regime is None or quantity == q.INTENSITY_REGIME.name:
        return True
    try:
        lead = leading(ctx.analysis, quantity, regime)
    except DeriveError:
        return True
    return lead is None or lead.value is None or bool(lead.value.free_symbols)


def formula_expected(ctx: Context, quantity: str, value: sp.Expr) -> str:
    """A number given for a quantity that is a formula here: which dims it is a formula in.

    No slip is guessed from the number (it can be any formula's value); the dims the
    question binds are named, since with every dim bound the quantity would be a number.
    """
    dims = [d for d in ctx.analysis.problem.operator.dims if d in value.free_symbols]
    names = ", ".join(d.name for d in dims)
    bound = ", ".join(f"{d.name} = {v}" for d, v in ctx.bound.items())
    binds = f"the question gives {bound}" if bound else "the question gives no dim a value"
    is_ = "are" if plural(describe(quantity)) else "is"
    return (
        f"a number cannot be checked here: the {describe(quantity)} {is_} a formula in {names} "
        f"({binds}); type it in {names}"
    )


def strict() -> bool:
    """True when ``DERIVE_CHECK_STRICT=1``: a finding that fails raises instead of being left out.

    The test suite sets it (tests/conftest.py), so a diagnosis that breaks is a failing
    test, not a silently shorter diagnosis. Exceptions that are not a DeriveError always
    propagate: they are bugs.
    """
    return os.environ.get("DERIVE_CHECK_STRICT") == "1"
