"""Reading an answer the way people write it: a left side, a relation, a value and a unit.

``B^* = 4925/41``, ``B \\geq 121``, ``~240``, ``0.14 ms``, ``3.47·10⁻⁵ s``, ``240.`` are all
answers. :func:`read_answer` takes such a text apart *before* anything is parsed:

1. the usual text checks (length, printable characters) run first, on the whole text;
2. light rewriting of notation: Unicode superscripts (``10⁻⁵`` -> ``10^{-5}``), ``x 10^``
   and ``×10^`` between a number and a power of ten, ``π``/``β``, a trailing full stop
   (after a number, a name, a unit or a closing bracket: ``\\frac{BDF}{BD + DF + BF}.``);
3. a leading ``\\approx``, ``≈`` or ``~`` marks a rounded value;
4. the text is split at its top-level relations (``=``, ``\\approx``, ``\\geq``, ``>``, ...):
   the first side may name the quantity, the last side is the value;
5. a size suffix after the number (``8B``, ``2 billion``; :mod:`derive.formula.scales`) is
   read as a scale where the caller allows it, then a unit at the end of the value (``ms``,
   ``GiB``, ``FLOPs/byte``) is split off when what precedes it reads as a formula;
6. every side is parsed by :func:`derive.formula.parse_formula` with its limits.

Nothing is evaluated; every refusal is a :class:`~derive.errors.ParseError` with a position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.errors import ParseError
from derive.formula.limits import RejectError, at, check_text, show
from derive.formula.literals import as_written
from derive.formula.relations import macro_at
from derive.formula.scales import Scale, split_scale
from derive.formula.units import Unit, parse_unit


class Relation(Enum):
    """How the value relates to the quantity (the sign people wrote)."""

    EQUALS = "="
    APPROX = "≈"
    GREATER_EQUAL = "≥"
    GREATER = ">"
    LESS_EQUAL = "≤"
    LESS = "<"

    @property
    def is_order(self) -> bool:
        """True for ``≥ > ≤ <`` (an inequality states a crossover)."""
        return self not in (Relation.EQUALS, Relation.APPROX)


_MACROS = {
    "approx": Relation.APPROX,
    "simeq": Relation.APPROX,
    "sim": Relation.APPROX,
    "geq": Relation.GREATER_EQUAL,
    "ge": Relation.GREATER_EQUAL,
    "geqslant": Relation.GREATER_EQUAL,
    "gt": Relation.GREATER,
    "leq": Relation.LESS_EQUAL,
    "le": Relation.LESS_EQUAL,
    "leqslant": Relation.LESS_EQUAL,
    "lt": Relation.LESS,
}
_REFUSED_MACROS = frozenset(
    {"ne", "neq", "ll", "gg", "equiv", "propto", "to", "implies", "iff", "not"}
)
_SIGNS = (
    (">=", Relation.GREATER_EQUAL),
    ("<=", Relation.LESS_EQUAL),
    ("\u2265", Relation.GREATER_EQUAL),
    ("\u2264", Relation.LESS_EQUAL),
    ("\u2248", Relation.APPROX),
    ("~", Relation.APPROX),
    ("=", Relation.EQUALS),
    (">", Relation.GREATER),
    ("<", Relation.LESS),
)
_REFUSED_SIGNS = ("==", "!=", "\u2260", "\u226a", "\u226b", "->", "=>")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_TIMES_TEN = re.compile(r"(?<=[0-9.])\s*(?:x|×|\\times|\*|·|\\cdot)\s*(?=10\s*\^)")
_TRAILING_STOP = re.compile(r"(?<=[0-9A-Za-z)}\]])\.\s*$")
_THOUSANDS = re.compile(r"(?<=[0-9])\{,\}(?=[0-9]{3})")
_LEADING_APPROX = re.compile(
    r"^\s*(?:\\approx(?![A-Za-z])|\\simeq(?![A-Za-z])|\\sim(?![A-Za-z])|\u2248|~)\s*"
)
_TILDE_SPACE = re.compile(r"(?<=[0-9}])~(?=[A-Za-z\\µμ])")
_UNIT_START = re.compile(r"(?<=[0-9.)}\s])(?=[A-Za-z\\µμ])")


@dataclass(frozen=True)
class Answer:
    """An answer taken apart.

    Attributes:
        text: the text as read (after notation was rewritten).
        name: the left side as written (``B^*``, ``I``), or None.
        relation: the relation of the value to the quantity.
        marked_approx: a leading ``\\approx``/``~`` or an ``\\approx`` marked the value as rounded.
        value: the value's text, without its unit.
        expr: the value, parsed.
        unit: the unit written after the value, or None.
        syntax: ``latex`` or ``plain``, how the value was read.
        scale: a size suffix read after the number (``8B``, ``2 billion``), already in ``expr``.
    """

    text: str
    name: str | None
    relation: Relation
    marked_approx: bool
    value: str
    expr: sp.Expr
    unit: Unit | None
    syntax: str
    scale: Scale | None = None

    @property
    def value_as_typed(self) -> str:
        """The value with its scale as written (``8B``, ``2 billion``), without its unit."""
        if self.scale is None:
            return self.value
        return f"{self.value}{' ' if not self.scale.letter else ''}{self.scale.text}"


def rewrite_notation(text: str, ratio: bool = True) -> str:
    """Rewrite notation people use into the parser's: the answer as students write it
    (:func:`~derive.formula.literals.as_written`: math delimiters, ``$2.30`` -> ``2.30 USD``,
    cents, ``1.72x``, ``8,030,261,248``), superscripts, ``x 10^``, π, β, ``240.``.

    >>> rewrite_notation("3.47·10⁻⁵")
    '3.47 * 10^(-5)'
    >>> rewrite_notation("3.47 x 10^-5")
    '3.47 * 10^-5'
    """
    # ^{…} in LaTeX, ^(…) in plain text: "B²" is plain text, and is said to be read as such
    text = as_written(text, ratio)
    latex = "\\" in text or "{" in text or "}" in text
    opening, closing = ("^{", "}") if latex else ("^(", ")")
    s = _SUPERSCRIPT_RUN.sub(
        lambda m: opening + m.group(0).translate(_SUPERSCRIPTS) + closing, text
    )
    s = _TIMES_TEN.sub(" * ", s)
    # π and β: macros in LaTeX, their plain names in plain text (so a plain claim with a Greek
    # letter is read, and said to be read, as the plain text it is)
    s = s.replace("\u03c0", "\\pi " if latex else " pi ").replace(
        "\u03b2", "\\beta " if latex else " beta "
    )
    s = _THOUSANDS.sub("", s)
    s = _TILDE_SPACE.sub(" ", s)
    return _TRAILING_STOP.sub("", s).rstrip()


def split_answer(text: str) -> tuple[list[tuple[int, str]], list[Relation]]:
    """Split at top-level relations: the sides (with their offsets) and the relations between them.

    Raises:
        RejectError: a refused relation (``==``, ``\\ne``, ``\\ll``, ``->``), or an empty side.
    """
    sides: list[tuple[int, str]] = []
    relations: list[Relation] = []
    depth, i, start = 0, 0, 0

    def cut(pos: int, length: int, relation: Relation, sign: str) -> None:
        nonlocal start
        side = text[start:pos]
        if not side.strip():
            raise RejectError(f"nothing on one side of '{sign}' {at(pos)} (expected an expression)")
        sides.append((start, side))
        relations.append(relation)
        start = pos + length

    while i < len(text):
        c = text[i]
        if c == "\\":
            name = macro_at(text, i)
            if name in _REFUSED_MACROS:
                raise RejectError(
                    f"not an answer: a relation '\\{name}' {at(i)} (write =, \\approx, or \\geq for a crossover)"
                )
            if name in _MACROS and depth == 0:
                cut(i, len(name) + 1, _MACROS[name], "\\" + name)
            i += len(name) + 1
            continue
        refused = next((s for s in _REFUSED_SIGNS if text.startswith(s, i)), None)
        if refused is not None:
            raise RejectError(
                f"not an answer: a relation '{refused}' {at(i)} (write =, \\approx, or \\geq for a crossover)"
            )
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            sign = next(((s, r) for s, r in _SIGNS if text.startswith(s, i)), None)
            if sign is not None:
                cut(i, len(sign[0]), sign[1], sign[0])
                i += len(sign[0])
                continue
        i += 1
    if not text[start:].strip():
        raise RejectError(f"nothing after the last relation {at(len(text))} (expected a value)")
    sides.append((start, text[start:]))
    return sides, relations


def split_unit(
    value: str, parse: Callable[[str], object], unit_ok: Callable[[Unit, str], bool]
) -> tuple[str, Unit | None]:
    """Split a unit off the end of ``value`` when the rest parses; the longest unit wins."""
    for m in _UNIT_START.finditer(value):
        head, tail = value[: m.start()], value[m.start() :]
        unit = parse_unit(tail.strip())
        if unit is None or not head.strip() or not unit_ok(unit, head):
            continue
        try:
            parse(head.strip())
        except (ParseError, RejectError):
            continue
        return head.strip(), unit
    return value.strip(), None


def read_answer(
    text: str,
    parse: Callable[[str, str], tuple[sp.Expr, str]],
    unit_ok: Callable[[Unit, str], bool] | None = None,
    what: str = "claim",
    scale_ok: Callable[[Scale], bool] | None = None,
) -> Answer:
    """Take an answer apart and parse its value (and every other side) with ``parse``.

    Args:
        text: what was typed.
        parse: ``(text, what) -> (expr, syntax)``; raises ParseError (the caller's symbols).
        unit_ok: whether a unit may be split off a value head (e.g. a bare ``B`` that is a dim).
        what: how to name the input in errors.
        scale_ok: whether a size suffix after the number (``8B``, ``2 billion``) is read as
            a scale; none is read without it.

    Raises:
        ParseError: unreadable (with the position), LimitError: too large.
    """
    try:
        check_text(text)
        rewritten = rewrite_notation(text)
        check_text(rewritten)
        approx_mark = _LEADING_APPROX.match(rewritten)
        body = rewritten[approx_mark.end() :] if approx_mark else rewritten
        offset = approx_mark.end() if approx_mark else 0
        sides, relations = split_answer(body)
    except RejectError as reject:
        from derive.errors import LimitError

        raise (LimitError if reject.limit else ParseError)(
            f"{what} {show(text)}", reject.why
        ) from None
    if approx_mark and relations and relations[0] is not Relation.APPROX:
        raise ParseError(
            f"{what} {show(text)}",
            f"a leading '{approx_mark.group(0).strip()}' before a relation {at(0)}",
        )
    orders = [r for r in relations if r.is_order]
    if len(orders) > 1 or (orders and len(relations) > 1):
        raise ParseError(
            f"{what} {show(text)}",
            "not an answer: more than one relation with an inequality (write one, as in B \\geq 121)",
        )
    name = sides[0][1].strip() if relations else None
    for start, side in sides[1:-1]:
        parse(side.strip(), f"{what} (the side at position {offset + start + 1})")
    value_start, value_text = sides[-1]

    def parse_head(head: str) -> object:
        return parse(head, what)

    scaled = _scaled(value_text, scale_ok)
    if scaled is not None:
        value_text = scaled[0]
    value, unit = split_unit(value_text, parse_head, unit_ok or (lambda u, h: True))
    try:
        expr, syntax = (sp.oo, "plain") if _INFINITY.fullmatch(value) else parse(value, what)
    except ParseError as e:
        lead = len(value_text) - len(value_text.lstrip())
        why = _shift(e.why, offset + value_start + lead)
        if _NUMBER_THEN_WORD.match(value) and "unknown symbol" in why:
            why += f"; or an unknown unit (units: {KNOWN_UNITS})"
        raise type(e)(f"{what} {show(text)}", why) from None
    approx = bool(approx_mark) or Relation.APPROX in relations
    relation = relations[-1] if relations else (Relation.APPROX if approx_mark else Relation.EQUALS)
    scale = scaled[1] if scaled is not None else None
    if scale is not None:
        expr = expr * scale.factor
    return Answer(rewritten, name, relation, approx, value, expr, unit, syntax, scale)


def _scaled(value: str, scale_ok: Callable[[Scale], bool] | None) -> tuple[str, Scale] | None:
    """The value without its size suffix (the number and any unit after it), and the suffix.

    None when there is no suffix, the caller refuses it, or what follows is not a unit.
    """
    if scale_ok is None:
        return None
    found = split_scale(value)
    if found is None or not scale_ok(found.scale):
        return None
    if found.rest and parse_unit(found.rest) is None:
        return None
    return f"{found.number} {found.rest}".strip(), found.scale


_POSITION = re.compile(r"at position (\d+)")
_INFINITY = re.compile(r"(?i:inf|infinity|oo)|\u221e|\\infty")
"""An infinite value as written (a kernel of FLOPs alone has an infinite intensity)."""
_NUMBER_THEN_WORD = re.compile(r"^\s*[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?\s+[A-Za-zµμ\\]")
KNOWN_UNITS = (
    "s, ms, µs, ns, days, B, kB, MB, GB, TB, KiB, MiB, GiB, FLOPs, GFLOP, TFLOP, FLOPs/byte, "
    "tokens/s, tok/s, words such as microseconds or gigabytes"
)


def _shift(why: str, by: int) -> str:
    """Shift the positions in a message about one side to positions in the whole text."""
    if by == 0:
        return why
    return _POSITION.sub(lambda m: f"at position {int(m.group(1)) + by}", why)


def position_of(why: str) -> int | None:
    """The first position a message names (counted from 1), or None."""
    m = _POSITION.search(why)
    return int(m.group(1)) if m else None
