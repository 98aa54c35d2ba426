"""A number and its unit, read the same in claims, givens, defined formulas and equations.

Two rules every reader of derive applies, so one text means one thing everywhere:

- **Currency.** ``$2.30``, ``\\$48``, ``USD 2.30`` and ``2.30 $`` are all 2.30 dollars:
  :func:`currency_last` moves a currency written before its number after it, as every
  other unit is written (``2.30 USD``). A text with two ``$`` keeps them (math delimiters,
  refused by the reader with their own message).
- **As students write it** (:func:`as_written`, before anything else). One pair of math
  delimiters around the whole text (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``) is dropped;
  a ratio's ``x`` or ``×`` after a bare number (``1.72x``) is dropped; cents (``5.2 cents``,
  ``5.2¢``) are written as dollars (``0.052 USD``, the decimal point moved, exactly); ``US$``
  is a dollar sign; thousands separators grouping three digits (``8,030,261,248``) go.
- **A unit after a number** (:func:`mark_units`, for formulas with units). A word written
  right after a number (``2 bytes``, ``0.5 h``) or after ``/`` following such a unit
  (``$/h``) is the unit when it spells one, never a quantity of the same name: in an
  operator problem ``2 bytes*B*D`` is 2·B·D bytes, while ``bytes`` alone, or after ``*``,
  is the problem's byte count. A one-letter name the problem knows (the dim ``B``) is that
  name even after a number (``2 B`` is twice the batch): write ``bytes`` for bytes. A
  fraction of two literals before a unit is taken first, as the claim checker reads it:
  ``1/2 h`` is half an hour (1800 s), ``5/2 $/h`` a cost per hour.

>>> currency_last("$2.30")
'2.30 USD'
>>> currency_last("USD 2.30/h")
'2.30 USD/h'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from derive.formula.tokens import Token

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_CURRENCY_FIRST = re.compile(rf"(?<![A-Za-z0-9_.])(?:(?:US)?\\?\$|USD)\s*({_NUMBER})")
_DOLLAR = re.compile(r"(?<!\\)\$")


_DELIMITED = re.compile(
    r"\s*(?:\$\$(?P<a>.*)\$\$|\$(?P<b>[^$]*(?:\\\$[^$]*)*)\$|\\\((?P<c>.*)\\\)|\\\[(?P<d>.*)\\\])\s*",
    re.S,
)
_RATIO = re.compile(rf"\s*({_NUMBER})\s*(?:x|\u00d7|\\times)\s*")
_CENT = r"(?:cents?(?![A-Za-z])|\u00a2)"
_CENTS = re.compile(
    rf"(?<![A-Za-z0-9_.])({_NUMBER})\s*(?:\\(?:text|mathrm)\{{\s*{_CENT}\s*\}}|{_CENT})"
)
_THOUSANDS = re.compile(r"(?<![0-9.,])[0-9]{1,3}(?:,[0-9]{3})+(?![0-9]|,[0-9])")


def as_written(text: str, ratio: bool = True) -> str:
    """An answer as students write it, in the reader's notation (see the module docstring);
    ``ratio``: a number then ``x`` is a ratio (``1.72x``), not a product with a name ``x``.

    >>> as_written(r"$\\$0.052$"), as_written("1.72x"), as_written("5.2 cents")
    ('0.052 USD', '1.72', '0.052 USD')
    >>> as_written(r"\\(7BD\\)"), as_written("8,030,261,248 parameters")
    ('7BD', '8030261248 parameters')
    """
    whole = _DELIMITED.fullmatch(text)
    if whole is not None:
        text = next(g for g in whole.groups() if g is not None)
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    times = _RATIO.fullmatch(text) if ratio else None
    text = times.group(1) if times is not None else text
    return currency_last(_CENTS.sub(lambda m: f"{Decimal(m.group(1)).scaleb(-2):f} USD", text))


def currency_last(text: str) -> str:
    """Write a currency before its number after it: ``$2.30`` -> ``2.30 USD``.

    A text with two or more unescaped ``$`` is left alone (they delimit math).
    """
    return text if len(_DOLLAR.findall(text)) > 1 else _CURRENCY_FIRST.sub(r"\1 USD", text)


def _is(token: Token | None, kind: str, text: str | None = None) -> bool:
    return token is not None and token.kind == kind and (text is None or token.text == text)


def mark_units(tokens: list[Token], is_unit: Callable[[str], bool]) -> list[Token]:
    """Mark the units written after a number, and group a literal fraction before one.

    Args:
        tokens: a formula's tokens.
        is_unit: whether a name spells a unit here (false for a one-letter known name).

    Returns:
        The tokens with such names of kind ``unit``, and ``1 / 2 h`` as ``( 1 / 2 ) h``.
    """
    out: list[Token] = []
    for i, tok in enumerate(tokens):
        prev = out[-1] if out else None
        after_number = _is(prev, "num")
        after_unit_per = len(out) >= 2 and _is(prev, "op", "/") and _is(out[-2], "unit")
        subscripted = i + 1 < len(tokens) and tokens[i + 1].kind == "sub"  # h_1 is a name
        wanted = (after_number or after_unit_per) and not subscripted
        if tok.kind == "name" and wanted and is_unit(tok.text):
            if after_number:
                _group_fraction(out)
            out.append(Token("unit", tok.text, tok.pos))
            continue
        out.append(tok)
    return out


def _group_fraction(out: list[Token]) -> None:
    """``… a / b`` (two literals, ``a`` not itself divided or a power) -> ``… ( a / b )``."""
    if len(out) < 3 or not (_is(out[-2], "op", "/") and _is(out[-3], "num")):
        return
    before = out[-4] if len(out) >= 4 else None
    if before is not None and (_is(before, "op", "/") or _is(before, "op", "^")):
        return
    a = out[-3]
    out.insert(len(out) - 3, Token("open", "(", a.pos))
    out.append(Token("close", ")", out[-1].pos))
