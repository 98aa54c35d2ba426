"""When ``8B`` means 8 billion and when it means 8 × the dim B: the size suffixes of a claim.

:mod:`derive.formula.scales` finds a suffix after a number; whether it is read as a scale
depends on the quantity asked, which only the checker knows:

- a word (``thousand``, ``million``, ``billion``, ``trillion``) is always a scale;
- a letter (``K``, ``M``, ``B``/``bn``, ``T``) is a scale only where the quantity is a count
  (parameters, tokens, FLOPs, bytes, rates of those), never for a time, an intensity or a
  fraction (``2B`` is an intensity's leading order);
- for bytes, ``B`` is the byte unit (``8 B`` is eight bytes);
- a letter that is also a dim of the problem is a scale when the quantity's answer is a
  number (``8B`` parameters: 8 × 10^9), and the dim when the answer is a formula in the
  dims (``8B`` FLOPs for a matmul with B free: 8·B). Either way the echo says which reading
  was taken (:meth:`ScaleReading.note`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from derive.errors import ParseError
from derive.formula.answer import Answer, read_answer
from derive.formula.limits import show
from derive.formula.reader import Parsed, parse_formula
from derive.formula.scales import Scale, split_scale
from derive.formula.units import Dimension, Unit

COUNT_DIMENSIONS = frozenset(
    {
        Dimension.COUNT,
        Dimension.FLOPS,
        Dimension.BYTES,
        Dimension.TOKEN_RATE,
        Dimension.FLOP_RATE,
        Dimension.BYTE_RATE,
    }
)
"""What a quantity may measure for a suffix letter (``8B``, ``15T``) to be read as a scale."""


@dataclass(frozen=True)
class ScaleReading:
    """How size suffixes are read for one quantity of one problem.

    Attributes:
        quantity: the quantity's name, for the note (``params``).
        count: the quantity is a count (letters may be scales).
        number: whether its answer is a number, not a formula in dims left free (asked only
            when a suffix letter is also a dim: the answer may be costly to work out).
        dims: the names of the problem's dims (a letter among them collides).
        in_bytes: the quantity is measured in bytes (``B`` is the byte unit).
    """

    quantity: str
    count: bool
    number: Callable[[], bool]
    dims: frozenset[str]
    in_bytes: bool = False

    @classmethod
    def of(
        cls,
        quantity: str,
        dimension: Dimension | None,
        number: Callable[[], bool],
        dims: frozenset[str],
    ) -> ScaleReading:
        """The reading for a quantity measuring ``dimension`` (None: a fraction, never a count)."""
        count = dimension in COUNT_DIMENSIONS
        return cls(quantity, count, number, dims, dimension is Dimension.BYTES)

    def _letter_is_unit(self, scale: Scale) -> bool:
        return self.in_bytes and scale.text == "B"

    def allows(self, scale: Scale) -> bool:
        """Whether ``scale`` (found after a number) is read as a scale."""
        if not scale.letter:
            return True
        if not self.count or self._letter_is_unit(scale):
            return False
        return scale.text not in self.dims or self.number()

    def note(self, answer: Answer) -> str | None:
        """Which reading was taken, when a suffix letter is also a dim of the problem; else None."""
        scale = answer.scale
        if scale is not None:
            if not scale.letter or scale.text not in self.dims:
                return None
            return (
                f"{answer.value_as_typed} read as {answer.value} {scale.name}: "
                f"{self.quantity} is a count, so {scale.text} is not the dim {scale.text} here"
            )
        if answer.unit is not None or not self.count:
            return None
        found = split_scale(answer.value)
        if found is None or found.rest or not found.scale.letter:
            return None
        letter = found.scale.text
        if letter not in self.dims or self._letter_is_unit(found.scale):
            return None
        return (
            f"{answer.value} read as {found.number} × the dim {letter}: {self.quantity} is a "
            f"formula in {', '.join(sorted(self.dims))} here; for {found.number} "
            f"{found.scale.name} write "
            f"{found.number}e{len(str(found.scale.factor)) - 1}"
        )


_PERCENT = re.compile(r"\s*\\?%\s*$")


def read_claim(
    text: str,
    symbols: Mapping[str, sp.Symbol],
    syntax: str,
    scales: ScaleReading | None,
    order: str | None,
    fraction: bool = False,
    unit_ok: Callable[[Unit, str], bool] | None = None,
    body: str | None = None,
) -> tuple[Answer, Parsed, bool]:
    """Take a claim apart, as every kind's claim reader does: a trailing ``%`` off a fraction's
    value (``42%``), the value parsed over ``symbols``, an inequality refused with ``order``
    (None: a crossover, where one is an answer). ``body``: the text once the reader took its
    own words off (``params``), else ``text``; errors name ``text``.

    Returns:
        The answer, its value's parse (an infinity is read without the parser), and whether a
        percentage was read.

    Raises:
        ParseError: not text, unreadable, or an inequality refused; LimitError: too large.
    """
    if not isinstance(text, str):
        raise ParseError("claim", f"expected text, got {type(text).__name__}")
    body = text if body is None else body
    stripped = _PERCENT.sub("", body)
    percent = fraction and stripped != body and bool(stripped)
    decided: dict[str, Parsed] = {}

    def parse(value: str, what: str) -> tuple[sp.Expr, str]:
        decided[value] = parse_formula(value, symbols, syntax, what)
        return decided[value].expr, decided[value].syntax

    scale_ok = scales.allows if scales is not None else None
    answer = read_answer(stripped if percent else body, parse, unit_ok, scale_ok=scale_ok)
    if order is not None and answer.relation.is_order:
        raise ParseError(f"claim {show(text)}", order)
    parsed = decided.get(answer.value) or Parsed(answer.expr, "plain", "read as infinity")
    return answer, parsed, percent
