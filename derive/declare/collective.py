"""Collectives: a tensor sent through an all-reduce, all-gather, reduce-scatter or all-to-all.

A :class:`Collective` goes in an operator's ``comms`` like a tensor. It is the tensor
as declared (its full size, before any split), its kind and the size P of the group
of devices; the bytes it counts are those that leave **one device** over its link (one-way ring):

- all-reduce: a reduce-scatter then an all-gather, 2(P−1) steps of size/P each,
  so 2(P−1)/P × size;
- all-gather, reduce-scatter: P−1 steps of size/P, so (P−1)/P × size;
- all-to-all: each device holds size/P and sends P−1 of its P chunks (size/P² each) to
  the others, (P−1)/P² × size; a chunk for the device d hops on crosses d links, so the
  link out of each device carries Σ_{d=1}^{P−1} d · size/P² = (P−1)/(2P) × size, its own
  chunks and those it forwards (the most loaded link; every link alike), over P−1 steps.

Time is the bytes over a device's link (one way, per link), plus the per-step link
latency (``--link-latency``) times :attr:`Collective.steps`.

>>> from derive import Tensor, dims
>>> B, F = dims("B F")
>>> reduce = Collective("all_reduce", Tensor("Y", (B, F)), group=8)
>>> reduce.elements, reduce.steps
(7*B*F/4, 14)

The group may be a dim, as the Scaling Book writes its formulas in P (``--set P=8``
binds it; a bound P is at least 2):

>>> (P,) = dims("P")
>>> gather = Collective("all_gather", Tensor("X", (B, F)), group=P)
>>> gather.elements, gather.steps
(B*F*(P - 1)/P, P - 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import sympy as sp

from derive.declare.operator import Tensor, is_dim
from derive.errors import DeclarationError


class CollectiveKind(Enum):
    """The collectives derive times, each with its ring bytes factor and its steps."""

    ALL_REDUCE = "all_reduce"  # reduce-scatter + all-gather: 2(P−1)/P × size, 2(P−1) steps
    ALL_GATHER = "all_gather"  # (P−1)/P × size, P−1 steps
    REDUCE_SCATTER = "reduce_scatter"  # (P−1)/P × size, P−1 steps
    ALL_TO_ALL = "all_to_all"  # (P−1)/(2P) × size on the busiest link, P−1 steps
    SEND = "send"  # point to point: the whole tensor over one link, a hop per step

    def steps(self, group: Any) -> Any:
        """Steps of the ring algorithm over ``group`` devices (an int, or an expression in P)."""
        if self is CollectiveKind.SEND:
            return 1
        return 2 * (group - 1) if self is CollectiveKind.ALL_REDUCE else group - 1

    def fraction(self, group: Any) -> sp.Expr:
        """Bytes over one device's link, as a fraction of the full tensor: every path's one rule."""
        if self is CollectiveKind.SEND:
            return sp.Integer(1)
        share = self.steps(group) / sp.Integer(2 if self is CollectiveKind.ALL_TO_ALL else 1)
        return share / group if isinstance(group, int) else sp.factor(share / group)

    @property
    def rule(self) -> str:
        """The per-device bytes rule, as a worked solution names it."""
        if self is CollectiveKind.ALL_REDUCE:
            return "ring all-reduce: 2(P−1)/P × size sent per device, 2(P−1) steps"
        if self is CollectiveKind.SEND:
            return "send: the whole tensor over one link, a hop of latency per step (cut-through)"
        if self is CollectiveKind.ALL_TO_ALL:
            return (
                "ring all-to-all: each device holds size/P and sends (P−1)/P of it; a chunk of "
                "size/P² crosses as many links as its distance, so each link carries "
                "(1 + 2 + … + P−1) · size/P² = (P−1)/(2P) × size, P−1 steps"
            )
        return f"ring {self.value.replace('_', '-')}: (P−1)/P × size sent per device, P−1 steps"


def _kind(kind: object) -> CollectiveKind:
    if isinstance(kind, CollectiveKind):
        return kind
    allowed = ", ".join(repr(k.value) for k in CollectiveKind)
    if not isinstance(kind, str):
        raise DeclarationError("collective", f"the kind is one of {allowed}, got {kind!r}")
    try:
        return CollectiveKind(kind)
    except ValueError:
        raise DeclarationError(
            f"collective {kind!r}", f"unknown collective; allowed: {allowed}"
        ) from None


@dataclass(frozen=True, init=False)
class Collective(Tensor):
    """A tensor sent through a collective over ``group`` devices (ring algorithm).

    Args:
        kind: ``"all_reduce"``, ``"all_gather"``, ``"reduce_scatter"`` or ``"all_to_all"``.
        tensor: the tensor at its full size (name, shape, width are its own).
        group: P, the number of devices in the group: an integer ≥ 2, or a dim (a
            positive integer symbol from :func:`~derive.dims`) bound like any other.
        overlap: True when the transfer runs under its kernel's compute (the step
            takes max(T_math, T_mem, T_comms)); False (default) when the kernel waits
            for it (max(T_math, T_mem) + T_comms).
    """

    kind: CollectiveKind = CollectiveKind.ALL_REDUCE
    group: int | sp.Symbol = 2
    overlap: bool = False
    axes: tuple[str, ...] = ()  # the mesh axes it runs over (else the innermost, to P devices)
    hops: int = 1  # a send's hops to its peer (each a step of latency)

    def __init__(
        self,
        kind: str | CollectiveKind,
        tensor: Tensor,
        group: int | sp.Symbol,
        overlap: bool = False,
        axes: tuple[str, ...] = (),
        hops: int = 1,
    ) -> None:
        checked = _kind(kind)
        if not isinstance(tensor, Tensor) or isinstance(tensor, Collective):
            raise DeclarationError(
                f"collective {checked.value}", f"sends a Tensor, got {type(tensor).__name__}"
            )
        where = f"collective {checked.value} of {tensor.name!r}"
        if isinstance(group, sp.Integer):
            group = int(group)
        symbolic = is_dim(group)
        if not symbolic and (isinstance(group, bool) or not isinstance(group, int) or group < 2):
            raise DeclarationError(
                f"{where} group",
                f"P is an integer number of devices, at least 2, or a dim; got {group!r}",
            )
        if not isinstance(overlap, bool):
            raise DeclarationError(f"{where} overlap", "is True or False")
        Tensor.__init__(self, tensor.name, tensor.shape, tensor.doc, tensor.width)
        object.__setattr__(self, "kind", checked)
        object.__setattr__(self, "group", group)
        object.__setattr__(self, "overlap", overlap)
        object.__setattr__(self, "axes", tuple(axes))
        object.__setattr__(self, "hops", hops)

    @property
    def size(self) -> sp.Expr:
        """Elements of the full tensor (before the collective's factor)."""
        return sp.Mul(*self.shape) if self.shape else sp.Integer(1)

    @property
    def elements(self) -> sp.Expr:
        """Elements one device sends: the ring factor × the full tensor."""
        return self.kind.fraction(self.group) * self.size

    @property
    def steps(self) -> Any:
        """Steps of the ring algorithm (each costs one link latency): an int, or in P."""
        steps = self.hops if self.kind is CollectiveKind.SEND else self.kind.steps(self.group)
        return steps if isinstance(steps, int) else sp.factor(steps)

    @property
    def group_dims(self) -> tuple[sp.Symbol, ...]:
        """The dim the group is, if it is one."""
        return (self.group,) if isinstance(self.group, sp.Symbol) else ()

    def renamed(self, name: str, shape: tuple[sp.Expr, ...]) -> Collective:
        """The same collective on a renamed, reshaped tensor (a composite's part)."""
        return Collective(
            self.kind,
            Tensor(name, shape, self.doc, self.width),
            self.group,
            self.overlap,
            self.axes,
            self.hops,
        )
