"""Per-tensor byte terms: which tensor a wrong byte count got wrong, and how.

The bytes a claim implies (the claim itself for bytes, FLOPs ÷ claim for an
intensity, claim × bandwidth for a time) are split into monomials and set
against the expected per-tensor terms width × elements. Tensors with the same
shape share a monomial and are judged together.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.analyse import ByteTerm
from derive.checking.diagnosis_text import compact, exact_decimal, per_element, tensor_label
from derive.checking.hints import Rank
from derive.checking.matching import expansion_size
from derive.checking.quantities import Basis, Hardware, Kind

# (subject, verb "leave out", verb "count", verb "include")
_NOUN = {
    Kind.BYTES: ("your bytes", "leave", "count", "include"),
    Kind.INTENSITY: ("your denominator", "leaves", "counts", "includes"),
    Kind.TRANSFER_TIME: ("the bytes behind your time", "leave", "count", "include"),
}
_ROLE = {"read": "the read of", "write": "the write-back of", "sent": "the send of"}
_WIDTH_NAMES = (
    (sp.Integer(8), "fp64"),
    (sp.Integer(4), "fp32"),
    (sp.Integer(2), "bf16"),
    (sp.Integer(1), "int8"),
    (sp.Rational(1, 2), "fp4"),
)


@dataclass
class _Group:
    """Tensors whose elements are the same monomial, and the bytes per unit of it."""

    terms: list[tuple[ByteTerm, sp.Rational]]

    @property
    def expected(self) -> sp.Rational:
        return sp.Add(*(t.width * k for t, k in self.terms))


def implied_bytes(kind: Kind, claim: sp.Expr, basis: Basis, hw: Hardware) -> sp.Expr | None:
    """The bytes the claim stands for, given that its FLOPs (or bandwidth) are right."""
    if claim == 0:
        return None
    if kind == Kind.BYTES:
        return claim
    if kind == Kind.INTENSITY:
        return sp.cancel(basis.num / claim)
    bw = hw.bandwidth(basis.roof)
    return claim * bw if kind == Kind.TRANSFER_TIME and bw else None


MAX_FINDINGS = 2
"""A claim with more wrong terms than this is not a slip in one tensor: it is not explained term by term."""
MAX_TERMS = 64
"""A byte count with more monomials than this is not explained term by term."""


def _split(expr: sp.Expr) -> dict[sp.Expr, sp.Rational] | None:
    """Monomial -> rational coefficient, or None if ``expr`` is not a short sum of monomials.

    Only a sum of monomials over a monomial denominator (``B*D/P``) is split.
    """
    num, den = sp.fraction(sp.cancel(sp.together(expr)))
    if len(sp.Add.make_args(den)) != 1:
        return None
    num = sp.expand(num)
    if len(sp.Add.make_args(num)) > MAX_TERMS:
        return None
    out: dict[sp.Expr, sp.Rational] = {}
    for part in sp.Add.make_args(sp.expand(num / den)):
        coeff, mono = part.as_coeff_Mul()
        if not coeff.is_Rational or (mono.is_number and mono != 1):
            return None
        out[mono] = out.get(mono, sp.Integer(0)) + coeff
    return {m: c for m, c in out.items() if c != 0}


def _groups(terms: tuple[ByteTerm, ...], subs: dict) -> dict[sp.Expr, _Group] | None:
    groups: dict[sp.Expr, _Group] = {}
    for t in terms:
        split = _split(t.elements.subs(subs))
        if split is None or len(split) != 1:
            return None
        ((mono, k),) = split.items()
        groups.setdefault(mono, _Group([])).terms.append((t, k))
    return groups


def _hint(counted: sp.Rational, width: sp.Rational) -> tuple[str, Rank]:
    """Why a tensor's width is miscounted, and how specific that is (a bare miscount names nothing)."""
    if counted == 8 * width:
        return " (bits instead of bytes)", Rank.UNITS
    name = next((n for w, n in _WIDTH_NAMES if w == counted), None)
    return (f" (as if it were {name})", Rank.VARIANT) if name else ("", Rank.RESTATED)


def moved(t: ByteTerm) -> str:
    """``the write-back of Z[B,F] (2BF bytes)``."""
    return (
        f"{_ROLE.get(t.role, 'the bytes of')} {tensor_label(t.tensor)} ({compact(t.bytes)} bytes)"
    )


def _left_out(t: ByteTerm, noun: tuple[str, ...]) -> str:
    return f"{noun[0]} {noun[1]} out {moved(t)}"


def _one_tensor(
    t: ByteTerm, k: sp.Rational, got: sp.Rational, noun: tuple[str, ...]
) -> tuple[str, Rank]:
    label = tensor_label(t.tensor)
    if got == 0:
        return _left_out(t, noun), Rank.NAMED
    counted = got / k
    why, rank = _hint(counted, t.width)
    return (
        f"the tensor {label} is {t.dtype}, {per_element(t.width)}; {noun[0]} {noun[2]} "
        f"{exact_decimal(counted)} byte{'' if counted == 1 else 's'} per element{why}"
    ), rank


def _many_tensors(
    mono: sp.Expr, group: _Group, got: sp.Rational, noun: tuple[str, ...]
) -> tuple[str, Rank]:
    missing = [t for t, k in group.terms if got == group.expected - t.width * k]
    if len(missing) == 1:
        return _left_out(missing[0], noun), Rank.NAMED
    if missing:
        each = compact(missing[0].bytes)
        which = ", ".join(
            f"{_ROLE.get(t.role, 'the bytes of')} {tensor_label(t.tensor)}" for t in missing
        )
        return f"{noun[0]} {noun[1]} out one of: {which} ({each} bytes each)", Rank.NAMED
    names = ", ".join(f"{tensor_label(t.tensor)} ({t.role}, {t.dtype})" for t, _ in group.terms)
    return (
        f"the tensors {names} together move {compact(group.expected * mono)} bytes; "
        f"{noun[0]} {noun[2]} {compact(got * mono)}"
    ), Rank.RESTATED


def term_diagnoses(
    kind: Kind, claim: sp.Expr, basis: Basis, hw: Hardware, bound: dict
) -> list[tuple[str, Rank]]:
    """Sentences naming each tensor whose bytes the claim gets wrong (empty if it cannot tell).

    Each sentence comes with how specific it is (:class:`~derive.checking.hints.Rank`): a
    tensor left out is named, a width read as another dtype's a variant, a bare miscount
    only restates the claim.
    Nothing is said unless at least one tensor's bytes match, so an unrelated
    claim is not explained term by term.
    """
    if expansion_size(claim) > MAX_TERMS:
        return []
    implied = implied_bytes(kind, claim, basis, hw)
    if implied is None or implied.free_symbols - set().union(
        *(t.elements.free_symbols for t in basis.terms)
    ):
        return []
    needed = set().union(*(t.elements.free_symbols for t in basis.terms))
    subs = {} if needed <= implied.free_symbols else bound
    got, groups = _split(implied.subs(subs)), _groups(basis.terms, subs)
    if got is None or groups is None or any(c < 0 for c in got.values()):
        return []
    noun = _NOUN.get(kind, _NOUN[Kind.BYTES])
    right = [m for m, g in groups.items() if got.get(m, 0) == g.expected]
    wrong = [m for m, g in groups.items() if got.get(m, 0) != g.expected]
    extra = [m for m in got if m not in groups]
    if (
        not (wrong or extra)
        or (not right and len(groups) > 1)
        or len(wrong) + len(extra) > MAX_FINDINGS
    ):
        return []
    out: list[tuple[str, Rank]] = []
    for mono in wrong:
        g, have = groups[mono], got.get(mono, sp.Integer(0))
        if len(g.terms) > 1 and not (have * mono).as_coeff_Mul()[0].is_Integer:
            continue  # a fraction of a byte: not a miscount of these tensors
        out.append(
            _one_tensor(*g.terms[0], have, noun)
            if len(g.terms) == 1
            else _many_tensors(mono, g, have, noun)
        )
    names = list(dict.fromkeys(tensor_label(t.tensor) for t in basis.terms))
    shapes = f" (the tensors are {', '.join(names)})" if len(names) <= 6 else ""
    for mono in extra:
        out.append(
            (
                f"{noun[0]} {noun[3]} {compact(got[mono] * mono)}, which is no tensor's size{shapes}",
                Rank.RESTATED,
            )
        )
    return out
