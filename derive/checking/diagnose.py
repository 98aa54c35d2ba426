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
from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations

import sympy as sp

from derive.analysis.leading_order import leading_order
from derive.catalogue import table as q
from derive.checking.claims import dimension_of
from derive.checking.context import Context
from derive.checking.diagnosis_text import approx, compact, formula_text, plural
from derive.checking.expected_text import in_unit, missed
from derive.checking.hints import Rank, Slip, earned, facets, factor_slips
from derive.checking.matching import (
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
from derive.checking.rounding import sig_fig_sentence
from derive.checking.terms import moved, term_diagnoses
from derive.checking.variants import ROUNDED, dtype_variants, flop_variants, hardware_variants
from derive.errors import DeriveError, RegimeError
from derive.formula.units import describe_dimension
from derive.problem.regime import Regime, parse_regime

# Candidate regimes built from an operator's dims, to say under which one a claim is right.
#
# The leading order depends only on which dims grow, so one regime is tried per
# set of growing dims, written the way a person would: ``B << D, F`` (one dim
# fixed, the rest grow), ``B >> D, F`` (one dim grows), then larger splits, and
# ``B, D, F >> 1`` (everything grows).
MAX_CANDIDATE_DIMS = 7
"""Operators with more dims are tried with single-dim splits only."""


def _regime_text(growing: tuple[sp.Symbol, ...], fixed: tuple[sp.Symbol, ...]) -> str:
    grow = ", ".join(s.name for s in growing)
    if not fixed:
        return f"{grow} >> 1"
    keep = ", ".join(s.name for s in fixed)
    if len(fixed) <= len(growing):
        return f"{keep} << {grow}"
    return f"{grow} >> {keep}"


def _growing_sets(dims: tuple[sp.Symbol, ...]) -> list[tuple[sp.Symbol, ...]]:
    n = len(dims)
    out: list[tuple[sp.Symbol, ...]] = []
    out += [tuple(d for d in dims if d != x) for x in dims] if n > 1 else []  # X << rest
    out += [(x,) for x in dims]  # X >> rest
    if n <= MAX_CANDIDATE_DIMS:
        for size in range(2, n - 1):
            out += list(combinations(dims, size))
    out.append(tuple(dims))
    return list(dict.fromkeys(out))


def candidate_regimes(dims: tuple[sp.Symbol, ...], skip: Regime | None = None) -> list[Regime]:
    """Regimes to try, most natural first, one per set of growing dims (``skip``'s set left out).

    >>> B, D, F = sp.symbols("B D F", positive=True, integer=True)
    >>> [r.text for r in candidate_regimes((B, D, F))][:4]
    ['B << D, F', 'D << B, F', 'F << B, D', 'B >> D, F']
    """
    out = []
    for growing in _growing_sets(tuple(dims)):
        if skip is not None and set(growing) == set(skip.growing):
            continue
        fixed = tuple(d for d in dims if d not in growing)
        try:
            out.append(parse_regime(_regime_text(growing, fixed), tuple(dims)))
        except RegimeError:  # pragma: no cover - the texts are built to parse
            continue
    return out


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


def _regime_row(
    ctx: Context, quantity: str, claim: sp.Expr, target: Target, primary: bool = True
) -> Slip | None:
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
            if not primary:
                said = (
                    f"it would be the leading-order {what} if the regime {regime.text} were meant"
                )
                return Slip(t.value, said, Rank.VARIANT, threshold=t.threshold)
            drops = _dropped(ctx, quantity, regime)
            if given is None:
                said = (
                    f"this is the leading-order {what} when {regime.text}{drops}; without that regime {exact_is(what, target)} "
                    f"(rerun with --regime '{regime.text}' to accept it as leading order)"
                )
            else:
                said = f"this is the leading-order {what} when {regime.text}{drops}, not under the regime given ({given.text})"
            return Slip(t.value, said, Rank.NAMED, threshold=t.threshold)
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


def _factor_rows(ctx: Context, quantity: str, claim: sp.Expr, value: sp.Expr) -> list[Slip]:
    """The constant factors a claim can be off by, named where the operator names them (MACs).

    A formula off by any other constant (``3BDF``) gets a plain factor row of its own.
    """
    what, doc = describe(quantity), ctx.analysis.problem.operator.doc
    mac = "multiply-accumulate" in doc
    kind = kind_of(quantity)
    is_ = "are" if plural(what) else "is"
    rows: list[Slip] = []
    if mac and kind == Kind.FLOPS:
        rows.append(
            Slip(
                2 * value,
                "your FLOPs are 2× the expected: 2 FLOPs per multiply-accumulate counted twice "
                "(a multiply-accumulate is 2 FLOPs)",
                Rank.VARIANT,
            )
        )
    if mac and kind in (Kind.FLOPS, Kind.COMPUTE_TIME):
        rows.append(
            Slip(
                value / 2,
                f"MACs counted as one FLOP: your {what} {is_} half the expected "
                "(a multiply-accumulate is 2 FLOPs, one multiply and one add)",
                Rank.VARIANT,
            )
        )
    if kind == Kind.INTENSITY:
        twice, once = (
            ("FLOPs counted twice per multiply-accumulate", "MACs counted as one FLOP")
            if mac
            else ("FLOPs doubled", "FLOPs halved")
        )
        rows += [
            Slip(
                2 * value, f"your {what} is 2× the expected: {twice}, or bytes halved", Rank.GENERIC
            ),
            Slip(
                value / 2,
                f"your {what} is half the expected: {once}, or every byte counted twice",
                Rank.GENERIC,
            ),
        ]
    rows += factor_slips(what, value, plural(what))
    c = constant_ratio(claim, value) if value.free_symbols else None
    if c is not None and c != 1:
        said = f"your {what} {is_} {c}× the expected (off by a factor of {c})"
        rows.append(Slip(c * value, said, Rank.GENERIC))
    return rows


def _inverted(quantity: str, target: Target) -> Slip | None:
    """A ridge claimed as bandwidth / peak."""
    if kind_of(quantity) != Kind.RIDGE or target.value is None:
        return None
    return Slip(
        1 / target.value,
        "this is β/π (bandwidth over peak), the inverse of the ridge point; the ridge point is "
        f"π/β = {approx(target.value)} FLOPs per byte",
    )


def _variant_rows(
    ctx: Context,
    quantity: str,
    target: Target,
    regime: Regime | None = None,
    written: frozenset[sp.Symbol] = frozenset(),
) -> list[Slip]:
    """The quantity with one input changed: MACs counted once, another peak or bandwidth,
    other dtype bindings, hardware numbers rounded."""
    out: list[Slip] = []
    a = ctx.analysis
    basis = basis_of(a, roof_of(quantity), regime)
    for family in (  # ties go to the first: this problem's dtypes, its chip, then MACs
        dtype_variants(a, quantity, ctx.spec, ctx.registry, regime),
        hardware_variants(a, quantity, basis, written),
        flop_variants(a, quantity, basis),
    ):
        for stem, t in family:
            if isinstance(t, Target) and t.value is not None and not equal(t.value, target.value):
                said = f"{stem} — {'leading order' if regime else 'exact'} is {value_text(target)}"
                rank = Rank.ROUNDING if ROUNDED in stem else Rank.VARIANT
                out.append(Slip(t.value, said, rank, threshold=t.threshold))
    return out


def _term_rows(
    ctx: Context, quantity: str, claim: sp.Expr, regime: Regime | None, prefix: str = ""
) -> list[Slip]:
    """The tensors whose bytes the claim gets wrong, one row: the claim's own bytes read term by term."""
    kind = kind_of(quantity)
    if kind not in (Kind.BYTES, Kind.INTENSITY, Kind.TRANSFER_TIME) or not cheap(claim):
        return []
    a = ctx.analysis
    basis = basis_of(a, roof_of(quantity), regime)
    found = term_diagnoses(kind, claim, basis, hardware_of(a), ctx.bound)
    if not found:
        return []
    said = "; ".join(prefix + text for text, _ in found)
    value = claim.subs(ctx.bound) if ctx.bound else claim
    return [Slip(value, said, min(rank for _, rank in found))]


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
        unit = describe_dimension(dimension_of(quantity))[1]
        yours = in_unit(claim, unit) if unit == "s" else approx(claim)  # a time as read
        return missed(what, in_unit(value, unit), yours, rel, bool(claim < value))
    return f"your claim is not equal to the exact {what} (shown above): their difference does not cancel"


def _is_monomial(expr: sp.Expr) -> bool:
    """True for a claim like ``2B`` or ``N/2``: the shape of a leading-order answer."""
    if not cheap(expr):  # a large sum, or roots: not a leading-order answer, and costly to cancel
        return False
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    return len(sp.Add.make_args(num)) == 1 and len(sp.Add.make_args(den)) == 1


def _leading_rows(
    ctx: Context, quantity: str, claim: sp.Expr, target: Target, written: frozenset[sp.Symbol]
) -> list[Slip]:
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
    rows = _variant_rows(ctx, quantity, lead, regime, written)
    rows += _factor_rows(ctx, quantity, claim, lead.value)
    rows = [replace(r, why=prefix + r.why) for r in rows]
    return _term_rows(ctx, quantity, claim, regime, prefix) + rows


def _finding_rows(
    ctx: Context,
    quantity: str,
    raw: sp.Expr,
    claim: sp.Expr,
    target: Target,
    written: frozenset[sp.Symbol],
) -> list[Slip]:
    """Every candidate finding, in the order ties are broken (a regime first for a leading-order answer)."""
    lead = _leading_rows(ctx, quantity, claim, target, written)
    if quantity == q.INTENSITY_REGIME.name or earned(lead, claim, ctx.rtol, facets(quantity)):
        return lead  # the leading order was the answer asked for: how the claim misses it
    monomial = _is_monomial(claim)
    regime = _regime_row(ctx, quantity, claim, target, primary=monomial)
    rows = [r for r in (_inverted(quantity, target),) if r is not None]
    if cheap(raw):  # term by term only for a claim cancel reads in milliseconds
        rows += _term_rows(ctx, quantity, raw, None)
    if target.value is not None:
        rows += _variant_rows(ctx, quantity, target, None, written)
        rows += _factor_rows(ctx, quantity, claim, target.value)
    if regime is None:
        return rows
    return [regime, *rows] if monomial else [*rows, regime]


def _ridge_for_crossover(ctx: Context, quantity: str, claim: sp.Expr) -> Slip | None:
    """A crossover answered with the ridge point's value (π/β is an intensity, not a batch)."""
    if kind_of(quantity) != Kind.CROSSOVER or not claim.is_number:
        return None
    ridge = (q.NETWORK_RIDGE if roof_of(quantity) == NETWORK else q.RIDGE).name
    t = expected(ctx.analysis, ridge)
    if t.value is None or match(claim, t, ctx.rtol) is None or _ridge_is_leading(ctx, quantity, t):
        return None
    var = ctx.analysis.problem.solve_for
    return Slip(
        t.value,
        f"this is the {describe(ridge)} π/β = {approx(t.value)} FLOPs/byte, not the "
        f"{describe(quantity)}: the {describe(quantity)} is the {var} at which the intensity "
        f"reaches the {describe(ridge)} (solve I({var}) = π/β for {var})",
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


def diagnose(
    ctx: Context,
    quantity: str,
    raw: sp.Expr,
    claim: sp.Expr,
    target: Target,
    extra: Sequence[Slip] = (),
    written: frozenset[sp.Symbol] = frozenset(),
) -> list[str]:
    """Sentences explaining why ``claim`` (``raw`` before bound dims are substituted) is not ``target``.

    One finding at most is named (:func:`derive.checking.hints.earned`): of the slips that
    fit the quantity and reproduce the claim, the most specific; the others that happen to
    reproduce the number (half the FLOPs and another peak, for the ridge typed as a
    crossover) are coincidences. ``extra``: the unit slips of the claim as written;
    ``written``: the givens it wrote by their symbols (π: no other peak explains it). A number
    right to 2 s.f. is the answer rounded: it is said instead of any slip.
    """
    if target.value is not None and claim.is_Rational and target.value.is_Rational:
        rounded = sig_fig_sentence(claim, target.value, ctx.rtol)
        if rounded:
            return [rounded, _fallback(ctx, quantity, claim, target)]
    a = ctx.analysis
    if _only_formulas(ctx, quantity, target) and not claim.free_symbols:
        # no slip is guessed from a number; only a regime in which it is the answer is named
        in_regime = _regime_row(ctx, quantity, claim, target, primary=True)
        said = in_regime.why if in_regime is not None else None
        return [s for s in (said, formula_expected(ctx, quantity, target.value)) if s]
    rows = [r for r in (_ridge_for_crossover(ctx, quantity, claim),) if r is not None]
    rows += extra
    from derive.checking.comms_slips import comms_slips

    # a collective on a mesh, a strategy's
    rows += comms_slips(ctx.analysis, quantity, target.value)
    if kind_of(quantity) in STEP_KINDS:
        from derive.checking.step_slips import step_slips

        rows += step_slips(ctx, quantity, claim, target)
        if target.value is not None:
            rows += _factor_rows(ctx, quantity, claim, target.value)
        return _named_one(ctx, quantity, claim, target, rows)
    regime = a.problem.regime
    if quantity == q.INTENSITY_REGIME.name and regime is not None:
        exact = sp.cancel(a.memory.intensity.subs(ctx.bound))
        said = f"this is the exact intensity; at leading order under {regime.text} it is {value_text(target)}"
        rows.append(Slip(exact, said))
    try:
        rows += _finding_rows(ctx, quantity, raw, claim, target, written)
    except DeriveError:
        if strict():
            raise
    return _named_one(ctx, quantity, claim, target, rows)


def _named_one(
    ctx: Context, quantity: str, claim: sp.Expr, target: Target, rows: list[Slip]
) -> list[str]:
    """The one earned finding, or the plain sentence when none is."""
    found = earned(rows, claim, ctx.rtol, facets(quantity))
    return [found.why] if found is not None else [_fallback(ctx, quantity, claim, target)]


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
