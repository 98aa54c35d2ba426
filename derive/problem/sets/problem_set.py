"""Problem sets: a TOML file of problems (the keys are a contract).

Top level: optional ``title`` (default: the file's name), optional ``operators`` (Python
files, paths relative to the file; run only when trusted), optional ``[[operator]]`` tables
(operators as data, see :mod:`derive.problem.sets.operator_tables`), optional ``[[model]]`` tables
(whole models as data, see :mod:`derive.problem.sets.model_tables`), ``[[problem]]`` tables.
Every key is checked: an unknown key, a wrong type or a TOML syntax error is a one-line
error naming the file, the problem id and the key (the checks: :mod:`derive.problem.sets.checks`);
every error in the file is reported at once (up to :data:`~derive.problem.sets.errors.MAX_ERRORS`).
A problem's ``title`` defaults to its id. A problem is an operator's (``operator = …``), a
whole model's (``model = …``) or a kernel's given by its numbers (``kernel = { flops, bytes }``,
see :mod:`derive.problem.sets.kernels`). Operator and model problems may add givens,
defined quantities and equations (``given``, ``define``, ``equations``, ``unknowns``: see
:mod:`derive.problem.question_spec`); a problem with none of operator, model or kernel is
those alone (a :class:`QuestionEntry`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from derive.catalogue import ProblemKind, Use, did_you_mean, find, names_for
from derive.catalogue.groups import ask_key
from derive.declare.operator import Operator
from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import parse_decimal, parse_positive
from derive.lazy import lazy_getattr
from derive.problem.binding import ProblemSpec
from derive.problem.question_spec import QUESTION_KEYS, QuestionSpec, question_spec
from derive.problem.sets.checks import NATIVE_TABLES, check_keys, problem_head, str_map
from derive.problem.sets.errors import raise_collected
from derive.problem.sets.toml_file import loads_toml, read_toml_text
from derive.problem.timing import TIMING_KEYS, TimingSpec, bind_timing, timing_error_in_keys

if TYPE_CHECKING:  # each kind of table's parser loads when a set has such a table
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec
    from derive.problem.sets.kernels import KernelEntry
    from derive.problem.sets.model_tables import ModelTable
    from derive.problem.sets.natives import NativeEntry
    from derive.problem.sets.operator_tables import OperatorTable
    from derive.problem.sets.variants import Variants
    from derive.problem.train_spec import TrainSpec


MAX_PROBLEMS = 500


# ``KernelEntry`` is still importable from here, from the module that parses kernels
# (loaded only for a set with kernels).
__getattr__ = lazy_getattr(globals(), {"kernels": "KernelEntry"})


EXPECT_KEYS = names_for(ProblemKind.OPERATOR, Use.EXPECT)
ASK_KEYS = names_for(ProblemKind.OPERATOR, Use.ASK)
# A whole-model problem (``model = "NAME"``): the flags of ``derive model`` as keys.
MODEL_ASK_KEYS = names_for(ProblemKind.MODEL, Use.ASK)
_TOP = {
    "title": str,
    "operators": list,
    "operator": list,
    "model": list,
    "problem": list,
    "text": str,
    "variants": dict,
}
_PROBLEM = {
    "id": str,
    "title": str,
    "text": str,
    "operator": str,
    "dtype": str,
    "dtypes": dict,
    "compute": str,
    "chip": str,
    "peak": str,
    "bandwidth": str,
    "link_bandwidth": str,
    "mesh": str,
    "convention": str,
    "collective": str,
    "shard": list,
    "layers": int | str,
    "regime": str,
    "set": dict,
    "solve_for": str,
    "ask": list,
    "plot": dict,
    "expect": dict,
    **{name: str for name in TIMING_KEYS},
    **QUESTION_KEYS,
}
_QUESTION_PROBLEM = {
    "id": str,
    "title": str,
    "text": str,
    "ask": list,
    "expect": dict,
    **QUESTION_KEYS,
}
_PLOT = {"over": str, "from": int, "to": int, "series": list, "title": str}
_SERIES = {"label": str, "set": dict}


def unknown_quantity(where: str, name: object, allowed: tuple[str, ...]) -> ProblemError:
    """The error of an ``ask`` or ``expect`` naming no quantity of its kind, with a suggestion."""
    hint = did_you_mean(name, allowed)
    return ProblemError(where, f"unknown quantity {name!r}{hint}; allowed: {', '.join(allowed)}")


@dataclass(frozen=True)
class PlotSeries:
    """One curve of a plot: a label and the dims bound for it."""

    label: str
    sets: tuple[str, ...]


@dataclass(frozen=True)
class PlotSpec:
    """Attainable FLOP/s against one dim, over [start, stop], for several series."""

    over: str
    start: int
    stop: int
    series: tuple[PlotSeries, ...]
    title: str = ""


@dataclass(frozen=True)
class ProblemEntry:
    """One problem of a set."""

    id: str
    title: str
    text: str
    spec: ProblemSpec
    ask: tuple[str, ...]
    plot: PlotSpec | None
    questions: QuestionSpec | None = None
    expect: tuple[tuple[str, str], ...] = ()  # of its quantities: formulas in its dims, numbers
    # its collective = "AllGather_y(A[E_y, F])", read once as its operator (named spec.operator)
    declared: Operator | None = field(default=None, compare=False, repr=False)

    @property
    def kind(self) -> ProblemKind:
        """An operator problem."""
        return ProblemKind.OPERATOR


@dataclass(frozen=True)
class QuestionEntry:
    """A problem of givens, definitions and equations alone (no operator, model or kernel)."""

    id: str
    title: str
    text: str
    ask: tuple[str, ...]
    questions: QuestionSpec

    @property
    def kind(self) -> ProblemKind:
        """Givens, defined quantities and equations alone."""
        return ProblemKind.QUESTIONS

    @property
    def spec(self) -> QuestionSpec:
        """The problem as typed: its questions."""
        return self.questions


@dataclass(frozen=True)
class ModelEntry:
    """One whole-model problem of a set (``model = "NAME"``)."""

    id: str
    title: str
    text: str
    spec: ModelSpec
    ask: tuple[str, ...]
    serving: ServingSpec | None = None
    train: TrainSpec | None = None
    expect: tuple[tuple[str, str], ...] = ()
    questions: QuestionSpec | None = None

    @property
    def kind(self) -> ProblemKind:
        """A serving step (``phase``) or a training run (``train``) when it has one, else a whole model."""
        if self.train is not None:
            return ProblemKind.TRAINING
        return ProblemKind.MODEL if self.serving is None else ProblemKind.SERVING


@dataclass(frozen=True)
class ProblemSet:
    """A parsed problem set: operator problems, kernels given by their numbers, then whole models."""

    title: str
    text: str
    operators: tuple[Path, ...]
    problems: tuple[ProblemEntry, ...]
    source: str
    models: tuple[ModelEntry, ...] = ()
    operator_tables: tuple[OperatorTable, ...] = ()
    kernels: tuple[KernelEntry, ...] = ()
    questions: tuple[QuestionEntry, ...] = ()
    natives: tuple[NativeEntry, ...] = ()  # budgets and what-ifs (issue 36)
    tolerances: tuple[tuple[str, str, str], ...] = ()  # (problem id, quantity or "", rtol)
    order: tuple[str, ...] = ()  # every problem's id, in the file's (the teacher's) order
    variants: Variants | None = None  # a variant per student (issue 47): variants.py

    def rtol(self, problem: str, quantity: str | None) -> str | None:
        """The tolerance a problem's ``rtol`` sets for ``quantity`` (its own first), or None."""
        found = {q: text for p, q, text in self.tolerances if p.lower() == str(problem).lower()}
        return found.get(quantity or "", found.get(""))

    def number(self, pid: str) -> int:
        """A problem's number, from 1, in the file's order (the key, the sheet, the workbook)."""
        return self.order.index(pid) + 1 if pid in self.order else len(self.order) + 1

    def entries(self) -> tuple[ProblemEntry | KernelEntry | ModelEntry, ...]:
        """Every problem of a kind, grouped: operators, kernels, models (the file's order is
        :attr:`order`; the key, the sheet and the workbook follow it)."""
        return (*self.problems, *self.kernels, *self.models)

    def every_entry(
        self,
    ) -> tuple[ProblemEntry | KernelEntry | ModelEntry | NativeEntry | QuestionEntry, ...]:
        """Every problem: the kinds, then budgets and what-ifs, then givens and equations alone."""
        return (*self.entries(), *self.natives, *self.questions)


_SPEC_TEXTS = (
    *("compute", "chip", "peak", "bandwidth", "link_bandwidth", "mesh", "convention", "regime"),
)
"""An operator problem's keys read as typed, by ProblemSpec's field of that name."""


def _plot(raw: dict, where: str) -> PlotSpec:
    check_keys(raw, _PLOT, f"{where} plot")
    for key in ("over", "series"):
        if key not in raw:
            raise ProblemError(f"{where} plot", f"missing key {key!r}")
    start, stop = raw.get("from", 1), raw.get("to", 4096)
    if not 1 <= start < stop <= 10**9:
        raise ProblemError(f"{where} plot", "needs 1 <= from < to <= 1e9")
    series = []
    for i, s in enumerate(raw["series"]):
        at = f"{where} plot series {i + 1}"
        if not isinstance(s, dict):
            raise ProblemError(at, 'must be a table { label = "…", set = { D = 4096 } }')
        check_keys(s, _SERIES, at)
        series.append(
            PlotSeries(s.get("label", f"series {i + 1}"), str_map(s.get("set", {}), at, "set", int))
        )
    if not series or len(series) > 12:
        raise ProblemError(f"{where} plot", "needs 1 to 12 series")
    return PlotSpec(raw["over"], start, stop, tuple(series), raw.get("title", ""))


def collective_name(pid: str) -> str:
    """The operator a problem's ``collective = "AllGather_y(A[E_y, F])"`` declares for it."""
    return "collective_" + re.sub(r"\W", "_", pid)


def _problem(raw: object, index: int, origin: str, seen: set[str]) -> ProblemEntry:
    pid, where, raw = problem_head(raw, index, origin, seen, _PROBLEM, "operator")
    if "dtype" in raw and "dtypes" in raw:
        raise ProblemError(where, "give 'dtype' or 'dtypes', not both")
    dtypes = ((raw["dtype"],) if "dtype" in raw else ()) + str_map(
        raw.get("dtypes", {}), where, "dtypes", str
    )
    questions = questions_of(raw, where, EXPECT_KEYS)
    defined = questions.answers if questions is not None else ()
    for key in raw.get("expect", {}):
        if key not in EXPECT_KEYS + defined:
            raise unknown_quantity(f"{where}: key 'expect'", key, EXPECT_KEYS + defined)
    ask = asked_keys(raw.get("ask", ()), ProblemKind.OPERATOR, questions)
    for item in ask:
        if item not in ASK_KEYS + defined:
            raise unknown_quantity(f"{where}: key 'ask'", item, ASK_KEYS + defined)
    sets = str_map(raw.get("set", {}), where, "set", int)
    timing = TimingSpec(**{name: raw.get(name) for name in TIMING_KEYS})
    given = {key: raw.get(key) for key in (*_SPEC_TEXTS, "solve_for")}
    book = str(raw.get("convention", "derive")).strip().lower()
    if book not in ("derive", "scaling-book") or (book != "derive" and "mesh" not in raw):
        why = "derive or scaling-book" if book != "scaling-book" else "it times a mesh: add 'mesh'"
        raise ProblemError(f"{where}: key 'convention'", why)
    if "collective" in raw and raw["operator"] != collective_name(pid):
        raise ProblemError(where, "give 'operator' or 'collective', not both")
    shards = tuple(map(str, raw.get("shard", ())))  # read on the mesh when it is derived
    layers = str(raw["layers"]) if "layers" in raw else None  # read when it is derived
    spec = ProblemSpec(
        raw["operator"], dtypes, sets=sets, timing=timing, shards=shards, layers=layers, **given
    )
    spec, declared = replace(spec, collective=raw.get("collective")), None
    if spec.collective is not None:  # read once, here, so an error names the problem and its key
        from derive.problem.binding import read_mesh
        from derive.problem.collective_text import parse_collective

        try:
            op = parse_collective(spec.collective, read_mesh(spec))
        except ProblemError as error:
            raise ProblemError(f"{where}: key 'collective'", error.why) from None
        declared = Operator(spec.operator, op.flops, op.reads, op.writes, op.comms, op.doc)
    try:
        bind_timing(spec.timing)  # checked here so the error names the problem
    except DeriveError as error:
        raise timing_error_in_keys(error, where) from None
    plot = _plot(raw["plot"], where) if "plot" in raw else None
    expect = tuple((k, str(v)) for k, v in raw.get("expect", {}).items() if k in EXPECT_KEYS)
    title, text = raw.get("title", pid), raw.get("text", "")
    return ProblemEntry(pid, title, text, spec, ask, plot, questions, expect, declared)


def asked_keys(ask: object, kind: ProblemKind, questions: QuestionSpec | None) -> tuple[str, ...]:
    """A problem's ``ask`` by the keys it means: a quantity's catalogue name or alias reads as
    the ask that shows it (an operator's ``t_lower`` as ``bounds``); a defined name stays."""
    defined = questions.answers if questions is not None else ()
    items = tuple(ask) if isinstance(ask, list | tuple) else ()
    keys = (
        item if not isinstance(item, str) or item in defined else ask_key(kind, item) or item
        for item in items
    )
    return tuple(dict.fromkeys(keys))


def questions_of(table: dict, where: str, builtin: tuple[str, ...]) -> QuestionSpec | None:
    """The givens, definitions and equations of a problem (``expect`` of defined names)."""
    expect = {k: v for k, v in table.get("expect", {}).items() if k not in builtin}
    spec = question_spec(table, where, expect)
    if spec is None and expect:
        raise unknown_quantity(f"{where}: key 'expect'", next(iter(expect)), builtin)
    if spec is not None:
        for name, _ in spec.expect:
            if name not in spec.answers:
                raise ProblemError(
                    f"{where}: key 'expect' ({name})",
                    f"not a defined quantity or unknown; those are: {', '.join(spec.answers)}",
                )
    return spec


def _question_problem(raw: object, index: int, origin: str, seen: set[str]) -> QuestionEntry:
    """A problem of givens, definitions and equations alone."""
    pid, where, table = problem_head(raw, index, origin, seen, _QUESTION_PROBLEM, "id")
    questions = questions_of(table, where, ())
    if questions is None or not questions.answers:
        raise ProblemError(
            where,
            "a problem needs 'operator', 'model' or 'kernel', or else 'define' or "
            "'equations' with 'unknowns' (a problem of givens and equations alone)",
        )
    ask = tuple(table.get("ask", ()))
    for item in ask:
        if item not in questions.answers:
            raise unknown_quantity(f"{where}: key 'ask'", item, questions.answers)
    return QuestionEntry(pid, table.get("title", pid), table.get("text", ""), ask, questions)


def parse_problem_set(
    text: str, origin: str, base: Path | None = None, errors: list[DeriveError] | None = None
) -> ProblemSet:
    """Parse problem-set TOML text; ``base`` resolves ``operators`` paths.

    A problem with an error is left out and its error appended to ``errors`` when that
    list is given (so a caller can add the errors it finds later and report them all);
    otherwise every problem's errors are raised together.
    """
    return problem_set_of(loads_toml(text, origin), origin, base, errors)


def problem_set_of(
    data: dict, origin: str, base: Path | None = None, errors: list[DeriveError] | None = None
) -> ProblemSet:
    """The problem set of parsed TOML tables (see :func:`parse_problem_set`)."""
    check_keys(data, _TOP, origin)
    problems = data.get("problem", [])
    if not problems or len(problems) > MAX_PROBLEMS:
        raise ProblemError(origin, f"needs 1 to {MAX_PROBLEMS} [[problem]] tables")
    ops = []
    for p in data.get("operators", []):
        if not isinstance(p, str):
            raise ProblemError(f"{origin}: key 'operators'", "must be a list of paths (strings)")
        ops.append((base or Path(".")) / p)
    model_tables: tuple[ModelTable, ...] = ()
    if "model" in data:
        from derive.problem.sets.model_tables import parse_model_tables

        model_tables = parse_model_tables(data["model"], origin)
    seen: set[str] = set()
    entries: list[ProblemEntry] = []
    models: list[ModelEntry] = []
    kernels: list[KernelEntry] = []
    alone: list[QuestionEntry] = []
    natives: list[NativeEntry] = []
    found: list[DeriveError] = []
    tolerances: list[tuple[str, str, str]] = []
    order: list[str] = []
    for i, raw in enumerate(problems):
        try:
            if isinstance(raw, dict) and {"rtol", "vary"} & set(raw):  # vary: variants_table's
                raw = {k: v for k, v in raw.items() if k != "vary"}
                if "rtol" in raw:
                    tolerances += _tolerances(raw.pop("rtol"), raw, f"{origin}: problem {i + 1}")
            if isinstance(raw, dict) and set(raw) & set(NATIVE_TABLES):
                from derive.problem.sets.natives import native_problem

                natives.append(native_problem(raw, i, origin, seen))
            elif isinstance(raw, dict) and "kernel" in raw:
                from derive.problem.sets.kernels import kernel_problem

                kernels.append(kernel_problem(raw, i, origin, seen))
            elif isinstance(raw, dict) and "model" in raw and "operator" not in raw:
                from derive.problem.sets.model_problems import model_problem

                models.append(model_problem(raw, i, origin, seen, base, model_tables))
            elif isinstance(raw, dict) and "operator" not in raw and set(raw) & set(QUESTION_KEYS):
                alone.append(_question_problem(raw, i, origin, seen))
            else:
                if isinstance(raw, dict) and "collective" in raw and "operator" not in raw:
                    raw = {**raw, "operator": collective_name(str(raw.get("id")))}  # the book's
                entries.append(_problem(raw, i, origin, seen))
            order.append(raw["id"])  # parsed: a table with its id
        except ProblemError as exc:
            found.append(exc)
    if errors is None:
        raise_collected(origin, found)
    else:
        errors.extend(found)
    tables: tuple[OperatorTable, ...] = ()
    if "operator" in data:
        from derive.problem.sets.operator_tables import parse_operator_tables

        tables = parse_operator_tables(data["operator"], origin)
    title = data.get("title", Path(origin).stem)
    variants = None
    if "variants" in data or any(isinstance(p, dict) and "vary" in p for p in problems):
        from derive.problem.sets.variants import variants_table

        variants = variants_table(data.get("variants"), data, origin, base)
    return ProblemSet(
        title,
        data.get("text", ""),
        tuple(ops),
        tuple(entries),
        origin,
        tuple(models),
        tables,
        tuple(kernels),
        tuple(alone),
        tuple(natives),
        tuple(tolerances),
        tuple(order),
        variants,
    )


def _tolerances(value: object, raw: dict, where: str) -> list[tuple[str, str, str]]:
    """A problem's ``rtol``: ``"0"`` for all its quantities, or ``{ params = "0", … }``.

    Raises:
        ProblemError: not a decimal string from 0 to less than 1, or an unknown quantity.
    """

    pid = str(raw.get("id", ""))
    given = {"": value} if not isinstance(value, dict) else value
    known = {n for kind in ProblemKind for n in names_for(kind, Use.CHECK)}
    parts = (raw.get("define"), raw.get("unknowns"))
    known |= {
        k for part in parts if isinstance(part, dict | list) for k in part if isinstance(k, str)
    }
    out = []
    for quantity, text in given.items():
        what = f"{where}: key 'rtol'" + (f" {quantity!r}" if quantity else "")
        if quantity and quantity not in known:
            raise unknown_quantity(what, quantity, tuple(sorted(known)))
        if not isinstance(text, str) or not 0 <= parse_decimal(text, what) < 1:
            raise ProblemError(what, 'must be a decimal string from "0" (exact only) to below "1"')
        out.append((pid, str(quantity), text))
    return out


def load_problem_set(path: Path, errors: list[DeriveError] | None = None) -> ProblemSet:
    """Read (bounded: a regular file, a size cap) and parse a problem-set file.

    ``errors``: see :func:`parse_problem_set`.
    """
    text = read_toml_text(path, f"problem set {str(path)!r}")
    return parse_problem_set(text, str(path), path.parent, errors)


def exact_expect(expect: dict, where: str, allowed: tuple = ()) -> tuple[tuple[str, str], ...]:
    """A problem's ``expect`` of exact values as text (a kernel's, a model's, a budget's, a
    what-if's): a positive decimal or fraction as text, a whole number, a truth, or a value
    with a unit as a claim is written (``"16 GB"``, ``"12.5 ms"``: :func:`_in_own_unit`).

    Raises:
        ProblemError: a name not ``allowed`` (when given), any other value, naming the key.
    """
    out = []
    for name, value in expect.items():
        if allowed and name not in allowed:
            raise unknown_quantity(f"{where}: key 'expect'", name, allowed)
        what = f"{where}: key 'expect' ({name})"
        value = _in_own_unit(name, value, what) if isinstance(value, str) else value
        try:
            for part in value.split("/", 1) if isinstance(value, str) else ():
                parse_positive(part.strip(), name)
            if not isinstance(value, str | int):
                raise ProblemError(name, "must be a string")
        except DeriveError:
            raise ProblemError(
                what,
                'an exact value: a positive decimal or a fraction as text ("1/989", "0.0025"), '
                'a value with its unit ("16 GB", "12.5 ms"), a whole number or true/false',
            ) from None
        out.append((name, str(value).lower() if isinstance(value, bool) else str(value)))
    return tuple(out)


def _in_own_unit(name: str, value: str, what: str) -> str:
    """A value written with a unit, read as the claim reader reads an answer
    (:func:`derive.formula.answer.read_answer`: ``16 GB``, ``12.5 ms``, ``3.2 TB/s``), as
    the exact number of the quantity's own unit (bytes, seconds, days, …) in text
    (``16000000000``, ``1/80``); any other text is returned as written (refused after).

    Raises:
        ProblemError: its unit measures something other than ``name``.
    """
    from derive.formula import answer, reader, units

    plain = lambda text, w: (reader.parse_formula(text, {}, "plain", w).expr, "plain")  # noqa: E731
    try:
        read = answer.read_answer(value, plain)
    except DeriveError:
        return value
    row, unit, said = find(name), read.unit, units.describe_dimension
    if unit is None or row is None or not read.expr.is_Rational or read.relation.is_order:
        return value
    if unit.dimension is not row.dimension:
        dim = row.dimension or units.Dimension.COUNT
        own = "a plain number" if dim is dim.COUNT else f"{said(dim)[0]}, in {row.display_unit}"
        raise ProblemError(what, f"{value!r} is {said(unit.dimension)[0]}, but {name} is {own}")
    shown = units.parse_unit(row.display_unit)  # the quantity's own unit: days count 86400 s
    per = shown.factor if shown is not None and shown.dimension is unit.dimension else 1
    return str(read.expr * unit.factor / per)
