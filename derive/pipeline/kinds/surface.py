"""One surface for every kind's derivation: its values by catalogue row, as attributes too.

Every derivation record (an operator's, a kernel's, a model's, a serving step's, a
training run's, …) derives from :class:`Shown`, which gives it

- :meth:`Shown.values`: every quantity of the catalogue its kind has, keyed by the row
  (:class:`~derive.catalogue.records.Quantity`), each a :class:`Value` (exact, with its
  unit), read from the kind's JSON report at the row's ``json_path``;
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

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias

import sympy as sp

from derive.catalogue import ProblemKind, Quantity
from derive.catalogue.table import QUANTITIES
from derive.formula.units import describe_dimension
from derive.present.formats import Document, render

if TYPE_CHECKING:
    from derive.questions.records import Questions

__all__ = [
    "Exact",
    "Shown",
    "Value",
    "Worked",
    "exact_of_json",
    "quantity",
    "rows_valued_in",
    "short_repr",
]

Exact: TypeAlias = sp.Basic | bool | str
"""An exact value: a sympy number or formula, a truth, or a word (a crossover's status)."""

_BY_NAME = {row.name: row for row in QUANTITIES}
_RATIONAL = re.compile(r"-?[0-9]+(?:/[0-9]+)?")
_MISSING = object()
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


def rows_valued_in(kind: ProblemKind) -> tuple[Quantity, ...]:
    """The catalogue's rows a problem of ``kind`` has a place for in its JSON report."""
    return tuple(row for row in QUANTITIES if any(a.kind is kind for a in row.at))


def exact_of_json(node: object) -> Exact | None:
    """The exact value a JSON report holds (a number's text, ``{"exact": …}``, a truth)."""
    if isinstance(node, Mapping):
        return exact_of_json(node.get("exact")) if "exact" in node else None
    if isinstance(node, bool):
        return node
    if isinstance(node, int):
        return sp.Integer(node)
    if isinstance(node, str):
        if _RATIONAL.fullmatch(node):
            top, _, bottom = node.partition("/")
            return sp.Rational(int(top), int(bottom or "1"))
        return node if node.isidentifier() else None  # a word (a status), not a formula
    return None


def _walk_json(report: Mapping[str, Any], path: tuple[str, ...]) -> object:
    node: object = report
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _own_attribute(obj: object, key: str) -> object:
    """``obj.key`` when it is a field, a declared attribute or a mapping's key (never a
    quantity looked up)."""
    if isinstance(obj, Mapping):
        return obj.get(key, _MISSING)
    declared = is_dataclass(obj) and key in {f.name for f in fields(obj)}
    if declared or hasattr(type(obj), key):
        return getattr(obj, key)
    return _MISSING


def _unit(row: Quantity, node: object) -> str:
    if isinstance(node, Mapping) and isinstance(node.get("unit"), str):
        return str(node["unit"])
    return describe_dimension(row.dimension)[1] if row.dimension is not None else ""


class Shown:
    """The one surface of a derivation (see the module docstring).

    A subclass gives :attr:`kind`, :meth:`as_json` and :meth:`document`, and may name the
    objects an exact formula is read from (:meth:`_exact_roots`) when its JSON prints one.
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

    def markdown(self) -> str:
        """The worked solution as Markdown."""
        raise NotImplementedError

    def latex(self) -> str:
        """The worked solution as a LaTeX fragment."""
        raise NotImplementedError

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return self.latex()

    def _rows(self) -> tuple[Quantity, ...]:
        """The catalogue rows this derivation may have a value for (its kind's, by default)."""
        return rows_valued_in(self.kind.parent)

    def _report(self) -> dict:
        """The JSON report the catalogue's paths lead into (a serving step's sits under
        ``serving``)."""
        return self.as_json()

    def _exact_roots(self) -> tuple[object, ...]:
        """Objects whose attributes along a row's JSON path hold its exact formula."""
        return (self,)

    def _exact(self, row: Quantity, node: object) -> Exact | None:
        found = exact_of_json(node)
        if found is not None or node is None:
            return found
        for root in self._exact_roots():  # a formula in the JSON: the record holds it exact
            value: object = root
            for key in row.json_path(self.kind.parent):
                value = _own_attribute(value, key)
                if value is _MISSING or value is None:
                    break
            if isinstance(value, Enum):  # a status: its word, as the JSON prints it
                return str(value.value)
            if isinstance(value, sp.Basic | bool):
                return value
        return None

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
            report = self._report()
        finally:
            busy.discard(id(self))
        out: dict[Quantity, Value] = {}
        for row in self._rows():
            node = _walk_json(report, row.json_path(self.kind.parent))
            if isinstance(node, list):
                continue
            exact = self._exact(row, node)
            if exact is not None:
                out[row] = Value(row.name, exact, _unit(row, node))
        return out

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
        """What the short repr says after the record's name (its first few quantities)."""
        shown = list(self.values().values())[:3]
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
        from derive.pipeline.kinds.questions import _with_questions_md

        return _with_questions_md(
            render(self.document(title, text, level), "md"), self.questions, level
        )

    def latex(self, title: str | None = None, text: str = "") -> str:
        """The worked solution as a LaTeX fragment."""
        from derive.pipeline.kinds.questions import _with_questions_tex

        return _with_questions_tex(render(self.document(title, text), "tex"), self.questions)
