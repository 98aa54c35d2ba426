"""One surface for every kind's derivation: its values by catalogue row, as attributes too.

Every derivation record (an operator's, a kernel's, a model's, a serving step's, a
training run's, …) derives from :class:`Shown`, which gives it

- :meth:`Shown.values`: every quantity of the catalogue its kind has, keyed by the row
  (:class:`~derive.catalogue.records.Quantity`), each a :class:`Value` (exact, with its
  unit), read from the derivation's records along the row's ``read_path`` (never from its
  JSON: the report prints what the records hold);
- attribute access by the row's name or any alias (``m.params.exact``,
  ``step.tokens_per_s.exact``, ``run.bubble_fraction.exact``), the same :class:`Value`;
  a record that declares its quantities as attributes (an operator's ``d.t_lower``) does
  so with :func:`quantity`, which reads :meth:`Shown.values` too (one path), and a
  :class:`Value` stands in for its exact sympy value where code used one;
- Markdown, LaTeX and Jupyter views from its :meth:`~Shown.document`, and a short repr
  (one line under :data:`REPR_LIMIT` characters).

>>> from derive.pipeline import solve_model
>>> m = solve_model("gpt2-small")
>>> m.params.exact, m.params.unit
(124439808, 'parameters')
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import sympy as sp

from derive.catalogue import ProblemKind, Quantity
from derive.catalogue.reading import Exact, read_values, rows_valued_in
from derive.catalogue.table import QUANTITIES
from derive.formula.units import describe_dimension
from derive.present.formats import Document, render

if TYPE_CHECKING:
    from derive.questions.records import Questions

_BY_NAME = {row.name: row for row in QUANTITIES}
_LOCK = threading.RLock()
"""Held while a record's values are computed: each is computed once, whatever the threads."""
_BUSY = threading.local()
"""The ids of the records this thread is computing the values of."""


@dataclass(frozen=True, eq=False)
class Value:
    """One quantity of a derivation: its catalogue name, its exact value and its unit.

    It stands in for its exact value where a sympy value was expected (an operator's
    ``d.t_lower`` was one): ``sympy.sympify`` takes it (``_sympy_``), arithmetic,
    comparisons, ``float``, ``int``, ``str`` and ``format`` act on ``exact``, it equals its
    exact value, and any other public attribute is the exact value's (``d.intensity.subs``,
    ``d.t_mem.free_symbols``). ``repr`` names it with its unit; Jupyter shows it in LaTeX.

    >>> v = Value("t_lower", sp.Rational(1, 989), "s")
    >>> v, v.exact, str(v), 2 * v, v < 1, float(v) == 1 / 989
    (<t_lower = 1/989 s>, 1/989, '1/989', 2/989, True, True)
    >>> sp.sympify(v) == v == sp.Rational(1, 989)
    True

    Attributes:
        name: the catalogue row's name (``params``, ``t_lower``).
        exact: the exact value (a sympy Rational or formula, a truth, or a word).
        unit: the unit the exact value is in (``s``, ``B``, ``parameters``; "" for a ratio).
    """

    name: str
    exact: Exact
    unit: str = ""

    def __repr__(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"<{self.name} = {self.exact}{unit}>"

    def __str__(self) -> str:
        return str(self.exact)

    def __format__(self, spec: str) -> str:
        return format(self.exact, spec)

    def __float__(self) -> float:
        return float(self.exact)  # only a number converts

    def __int__(self) -> int:
        return int(self.exact)  # only a number converts

    def __bool__(self) -> bool:
        return bool(self.exact)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Value):
            return (self.name, self.exact, self.unit) == (other.name, other.exact, other.unit)
        return bool(self.exact == other)

    def __hash__(self) -> int:
        return hash(self.exact)

    def _sympy_(self) -> sp.Basic:
        if isinstance(self.exact, str):  # a word (a status) is no sympy value
            raise sp.SympifyError(self.exact)
        if isinstance(self.exact, bool):
            return sp.true if self.exact else sp.false
        return self.exact

    def _latex(self, printer: Any) -> str:
        return str(printer._print(self._sympy_()))

    def _repr_latex_(self) -> str:
        from derive.solution.notation import tex

        row = _BY_NAME.get(self.name)
        name = self.name.replace("_", r"\_")
        symbol = row.latex if row is not None and row.latex else rf"\text{{{name}}}"
        exact = rf"\text{{{self.exact}}}" if isinstance(self.exact, str | bool) else tex(self.exact)
        unit = rf"\ \text{{{self.unit}}}" if self.unit else ""
        return f"${symbol} = {exact}{unit}$"

    def _repr_markdown_(self) -> str:
        """Its LaTeX line, with a decimal reading of a fraction (``≈ 1.3897e-04 s``)."""
        exact = self.exact
        fraction = isinstance(exact, sp.Rational) and not isinstance(exact, sp.Integer)
        return f"{self._repr_latex_()} ≈ {_short(self)}" if fraction else self._repr_latex_()

    # Arithmetic and order act on the exact value (a sympy value, as ``d.t_lower`` was).
    def __add__(self, other: object) -> Any:
        return self._x + _plain(other)

    def __radd__(self, other: object) -> Any:
        return _plain(other) + self._x

    def __sub__(self, other: object) -> Any:
        return self._x - _plain(other)

    def __rsub__(self, other: object) -> Any:
        return _plain(other) - self._x

    def __mul__(self, other: object) -> Any:
        return self._x * _plain(other)

    def __rmul__(self, other: object) -> Any:
        return _plain(other) * self._x

    def __truediv__(self, other: object) -> Any:
        return self._x / _plain(other)

    def __rtruediv__(self, other: object) -> Any:
        return _plain(other) / self._x

    def __pow__(self, other: object) -> Any:
        return self._x ** _plain(other)

    def __rpow__(self, other: object) -> Any:
        return _plain(other) ** self._x

    def __neg__(self) -> Any:
        return -self._x

    def __abs__(self) -> Any:
        return abs(self._x)

    def __lt__(self, other: object) -> Any:
        return self._x < _plain(other)

    def __le__(self, other: object) -> Any:
        return self._x <= _plain(other)

    def __gt__(self, other: object) -> Any:
        return self._x > _plain(other)

    def __ge__(self, other: object) -> Any:
        return self._x >= _plain(other)

    @property
    def _x(self) -> Any:
        """The exact value, for the operators above (a word or a truth raises as sympy does)."""
        return self.exact

    def __getattr__(self, name: str) -> Any:
        """Any other public attribute is the exact value's (``.subs``, ``.free_symbols``)."""
        if name.startswith("_") or name in ("name", "exact", "unit"):
            raise AttributeError(name)  # a field not yet set (unpickling) is never looked up
        return getattr(self.exact, name)


def _plain(value: object) -> Any:
    """The exact value of a :class:`Value`, anything else as it is."""
    return value.exact if isinstance(value, Value) else value


def quantity(row: Quantity, doc: str) -> property:
    """A record's attribute for one catalogue quantity: its :class:`Value` from
    :meth:`Shown.values` (the one path every surface reads), None where it has none (a time
    while a dim is unbound)."""

    def get(self: Shown) -> Value | None:
        return self.values().get(row)

    return property(get, doc=f"{doc} (a :class:`Value`; None where it has none).")


class Shown:
    """The one surface of a derivation (see the module docstring).

    A subclass gives :attr:`kind`, :meth:`as_json` and :meth:`document`, and names the
    records its rows read their values from (:meth:`_roots`).
    """

    questions: Questions | None = None

    @property
    def kind(self) -> ProblemKind:
        """The kind of problem this derivation answers."""
        raise NotImplementedError

    def document(self, *args: Any, **kwargs: Any) -> Document:
        """The worked solution as one document."""
        raise NotImplementedError

    def as_json(self) -> dict:
        """The JSON report."""
        raise NotImplementedError

    def markdown(self, *args: Any, **kwargs: Any) -> str:
        """The worked solution as Markdown (its document's, by default)."""
        return render(self.document(*args, **kwargs), "md")

    def latex(self) -> str:
        """The worked solution as a LaTeX fragment (its document's, by default)."""
        return render(self.document(), "tex")

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return self.latex()

    def _rows(self) -> tuple[Quantity, ...]:
        """The catalogue rows this derivation may have a value for (its kind's, by default)."""
        return rows_valued_in(self._row_kind)

    @property
    def _row_kind(self) -> ProblemKind:
        """The kind whose rows it reads: its own when it has any, else its parent's (a
        decode's crossover reads the serving step's)."""
        return self.kind if rows_valued_in(self.kind) else self.kind.parent

    def _roots(self) -> tuple[object, ...]:
        """The records a row's read path (:meth:`~derive.catalogue.records.Quantity.read_path`)
        starts from, in order: the first that holds a value gives it (none by default)."""
        return ()

    def _unit(self, row: Quantity) -> str:
        """The unit of a row's value: its dimension's base unit ("" for a plain number)."""
        return describe_dimension(row.dimension)[1] if row.dimension is not None else ""

    def values(self) -> Mapping[Quantity, Value]:
        """Every catalogue quantity this derivation has a value for, by row, exact with its unit
        (computed once, under a lock: concurrent readers see the same values)."""
        cached = self.__dict__.get("_values")
        if cached is None:
            with _LOCK:
                cached = self.__dict__.get("_values")
                if cached is None:
                    cached = self.__dict__["_values"] = self._computed()  # a plain dict: it pickles
        return MappingProxyType(cached)

    def _computed(self) -> dict[Quantity, Value]:
        busy = _BUSY.__dict__.setdefault("ids", set())
        busy.add(id(self))
        try:
            found = read_values(self._row_kind, self._roots(), self._rows())
        finally:
            busy.discard(id(self))
        return {row: Value(row.name, exact, self._unit(row)) for row, exact in found.items()}

    def value(self, name: str) -> Value:
        """The value of one quantity, by its catalogue name or an alias.

        Raises:
            AttributeError: this derivation has no such quantity (its quantities named).
        """
        for row, value in self.values().items():
            if name == row.name or name in row.aliases:
                return value
        known = ", ".join(row.name for row in self.values())
        raise AttributeError(
            f"{type(self).__name__} has no quantity {name!r}; it has: {known or 'none'}"
        )

    def __getattr__(self, name: str) -> Value:
        if name.startswith("_") or _busy(self):
            raise AttributeError(name)
        return self.value(name)

    def _headline(self) -> str:
        """What the short repr says after the record's name: its first few quantities that
        its kind takes (a kernel's counts, given, are no headline), else its first few."""
        used = [v for row, v in self.values().items() if row.uses(self._row_kind)]
        shown = (used or list(self.values().values()))[:3]
        return ", ".join(f"{v.name} = {_short(v)}" for v in shown) or "no quantities"

    def __repr__(self) -> str:
        return short_repr(f"<{type(self).__name__}: {self._headline()}>")


REPR_LIMIT = 200
"""A result's ``repr`` is one line shorter than this (its worked solution is the long view)."""


def short_repr(text: str) -> str:
    """``text`` on one line, cut to fewer than :data:`REPR_LIMIT` characters (``…>``)."""
    line = " ".join(text.split())
    return line if len(line) < REPR_LIMIT else f"{line[: REPR_LIMIT - 3]}…>"


def _busy(record: Shown) -> bool:
    """Whether this thread is computing the record's values (an attribute missed meanwhile
    is not a quantity: it is refused, never looked up again)."""
    return id(record) in _BUSY.__dict__.get("ids", ())


def _short(value: Value) -> str:
    exact = value.exact
    if isinstance(exact, sp.Rational) and not isinstance(exact, sp.Integer):
        from derive.formula.decimals import fmt_decimal

        text = fmt_decimal(exact)
    else:
        text = str(exact)
    return f"{text} {value.unit}".rstrip()


class Worked(Shown):
    """A derivation titled as a section, followed by its questions (givens, defined
    quantities, equations): an operator's, a comms-only operator's, a whole model's."""

    def markdown(self, title: str | None = None, text: str = "", level: int = 2) -> str:
        """The worked solution as Markdown."""
        from derive.present.questions_view import with_questions

        return render(
            with_questions(self.document(title, text, level), self.questions, level + 1), "md"
        )

    def latex(self, title: str | None = None, text: str = "") -> str:
        """The worked solution as a LaTeX fragment."""
        from derive.present.questions_view import with_questions

        return render(with_questions(self.document(title, text), self.questions), "tex")
