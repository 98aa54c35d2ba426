"""The kernels of a bound problem: one per operator, one per part or fused group of parts.

Fused parts (``fused=[("up", "act"), ("act", "down")]``) run as one kernel: the
connected groups of the fused pairs, in the order of their first part. Each kernel's
FLOPs, bytes and bytes sent are its parts' sums at the bound dims, read from the
analysis' byte terms (so the fused kernel does not count the intermediates it keeps
on chip).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import sympy as sp

from derive.analysis.algebra.substitution import substitute
from derive.analysis.step import Ceilings, Kernel
from derive.declare.collective import Collective
from derive.declare.composite import Composite
from derive.declare.operator import Tensor
from derive.problem.binding import Problem


class _Term(Protocol):
    @property
    def tensor(self) -> Tensor: ...

    @property
    def bytes(self) -> sp.Expr: ...


def ceilings_of(problem: Problem) -> Ceilings:
    """The problem's ceilings with its efficiencies and overheads."""
    link = problem.link.value if problem.link is not None else None
    return Ceilings.of(problem.peak.value, problem.bandwidth.value, link, problem.timing)


def _groups(layer: Composite) -> list[list[str]]:
    """Part labels grouped by the fused pairs (connected components), in part order."""
    labels = [part.label for part in layer.parts]
    root = {label: label for label in labels}

    def find(label: str) -> str:
        while root[label] != label:
            label = root[label]
        return label

    for producer, consumer in layer.fused:
        first, second = find(producer.partition(".")[0]), find(consumer.partition(".")[0])
        if first != second:
            root[max(first, second, key=labels.index)] = min(first, second, key=labels.index)
    groups: dict[str, list[str]] = {}
    for label in labels:
        groups.setdefault(find(label), []).append(label)
    return list(groups.values())


def _overlapped(tensors: Sequence[Tensor]) -> bool:
    """A kernel's transfer overlaps its compute when every collective says so.

    Plain tensors in ``comms`` are the network roofline's third ceiling: overlapped.
    """
    return bool(tensors) and all(
        tensor.overlap if isinstance(tensor, Collective) else True for tensor in tensors
    )


def _hops(tensor: Tensor) -> sp.Expr | int:
    """Link-latency steps of a transfer: a collective's ring steps; a plain comms tensor is
    a point-to-point send, one hop (latency + bytes/β_link, as a pipeline stage's send)."""
    return tensor.steps if isinstance(tensor, Collective) else 1


def _kernel(
    name: str,
    parts: tuple[str, ...],
    flops: sp.Expr,
    memory: Sequence[_Term],
    comms: Sequence[_Term],
    bound: dict[sp.Symbol, sp.Integer],
) -> Kernel:
    return Kernel(
        name=name,
        flops=substitute(flops, bound),
        bytes=substitute(sp.Add(*(term.bytes for term in memory)), bound),
        comms_bytes=substitute(sp.Add(*(term.bytes for term in comms)), bound),
        fused=len(parts) > 1,
        parts=parts,
        comms_overlapped=_overlapped([term.tensor for term in comms]),
        latency_steps=substitute(sp.Add(*(_hops(term.tensor) for term in comms)), bound),
    )


def kernels_of(
    problem: Problem, memory: Sequence[_Term], comms: Sequence[_Term]
) -> tuple[Kernel, ...]:
    """The kernels of ``problem`` at its bound dims (``memory``/``comms``: its byte terms)."""
    op, bound = problem.operator, problem.bound_subs()
    if not isinstance(op, Composite) or not op.parts:
        return (_kernel(op.name, (op.name,), op.flops, memory, comms, bound),)
    by_label = {part.label: part for part in op.parts}
    kernels = []
    for group in _groups(op):
        members = set(group)
        kernels.append(
            _kernel(
                "+".join(group),
                tuple(group),
                sp.Add(*(by_label[label].subs(by_label[label].operator.flops) for label in group)),
                [term for term in memory if op.part_of(term.tensor.name) in members],
                [term for term in comms if op.part_of(term.tensor.name) in members],
                bound,
            )
        )
    return tuple(kernels)
