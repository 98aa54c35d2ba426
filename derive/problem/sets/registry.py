"""The operators a problem set may use: built-ins, its ``[[operator]]`` tables, and (trusted) Python.

A problem set from someone else is data, not code. Its ``[[operator]]`` tables are read here:
every formula (FLOPs, shape entries) goes through :func:`derive.formula.parse_formula`, the
whitelisted parser with size limits, over the dims the table declares; byte widths are exact
decimals; then :class:`~derive.declare.operator.Operator` validates the declaration exactly
as it does in Python. A set that names Python files (``operators = ["x.py"]``) runs them only
when the caller trusts it (``derive key --trust``); otherwise :func:`set_registry` refuses in
one line that names the file and the flag.

>>> from derive.problem.sets.problem_set import parse_problem_set
>>> pset = parse_problem_set('''title = "t"
... [[operator]]
... name = "axpy"
... dims = ["N"]
... flops = "2N"
... reads = [ { name = "x", shape = ["N"] }, { name = "y", shape = ["N"] } ]
... writes = [ { name = "z", shape = ["N"] } ]
... [[problem]]
... id = "a"
... title = "t"
... operator = "axpy"
... dtype = "fp32"
... chip = "h100"''', "t.toml")
>>> set_registry(pset, trust=False).get("axpy").flops
2*N
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from derive.declare.operator import Operator, Tensor, dims
from derive.declare.registry import Registry, load_registry, operators_as_file
from derive.errors import DeclarationError, ProblemError
from derive.formula.decimals import parse_decimal
from derive.problem.sets.problem_set import ProblemSet

if TYPE_CHECKING:  # the tables' records load with a set that has [[operator]] tables
    from derive.problem.sets.operator_tables import OperatorTable, TensorTable


def _tensor(table: TensorTable, symbols: dict, where: str) -> Tensor:
    from derive.formula.reader import parse_formula

    where = f"{where} tensor {table.name!r}"
    shape = tuple(
        parse_formula(text, symbols, what=f"{where} shape entry {i + 1}").expr
        for i, text in enumerate(table.shape)
    )
    width = parse_decimal(table.width, f"{where} width") if table.width is not None else None
    return Tensor(table.name, shape, table.doc, width)


def declare_operator(table: OperatorTable) -> Operator:
    """The :class:`Operator` an ``[[operator]]`` table declares, its formulas read safely.

    Raises:
        ParseError, LimitError: a formula outside the grammar or past a size limit.
        DeclarationError: what ``Operator(...)`` refuses (named with the set's file).
    """
    from derive.formula.reader import (
        parse_formula,  # here: a set without tables does not pay its import
    )

    where = table.where
    try:
        symbols = {d.name: d for d in dims(" ".join(table.dims))}
        if len(symbols) != len(table.dims):
            raise DeclarationError("dims", "a dim is listed twice")
        flops = parse_formula(table.flops, symbols, what=f"{where} flops").expr
        return Operator(
            name=table.name,
            flops=flops,
            reads=tuple(_tensor(t, symbols, where) for t in table.reads),
            writes=tuple(_tensor(t, symbols, where) for t in table.writes),
            comms=tuple(_tensor(t, symbols, where) for t in table.comms),
            doc=table.doc,
            source=where.partition(":")[0],
        )
    except DeclarationError as exc:
        if exc.what.startswith(where):
            raise
        raise DeclarationError(f"{where}: {exc.what}", exc.why) from None


def _declare_all(tables: tuple[OperatorTable, ...]) -> tuple[Operator, ...]:
    return tuple(declare_operator(table) for table in tables)


def require_trust(pset: ProblemSet, trust: bool) -> None:
    """Refuse a set that names Python operator files unless the caller trusts it.

    Every command that reads a set calls this before anything could import one of its
    files (``derive key``, ``derive check --problem-set`` and ``--answers``, ``derive serve``).

    Raises:
        ProblemError: the set names a Python file and ``trust`` is false (names the file
            and the flag).
    """
    if pset.operators and not trust:
        raise ProblemError(
            f"problem set {pset.source!r}: operators file {str(pset.operators[0])!r}",
            "is Python code, which derive runs only with --trust; "
            "declare the operators as [[operator]] tables to share a set without code",
        )


def set_operators(
    pset: ProblemSet, trust: bool, time_limit: float | None = None
) -> tuple[str, ...]:
    """The operator files every command derives and checks a set's problems with.

    Its Python files (refused unless ``trust``), and, for its ``[[operator]]`` tables, one name
    that stands for the operators they declare (:func:`~derive.declare.registry.operators_as_file`;
    declared once per process and content). ``derive key``, ``check``, ``check --answers``,
    ``serve`` and ``publish`` all take a set's operators from here.

    With ``time_limit``, the tables are read in a worker under that budget
    (:mod:`derive.deadline`), like every other derivation.

    Raises:
        ProblemError: the set names a Python file and ``trust`` is false; an operator name
            declared twice.
        TimeLimitError: reading the tables took longer than ``time_limit`` seconds.
    """
    import hashlib

    require_trust(pset, trust)
    files = tuple(str(path) for path in pset.operators)
    tables = pset.operator_tables
    said = tuple(e for e in pset.problems if e.declared is not None)  # read with the set
    if not tables and not said:
        return files
    digest = hashlib.sha256(repr((tables, [e.spec for e in said])).encode()).hexdigest()[:12]
    name = f"[[operator]] tables of {Path(pset.source).name} {digest}"
    if name not in _NAMED:
        declared = _declare_checked(pset, tables, time_limit) if tables else ()
        _NAMED[name] = (*declared, *(e.declared for e in said if e.declared is not None))
    return (*files, operators_as_file(name, _NAMED[name]))


_NAMED: dict[str, tuple[Operator, ...]] = {}


def _declare_checked(
    pset: ProblemSet, tables: tuple[OperatorTable, ...], time_limit: float | None
) -> tuple[Operator, ...]:
    registry = load_registry(pset.operators, lazy=True)  # a built-in file runs when named
    if time_limit is None:
        declared = _declare_all(tables)
    else:
        from derive.deadline import run_with_deadline

        what = f"problem set {pset.source!r}: [[operator]] tables"
        declared = run_with_deadline(_declare_all, tables, seconds=time_limit, what=what)
    taken = {name.lower() for name in registry.names()}
    for table, op in zip(tables, declared):
        if op.name.lower() in taken:
            raise ProblemError(
                f"{table.where}: key 'name'",
                "an operator of that name exists already (names are unique ignoring case)",
            )
        taken.add(op.name.lower())
    return declared


def set_registry(pset: ProblemSet, trust: bool, time_limit: float | None = None) -> Registry:
    """Built-in operators, the set's ``[[operator]]`` tables, and its Python files if trusted:
    the registry of :func:`set_operators`.

    Raises:
        as :func:`set_operators`.
    """
    names = set_operators(pset, trust, time_limit)
    return load_registry(tuple(Path(name) for name in names), lazy=True)
