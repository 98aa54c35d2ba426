"""The echo of an answer, as LaTeX: what was typed, with its unit, and the exact value beside it.

``12.5 ms`` echoes as ``12.5\\,\\text{ms} = 0.0125\\ \\text{s}``, ``16 GiB`` as
``16\\,\\text{GiB} = 17179869184\\ \\text{bytes}``, ``B >= 121`` as ``B \\geq 121``: the
same reading as the one line ``derive check`` prints (``read_as``), set as math for a
page. The exact value is in the quantity's own unit, as a terminating decimal when it
is one and as a fraction otherwise. Each kind of claim is taken apart by a row of
:data:`_PARTS`; nothing typed is evaluated (the values were read by derive's parser).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp
from sympy.logic.boolalg import BooleanAtom

from derive.checking.claims import Claim
from derive.checking.comms_check import CommsClaim
from derive.checking.kernel_claims import KernelClaim
from derive.checking.model_claims import ModelClaim
from derive.formula.answer import Relation
from derive.formula.units import describe_dimension
from derive.solution.notation import tex

_RELATIONS = {
    Relation.EQUALS: "=",
    Relation.APPROX: r"\approx",
    Relation.GREATER_EQUAL: r"\geq",
    Relation.GREATER: ">",
    Relation.LESS_EQUAL: r"\leq",
    Relation.LESS: "<",
}
_NAME = re.compile(r"([A-Za-z])(?:_\{?([A-Za-z0-9]+)\}?)?(\^\{?\*\}?)?")
_FULL_DIGITS = 16  # a longer integer is shown as derive's LaTeX shows it (a power of ten)
_TEXT_SPECIALS = re.compile(r"([\\{}$&#^_%~])")


@dataclass(frozen=True)
class Echo:
    """An answer as read, in parts.

    Attributes:
        name: the left side as typed (``B``, ``T_mem``), or None.
        relation: how the value relates to the quantity.
        written: the value as typed, before its unit.
        unit: the unit as typed (``ms``, ``GiB``), or None.
        percent: the value was typed as a percentage.
        exact: the value in the quantity's unit.
        exact_unit: the quantity's unit in words (``s``, ``bytes``; empty for a plain number).
    """

    name: str | None
    relation: Relation
    written: sp.Basic
    unit: str | None
    percent: bool
    exact: sp.Basic
    exact_unit: str


def _name_tex(name: str) -> str:
    """A typed left side as LaTeX: ``T_mem`` -> ``T_{\\text{mem}}``; anything else as text."""
    m = _NAME.fullmatch(name.replace(" ", ""))
    if m is None:
        return r"\text{" + _TEXT_SPECIALS.sub(r"\\\1", name) + "}"
    base, sub, star = m.groups()
    if sub:
        base += "_{" + (sub if len(sub) == 1 else r"\text{" + sub + "}") + "}"
    return base + ("^{*}" if star else "")


def _value_tex(value: sp.Basic) -> str:
    """An exact value as a verdict prints it: an integer in full (``140000000000``), a
    terminating decimal as a decimal (``0.0125``), anything else in derive's LaTeX."""
    from derive.checking.diagnosis_text import exact_decimal

    if isinstance(value, sp.Integer) and len(str(value)) <= _FULL_DIGITS:
        return str(value)
    if isinstance(value, sp.Rational) and not value.is_Integer and "/" not in exact_decimal(value):
        return exact_decimal(value)
    return tex(value)


def echo_latex(echo: Echo) -> str:
    """The echo as LaTeX: the left side and relation, the value with its unit, ``=`` the exact value.

    >>> echo_latex(Echo(None, Relation.EQUALS, sp.Rational(25, 2), "ms", False, sp.Rational(1, 80), "s"))
    '12.5\\\\,\\\\text{ms} = 0.0125\\\\ \\\\text{s}'
    """
    left = f"{_name_tex(echo.name)} {_RELATIONS[echo.relation]} " if echo.name else ""
    if not echo.name and echo.relation is Relation.APPROX:
        left = r"\approx "
    typed = _value_tex(echo.written)
    if echo.unit:
        typed += r"\,\text{" + _TEXT_SPECIALS.sub(r"\\\1", echo.unit) + "}"
    if echo.percent:
        typed += r"\%"
    if echo.exact == echo.written:
        return left + typed
    unit = r"\ \text{" + echo.exact_unit + "}" if echo.exact_unit else ""
    return f"{left}{typed} = {_value_tex(echo.exact)}{unit}"


def _operator(claim: Claim, unit_word: str) -> Echo:
    unit = claim.unit
    word = describe_dimension(unit.dimension)[1] if unit is not None else unit_word
    name = claim.answer.name
    relation = claim.relation if name or claim.answer.marked_approx else Relation.EQUALS
    return Echo(
        name,
        relation,
        claim.raw,
        unit.text if unit else None,
        claim.percent,
        claim.expr,
        word if unit is None or unit.factor != 1 else "",
    )


def _model(claim: ModelClaim, unit_word: str) -> Echo:
    # the left side is kept only in read_as, and only before a relation other than "="
    sign = f" {claim.relation.value} "
    named = claim.relation is not Relation.EQUALS and sign in claim.read_as
    name = claim.read_as.split(sign)[0] if named else None
    unit = claim.unit.text if claim.unit is not None else None
    percent = "% = " in claim.read_as
    # a unit of another dimension is not converted (12.5 ms is no rate): echo it as typed
    converted = claim.unit is None or percent or " = " in claim.read_as.split("   (")[0]
    exact, word = (claim.value, unit_word) if converted else (claim.raw, "")
    return Echo(name, claim.relation, claim.raw, unit, percent, exact, word)


def _answer(claim: KernelClaim | CommsClaim, percent: bool, word: str) -> Echo:
    """A claim read as one answer (a kernel's or a transfer's): its name or relation, as typed."""
    answer = claim.answer
    relation = Relation.EQUALS if answer.name else answer.relation
    unit = answer.unit.text if answer.unit else None
    return Echo(answer.name, relation, answer.expr, unit, percent, claim.value, word)


def _kernel(claim: KernelClaim, unit_word: str) -> Echo:
    unit = claim.answer.unit
    word = describe_dimension(unit.dimension)[1] if unit is not None else unit_word
    return _answer(claim, "% = " in claim.read_as, word)


def _comms(claim: CommsClaim, unit_word: str) -> Echo:
    return _answer(claim, False, unit_word or "s")


_PARTS: dict[type, Callable[..., Echo]] = {
    Claim: _operator,
    ModelClaim: _model,
    KernelClaim: _kernel,
    CommsClaim: _comms,
}
"""How each kind of claim is taken apart for its echo."""


def echo_of(claim: Claim | ModelClaim | KernelClaim | CommsClaim, unit_word: str = "") -> str:
    """The echo of a claim as LaTeX; ``unit_word`` names the quantity's unit (``bytes``)."""
    if isinstance(claim, ModelClaim) and isinstance(claim.value, BooleanAtom):
        return r"\text{" + ("yes" if bool(claim.value) else "no") + "}"
    return echo_latex(_PARTS[type(claim)](claim, unit_word))
