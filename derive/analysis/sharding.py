"""One operator's sharding at the bound dims: the collective, its bytes and time, and the
largest group before the link binds (``derive solve OP --shard DIM:P``).

Each group is the operator sharded (:func:`derive.declare.shard.shard_operator`) and analysed
like any other problem: the comparison reads those analyses, it does not recount.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.collectives import CollectiveTime
from derive.declare.collective import CollectiveKind
from derive.declare.operator import Operator, Tensor
from derive.errors import ProblemError
from derive.problem.collective_text import TensorSpec, book_text, collective
from derive.problem.mesh import Mesh

MAX_GROUPS = 24
"""The most divisors of the dim tried for the largest group."""


@dataclass(frozen=True)
class ShardRow:
    """One sharding analysed: the dim over a group, its collective and the step's bounds."""

    dim: str
    group: int
    collective: CollectiveKind
    sent: sp.Expr  # bytes one device sends
    t_comms: sp.Expr | None
    t_math: sp.Expr
    t_mem: sp.Expr
    t_lower: sp.Expr | None


@dataclass(frozen=True)
class Sharding:
    """The sharding asked for, the largest group before the link binds, the others compared."""

    row: ShardRow
    largest_group: int | None  # None: the link binds at every group tried (or no link)
    compared: tuple[ShardRow, ...] = ()


def sharding_row(dim: str, group: int, analysis: Analysis) -> ShardRow:
    """The row of one sharded operator's analysis (its one collective)."""
    (c,) = analysis.collectives
    return ShardRow(
        dim=dim,
        group=group,
        collective=c.collective.kind,
        sent=c.sent,
        t_comms=c.time,
        t_math=analysis.t_math,
        t_mem=analysis.memory.time,
        t_lower=analysis.t_lower,
    )


def link_binds(row: ShardRow) -> bool:
    """True when the collective takes longer than the compute and memory of the step."""
    if row.t_comms is None:
        return False
    return bool(row.t_comms > sp.Max(row.t_math, row.t_mem))


def largest_group(size: int, analysed: Callable[[int], ShardRow]) -> int | None:
    """The largest divisor P ≥ 2 of ``size`` (of the first :data:`MAX_GROUPS`) whose
    collective does not outlast the step's compute and memory."""
    divisors = [p for p in sp.divisors(size) if p >= 2][:MAX_GROUPS]
    fits = [p for p in divisors if not link_binds(analysed(p))]
    return max(fits) if fits else None


@dataclass(frozen=True)
class Plan:
    """One strategy of a sharded operator (``--shard 'X[B_x, D]'``): its name, the operator one
    device runs with the collectives it needs as its comms, and each in the book's notation."""

    name: str
    operator: Operator
    notation: tuple[str, ...]


def _refuse(why: str) -> NoReturn:
    raise ProblemError("--shard", why)


def _names(tensor: Tensor) -> tuple[str, ...]:
    return tuple(str(e) for e in tensor.shape)


def _specs(op: Operator, given: Sequence[TensorSpec]) -> dict[str, TensorSpec]:
    """Every tensor's spec: as given (checked against the operator), else whole."""
    tensors = {t.name: t for t in (*op.reads, *op.writes)}
    specs = {n: TensorSpec(n, tuple((d, ()) for d in _names(t))) for n, t in tensors.items()}
    for spec in given:
        if spec.name not in tensors or spec.name in [g.name for g in given if g is not spec]:
            _refuse(
                f"{spec.name!r} is not one of {op.name}'s tensors ({', '.join(tensors)}), each once"
            )
        if tuple(d for d, _ in spec.dims) != _names(tensors[spec.name]):
            _refuse(f"{spec.text()}: {op.name} holds {specs[spec.name].text()}")
        axes = [a for _, on in spec.dims for a in on]
        if spec.unreduced or len(set(axes)) < len(axes):
            _refuse(f"{spec.text()}: an axis shards one dim, and a tensor given has no {{U_..}}")
        specs[spec.name] = spec
    return specs


def plan_strategies(
    op: Operator, given: Sequence[TensorSpec], mesh: Mesh
) -> tuple[tuple[TensorSpec, ...], tuple[Plan, ...]]:
    """Every tensor's sharding and every valid strategy, by the Scaling Book's rules.

    A contracted dim sharded on one side only is all-gathered (or the other side sliced to
    match, leaving a partial sum); sharded on both sides it leaves a partial sum, reduced into
    the output's sharding (all-reduced, or reduce-scattered onto a dim the output is sharded
    on); an output dim sharded where the output is not is all-gathered. Two dims on one axis
    are refused with the book's fix.

    Raises:
        ProblemError: a tensor or dim the operator does not have, a dim sharded two ways, or
            no valid strategy (naming the all-gather that fixes it).
    """
    if op.comms or len(op.writes) != 1:
        _refuse(f"{op.name} must write one output and not communicate already")
    specs, (out,), symbols = _specs(op, given), op.writes, {str(d): d for d in op.dims}
    held = {n: dict(s.dims) for n, s in specs.items()}
    free, sizes = _names(out), {a.name: a.size for a in mesh.axes}
    first: dict[str, tuple[str, ...]] = {}
    for d in symbols:
        found = {held[t.name].get(d, ()) for t in op.reads} - {()}
        if len(found) > 1:
            _refuse(
                f"{d} is sharded on {' and on '.join(sorted(map(''.join, found)))}: shard it alike"
            )
        first[d] = next(iter(found), ())
    target = held[out.name] if out.name in [g.name for g in given] else {d: first[d] for d in free}
    specs[out.name] = TensorSpec(out.name, tuple((d, target[d]) for d in free))
    choices = [d for d in symbols if d not in free and first[d]]
    plans, clashes = [], []
    for picks in itertools.product((True, False), repeat=len(choices)):  # True: all-gather
        on = {d: () if dict(zip(choices, picks)).get(d) else first[d] for d in symbols}
        partial = tuple(a for d in symbols if d not in free for a in on[d])
        for d in free:  # slice to the output's sharding where the axis is free
            on[d] += tuple(a for a in target[d] if a not in {b for v in on.values() for b in v})
        used = [(a, d) for d in symbols for a in on[d]]
        clash = [(a, d, e) for i, (a, d) in enumerate(used) for b, e in used[i + 1 :] if a == b]
        if clash:
            clashes.append(clash[0])
            continue
        steps = [(CollectiveKind.ALL_GATHER, specs[t.name], g) for t in op.reads
                 if (g := tuple(a for d, v in specs[t.name].dims for a in v if a not in on[d]))
                 ]  # fmt: skip
        now, scattered = {d: on[d] for d in free}, tuple[str, ...]()
        for d in free:
            if axes := tuple(a for a in partial if a in target[d] and a not in now[d]):
                rs = TensorSpec(out.name, tuple(now.items()), axes)
                steps.append((CollectiveKind.REDUCE_SCATTER, rs, axes))
                now[d], scattered = now[d] + axes, scattered + axes
        if axes := tuple(a for a in partial if a not in scattered):
            ar = TensorSpec(out.name, tuple(now.items()), axes)
            steps.append((CollectiveKind.ALL_REDUCE, ar, axes))
        if axes := tuple(a for d in free for a in now[d] if a not in target[d]):
            steps.append(
                (CollectiveKind.ALL_GATHER, TensorSpec(out.name, tuple(now.items())), axes)
            )
        split = {symbols[d]: symbols[d] / sp.Mul(*(sizes[a] for a in on[d])) for d in symbols}
        local = [Tensor(t.name, tuple(e.xreplace(split) for e in t.shape), t.doc, t.width)
                 for t in (*op.reads, out)]  # fmt: skip
        named = [f"gather {' and '.join(t.name for t in op.reads if held[t.name].get(d))}"
                 if pick else f"partial sums over {''.join(first[d])}"
                 for d, pick in zip(choices, picks)]  # fmt: skip
        name = ", ".join(named) or "as sharded"
        comms = tuple(collective(k, s, a, mesh, overlap=True) for k, s, a in steps)
        doc = f"One device's share of {op.name}, as sharded. {op.doc}"
        local_op = Operator(f"{op.name}_sharded", sp.expand(op.flops.xreplace(split)),
                            tuple(local[:-1]), tuple(local[-1:]), comms, doc)  # fmt: skip
        plans.append(Plan(name, local_op, tuple(book_text(*step) for step in steps)))
    if not plans:
        a, d, e = clashes[0]
        h = next(t.name for t in op.reads if a in held[t.name].get(d, ()))
        fixed = TensorSpec(h, tuple((n, tuple(b for b in v if b != a)) for n, v in specs[h].dims))
        _refuse(f"{d} and {e} are both sharded on {a}, invalid as it stands: all-gather one "
                f"operand over {a} first, e.g. --shard '{fixed.text()}'")  # fmt: skip
    return tuple(specs.values()), tuple(plans)


def crossovers(
    times: Sequence[tuple[str, tuple[sp.Expr, ...]]], x: sp.Symbol
) -> tuple[tuple[sp.Expr, str, str], ...]:
    """Where the fastest strategy (the least max of its times, each a function of ``x`` alone)
    changes as x grows: (x, the winner below, the winner above), exact.

    >>> x = sp.Symbol("x", positive=True)
    >>> crossovers([("a", (2 * x,)), ("b", (x + 3, sp.Integer(4)))], x)
    ((3, 'a', 'b'),)
    """
    roots: set[sp.Expr] = set()
    for (_, a), (_, b) in itertools.combinations(times, 2):
        for p, r in itertools.product(a, b):
            if (p - r).has(x):
                roots.update(v for v in sp.solve(p - r, x) if v.is_real and v.is_positive)
    points = sorted(roots)
    probes = [*points[:1], *((u + v) / 2 for u, v in itertools.pairwise(points)), *points[-1:]]
    probes = (
        [p * f for p, f in zip(probes, [sp.S.Half, *[1] * (len(probes) - 2), 2])] if points else []
    )

    def best(value: sp.Expr) -> str:
        return min(times, key=lambda row: sp.Max(*row[1]).xreplace({x: value}))[0]

    won = [best(p) for p in probes]
    return tuple((v, won[i], won[i + 1]) for i, v in enumerate(points) if won[i] != won[i + 1])


@dataclass(frozen=True)
class StrategyRow:
    """One strategy analysed: its collectives in the book's notation and its times, per device."""

    name: str
    notation: tuple[str, ...]
    flops: sp.Expr
    bytes: sp.Expr
    t_math: sp.Expr
    t_mem: sp.Expr
    t_comms: sp.Expr
    t_lower: sp.Expr  # overlapped, max(T_math, T_mem, T_comms): the analysis's own T_lower
    t_upper: sp.Expr  # none overlapped: their sum
    analysis: Analysis


def strategy_row(plan: Plan, analysis: Analysis) -> StrategyRow:
    """A plan's row from its operator's analysis, its step's times when every dim is bound
    (the same T_lower as the checker's and the catalogue's: the plan's collectives overlap),
    else its formulas (T_comms: its collectives' times, summed)."""
    t_comms = sp.Add(*(c.time for c in analysis.collectives if c.time is not None))
    st, eta = analysis.step, analysis.problem.timing  # the formulas at the step's derated ceilings
    t_math, t_mem = analysis.t_math / eta.compute_efficiency, analysis.memory.time / eta.memory_efficiency  # fmt: skip
    times = ((st.t_math, st.t_mem, st.t_comms, st.t_lower, st.t_upper) if st else
             (t_math, t_mem, t_comms, sp.Max(t_math, t_mem, t_comms), t_math + t_mem + t_comms))  # fmt: skip
    return StrategyRow(plan.name, plan.notation, analysis.flops_bound, analysis.memory.bytes_bound, *times, analysis)  # fmt: skip


@dataclass(frozen=True)
class BookSharding:
    """A sharded operator in the book's notation: its tensors (spec, bytes per device), its
    strategies, the winner (None while it depends on a free dim) and where the winner changes."""

    tensors: tuple[tuple[TensorSpec, sp.Expr], ...]
    rows: tuple[StrategyRow, ...]
    strategy: StrategyRow | None
    dim: sp.Symbol | None  # the dim the crossovers are in (None: more than one dim is free)
    crossovers: tuple[tuple[sp.Expr, str, str], ...] = ()
    own: tuple[sp.Expr, ...] = ()  # under --convention scaling-book: derive's own crossovers

    @property
    def collectives(self) -> tuple[CollectiveTime, ...] | None:
        """The winner's collectives (None while the winner depends on a free dim)."""
        return None if self.strategy is None else self.strategy.analysis.collectives
