"""Bytes one device sends in a training step, and their time, per parallelism and per pass.

Each dim's traffic is a list of :class:`Transfer` records (what is sent, how, how often), timed
over the dim's group on the mesh (:mod:`derive.training.mesh`; without ``--mesh`` one axis at
β_link, where a transfer's time is its bytes over β_link). bf16 on the wire.

- DP, ZeRO-0/1: one all-reduce of the gradients per step in the backward pass, 2(X−1)/X · 2·P_dev
  (ZeRO-1 as a reduce-scatter and an all-gather: the same bytes). Gradients accumulate locally
  over the M micro-batches.
- DP, ZeRO-2: a reduce-scatter of the gradients after every micro-batch's backward (the
  gradients are sharded, so they cannot accumulate whole), M·(X−1)/X · 2·P_dev, and one
  all-gather of the updated weights per step, (X−1)/X · 2·P_dev (DeepSpeed's stage 2).
- DP, ZeRO-3 (FSDP): every micro-batch gathers the weights for its forward, again for its
  backward, and reduce-scatters its gradients: 3·M·(X−1)/X · 2·P_dev (DeepSpeed's stage 3 and
  FSDP without ``no_sync``). With ``--keep-gathered-weights`` the weights are gathered once in
  the step's forward and kept (with unsharded gradients) until its last backward: one all-gather
  and one reduce-scatter per step.
- The DP group is dp · cp devices (context-parallel ranks hold the same weights) for dense
  weights, dp/ep · cp for expert weights.
- TP (Megatron): two all-reduces of the activations (2·S/cp·b·d bytes) per layer and micro-batch
  in the forward pass, two in the backward pass.
- CP (ring attention): each layer's forward passes its K and V blocks (2·2·S/cp·b·h_kv·d_h/tp
  bytes) around the ring, cp − 1 sends; the backward pass sends K, V and their gradients (twice
  that). Each ring step waits for its slowest hop.
- PP: each micro-batch's activations (1/tp per TP rank) go to the next stage in the forward
  pass and their gradients back in the backward pass, v times with v virtual stages; a middle
  stage sends both (with pp = 2 the first stage only the forward, shown). The slowest boundary
  (the outermost axis the pipeline spans) sets the pace.
- EP: a MoE layer's dispatch and combine all-to-alls of the k routed copies of each token
  (2·k·S/cp·b·d/tp bytes per TP rank), twice forward and twice backward.
- Recomputation: the backward pass repeats the forward's per-layer exchanges of what it runs
  again (:data:`RERUN`, :func:`layer_calls`): full, TP's, CP's and EP's; selective, CP's.

With M micro-batches and L/pp layers per stage (the heaviest stage's), the per-layer terms are
counted M·L/pp times.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import sympy as sp

from derive.analysis.network import (
    Exchange,
    Level,
    LevelCost,
    book_latency,
    book_time_per_byte,
    bytes_per_byte,
    calls_latency,
    level_costs,
    time_per_byte,
)
from derive.declare.collective import CollectiveKind
from derive.problem.mesh import Topology, one_axis
from derive.training.binding import Recompute, TrainingProblem, ZeroStage
from derive.training.memory import ParamsPerDevice
from derive.training.mesh import Placement, place

COMM_BYTES = sp.Integer(2)  # bf16 weights, gradients and activations on the wire
DIMS = ("dp", "tp", "pp", "ep", "cp")
"""The parallel dims whose traffic is counted, in the order the JSON lists them."""


@dataclass(frozen=True)
class Pass:
    """Bytes (or seconds) of one device in one pass, per parallelism."""

    dp: sp.Rational
    tp: sp.Rational
    pp: sp.Rational
    ep: sp.Rational
    cp: sp.Rational = sp.S.Zero

    @property
    def total(self) -> sp.Rational:
        """Every byte (second) of the pass."""
        return self.dp + self.tp + self.pp + self.ep + self.cp


@dataclass(frozen=True)
class Transfer:
    """One kind of traffic of a dim in a pass: ``calls`` exchanges of ``size`` bytes in all.

    ``size`` is V summed over the calls (the tensor each device holds before the exchange);
    ``per_micro_batch`` says whether it grows with the batch (M calls) or is once per step.
    """

    dim: str
    pass_name: str
    exchange: Exchange
    size: sp.Rational
    calls: sp.Rational
    per_micro_batch: bool
    levels: tuple[Level, ...]
    what: str
    book: sp.Expr | None = None  # --convention scaling-book: its ICI (TrainingProblem.book_ici)

    @property
    def seconds_per_byte(self) -> sp.Rational:
        """Seconds per byte of V: derive's ring formula level by level, or the book's V/W."""
        if self.book is not None:
            return book_time_per_byte(self.exchange, self.levels, self.book)
        return time_per_byte(self.exchange, self.levels)

    @property
    def bytes(self) -> sp.Rational:
        """Bytes one device sends: V times the exchange's fraction over the levels."""
        return self.size * bytes_per_byte(self.exchange, self.levels)

    @property
    def costs(self) -> tuple[LevelCost, ...]:
        """Per level, its topology's rule, its busiest link's bytes per byte of V and its steps."""
        return level_costs(self.exchange, self.levels)

    @property
    def terms(self) -> tuple[tuple[Level, sp.Rational], ...]:
        """Per level, the bytes sent over it per byte of V (the formula, level by level)."""
        return tuple((c.level, c.load) for c in self.costs)

    @property
    def latency(self) -> sp.Rational:
        """Seconds of latency: the calls times each call's hops over each level."""
        if self.book is not None:
            return self.calls * book_latency(self.exchange, self.levels, self.book)
        return self.calls * calls_latency(self.exchange, self.levels)

    @cached_property  # read by every sum over the transfers (frozen: computed once)
    def time(self) -> sp.Rational:
        """Seconds: each level's bytes over its axis's bandwidth, plus each call's latency; the
        book's the longer of the two (Inference, "Appendix C": max(T_min·X/2, B/W))."""
        if self.book is not None:
            return sp.Max(self.latency, self.size * self.seconds_per_byte)
        return self.size * self.seconds_per_byte + self.latency


@dataclass(frozen=True)
class Comms:
    """The step's bytes per device: the forward and backward passes, and per parallelism."""

    forward: Pass
    backward: Pass
    dp_fraction: sp.Rational  # the ring fraction (X−1)/X of one all-gather over the DP group
    tp_fraction: sp.Rational  # 2(t−1)/t of one all-reduce over the TP group
    activation_bytes: sp.Rational  # 2·S/cp·b·d: one micro-batch's activations at one layer boundary
    layer_visits: sp.Rational  # M · L/pp: layer passes of one device per pass
    tp_forward_count: int  # all-reduces per layer in the forward pass (2)
    tp_backward_count: int  # 2, or 4 with full recomputation (:func:`layer_calls`)
    transfers: tuple[Transfer, ...] = ()
    overlap: bool = False  # the Scaling Book's: a pass's dims overlap, the slowest sets its time

    def of(self, parallelism: str) -> sp.Rational:
        """Bytes of the step for ``dp``, ``tp``, ``pp``, ``ep`` or ``cp``."""
        return getattr(self.forward, parallelism) + getattr(self.backward, parallelism)

    @property
    def total(self) -> sp.Rational:
        """Every byte one device sends in the step."""
        return self.forward.total + self.backward.total

    def seconds(self, pass_name: str | None = None, dim: str | None = None) -> sp.Rational:
        """Time of the transfers of a pass and/or a dim (all of them by default); with
        ``overlap`` each pass's is its slowest dim's (Training, "Combining FSDP and Tensor
        Parallelism": T_comms = max(T_FSDP, T_TP))."""
        if self.overlap and dim is None:
            names = ("forward", "backward") if pass_name is None else (pass_name,)
            return sum((max(self.seconds(n, d) for d in DIMS) for n in names), sp.S.Zero)
        mine = (
            t for t in self.transfers if pass_name in (None, t.pass_name) and dim in (None, t.dim)
        )
        return sum((t.time for t in mine), sp.S.Zero)  # exact numbers: no Add to flatten

    def time_of(self, parallelism: str) -> sp.Rational:
        """Seconds of the step's traffic of one dim, each level over its own axis."""
        return self.seconds(dim=parallelism)

    def bandwidth(self, parallelism: str) -> sp.Rational:
        """β of a dim's group: its bytes over its time per byte (β_link over one axis)."""
        t = next(t for t in self.transfers if t.dim == parallelism)
        return bytes_per_byte(t.exchange, t.levels) / t.seconds_per_byte

    def scaling(self, pass_name: str, dim: str | None = None) -> tuple[sp.Rational, sp.Rational]:
        """(seconds once per step, seconds that grow with the batch) of a pass (and a dim)."""
        mine = [t for t in self.transfers if t.pass_name == pass_name and dim in (None, t.dim)]
        fixed = sum((t.time for t in mine if not t.per_micro_batch), sp.S.Zero)
        return fixed, sum((t.time for t in mine), sp.S.Zero) - fixed


def _ring(group: int) -> sp.Rational:
    """(X−1)/X, one all-gather's (or reduce-scatter's) fraction; 0 for a group of one."""
    return CollectiveKind.ALL_GATHER.fraction(group) if group > 1 else sp.Integer(0)


def _dp_plan(p: TrainingProblem) -> tuple[tuple[str, Exchange, bool, str], ...]:
    """DP's exchanges by ZeRO stage: (pass, exchange, once per micro-batch?, what)."""
    if p.zero is ZeroStage.WEIGHTS and p.keep_gathered:
        return (
            ("forward", Exchange.ALL_GATHER, False, "weights, gathered once per step and kept"),
            ("backward", Exchange.REDUCE_SCATTER, False, "gradients, once per step"),
        )
    if p.zero is ZeroStage.WEIGHTS:  # the book's B is one batch a chip: once (Training, FSDP)
        each = p.convention != "scaling-book"
        w = "every micro-batch's" if each else "the step's"
        return (
            ("forward", Exchange.ALL_GATHER, each, f"weights, {w} forward"),
            ("backward", Exchange.ALL_GATHER, each, f"weights, {w} backward"),
            ("backward", Exchange.REDUCE_SCATTER, each, f"gradients, {w[:-2]}"),
        )
    if p.zero is ZeroStage.GRADIENTS:
        return (
            ("backward", Exchange.REDUCE_SCATTER, True, "gradients, every micro-batch"),
            ("backward", Exchange.ALL_GATHER, False, "updated weights, once per step"),
        )
    return (("backward", Exchange.ALL_REDUCE, False, "gradients, once per step"),)


def _dp_transfers(p: TrainingProblem, params: ParamsPerDevice) -> list[Transfer]:
    """DP's traffic by ZeRO stage: dense weights over dp·cp, expert weights over dp/ep·cp."""
    placement = _placement(p)
    groups = (
        ("", COMM_BYTES * params.dense, placement.levels("dp", "ep", "cp")),
        (" (experts)", COMM_BYTES * params.experts, placement.levels("dp", "cp")),
    )
    out = []
    for suffix, size, levels in groups:
        if size == 0 or not levels:
            continue
        for pass_name, exchange, per_micro, what in _dp_plan(p):
            calls = p.microbatches if per_micro else sp.Integer(1)
            what += suffix
            out.append(
                Transfer("dp", pass_name, exchange, calls * size, calls, per_micro, levels, what)
            )
    return out


def _placement(p: TrainingProblem) -> Placement:
    """The run's placement without --mesh: every dim on one link, a switch when the devices
    fit in one node of the chip on its own link (chips.toml ``node_devices``: an NVSwitch)."""
    if p.placement is not None:
        return p.placement
    degrees = {"tp": p.tp, "cp": p.cp, "ep": p.ep, "pp": p.pp, "dp": p.dp // p.ep}
    chip = p.model.problem.chip
    node = chip is not None and chip.node is not None and chip.link is not None
    switch = node and p.devices <= chip.node.value and p.link == chip.link.value  # type: ignore[union-attr]
    topology = Topology.SWITCH if switch else Topology.RING
    return place(one_axis(p.devices, p.link, p.link_text, topology), degrees, None)


def _kv_block(p: TrainingProblem) -> sp.Rational:
    """Bytes of one ring-attention step: K and V of S/cp tokens, h_kv/tp heads of d_h."""
    kv = p.arch("kv_heads") or p.arch("heads")
    return 2 * COMM_BYTES * p.seq / p.cp * p.micro_batch * kv * p.arch("head_dim") / p.tp


PER_LAYER = {"tp": (2, 2), "cp": (1, 2), "ep": (2, 2)}
"""Exchanges per layer and micro-batch of the dims whose traffic is the layer's own: (forward,
backward). TP two all-reduces each way; CP's ring once forward, K, V and their gradients
backward; EP a dispatch and a combine each way."""

RERUN = {Recompute.FULL: ("tp", "cp", "ep"), Recompute.SELECTIVE: ("cp",), Recompute.NONE: ()}
"""The dims whose forward exchanges a recomputation sends again in the backward pass: what it
runs again (full: the whole layer; selective: the attention core, whose only traffic is CP's
K and V ring)."""


def layer_calls(p: TrainingProblem, dim: str) -> tuple[int, int]:
    """A dim's (forward, backward) exchanges per layer and micro-batch: the backward's own,
    plus the forward's again when the recomputation runs it again (one rule for every dim)."""
    fwd, bwd = PER_LAYER[dim]
    if dim == "tp" and p.convention == "scaling-book":  # its MLP block: an all-gather and a
        fwd, bwd = 1, 1  # reduce-scatter each way, 2·V/W (Training, "Tensor Parallelism")
    return fwd, bwd + (fwd if dim in RERUN[p.recompute] else 0)


def comms_of(p: TrainingProblem, params: ParamsPerDevice) -> Comms:
    """The bytes one device sends in a step, forward and backward, per parallelism."""
    placement = _placement(p)
    act = COMM_BYTES * p.seq / p.cp * p.micro_batch * p.arch("d_model")
    visits = p.microbatches * params.layers
    tp_frac = CollectiveKind.ALL_REDUCE.fraction(p.tp) if p.tp > 1 else sp.Integer(0)
    transfers = _dp_transfers(p, params)
    layered = (
        ("tp", True, Exchange.ALL_REDUCE, 1, act, "activations, per layer"),
        ("cp", p.transformer is not None, Exchange.SEND, p.cp - 1, _kv_block(p),
         "K and V blocks around the ring, per layer"),
        ("ep", p.is_moe, Exchange.ALL_TO_ALL, 1, p.arch("top_k") * act / p.tp,
         "dispatch and combine of the routed tokens"),
    )  # fmt: skip
    for dim, counted, exchange, steps, size, what in layered:
        levels = placement.levels(dim)
        if not (levels and counted):
            continue
        for name, count in zip(("forward", "backward"), layer_calls(p, dim), strict=True):
            calls = count * steps * visits
            transfers.append(Transfer(dim, name, exchange, calls * size, calls, True, levels, what))
    pp_levels = placement.levels("pp")
    if pp_levels:
        sends = p.microbatches * p.virtual_stages
        what = "a micro-batch's activations to the next stage"
        for name in ("forward", "backward") if p.pp > 2 else ("forward",):
            size = sends * act / p.tp
            transfers.append(
                Transfer("pp", name, Exchange.SEND, size, sends, True, pp_levels, what)
            )

    book = p.convention == "scaling-book"
    if book:  # the book's V/W over its networks (mesh.book_time_per_byte)
        transfers = [replace(t, book=p.book_ici) for t in transfers]

    def pass_bytes(name: str) -> Pass:
        per = {dim: sp.Integer(0) for dim in DIMS}
        for t in transfers:
            if t.pass_name == name:
                per[t.dim] += t.bytes
        return Pass(**per)

    passes, tp_calls = (pass_bytes("forward"), pass_bytes("backward")), layer_calls(p, "tp")
    dp_frac = _ring(p.dp * p.cp)
    return Comms(*passes, dp_frac, tp_frac, act, visits, *tp_calls, tuple(transfers), book)
