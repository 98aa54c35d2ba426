"""Composite operators: a layer as a sequence of operators with their dims mapped.

>>> from derive import dims
>>> from derive.declare.operator import Operator, Tensor
>>> B, D, F = dims("B D F")
>>> mm = Operator(name="mm", flops=2*B*D*F, reads=[Tensor("X", (B, D)), Tensor("Y", (D, F))], writes=[Tensor("Z", (B, F))])
>>> d, = dims("d")
>>> mlp = Composite(name="mlp", parts=[("up", mm, {D: d, F: 4*d}), ("down", mm, {D: 4*d, F: d})], fused=[("up", "down")])
>>> [t.name for t in mlp.reads], [t.name for t in mlp.writes]
(['up_X', 'up_Y', 'down_Y'], ['down_Z'])

A composite is an ``Operator``: FLOPs and bytes are the sums over its parts, so it
is derived, keyed and checked like any operator. Tensors are renamed
``<part>_<tensor>``. A fused pair keeps the producer's output on chip: that write
and the consumer's matching read are neither written nor read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import sympy as sp

from derive.declare.operator import NAME_RE, Operator, Tensor, is_dim
from derive.errors import DeclarationError

DimMap: TypeAlias = "Mapping[sp.Symbol, sp.Expr | int]"
PartSpec: TypeAlias = "Part | tuple[Operator, DimMap] | tuple[str, Operator, DimMap]"
"""A part as declared: ``(operator, {dim: expr})``, ``(label, operator, {dim: expr})`` or a Part."""


@dataclass(frozen=True)
class Part:
    """One part of a composite: a label, an operator and its dims mapped to the layer's."""

    label: str
    operator: Operator
    mapping: tuple[tuple[sp.Symbol, sp.Expr], ...]

    def subs(self, expr: sp.Expr) -> sp.Expr:
        """An expression of the part's operator in the layer's dims."""
        return expr.xreplace(dict(self.mapping))  # simultaneous by construction, and fast


def _part(raw: object, index: int, where: str, used: set[str]) -> Part:
    if isinstance(raw, Part):
        label, operator, mapping = raw.label, raw.operator, dict(raw.mapping)
    elif isinstance(raw, (tuple, list)) and len(raw) == 2:
        (operator, mapping), label = raw, None
    elif isinstance(raw, (tuple, list)) and len(raw) == 3:
        label, operator, mapping = raw
    else:
        raise DeclarationError(
            f"{where} part {index + 1}",
            "a part is (operator, {dim: expr}) or (label, operator, {dim: expr})",
        )
    if not isinstance(operator, Operator):
        raise DeclarationError(
            f"{where} part {index + 1}", f"expected an Operator, got {type(operator).__name__}"
        )
    label = label or operator.name
    if label in used and not isinstance(raw, Part) and len(raw) == 2:
        number = 2
        while f"{label}{number}" in used:
            number += 1
        label = f"{label}{number}"
    if not isinstance(label, str) or not NAME_RE.match(label) or label in used:
        raise DeclarationError(f"{where} part {label!r}", "part labels are distinct identifiers")
    used.add(label)
    if not isinstance(mapping, dict):
        raise DeclarationError(
            f"{where} part {label!r}", "the dim mapping is a dict {dim: expression}"
        )
    pairs = []
    for dim, expr in mapping.items():
        if dim not in operator.dims:
            raise DeclarationError(
                f"{where} part {label!r}",
                f"maps {dim}, which operator {operator.name!r} does not have (its dims: {', '.join(map(str, operator.dims))})",
            )
        if isinstance(expr, int) and not isinstance(expr, bool):
            expr = sp.Integer(expr)
        if not isinstance(expr, sp.Expr) or any(not is_dim(s) for s in expr.free_symbols):
            raise DeclarationError(
                f"{where} part {label!r}",
                f"maps {dim} to {expr!r}: use an expression in dims made with derive.dims",
            )
        pairs.append((dim, expr))
    return Part(label, operator, tuple(pairs))


def _endpoint(spec: str, parts: dict[str, Part], kind: str, where: str) -> tuple[str, str | None]:
    label, _, tensor = spec.partition(".")
    if label not in parts:
        raise DeclarationError(
            f"{where} fused {spec!r}", f"no part {label!r}; parts: {', '.join(parts)}"
        )
    names = [
        t.name
        for t in (parts[label].operator.writes if kind == "write" else parts[label].operator.reads)
    ]
    if tensor and tensor not in names:
        raise DeclarationError(
            f"{where} fused {spec!r}",
            f"part {label!r} {kind}s no tensor {tensor!r} ({', '.join(names)})",
        )
    return label, tensor or None


def _fusions(fused: Sequence[object], parts: dict[str, Part], where: str) -> set[tuple[str, str]]:
    """(label, tensor) pairs that stay on chip: producer writes and consumer reads."""
    dropped: set[tuple[str, str]] = set()
    for pair in fused:
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(end, str) for end in pair)
        ):
            raise DeclarationError(
                f"{where} fused",
                "each fused entry is (producer, consumer), e.g. ('up', 'down') or ('up.Z', 'down.X')",
            )
        (producer_label, producer_tensor), (consumer_label, consumer_tensor) = (
            _endpoint(pair[0], parts, "write", where),
            _endpoint(pair[1], parts, "read", where),
        )
        producer, consumer = parts[producer_label], parts[consumer_label]
        writes = [t for t in producer.operator.writes if producer_tensor in (None, t.name)]
        reads = [t for t in consumer.operator.reads if consumer_tensor in (None, t.name)]
        match = [
            (written, read)
            for written in writes
            for read in reads
            if sp.expand(producer.subs(written.elements) - consumer.subs(read.elements)) == 0
        ]
        if not match:
            raise DeclarationError(
                f"{where} fused {tuple(pair)!r}",
                "no output of the producer has as many elements as an input of the consumer",
            )
        written, read = match[0]
        dropped |= {(producer_label, written.name), (consumer_label, read.name)}
    return dropped


def _flat(part: Part, tensors: tuple[Tensor, ...], dropped: set[tuple[str, str]]) -> list[Tensor]:
    return [
        t.renamed(f"{part.label}_{t.name}", tuple(part.subs(s) for s in t.shape))
        for t in tensors
        if (part.label, t.name) not in dropped
    ]


@dataclass(frozen=True, init=False)
class Composite(Operator):
    """A layer: parts ``(operator, {dim: expr})`` or ``(label, operator, {dim: expr})``, optionally fused.

    Args:
        name: the layer's name.
        parts: the operators in order, each with its dims mapped to the layer's dims.
        fused: ``(producer, consumer)`` pairs (``"up"`` or ``"up.Z"``) whose intermediate stays on chip.
        doc: one line saying what the layer is and its conventions.
    """

    parts: tuple[Part, ...] = ()
    fused: tuple[tuple[str, str], ...] = ()
    owners: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def __init__(
        self,
        name: str,
        parts: Sequence[PartSpec],
        fused: Sequence[tuple[str, str]] = (),
        doc: str = "",
        source: str = "",
    ) -> None:
        where = f"composite {name!r}"
        if not isinstance(parts, (tuple, list)) or not parts:
            raise DeclarationError(where, "needs a non-empty list of parts")
        used: set[str] = set()
        checked = tuple(_part(raw, index, where, used) for index, raw in enumerate(parts))
        by_label = {part.label: part for part in checked}
        dropped = _fusions(tuple(fused), by_label, where)
        reads: list[Tensor] = []
        writes: list[Tensor] = []
        comms: list[Tensor] = []
        owners: list[tuple[str, str]] = []
        for part in checked:
            for bucket, tensors in (
                (reads, part.operator.reads),
                (writes, part.operator.writes),
                (comms, part.operator.comms),
            ):
                flat = _flat(part, tensors, dropped)
                bucket.extend(flat)
                owners.extend((t.name, part.label) for t in flat)
        object.__setattr__(self, "parts", checked)
        object.__setattr__(self, "fused", tuple(tuple(pair) for pair in fused))
        object.__setattr__(self, "owners", tuple(dict.fromkeys(owners)))
        flops = sp.Add(*(part.subs(part.operator.flops) for part in checked))
        Operator.__init__(
            self,
            name=name,
            flops=flops,
            reads=tuple(reads),
            writes=tuple(writes),
            comms=tuple(comms),
            doc=doc,
            source=source,
        )

    def part_of(self, tensor: str) -> str:
        """The label of the part a (renamed) tensor belongs to."""
        return dict(self.owners)[tensor]


def unfused(composite: Composite) -> Composite:
    """The same layer with every intermediate written and read back."""
    return Composite(
        name=f"{composite.name}_unfused", parts=composite.parts, fused=(), doc=composite.doc
    )
