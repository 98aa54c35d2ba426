"""Judging a claim about a kernel given by its numbers (``derive check --flops … --bytes … --chip …``).

The kernel is derived by :func:`derive.analysis.kernel_numbers.kernel_of`, as for
``derive solve --flops …``; its quantities are named as that command's JSON names them:

- ``intensity``, ``ridge``, ``effective_ridge`` (π·η_c / (β·η_m)), in FLOPs/byte;
- ``attainable`` (FLOP/s) and ``fraction_of_peak`` (attainable / π);
- ``t_math``, ``t_mem``, ``t_lower``, ``t_upper`` (the step's, with the launch overhead and
  the efficiencies), in seconds: these need both counts (``--flops`` and ``--bytes``);
- ``mfu``, ``mbu``: what a measured run implies.

A claim is a number, read as every claim is (:func:`derive.formula.answer.read_answer`):
a unit that must measure what the quantity measures (converted exactly), ``\\pi`` and
``\\beta`` for the chip's peak and bandwidth, a percentage for a fraction, a left side
that names the quantity (``T_{lower} = 1.27 ms``). It is right when it equals the exact
value or lies within the tolerance; a wrong one is explained by the slips of
:mod:`derive.checking.kernel_slips`, a unit confusion or a power of ten.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import ProblemKind, Use, find, rows_for, spelling_map
from derive.catalogue.reading import read_values
from derive.catalogue.records import DISPLAY_UNITS
from derive.checking.claims import BANDWIDTH, PEAK, normalise_name
from derive.checking.diagnosis_text import exact_decimal
from derive.checking.expected_text import hide, in_unit, missed, show_number
from derive.checking.hints import Rank, Slip, earned, facets, factor_slips
from derive.checking.matching import How, check_size, match, relative_error, right_to
from derive.checking.quantities import Target
from derive.checking.rounding import rounded_as_written
from derive.checking.scales import ScaleReading, read_claim
from derive.checking.verdict import Verdict
from derive.errors import ParseError, ProblemError
from derive.formula.answer import Answer
from derive.formula.limits import show
from derive.formula.units import Dimension, describe_dimension, unit_alternatives

if TYPE_CHECKING:
    from derive.checking.api import Judged


@dataclass(frozen=True)
class _Quantity:
    """What a kernel quantity measures, its name in prose and what it needs."""

    dimension: Dimension
    name: str
    needs: str = ""
    fraction: bool = False


_TABLE: dict[str, _Quantity] = {
    row.name: _Quantity(
        row.dimension or Dimension.COUNT,
        row.prose_in(ProblemKind.KERNEL),
        row.in_kind(ProblemKind.KERNEL).needs,
        fraction=row.dimension is Dimension.COUNT,
    )
    for row in rows_for(ProblemKind.KERNEL, Use.CHECK)
}
KERNEL_QUANTITIES: tuple[str, ...] = tuple(_TABLE)
"""Every quantity of a kernel by its numbers a claim may be about (the JSON keys of ``derive solve --flops``)."""

_NAMED = spelling_map(ProblemKind.OPERATOR, ProblemKind.KERNEL)


def kernel_value(kernel: KernelNumbers, quantity: str) -> sp.Rational | None:
    """The exact value of ``quantity`` for ``kernel``, or None when the kernel has none."""
    row = find(quantity)
    found = read_values(ProblemKind.KERNEL, (kernel,))
    return None if row is None else found.get(row)


def kernel_quantities(kernel: KernelNumbers) -> tuple[str, ...]:
    """The quantities this kernel has (times need both counts, MFU/MBU a measurement)."""
    has = {row.name for row in read_values(ProblemKind.KERNEL, (kernel,))}
    return tuple(q for q in KERNEL_QUANTITIES if q in has)


def _target(kernel: KernelNumbers, quantity: str) -> sp.Rational:
    """The exact value, or a ProblemError naming what the kernel lacks and what it has."""
    has = ", ".join(kernel_quantities(kernel))
    if quantity not in _TABLE:
        raise ProblemError(
            f"--quantity {quantity}",
            f"not a quantity of a kernel by its numbers; this kernel's are {has}",
        )
    value = kernel_value(kernel, quantity)
    if value is None:
        raise ProblemError(
            f"--quantity {quantity}", f"needs {_TABLE[quantity].needs}; this kernel's are {has}"
        )
    return value


@dataclass(frozen=True)
class KernelClaim:
    """A claim read for one kernel quantity.

    Attributes:
        text: as typed.
        answer: the text taken apart.
        value: the value in the quantity's base unit (FLOPs/byte, FLOP/s, s, a fraction).
        named: the quantity the left side names, or None without one.
        read_as: how it was read, in one line (``1.27 ms = 0.00127 s``).
    """

    text: str
    answer: Answer
    value: sp.Expr
    named: str | None
    read_as: str


def _named(quantity: str, name: str, text: str) -> str:
    """The quantity a left side names, or a ParseError saying how to write it."""
    key = normalise_name(name)
    found = _NAMED.get(key)
    if found is None and key in ("t", "time") and _TABLE[quantity].dimension is Dimension.TIME:
        found = quantity  # a bare T names whichever time is asked
    if found is None:
        raise ParseError(
            f"claim {show(text)}",
            f"the left side {show(name)} does not name the {_TABLE[quantity].name} "
            f"(write the value alone, or as {quantity} = …)",
        )
    return found


def read_kernel_claim(
    kernel: KernelNumbers, quantity: str, text: str, syntax: str = "auto"
) -> KernelClaim:
    """Read ``text`` as a claim about ``quantity`` of ``kernel``.

    Raises:
        ParseError: unreadable (with a position where there is one); LimitError: too large;
        ProblemError: the kernel has no such quantity.
    """
    _target(kernel, quantity)
    q = _TABLE[quantity]
    scales = ScaleReading.of(
        quantity, None if q.fraction else q.dimension, lambda: True, frozenset()
    )
    order = f"give the {q.name} as a value, not an inequality"
    symbols = {"pi": PEAK, "beta": BANDWIDTH}
    answer, _, percent = read_claim(text, symbols, syntax, scales, order, q.fraction)
    named = _named(quantity, answer.name, text) if answer.name is not None else None
    raw = answer.expr
    value = raw.subs({PEAK: kernel.peak.value, BANDWIDTH: kernel.bandwidth.value})
    scaled = answer.scale is not None
    read_as = answer.value_as_typed if scaled else _shown(raw)
    if answer.unit is not None:
        value = value * answer.unit.factor
        read_as += f" {answer.unit.text}"
        if answer.unit.factor != 1 or scaled:
            read_as += f" = {_shown(value)} {describe_dimension(answer.unit.dimension)[1]}"
    elif value != raw or scaled:
        read_as += f" = {_shown(value)}"
    if percent:
        value = value / 100
        read_as += f"% = {_shown(value)}"
    if answer.name is not None:
        read_as = f"{answer.name} = {read_as}"
    check_size(value, f"claim {show(text)}")
    return KernelClaim(text, answer, value, named, read_as)


def shown_expected(quantity: str, value: sp.Rational) -> str:
    """The exact value with its unit and a decimal (a fraction also as a percentage)."""
    q = _TABLE[quantity]
    return show_number(value, q.dimension, q.fraction)


def _shown(expr: sp.Expr) -> str:
    return (
        exact_decimal(expr)
        if expr.is_Rational
        else str(expr).replace("beta", "β").replace("pi", "π")
    )


def _wrong_unit(quantity: str, claim: KernelClaim) -> str:
    unit = claim.answer.unit
    assert unit is not None
    said = describe_dimension(unit.dimension)[0]
    q = _TABLE[quantity]
    if q.fraction:
        return f"the unit {unit.text} is {said}; the {q.name} is a fraction (0.42, or 42%)"
    want, base = describe_dimension(q.dimension)
    return f"the unit {unit.text} is {said}; the {q.name} is {want} in {base}"


def _confusions(claim: KernelClaim, exact: sp.Rational) -> list[Slip]:
    """Another unit under which the number is right: GB for GiB, ms for s (a unit slip)."""
    unit = claim.answer.unit
    if unit is None:
        return []
    return [
        Slip(
            exact * unit.factor / factor,  # the number in the unit meant, read in the unit written
            f"the number is right in {spelled}, but you wrote {unit.text}",
            Rank.UNITS,
        )
        for spelled, factor in unit_alternatives(unit)
    ]


def judge_kernel_claim(
    kernel: KernelNumbers, quantity: str, claim: KernelClaim, rtol: sp.Rational
) -> Judged:
    """Judge a claim read by :func:`read_kernel_claim` against the exact value (a clause
    `` — exact is …`` states the answer: kept back under ``hide_expected``)."""
    from derive.checking.api import Judged
    from derive.checking.kernel_check import KernelDetail

    exact = _target(kernel, quantity)
    verdict, diagnosis, error, how = _judge(kernel, quantity, claim, rtol, exact)
    detail = KernelDetail(kernel, claim, exact, how)
    expected = shown_expected(quantity, exact)
    return Judged(verdict, claim.read_as, diagnosis, hide(diagnosis, Target(exact)), expected, error, detail, how)  # fmt: skip


def _judge(
    kernel: KernelNumbers, quantity: str, claim: KernelClaim, rtol: sp.Rational, exact: sp.Rational
) -> tuple[Verdict, tuple[str, ...], sp.Rational | None, How | None]:
    from derive.checking.kernel_slips import kernel_slips

    q = _TABLE[quantity]
    unit = claim.answer.unit
    if unit is not None and unit.dimension is not q.dimension:
        return Verdict.INCORRECT, (_wrong_unit(quantity, claim),), None, None
    value = claim.value
    error = relative_error(value, exact)
    if claim.named is not None and claim.named != quantity:
        named = _TABLE[claim.named].name if claim.named in _TABLE else claim.named
        said = f"the left side {claim.answer.name} names the {named}, but the quantity asked is the {q.name}"
        return Verdict.INCORRECT, (said,), error, None
    m = match(value, Target(exact), rtol)
    stated = in_unit(exact, DISPLAY_UNITS[q.dimension], q.fraction)
    if m is not None:
        said = (
            f"the claim equals the exact {q.name}"
            if m.how is How.EXACT
            else right_to(rtol, q.name, stated, m.relative_error)
        )
        return Verdict.CORRECT, (said,), error, m.how
    rounding = rounded_as_written(claim.answer.expr, claim.value, exact, rtol)
    rows = [*kernel_slips(kernel, quantity, exact), *_confusions(claim, exact)]
    rows += factor_slips(q.name, exact) if claim.value.is_Rational else []
    # the answer rounded: any slip that gives the same number is a coincidence
    found = (
        earned(rows, value, rtol, facets(quantity)) if value.is_number and not rounding else None
    )
    said = (
        f"{found.why} — exact is {stated}"
        if found is not None
        else missed(q.name, stated, claim.text, error, bool(value < exact))
        if error is not None
        else "your claim is not a number"
    )
    return Verdict.INCORRECT, (*([rounding] if rounding else []), said), error, None
