"""Bytes one device sends in a training step, per parallelism and per pass (ring collectives, bf16).

Conventions (the Scaling Book's): gradients accumulate locally over the M micro-batches and
are reduced once per step; ZeRO-3 gathers the weights once per pass per step (a framework
that re-gathers them for every micro-batch sends M times as much).

- DP, ZeRO ≤ 2: one all-reduce of the gradients in the backward pass, 2(X−1)/X · 2·P_dev
  (ZeRO-1/2 do it as a reduce-scatter and an all-gather of the weights: the same bytes).
- DP, ZeRO-3: an all-gather of the weights in the forward pass, (X−1)/X · 2·P_dev; in the
  backward pass another all-gather and a reduce-scatter of the gradients, 2(X−1)/X · 2·P_dev.
- TP (Megatron): two all-reduces of the activations (2·S·b·d bytes) per layer and micro-batch
  in the forward pass (after the attention output and the MLP down projection), two in the
  backward pass, and two more there when full recomputation runs the forward again.
- PP: each micro-batch's activations (2·S·b·d bytes, 1/tp per TP rank) go to the next stage
  in the forward pass and their gradients back in the backward pass; a middle stage sends
  both (with pp = 2 the first stage only the forward, shown).
- EP: a MoE layer's dispatch and combine all-to-alls of the k routed copies of each token
  (2·k·S·b·d/tp bytes per TP rank), twice forward and twice backward.

With M micro-batches and L/pp layers per stage, the per-layer terms are counted M·L/pp times.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.declare.collective import CollectiveKind
from derive.training.binding import Recompute, TrainingProblem, ZeroStage
from derive.training.memory import ParamsPerDevice

__all__ = ["COMM_BYTES", "Comms", "Pass", "comms_of"]

COMM_BYTES = sp.Integer(2)  # bf16 weights, gradients and activations on the wire


@dataclass(frozen=True)
class Pass:
    """Bytes one device sends in one pass, per parallelism."""

    dp: sp.Rational
    tp: sp.Rational
    pp: sp.Rational
    ep: sp.Rational

    @property
    def total(self) -> sp.Rational:
        """Every byte of the pass."""
        return self.dp + self.tp + self.pp + self.ep


@dataclass(frozen=True)
class Comms:
    """The step's bytes per device: the forward and backward passes, and per parallelism."""

    forward: Pass
    backward: Pass
    dp_fraction: sp.Rational  # the ring fraction (X−1)/X of one all-gather over the DP group
    tp_fraction: sp.Rational  # 2(t−1)/t of one all-reduce over the TP group
    activation_bytes: sp.Rational  # 2·S·b·d: one micro-batch's activations at one layer boundary
    layer_visits: sp.Rational  # M · L/pp: layer passes of one device per pass
    tp_forward_count: int  # all-reduces per layer in the forward pass (2)
    tp_backward_count: int  # 2, or 4 with full recomputation

    def of(self, parallelism: str) -> sp.Rational:
        """Bytes of the step for ``dp``, ``tp``, ``pp`` or ``ep``."""
        return getattr(self.forward, parallelism) + getattr(self.backward, parallelism)

    @property
    def total(self) -> sp.Rational:
        """Every byte one device sends in the step."""
        return self.forward.total + self.backward.total


def _ring(group: int) -> sp.Rational:
    """(X−1)/X, one all-gather's (or reduce-scatter's) fraction; 0 for a group of one."""
    return CollectiveKind.ALL_GATHER.fraction(group) if group > 1 else sp.Integer(0)


def _dp(p: TrainingProblem, params: ParamsPerDevice) -> tuple[sp.Rational, sp.Rational]:
    """(forward, backward) DP bytes: dense weights over dp, expert weights over dp/ep."""
    gather = _ring(p.dp) * COMM_BYTES * params.dense
    gather += _ring(p.dp // p.ep) * COMM_BYTES * params.experts
    if p.zero is ZeroStage.WEIGHTS:
        return gather, 2 * gather
    return sp.Integer(0), 2 * gather


def comms_of(p: TrainingProblem, params: ParamsPerDevice) -> Comms:
    """The bytes one device sends in a step, forward and backward, per parallelism."""
    d = p.arch("d_model")
    act = COMM_BYTES * p.seq * p.micro_batch * d
    visits = p.microbatches * params.layers
    tp_frac = CollectiveKind.ALL_REDUCE.fraction(p.tp) if p.tp > 1 else sp.Integer(0)
    tp_fwd, tp_bwd = 2, 2 + (2 if p.recompute is Recompute.FULL else 0)
    pp_msg = p.microbatches * act / p.tp if p.pp > 1 else sp.Integer(0)
    ep_size = p.arch("top_k") * act / p.tp if p.is_moe else sp.Integer(0)
    ep_each = 2 * visits * _ring(p.ep) * ep_size
    dp_fwd, dp_bwd = _dp(p, params)
    return Comms(
        forward=Pass(dp_fwd, tp_fwd * visits * tp_frac * act, pp_msg, ep_each),
        backward=Pass(
            dp_bwd, tp_bwd * visits * tp_frac * act, pp_msg if p.pp > 2 else sp.Integer(0), ep_each
        ),
        dp_fraction=_ring(p.dp),
        tp_fraction=tp_frac,
        activation_bytes=act,
        layer_visits=visits,
        tp_forward_count=tp_fwd,
        tp_backward_count=tp_bwd,
    )
