"""The same quantity recomputed with a plausible mistake in its inputs.

Each variant is a label and a :class:`~derive.checking.quantities.Target`; a claim
that matches one is explained by the label: the sparse peak, the link instead
of HBM (or the reverse), another dtype's peak, hardware numbers rounded to 1–3
significant digits, or other dtype bindings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import sympy as sp

from derive.analysis.analyse import Analysis, analyse
from derive.checking.diagnosis_text import sci
from derive.checking.quantities import (
    MEMORY,
    NETWORK,
    Basis,
    Hardware,
    Kind,
    basis_of,
    compute,
    describe,
    hardware_of,
    kind_of,
    roof_of,
)
from derive.declare.registry import Registry
from derive.errors import DeriveError
from derive.problem.binding import ProblemSpec, bind
from derive.problem.regime import Regime

Variant = tuple[str, object]  # (sentence stem, Target)
ROUNDED = " rounded to "
"""In the stem of every rounding variant (and no other)."""
_HW_KINDS = frozenset({Kind.RIDGE, Kind.CROSSOVER, Kind.COMPUTE_TIME, Kind.TRANSFER_TIME})
_DTYPE_KINDS = frozenset({Kind.BYTES, Kind.INTENSITY, Kind.CROSSOVER, Kind.TRANSFER_TIME})


def _pow10(e: int) -> sp.Rational:
    return sp.Integer(10) ** e


def round_sig(value: sp.Rational, digits: int) -> tuple[sp.Rational, int, int]:
    """``value`` rounded half-up to ``digits`` significant digits: (rounded, mantissa, exponent)."""
    e = 0
    while _pow10(e + 1) <= value:
        e += 1
    while _pow10(e) > value:
        e -= 1
    scale = _pow10(e - digits + 1)
    mant = int(sp.floor(value / scale + sp.Rational(1, 2)))
    if mant == 10**digits:
        mant, e = 10 ** (digits - 1), e + 1
    return mant * _pow10(e - digits + 1), mant, e


def sig_text(mant: int, e: int) -> str:
    """``2.0e14`` for mantissa 20 and exponent 14."""
    digits = str(mant)
    return f"{digits[0]}.{digits[1:]}e{e}" if len(digits) > 1 else f"{digits}e{e}"


def _rounded(value: sp.Rational) -> list[tuple[int, sp.Rational, str]]:
    out: list[tuple[int, sp.Rational, str]] = []
    for digits in (3, 2, 1):
        r, mant, e = round_sig(value, digits)
        if r != value and all(r != v for _, v, _ in out):
            out.append((digits, r, sig_text(mant, e)))
    return out


def hardware_variants(
    a: Analysis, quantity: str, basis: Basis, written: frozenset[sp.Symbol] = frozenset()
) -> Iterator[Variant]:
    """Variants with other hardware numbers, most telling first.

    ``written``: the givens the claim wrote by their symbols (``\\pi``, ``\\beta``): a claim
    that writes π used the problem's peak, so no variant of the peak can explain it.
    """
    from derive.checking.claims import BANDWIDTH, PEAK

    kind, roof = kind_of(quantity), roof_of(quantity)
    if kind not in _HW_KINDS:
        return
    hw, p = hardware_of(a), a.problem
    bw_name = "β" if roof == MEMORY else "the link bandwidth"
    peak_uses = kind in (Kind.RIDGE, Kind.CROSSOVER, Kind.COMPUTE_TIME) and PEAK not in written
    bw_uses = kind != Kind.COMPUTE_TIME and BANDWIDTH not in written

    def run(h: Hardware) -> object | None:
        try:
            return compute(kind, basis, h, a)
        except DeriveError:
            return None

    sparse = dict(p.chip.sparse) if p.chip is not None else {}
    if peak_uses and p.compute_dtype in sparse:
        fig = sparse[p.compute_dtype]
        yield (
            f"this uses the {p.chip.name} {p.compute_dtype} sparse figure ({fig.text}, with 2:4 structured "  # type: ignore[union-attr]
            f"sparsity) as the peak; the dense {p.compute_dtype} peak is {sci(hw.peak)}",
            run(replace(hw, peak=fig.value)),
        )
    if peak_uses and p.chip is not None:
        for dtype, fig in p.chip.peaks:
            if fig.value != hw.peak:
                yield (
                    f"this uses the {dtype} peak ({fig.text}); the compute dtype is {p.compute_dtype} ({p.compute_reason})",
                    run(replace(hw, peak=fig.value)),
                )
    if bw_uses:
        if roof == MEMORY and hw.link is not None:
            yield (
                f"this uses the link bandwidth ({sci(hw.link)} B/s) instead of the HBM bandwidth ({sci(hw.memory)} B/s)",
                run(replace(hw, memory=hw.link)),
            )
        if roof == NETWORK and hw.link is not None:
            yield (
                f"this uses the HBM bandwidth ({sci(hw.memory)} B/s) instead of the link bandwidth ({sci(hw.link)} B/s)",
                run(replace(hw, link=hw.memory)),
            )
    bw = hw.bandwidth(roof)
    peaks = [(None, hw.peak, "")] + (_rounded(hw.peak) if peak_uses else [])
    bws = [(None, bw, "")] + (_rounded(bw) if bw_uses and bw is not None else [])
    combos = [(pk, b) for pk in peaks for b in bws if pk[0] or b[0]]
    combos.sort(key=lambda c: (bool(c[0][0]) + bool(c[1][0]), -(c[0][0] or 9) - (c[1][0] or 9)))
    for (pd, pv, pt), (bd, bv, bt) in combos:
        said = ([f"π{ROUNDED}{pt}"] if pd else []) + ([f"{bw_name}{ROUNDED}{bt}"] if bd else [])
        h = replace(hw, peak=pv, **({"memory": bv} if roof == MEMORY else {"link": bv}))
        yield f"this matches the {describe(quantity)} with {' and '.join(said)}", run(h)


def flop_variants(a: Analysis, quantity: str, basis: Basis) -> Iterator[Variant]:
    """Multiply-accumulates counted as one FLOP: the same quantity with half the FLOPs."""
    kind = kind_of(quantity)
    if (
        kind not in (Kind.INTENSITY, Kind.CROSSOVER, Kind.COMPUTE_TIME)
        or "multiply-accumulate" not in a.problem.operator.doc
    ):
        return
    try:
        target = compute(kind, replace(basis, num=basis.num / 2), hardware_of(a), a)
    except DeriveError:
        return
    yield (
        f"MACs counted as one FLOP: this is the {describe(quantity)} with half the FLOPs "
        "(a multiply-accumulate is 2 FLOPs, one multiply and one add)",
        target,
    )


def dtype_variants(
    a: Analysis, quantity: str, spec: ProblemSpec, registry: Registry, regime: Regime | None = None
) -> Iterator[Variant]:
    """Variants with other dtype bindings (the compute dtype, and so the peak, kept), at leading order under ``regime`` if given."""
    if kind_of(quantity) not in _DTYPE_KINDS:
        return
    p = a.problem
    free = [t.name for t in p.operator.tensors if t.width is None]
    names = list(dict.fromkeys(dt.name for n, dt in p.dtypes if n in free))
    actual = dict(p.dtypes)
    tried: set[tuple] = set()
    for dtype in names:
        binding = tuple((n, dtype) for n in dict.fromkeys(free))
        if all(actual[n].name == d for n, d in binding) or binding in tried:
            continue
        tried.add(binding)
        wrong = [n for n, d in binding if actual[n].name != d]
        but = "; ".join(f"{n} is {actual[n].name}" for n in wrong)
        yield (
            f"this matches the {describe(quantity)} with every tensor in {dtype}; but {but}",
            _rebound(a, quantity, spec, registry, binding, regime),
        )


def _rebound(
    a: Analysis,
    quantity: str,
    spec: ProblemSpec,
    registry: Registry,
    binding: tuple,
    regime: Regime | None,
) -> object | None:
    try:
        new_spec = replace(
            spec, dtypes=tuple(f"{n}={d}" for n, d in binding), compute=a.problem.compute_dtype
        )
        b = analyse(bind(new_spec, registry.get(spec.operator)))
        h = replace(hardware_of(b), peak=hardware_of(a).peak)
        return compute(kind_of(quantity), basis_of(b, roof_of(quantity), regime), h, b)
    except DeriveError:
        return None
