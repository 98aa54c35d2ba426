"""The way in for one operator's sharding (``derive solve OP --shard DIM:P``,
``--compare-shardings``): the sharded operator analysed like any other, and a section with
the collective, the largest group before the link binds and the shardings side by side."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.algebra.substitution import substitute
from derive.analysis.analyse import Analysis, analyse
from derive.analysis.sharding import (
    BookSharding,
    Sharding,
    ShardRow,
    crossovers,
    largest_group,
    plan_strategies,
    sharding_row,
    strategy_row,
)
from derive.declare.registry import Registry
from derive.declare.shard import parse_shard, shard_operator
from derive.errors import ProblemError
from derive.present.formats import Document
from derive.present.sharding_view import book_sharding_document, sharding_document
from derive.problem.binding import Problem, ProblemSpec, bind, read_mesh
from derive.problem.collective_text import parse_tensor
from derive.solution.builder import build_solution

if TYPE_CHECKING:
    from derive.pipeline import Derivation


def derive_sharded(
    spec: ProblemSpec, registry: Registry, shard: str, compare: bool = False
) -> tuple[Derivation, tuple[tuple[str, Document], ...]]:
    """The sharded operator's derivation and the ``sharding`` section after it.

    Raises:
        ProblemError: DIM:P unreadable, an unknown dim, or a group that does not divide the
            dim's bound value (naming ``--shard``).
    """
    from derive.pipeline import Derivation

    name, group = parse_shard(shard)
    operator = registry.get(spec.operator)
    bound = {str(d): int(v) for d, v in bind(replace(spec, mesh=None), operator).bound}

    def analysed(dim: str, p: int) -> tuple[Analysis, ShardRow]:
        if dim in bound and bound[dim] % p:
            raise ProblemError(f"--shard {dim}:{p}", f"{p} does not divide {dim} = {bound[dim]}")
        analysis = analyse(bind(spec, shard_operator(operator, dim, p)))
        return analysis, sharding_row(dim, p, analysis)

    analysis, row = analysed(name, group)
    largest = None
    if name in bound and row.t_comms is not None and analysis.all_bound and spec.mesh is None:
        largest = largest_group(bound[name], lambda p: analysed(name, p)[1])
    compared: tuple[ShardRow, ...] = ()
    if compare:
        others = [str(d) for d in operator.dims if str(d) in bound and bound[str(d)] % group == 0]
        compared = tuple(analysed(dim, group)[1] for dim in others)
    sharding = Sharding(row, largest, compared)
    derivation = Derivation(analysis, build_solution(analysis), spec=spec)
    return derivation, (("sharding", sharding_document(sharding)),)


def derive_book_sharded(
    spec: ProblemSpec, registry: Registry, shards: Sequence[str]
) -> tuple[Derivation, tuple[tuple[str, Document], ...]]:
    """``--shard 'X[B_x, D]' --shard 'Y[D, F_y]'``: every valid strategy of the sharded
    operator analysed like any other problem, the winner's derivation, and the section
    (one ``DIM:P``, the shorthand: :func:`derive_sharded`)."""
    from derive.pipeline import Derivation

    if len(shards) == 1 and "[" not in shards[0]:
        return derive_sharded(spec, registry, shards[0])
    sharding = book_sharding(replace(spec, shards=tuple(shards)), registry)
    shown = replace((sharding.strategy or sharding.rows[0]).analysis, sharding=sharding)
    derivation = Derivation(shown, build_solution(shown), spec=spec)
    return derivation, (("sharding", book_sharding_document(sharding)),)


def book_sharding(spec: ProblemSpec, registry: Registry) -> BookSharding:
    """Every valid strategy of ``spec.shards`` analysed, the winner and where it changes."""
    shards, mesh = spec.shards, read_mesh(spec)
    given = [parse_tensor(text, mesh, f"--shard {text}") for text in shards]
    assert mesh is not None  # parse_tensor refuses without one
    specs, plans = plan_strategies(registry.get(spec.operator), given, mesh)
    problems = [
        bind(spec if p.operator.comms else replace(spec, mesh=None), p.operator) for p in plans
    ]
    rows = tuple(strategy_row(p, analyse(b)) for p, b in zip(plans, problems, strict=True))
    first = problems[0]
    free = [d for d in first.operator.dims if d not in first.bound_subs()]
    x = free[0] if len(free) == 1 else None if free else first.solve_for
    found: tuple = ()
    if x is not None:

        def in_x(b: Problem) -> tuple[sp.Expr, ...]:
            r = strategy_row(
                plans[0], analyse(replace(b, bound=tuple(v for v in b.bound if v[0] != x)))
            )
            return r.t_math, r.t_mem, r.t_comms

        found = crossovers([(r.name, in_x(b)) for r, b in zip(rows, problems, strict=True)], x)
    winner = None if free else min(rows, key=lambda r: r.t_lower)
    if len(free) == 1 and not found:  # one winner at every value of the free dim
        winner = min(rows, key=lambda r: r.t_lower.xreplace({free[0]: 1}))
    bound, dtypes = first.bound_subs(), dict(first.dtypes)
    held = ((s, substitute(dtypes[s.name].width * sp.Mul(*s.local(mesh)), bound)) for s in specs)
    own = ()
    if found and mesh.book:  # derive's own crossovers, printed beside the book's
        own = tuple(
            c[0] for c in book_sharding(replace(spec, convention=None), registry).crossovers
        )
    return BookSharding(tuple(held), rows, winner, x, found, own)
