"""Expected values as the worked solution prints them, and diagnoses with the answer kept back.

A number prints exact, then as a decimal with its unit (``9850/41 ≈ 240.24 FLOPs/byte``); a
time prints its exact seconds, then the reading a person uses
(``68719476736/98500000000000 s ≈ 697.7 µs``). A formula whose coefficient
is a hardware number prints the way a person writes it: ``BDF / 9.85e13 s``, not
``B*D*F/98500000000000``.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import ProblemKind, box_of, find
from derive.catalogue.records import DISPLAY_UNITS
from derive.checking.claims import dimension_of
from derive.checking.diagnosis_text import approx, compact, exact_decimal, formula_text, sci
from derive.checking.quantities import Kind, Target, kind_of
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_text
from derive.formula.units import Dimension, describe_dimension

_BOXED = (ProblemKind.TRAINING, ProblemKind.SERVING, ProblemKind.KERNEL, ProblemKind.OPERATOR)


def label_of(quantity: str) -> str:
    """How a diagnosis names a quantity: its answer box's label, else its catalogue prose (a
    set's own name as it is).

    >>> label_of("t_lower"), label_of("what_if_time"), label_of("mfu")
    ("lower bound of the step's time", 'new step time', 'MFU of the measured step')
    """
    row = find(quantity)
    if row is None:
        return quantity
    box = next((b for kind in _BOXED if (b := box_of(kind, quantity)) is not None), None)
    label = box.label if box is not None else row.prose
    return label if label[1:2].isupper() else label[:1].lower() + label[1:]


def in_unit(value: sp.Expr, unit: str, percent: bool = False) -> str:
    """A value as a diagnosis states it, in its box's unit and rounded for prose (the exact
    value is the key's and the JSON's).

    >>> in_unit(sp.Rational(1251, 100000), "s"), in_unit(sp.Integer(45240178688), "B")
    ('12.51 ms', '45.24 GB = 42.13 GiB')
    >>> in_unit(sp.Rational(1411, 10000), "$"), in_unit(sp.Rational(421, 1000), "1", True)
    ('$0.1411', '42.1%')
    """
    if not value.is_number:
        return f"{formula_text(value)} {unit}".rstrip()
    if percent:
        return f"{fmt_decimal(100 * value, 3)}%"
    if unit == "s" and value > 0:
        return time_text(value)
    if unit == "$":
        return f"${fmt_decimal(value, 4)}"
    head, per = (unit.split("/", 1) + [""])[:2]
    if head in ("B", DISPLAY_UNITS[Dimension.BYTES]) and abs(value) >= 1000:
        k = min(4, int(sp.floor(sp.log(abs(value), 1000))))
        per = f"/{per}" if per else ""
        decimal, binary = (value / sp.Integer(n) ** k for n in (1000, 1024))
        return (
            f"{fmt_decimal(decimal, 4)} {('kB', 'MB', 'GB', 'TB')[k - 1]}{per} "
            f"= {fmt_decimal(binary, 4)} {('KiB', 'MiB', 'GiB', 'TiB')[k - 1]}{per}"
        )
    number = sci(value) if value.is_Integer and "FLOP" in unit else fmt_decimal(value, 4)
    return f"{number} {'' if unit == '1' else unit}".rstrip()


def _unit(quantity: str) -> str:
    if not quantity:
        return ""
    unit = describe_dimension(dimension_of(quantity))[1]
    return f" {unit}" if unit else ""


def _number(value: sp.Rational, unit: str, dimension: Dimension | None) -> str:
    exact = exact_decimal(value)
    short = "/" not in exact and len(exact) <= 12
    if dimension is Dimension.TIME and value > 0:  # the exact seconds, then a person's reading
        text = (exact if short or value.is_Integer else str(value)) + unit
        reading = time_text(value)
        return text if reading == text else f"{text} ≈ {reading}"
    if value.is_Integer:
        text = str(int(value))
        if abs(int(value)) >= 10**7:
            mantissa, exponent = f"{float(value):.4e}".split("e")
            text += f" ≈ {mantissa}e{int(exponent)}"
        return text + unit
    text = exact if short else f"{value} ≈ {fmt_decimal(value)}"
    return text + unit


def missed(label: str, stated: str, typed: str, error: sp.Expr, low: bool) -> str:
    """Where a number claim misses, in the box's words: ``the lower bound of the step's time
    is 12.51 ms; 11.6 ms is 7.3% low`` (the claim as typed when it is short and plain)."""
    typed = " ".join(typed.split())
    said = typed if len(typed) <= 24 and not {"=", "\\", ","} & set(typed) else "the claim"
    return f"the {label} is {stated}; {said} is {fmt_decimal(error * 100, 3)}% {'low' if low else 'high'}"


def show_number(value: sp.Rational, dimension: Dimension, fraction: bool = False) -> str:
    """A number in ``dimension``'s base unit as the worked solution prints it (a fraction also as a percentage)."""
    unit = describe_dimension(dimension)[1]
    text = _number(value, f" {unit}" if unit else "", dimension)
    return f"{text} ({fmt_decimal(value * 100)}%)" if fraction else text


def show_value(value: sp.Expr, quantity: str) -> str:
    """A value of ``quantity`` as the worked solution prints it, with its unit."""
    unit = _unit(quantity)
    dimension = dimension_of(quantity) if quantity else None
    if value.is_Rational and quantity and kind_of(quantity) == Kind.UTILISATION:
        return f"{_number(value, unit, dimension)} ({fmt_decimal(value * 100)}%)"
    if value.is_Rational:
        return _number(value, unit, dimension)
    if value.is_number:
        return approx(value) + unit
    return formula_text(value) + unit


def show_expected(t: Target | None, quantity: str) -> str | None:
    """The expected value (exact, then a decimal with its unit), or what happens instead."""
    if t is None:
        return None
    if t.value is None:
        return t.note or None
    text = show_value(t.value, quantity)
    if t.threshold is not None:
        text += f" (smallest compute-bound integer: {t.threshold})"
    return text


def _forms(t: Target | None) -> list[str]:
    """Ways the value of ``t`` may appear in a sentence."""
    if t is None or t.value is None:
        return []
    v = t.value
    forms = {str(v), compact(v), approx(v)}
    if v.is_Rational:
        forms |= {exact_decimal(v), fmt_decimal(v)}
    if v.is_Rational and v > 0:  # a time as prose prints it
        forms.add(time_text(v))
    if t.threshold is not None:
        forms.add(f"integer {t.threshold}")
    return [f for f in forms if len(f) >= 2]


def hide(
    diagnosis: tuple[str, ...],
    expected: Target | None,
    leading: Target | None = None,
    *more: Target | None,
) -> tuple[str, ...]:
    """The diagnosis with the answer kept back: ``— exact is …`` clauses cut, sentences stating it dropped.

    ``more`` are further targets whose values must not be stated (the other quantities of a derivation).
    """
    forms = [f for t in (expected, leading, *more) for f in _forms(t)]
    out = []
    for sentence in diagnosis:
        for cut in (
            " — exact is ",
            " — leading order is ",
            " — at ",
            " — as ",
            " — the ",
            "; without that regime",
            "; without the regime",
        ):
            sentence = sentence.split(cut)[0]
        if sentence.startswith(("the exact ", "without the regime")):
            continue
        if any(f in sentence for f in forms):
            continue
        out.append(sentence)
    return tuple(out)
