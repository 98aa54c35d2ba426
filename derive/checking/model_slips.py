"""Why a claim about a model, its serving step or its training run is wrong: the named slips.

Each row is the quantity recomputed from the same derivation with one slip applied (a table
for :func:`derive.checking.hints.earned`, which names a row only when the claim matches its
value within the tolerance, and of several the most specific alone):

- ``params``, ``params_active``, ``weights_bytes``: the tied head counted again (V·d more);
- ``kv_bytes_per_token``, ``kv_bytes``: K and V counted twice, the cache in fp32;
- a serving step's times, rates and costs: the step without its all-reduces, a decode step
  without its KV-cache read, one FLOP per multiply-add (the step's kernels composed again);
- a training run's ``t_math``, ``t_lower``, ``t_upper``, ``mfu`` and costs: 6·P·T without
  the recomputed forward, one FLOP per multiply-add (half the FLOPs), the pipeline bubble
  left out; its ``memory_per_device`` at the ZeRO stage one off.

GB read as GiB (or back) and a FLOP count's one FLOP per multiply-add are ratio rows of
:mod:`derive.checking.model_claims`, which fit every byte and FLOP quantity.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TypeAlias

import sympy as sp

from derive.analysis.step import StepTime, compose
from derive.catalogue import table as q
from derive.checking.hints import Slip
from derive.checking.serving_claims import serving_slips
from derive.checking.step_slips import seconds
from derive.checking.training_claims import training_slips
from derive.formula.decimals import fmt_decimal

if TYPE_CHECKING:
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover, PhaseAnalysis
    from derive.training.analysis import TrainingAnalysis

Timed: TypeAlias = "StepTime | TrainingAnalysis"  # a step or a run computed a slip's way (T_math, T_lower, T_upper)

_LONGER = {r.name for r in (q.T_LOWER, q.INTER_TOKEN_LATENCY, q.TTFT, q.COST_PER_STEP,
                            q.COST_PER_MILLION_TOKENS)}  # fmt: skip
_FASTER = {q.TOKENS_PER_S.name, q.PREFILL_TOKENS_PER_S.name}
_SHARDS = ("nothing", "the optimizer state", "the optimizer state and the gradients",
           "the whole state, weights too")  # fmt: skip
_MAC = "that counts one FLOP per multiply-add (half the FLOPs); a multiply-add is 2 FLOPs"
_RECOMPUTE = {
    "full": "that leaves out the recomputed forward pass: with full recomputation a step does "
    "8·P·T FLOPs, not 6·P·T (and 4 × the forward's attention, not 3 ×)",
    "selective": "that leaves out the recomputed attention core (selective recomputation runs "
    "it twice)",
}


def _named(a: ModelAnalysis, quantity: str, value: sp.Expr) -> list[Slip]:
    """The model's own: the tied head counted again, K and V twice or in fp32."""
    given = {s.name: v for s, v in a.given}
    if quantity in (q.PARAMS.name, q.PARAMS_ACTIVE.name, q.WEIGHTS_BYTES.name):
        tied = getattr(a.problem.model, "tied_embeddings", False) and a.value("P_head") is None
        per = given.get("w_weights", 1) if quantity == q.WEIGHTS_BYTES.name else 1
        table = (a.value("P_embed") or 0) * per
        why = "that counts the tied head again: the output head reuses the embedding table (V·d)"
        return [Slip(value + table if tied and table else None, why)]
    width = given.get("w_kv")
    if quantity not in (q.KV_BYTES_PER_TOKEN.name, q.KV_BYTES.name) or width is None:
        return []
    twice = "that counts K and V twice: the 2 in 2·L·h_kv·d_h·w already holds both"
    fp32 = f"the cache in fp32 (4 bytes) where it is {width} bytes an element"
    rows = [Slip(2 * value, f"{twice}; or it is {fp32}" if width == 2 else twice)]
    return rows + ([Slip(4 * value / width, f"that is {fp32}")] if width not in (2, 4) else [])


def _at_stage(s: int) -> str:
    if s == 0:
        return "without ZeRO sharding (stage 0: the whole state on every rank)"
    return f"at ZeRO stage {s}, which shards {_SHARDS[s]}"


def _rows(quantity: str, value: sp.Expr, own: Timed, slipped: list[tuple[Timed | None, str]],
          costed: bool) -> list[Slip]:  # fmt: skip
    """Each slipped step as a row of ``quantity``: a bound itself, a time, rate or cost scaled."""
    rows = []
    for times, why in slipped:
        if times is None or (not costed and quantity.startswith("cost")):
            continue
        ratio = times.t_lower / own.t_lower
        found = {q.T_MATH.name: times.t_math, q.T_UPPER.name: times.t_upper}.get(quantity)
        if found is None and quantity in _LONGER:
            found = value * ratio
        elif found is None and quantity in _FASTER:
            found = value / ratio
        rows.append(Slip(found if found != value else None, why))
    return rows


def _serving(a: ModelAnalysis, phase: PhaseAnalysis, quantity: str, value: sp.Expr) -> list[Slip]:
    """A decode or prefill step without its all-reduces, a decode step without its KV read."""
    step = phase.step
    kernels = tuple(time.kernel for time in step.kernels)
    attention = [k for k in kernels if k.parts[:1] == ("attention",)]
    kv = a.value(q.KV_BYTES.name)
    read = kv / phase.kv_ways if kv and len(attention) == 1 and phase.phase.value == "decode" else 0
    slipped: list[tuple[Timed | None, str]] = [
        (compose(tuple(replace(k, comms_bytes=0, latency_steps=0) for k in kernels), step.ceilings)
         if step.t_comms else None,
         f"that leaves out the step's all-reduces (TP over {phase.tp} devices: "
         f"{seconds(step.t_comms)} of communication)"),
        (compose(tuple(replace(k, bytes=k.bytes - read) if k in attention else k for k in kernels),
                 step.ceilings) if read else None,
         "that leaves out the KV-cache read: a decode step reads the batch's whole cache"),
        (compose(tuple(replace(k, flops=k.flops / 2) for k in kernels), step.ceilings), _MAC),
    ]  # fmt: skip
    measured = phase.measured is not None or phase.measured_tokens_per_s is not None
    return _rows(quantity, value, step, slipped, not measured)


def _training(t: TrainingAnalysis, quantity: str, value: sp.Expr) -> list[Slip]:
    """A training run recomputed the slip's way: no recompute, half the FLOPs, no bubble;
    its memory at the ZeRO stage one off."""
    from derive.training.analysis import analyse_training
    from derive.training.binding import Recompute, ZeroStage
    from derive.training.memory import memory_of

    p = t.problem
    if quantity == q.MEMORY_PER_DEVICE.name:
        z = int(p.zero)
        return [
            Slip(memory_of(replace(p, zero=ZeroStage(s)), t.params).total if p.dp > 1 else None,
                 f"that is the memory {_at_stage(s)}; stage {z} shards {_SHARDS[z]} over the "
                 f"{p.dp} DP ranks")
            for s in sorted({0, z - 1, z + 1} - {z, -1, 4})
        ]  # fmt: skip
    rows = [Slip(t.mfu / 2, _MAC)] if quantity == q.MFU.name and t.mfu is not None else []
    slots = p.virtual_stages * p.microbatches
    passes = [
        replace(s, compute=s.compute / (1 + t.bubble_over_ideal)) for s in (t.forward, t.backward)
    ]
    slipped: list[tuple[Timed | None, str]] = [
        (analyse_training(replace(p, recompute=Recompute.NONE), same=t) if t.flops_recompute else None,
         _RECOMPUTE.get(p.recompute.value, "")),
        (analyse_training(replace(p, peak=2 * p.peak), same=t), _MAC),
        (replace(t, t_lower=max(sum(s.compute + s.exposed for s in passes), sum(s.comms for s in passes))
                 if p.schedule == "dualpipe" else sum(s.bound for s in passes),
                 t_upper=sum(s.compute + s.comms for s in passes))
         if p.pp > 1 else None,
         f"that leaves out the pipeline bubble: each of the {p.pp} stages idles "
         f"{p.pp - 1} of {slots + p.pp - 1} slots" if p.schedule == "1f1b"
         else f"that leaves out the {p.schedule} bubble, {fmt_decimal(t.bubble_over_ideal)} of the ideal time"),
    ]  # fmt: skip
    return rows + _rows(quantity, value, t, slipped, p.measured_time is None)


def model_slips(
    a: ModelAnalysis,
    phase: PhaseAnalysis | DecodeCrossover | None,
    run: TrainingAnalysis | None,
    quantity: str,
) -> list[Slip]:
    """The named slips of a claim about ``quantity`` (the model's, its step's or its run's),
    then the serving step's and the training run's other tables (ties go to the first)."""
    extra = [*(serving_slips(phase, quantity) if phase else ()), *(training_slips(run, quantity) if run else ())]  # fmt: skip
    value = a.value(quantity)
    if not isinstance(value, sp.Expr) or not value.is_number:
        return extra
    rows = _named(a, quantity, value)
    if phase is not None and phase.kind.roofline:
        rows += _serving(a, phase, quantity, value)  # type: ignore[arg-type]
    return rows + (_training(run, quantity, value) if run is not None else []) + extra
