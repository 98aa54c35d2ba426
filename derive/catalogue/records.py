"""The records of the quantity catalogue: one :class:`Quantity` per name derive answers.

A quantity is declared once, in :mod:`derive.catalogue.table`; every stage from
``problem`` on reads its facts from the row instead of spelling them again:

- ``name``: the key everywhere (a problem set's ``ask``/``expect``, ``--quantity``, JSON);
- ``aliases``: other spellings a derivation's left side may use (``I``, ``\\pi/\\beta``);
- ``latex``/``plain``: its symbol; ``dimension``: what it measures (None: an ask topic,
  a group of steps rather than one value);
- ``prose``: how a sentence names it (``ridge point``); ``meaning``: what it is, in a
  notation table (a model's quantities); ``rule``: the rule its step prints;
- ``computation``/``roof``: how the checker computes it from FLOPs over bytes;
- ``at``: per problem kind, what takes it (:class:`Use`: ``ask``, ``expect``, ``derive
  check``, the workbook's answer box), the question sheet's phrase, the box, and the
  quantities an ask shows;
- ``slips``: the names of the slips its checker knows (the code stays in ``checking/``);
- ``family``: the quantity whose names a left side may also use for it (``I`` for the
  network intensity);
- ``exactness``: what kind of value it is, which decides how a number claimed for it is
  judged (:class:`Exactness`: a measure within the tolerance, a count exactly, a crossing
  within the tolerance and its first integer exactly);
- ``unit``/``counts``: its display unit when not its dimension's (:data:`DISPLAY_UNITS`),
  and for a count of things, what it counts (``parameters``, ``sequences``, ``devices``:
  the unit word of a model report's JSON).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum, Flag, auto

from derive.catalogue.kinds import ProblemKind
from derive.formula.units import Dimension

_NAME = re.compile(r"[a-z][a-z0-9_]*")


class Use(Flag):
    """What takes a quantity in one kind of problem."""

    NONE = 0
    ASK = 1  # a problem set's ``ask`` (a question sheet asks it; the key shows its steps)
    EXPECT = 2  # a problem set's ``expect`` (an answer checked when the key is built)
    CHECK = 4  # ``derive check --quantity NAME`` judges a claim about it
    BOX = 8  # the workbook shows an answer box for it


class Computation(Enum):
    """What computation a checked quantity is, from FLOPs over bytes and hardware numbers."""

    FLOPS = auto()  # the numerator: FLOPs
    BYTES = auto()  # the denominator: bytes
    INTENSITY = auto()  # FLOPs / bytes
    RIDGE = auto()  # peak / bandwidth
    CROSSOVER = auto()  # where FLOPs / bytes = peak / bandwidth, solved for one dim
    COMPUTE_TIME = auto()  # FLOPs / peak
    TRANSFER_TIME = auto()  # bytes / bandwidth
    STEP_TIME = auto()  # a bound of the step's kernels: Σ per-kernel times
    UTILISATION = auto()  # a measured rate over its ceiling (MFU, MBU)
    ANALYSED = auto()  # read from the analysis: the attribute of the quantity's name, exact


class Exactness(Enum):
    """What kind of value a quantity is: how a number claimed for it is judged."""

    MEASURE = "measure"  # a real measure: right within the relative tolerance
    COUNT = "count"  # a floor or a ceiling (the largest batch that fits): the integer, exactly
    CROSSING = "crossing"  # a real crossing (B* ≈ 120.1) within the tolerance; the smallest
    # integer past it (B ≥ 121) exactly


class Roof(Enum):
    """Which bandwidth a quantity's roof uses."""

    MEMORY = "memory"
    NETWORK = "network"


@dataclass(frozen=True)
class Box:
    """A workbook answer box: its label, LaTeX symbol ("" when the label says it), placeholder.

    An operator's placeholder may hold ``{dims}`` (the free dims) and ``{others}``
    (the free dims besides the one a crossover is solved for); a symbol may hold ``{x}``.
    """

    label: str
    latex: str
    placeholder: str


@dataclass(frozen=True)
class At:
    """A quantity in one kind of problem.

    Attributes:
        kind: the kind of problem.
        uses: what takes it there.
        phrase: what a question sheet asks for it ("the ridge point of the hardware").
        box: its workbook answer box there, if it has one.
        shows: for an ask, the quantities whose boxes it shows (None: itself, when boxed).
        prose: how a sentence names it there, when not as the row's ``prose``.
        needs: what a problem of this kind must give for it to have a value ("" always has).
        json: where its value sits in this kind's JSON report, a dotted path (""
            the name; a serving step's reports sit under ``serving``).
        latex: its symbol there, when not the row's ``latex`` (a budget's N for ``params``).
        read: where its value sits in the kind's records, a dotted path of attributes,
            mapping keys or one-argument getters (``comms.of(cp)``); "" the JSON path.
    """

    kind: ProblemKind
    uses: Use
    phrase: str = ""
    box: Box | None = None
    shows: tuple[str, ...] | None = None
    prose: str = ""
    needs: str = ""
    json: str = ""
    latex: str = ""
    read: str = ""


DISPLAY_UNITS: dict[Dimension, str] = {
    Dimension.FLOPS: "FLOP",
    Dimension.BYTES: "byte",
    Dimension.TIME: "s",
    Dimension.INTENSITY: "FLOP/byte",
    Dimension.FLOP_RATE: "FLOP/s",
    Dimension.BYTE_RATE: "byte/s",
    Dimension.TOKEN_RATE: "tokens/s",
    Dimension.COUNT: "",
}
"""The display unit of a quantity of each dimension, unless its row names another (the one
unit table: derive/questions/quantities.py, a training run's values and the model
records' units agree with it, tests/catalogue/test_unit_tables.py)."""


@dataclass(frozen=True)
class Quantity:
    """One quantity derive answers, declared once (see the module docstring)."""

    name: str
    prose: str
    dimension: Dimension | None
    at: tuple[At, ...]
    latex: str = ""
    plain: str = ""
    aliases: tuple[str, ...] = ()
    rule: str = ""
    computation: Computation | None = None
    roof: Roof = Roof.MEMORY
    slips: tuple[str, ...] = ()
    family: str = ""
    meaning: str = ""
    exactness: Exactness = Exactness.MEASURE
    unit: str | None = None
    counts: str = ""

    @property
    def display_unit(self) -> str:
        """The unit its value is shown and stated in (JSON ``unit``, a defined quantity's
        measure): ``unit`` when the row gives one, else its dimension's
        (:data:`DISPLAY_UNITS`); ``""`` for a plain number."""
        if self.unit is not None:
            return self.unit
        return DISPLAY_UNITS[self.dimension] if self.dimension is not None else ""

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"quantity {self.name!r}: a name is lower-case letters, digits and _")
        kinds = [a.kind for a in self.at]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"quantity {self.name!r}: a kind is listed twice")
        if self.name in self.aliases:
            raise ValueError(f"quantity {self.name!r}: its name is listed as an alias")

    def uses(self, kind: ProblemKind) -> Use:
        """What takes this quantity in a problem of ``kind`` (``Use.NONE`` when nothing)."""
        return next((a.uses for a in self.at if a.kind is kind), Use.NONE)

    def in_kind(self, kind: ProblemKind) -> At:
        """The quantity in a problem of ``kind``.

        Raises:
            KeyError: the kind has no such quantity.
        """
        found = next((a for a in self.at if a.kind is kind), None)
        if found is None:
            raise KeyError(f"{self.name} in {kind.value}")
        return found

    def latex_in(self, kind: ProblemKind) -> str:
        """Its symbol in a problem of ``kind`` (``N`` for a budget's ``params``, else ``P``)."""
        return next((a.latex for a in self.at if a.kind is kind and a.latex), self.latex)

    def prose_in(self, kind: ProblemKind) -> str:
        """How a sentence names it in a problem of ``kind`` (``ridge point π/β`` for a kernel)."""
        return next((a.prose for a in self.at if a.kind is kind and a.prose), self.prose)

    def json_path(self, kind: ProblemKind) -> tuple[str, ...]:
        """The keys that lead to its value in the JSON report of a problem of ``kind``."""
        at = self.in_kind(kind)
        default = f"serving.{self.name}" if kind is ProblemKind.SERVING else self.name
        return tuple((at.json or default).split("."))

    def read_path(self, kind: ProblemKind) -> tuple[str, ...]:
        """The steps that lead to its value in the records of a problem of ``kind`` (its JSON
        path, a serving step's without ``serving``, unless the kind names its own)."""
        at = self.in_kind(kind)
        path = tuple(at.read.split(".")) if at.read else self.json_path(kind)
        return path[1:] if not at.read and kind is ProblemKind.SERVING else path

    def spellings(self) -> tuple[str, ...]:
        """Every spelling a left side may use for it: its name first, then its aliases."""
        return (self.name, *self.aliases)
