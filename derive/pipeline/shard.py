"""The way in for one operator's sharding (``derive solve OP --shard DIM:P``,
``--compare-shardings``): the sharded operator analysed like any other, and a section with
the collective, the largest group before the link binds and the shardings side by side."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from derive.analysis.analyse import Analysis, analyse
from derive.analysis.sharding import Sharding, ShardRow, largest_group, sharding_row
from derive.declare.registry import Registry
from derive.declare.shard import parse_shard, shard_operator
from derive.errors import ProblemError
from derive.present.formats import Document
from derive.present.sharding_view import sharding_document
from derive.problem.binding import ProblemSpec, bind
from derive.solution.builder import build_solution

if TYPE_CHECKING:
    from derive.pipeline import Derivation

__all__ = ["derive_sharded"]


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
