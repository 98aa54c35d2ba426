"""A claim read in the context of its problem: the value in base units, what its left side names.

:func:`derive.formula.answer.read_answer` takes the text apart; here the pieces are
given their meaning for one problem and one quantity:

- ``\\pi`` and ``\\beta`` are the problem's peak and the quantity's bandwidth (exact);
- a unit must measure what the quantity measures (else the claim is wrong, and says so)
  and is converted exactly into FLOPs, bytes, seconds or FLOPs per byte;
- a left side must name the quantity asked (``I``, ``T_{math}``, ``B^*``, or the dim a
  crossover is solved for); a left side that names nothing is refused;
- an inequality (``B \\geq 121``) is read only for a crossover;
- a size suffix (``8.59B``, ``2 billion``) is read as :mod:`derive.checking.scales` says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.catalogue import ProblemKind, find, spelling_map
from derive.catalogue import table as q
from derive.checking.context import Context
from derive.checking.quantities import NETWORK, Kind, describe, expected, kind_of, roof_of
from derive.checking.scales import ScaleReading, read_claim
from derive.errors import ParseError
from derive.formula.answer import Answer, Relation
from derive.formula.limits import show
from derive.formula.reader import Parsed, parse_formula
from derive.formula.units import Dimension, Unit

# Names a derivation may start with (``I``, ``\\text{bytes}``, ``T_{math}``, ``B^*``) and the quantity each means.
NAMES: dict[str, str] = spelling_map(ProblemKind.OPERATOR)
"""Every spelling of a quantity an operator's check judges → its name (from the catalogue)."""

_MACROS = re.compile(r"\\(?:text|mathrm|mathit|mathsf|mathbf|textrm|textit|operatorname)\s*")


def normalise_name(text: str) -> str:
    """``T_{\\text{math}}`` -> ``t_math``; ``\\text{FLOPs}`` -> ``flops``; ``\\pi/\\beta`` -> ``pi/beta``."""
    s = _MACROS.sub("", text)
    return re.sub(r"[{}\\$\s]", "", s).lower()


def quantity_named(text: str, ctx: Context) -> str | None:
    """The quantity a leading name stands for, or None when ``text`` is not such a name.

    A text that reads as a formula over the operator's dims is a formula, not a name.
    """
    key = normalise_name(text)
    x = ctx.analysis.problem.solve_for.name.lower()
    found = NAMES.get(key)
    if found is None and key in (
        f"{x}^*",
        f"{x}_*",
        f"{x}_crit",
        f"{x}_cross",
        f"{x}_crossover",
        f"{x}^*_crit",
    ):
        found = q.CROSSOVER.name
    if found is None:
        return None
    try:
        parse_formula(text, ctx.symbols, "auto", "name")
    except ParseError:
        return found
    return None


PEAK = sp.Symbol("pi", positive=True)
BANDWIDTH = sp.Symbol("beta", positive=True)
_GIVENS = {"pi": PEAK, "beta": BANDWIDTH}

_DIMENSIONS = {
    Kind.FLOPS: Dimension.FLOPS,
    Kind.BYTES: Dimension.BYTES,
    Kind.INTENSITY: Dimension.INTENSITY,
    Kind.RIDGE: Dimension.INTENSITY,
    Kind.CROSSOVER: Dimension.COUNT,
    Kind.COMPUTE_TIME: Dimension.TIME,
    Kind.TRANSFER_TIME: Dimension.TIME,
    Kind.STEP_TIME: Dimension.TIME,
    Kind.UTILISATION: Dimension.COUNT,
}


def dimension_of(quantity: str) -> Dimension:
    """What a quantity measures (its catalogue row's dimension)."""
    row = find(quantity)
    return row.dimension if row is not None and row.dimension else _DIMENSIONS[kind_of(quantity)]


def same_quantity(named: str, quantity: str) -> bool:
    """True when a left side naming ``named`` may answer ``quantity`` (``I`` for the network intensity)."""
    return named == quantity or _family(quantity) == named or _family(named) == quantity


def _family(name: str) -> str:
    row = find(name)
    return row.family if row is not None else ""


@dataclass(frozen=True)
class Claim:
    """A claim read for one quantity.

    Attributes:
        text: as typed.
        answer: the text taken apart.
        raw: the value before units and givens (as typed, over the dims).
        expr: the value in base units with ``\\pi``/``\\beta`` replaced by the problem's numbers.
        named: the quantity the left side names, or None without a left side.
        parsed: the value as a :class:`Parsed` (syntax and how it was chosen).
        percent: True when the value was written as a percentage (``42%``: ``expr`` is 0.42).
        note: which reading was taken when a size suffix is also a dim (``8B``), or None.
    """

    text: str
    answer: Answer
    raw: sp.Expr
    expr: sp.Expr
    named: str | None
    parsed: Parsed
    percent: bool = False
    note: str | None = None

    @property
    def unit(self) -> Unit | None:
        """The unit written, if any."""
        return self.answer.unit

    @property
    def relation(self) -> Relation:
        """How the value relates to the quantity."""
        return self.answer.relation

    def read_as(self) -> str:
        """How the claim was read, in one line (``B ≥ 121``, ``0.14 ms = 7/50000 s``)."""
        left = f"{self.answer.name} {self.relation.value} " if self.answer.name else ""
        if not self.answer.name and self.answer.marked_approx:
            left = "≈ "
        scaled = self.answer.scale is not None
        text = left + (self.answer.value_as_typed if scaled else _shown(self.raw))
        if self.percent:
            return f"{text}% = {_shown(self.expr)}"
        if self.unit is not None:
            text += f" {self.unit.text}"
            if self.unit.factor != 1 or scaled:
                text += f" = {_shown(self.expr)} {_base(self.unit.dimension)}".rstrip()
        elif self.expr != self.raw or scaled:
            text += f" = {_shown(self.expr)}"
        return text + (f"   ({self.note})" if self.note else "")


def _shown(expr: sp.Expr) -> str:
    """A number as a terminating decimal when it is one (``8.69``), a formula as people write it."""
    from derive.checking.diagnosis_text import exact_decimal, formula_text

    if expr.is_Rational:
        return exact_decimal(expr)
    return _SIGNS.sub(lambda m: _WORDS[m.group(0)], formula_text(expr))


_WORDS = {"pi": "π", "beta": "β", "oo": "∞"}  # sympy's words for the signs people write
_SIGNS = re.compile(r"\b(?:pi|beta|oo)\b")


def _base(dimension: Dimension) -> str:
    from derive.formula.units import describe_dimension

    return describe_dimension(dimension)[1]


def _givens(ctx: Context, quantity: str) -> dict[sp.Symbol, sp.Rational]:
    p = ctx.analysis.problem
    bandwidth = p.link.value if roof_of(quantity) == NETWORK and p.link else p.bandwidth.value
    return {PEAK: p.peak.value, BANDWIDTH: bandwidth}


def _names_for(ctx: Context, quantity: str, name: str, text: str) -> str:
    """The quantity a left side names, or a ParseError saying how to write it."""
    found = quantity_named(name, ctx)
    x = ctx.analysis.problem.solve_for
    if found is None and name.replace(" ", "") == x.name and kind_of(quantity) == Kind.CROSSOVER:
        found = quantity
    if (
        found is None
        and normalise_name(name) in ("t", "time")
        and dimension_of(quantity) is Dimension.TIME
    ):
        found = quantity  # a bare T names whichever time is asked
    if found is None:
        raise ParseError(
            f"claim {show(text)}",
            f"the left side {show(name)} does not name the {describe(quantity)} "
            f"(write the value alone, or name it as in {_example(quantity, x.name)})",
        )
    return found


def _example(quantity: str, x: str) -> str:
    return {
        Kind.CROSSOVER: f"{x} = 121, {x}^* = 4925/41 or {x} \\geq 121",
        Kind.INTENSITY: "I = \\frac{2BDF}{2BD+2DF+2BF}",
        Kind.RIDGE: "\\pi/\\beta = 240.24",
        Kind.FLOPS: "\\text{FLOPs} = 2BDF",
        Kind.BYTES: "\\text{bytes} = 2BD + 2DF + 2BF",
        Kind.COMPUTE_TIME: "T_{math} = 0.14 ms",
        Kind.TRANSFER_TIME: "T_{mem} = 0.14 ms",
        Kind.STEP_TIME: "T_{lower} = 2.5 ms",
        Kind.UTILISATION: "\\text{MFU} = 0.42 or 42\\%",
        Kind.ANALYSED: f"{quantity} = …",
    }[kind_of(quantity)]


def read_claim_for(ctx: Context, quantity: str, text: str, syntax: str = "auto") -> Claim:
    """Read ``text`` as a claim about ``quantity`` in the problem of ``ctx``.

    Raises:
        ParseError: unreadable (with a position where there is one); LimitError: too large.
    """
    from derive.checking.matching import check_size

    symbols = step_symbols(ctx)  # the definitions are read, to be refused with a reason
    dims = ctx.symbols
    bound = {s.name for s in ctx.bound}

    def unit_ok(unit: Unit, head: str) -> bool:
        # a bare B after a number is the dim B unless bytes are asked and every dim is bound
        if unit.text != "B" or "B" not in dims:
            return True
        return dimension_of(quantity) is Dimension.BYTES and bound >= set(dims)

    kind, x = kind_of(quantity), ctx.analysis.problem.solve_for.name
    said = f"an inequality states a crossover; give the {describe(quantity)} as a value"
    order = None if kind == Kind.CROSSOVER else f"{said} (as in {_example(quantity, x)})"
    fraction, scales = kind == Kind.UTILISATION, _scale_reading(ctx, quantity)
    answer, parsed, percent = read_claim(text, symbols, syntax, scales, order, fraction, unit_ok)
    named = _names_for(ctx, quantity, answer.name, text) if answer.name is not None else None
    raw = answer.expr
    definitions = raw.free_symbols - set(dims.values()) - {PEAK, BANDWIDTH}
    if definitions:
        raise ParseError(
            f"claim {show(text)}",
            "\\text{FLOPs} and \\text{bytes} name quantities: give the value as a formula in the "
            f"dims (as in {_example(quantity, ctx.analysis.problem.solve_for.name)}); "
            "a derivation (--chain) may start from them",
        )
    expr = raw.subs(_givens(ctx, quantity)) if raw.free_symbols & {PEAK, BANDWIDTH} else raw
    if answer.unit is not None and answer.unit.factor != 1:
        expr = expr * answer.unit.factor
    if percent:
        expr = expr / 100
    check_size(expr, f"claim {show(text)}")
    return Claim(text, answer, raw, expr, named, parsed, percent, scales.note(answer))


def _scale_reading(ctx: Context, quantity: str) -> ScaleReading:
    """How ``8B``, ``15T``, ``2 billion`` are read for ``quantity`` (a fraction is never a count)."""

    def number() -> bool:
        value = expected(ctx.analysis, quantity).value
        return value is not None and value.is_number

    dimension = None if kind_of(quantity) == Kind.UTILISATION else dimension_of(quantity)
    return ScaleReading.of(quantity, dimension, number, frozenset(ctx.symbols))


_DEFINITIONS = ("FLOPs", "FLOP", "flops", "bytes", "Bytes")


def step_symbols(ctx: Context) -> dict[str, sp.Symbol]:
    """The names a derivation step may use: the dims, ``\\pi``, ``\\beta``, ``\\text{FLOPs}``, ``\\text{bytes}``."""
    extra = {
        name: sp.Symbol(f"_{name.lower().rstrip('s')}", positive=True) for name in _DEFINITIONS
    }
    return {**_GIVENS, **extra, **ctx.symbols}


def step_values(ctx: Context, symbols: dict[str, sp.Symbol]) -> dict[sp.Symbol, sp.Expr]:
    """What the extra names of :func:`step_symbols` stand for, exactly."""
    a = ctx.analysis
    total = sp.Add(*(t.bytes for t in a.memory.terms))
    values: dict[sp.Symbol, sp.Expr] = {
        PEAK: a.problem.peak.value,
        BANDWIDTH: a.problem.bandwidth.value,
    }
    for name in _DEFINITIONS:
        values[symbols[name]] = a.flops if name.lower().startswith("flop") else total
    return values


def read_step(ctx: Context, text: str, syntax: str, what: str) -> sp.Expr:
    """One side of a derivation step, exact, with givens and definitions replaced and a unit converted.

    Raises:
        ParseError: unreadable; LimitError: too large.
    """
    from derive.checking.matching import check_size
    from derive.formula.answer import split_unit

    symbols = step_symbols(ctx)
    dims = ctx.symbols

    def parse(value: str) -> sp.Expr:
        return parse_formula(value, symbols, syntax, what).expr

    def unit_ok(unit: Unit, head: str) -> bool:
        return unit.text != "B" or "B" not in dims

    try:
        expr = parse(text)
    except ParseError:
        value, unit = split_unit(text, parse, unit_ok)
        if unit is None:
            raise
        expr = parse(value) * unit.factor
    used = expr.free_symbols - set(dims.values())
    if used:
        expr = expr.subs(step_values(ctx, symbols))
    check_size(expr, f"{what} {show(text)}")
    return expr
