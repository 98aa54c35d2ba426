"""A training step on a cluster: one pure function from a bound run to a frozen record.

:func:`analyse_training` derives, exactly: the parameters and memory per device
(:mod:`derive.training.memory`) with the fit, the headroom and the smallest ``dp`` and
ZeRO stage that fit; the bytes each device sends (:mod:`derive.training.comms`); the
step's times; the critical batch; and what a measured step time implies.

Times per device. ``F_model = 6·P_act·T + F_attn`` for ``T`` tokens (2 forward + 4 backward
FLOPs per parameter a token uses and per token: the backward pass computes the gradients of
the activations and of the weights, 2 each). ``F_attn = 3·F_attn,fwd``: the forward's scores
and values, ``(T/S)·n_pairs·f`` for the (query, key) pairs the mask keeps in a sequence over
every layer (causal: ``S(S+1)/2`` a full layer, ``Σ_i min(i, W)`` a windowed one; no mask:
``S·min(S, W)``) at ``f`` FLOPs a pair (:meth:`~derive.model.transformer.Transformer.pair_flops`,
latent attention per head), and their gradients, twice the forward (none under the Scaling
Book's 6ND). Recomputation adds hardware FLOPs, not model FLOPs: the whole forward again
(``2·P_act·T + F_attn,fwd``) with ``full``, the attention core's forward with ``selective``. ``t_math = F_hw/(N·π)``, ``t_comms`` = bytes
sent / ``β_link`` on one link, on a mesh the sum of each dim's traffic timed over its own axes
(:class:`~derive.training.comms.Transfer`). A pass's communication overlaps only that pass's compute,
and only where the schedule lets it: DP's reduction the backward pass, ZeRO-3's gathers the
previous layer's compute, PP's sends the next micro-batch's, CP's ring and EP's all-to-alls
the attention and experts around them; TP's all-reduces sit between a layer's matmuls, each
waits on the one before, so without ``--overlap-tp`` they are exposed: a pass takes at least
its compute plus its exposed traffic, and at least all its traffic (one device's links send
it in turn), so ``t_lower = Σ_passes max(compute + exposed, comms)`` and ``t_upper`` is the serial sum; with a
pipeline both stretch the compute by ``(v·M + pp − 1)/(v·M)`` (the 1F1B bubble, v = 1, or
interleaved; ``bubble_fraction = (pp − 1)/(v·M + pp − 1)``, GPipe's convention) and, with
unequal stages, by ``pp · max L_i / L``. ``--schedule zb1p`` and ``dualpipe`` stretch it by
``1 + t_bubble/(M·(F + B))`` with their own bubbles (:data:`BUBBLES`), and under DualPipe a
forward chunk overlaps a backward one, so ``t_lower = max(Σ compute + exposed, Σ comms)``. MFU counts model FLOPs: ``F_model/(N·π·T_step)``.

Critical batch: in tokens per DP rank ``b``, a pass's compute is ``c·b`` and its comms
``D + K·b`` (DP's bytes do not grow with the batch; TP's, PP's and EP's do), so it is
compute-bound from ``b* = D/(c − K)`` (never when ``K ≥ c``); the step's critical batch is the
larger of the two passes'. DP with ZeRO ≤ 2, tp = pp = 1 and a dense model:
``4·P·b/π = 2·(X−1)/X·2·P/β`` gives ``b* = (X−1)/X · π/β``. The bubble is left out of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import sympy as sp

from derive.analysis.network import Exchange, Level, book_precise_levels, book_time_per_byte
from derive.catalogue import table as q
from derive.catalogue.kinds import ProblemKind
from derive.catalogue.reading import read_values
from derive.errors import ProblemError
from derive.model.costs import StepCost, step_cost
from derive.model.symbols import context, sym
from derive.model.transformer import Transformer
from derive.problem.mesh import Axis
from derive.training.binding import Recompute, TrainingProblem, ZeroStage, bind_training
from derive.training.comms import DIMS, Comms, _placement, comms_of
from derive.training.memory import (
    ActivationTerm,
    Memory,
    ParamsPerDevice,
    activation_terms,
    memory_of,
    params_per_device,
    shrinks_with_dp,
)
from derive.training.mesh import Placement

SEARCH_SHOWN = 10
"""The best layouts of the search shown after the five named strategies."""

FORWARD_FLOPS = 2  # per parameter a token uses, per token
BACKWARD_FLOPS = 4
WEIGHT_FLOPS = 2  # of the backward's 4: the weight gradients (W), the rest the input's

Bubble = Callable[[sp.Integer, int, sp.Rational, sp.Rational, sp.Rational], sp.Expr]
BUBBLES: dict[str, Bubble] = {
    "1f1b": lambda pp, v, f, b, w: (pp - 1) * (f + b) / v,
    "zb1p": lambda pp, v, f, b, w: (pp - 1) * (f + b - 2 * w),
    "dualpipe": lambda pp, v, f, b, w: (pp / 2 - 1) * ((f + b) + b - 3 * w),
}
"""Each schedule's bubble in F, B (the whole backward) and W (its weight gradients) of one
micro-batch on one stage, as the DeepSeek-V3 Technical Report's Table 2 (and DualPipe's README)
writes them: 1F1B (pp − 1)(F + B) (over v interleaved), ZB-1P (pp − 1)(F + B − 2W), DualPipe
(pp/2 − 1)(F&B + B − 3W), with F&B, a forward and a backward chunk overlapped, their compute F + B."""


@dataclass(frozen=True)
class PassTime:
    """One pass on one device: its compute (bubble included), its comms and its bound."""

    name: str
    flops: sp.Rational
    compute: sp.Rational
    comms: sp.Rational
    exposed: sp.Rational  # the comms no compute hides (TP's without overlap)

    @property
    def bound(self) -> sp.Rational:
        """max(compute + exposed, comms): the pass's hidden comms overlap its own compute only."""
        busy = self.compute + self.exposed
        return busy if busy >= self.comms else self.comms


@dataclass(frozen=True)
class Critical:
    """A pass against the tokens per DP rank b: compute c·b, comms D + K·b (seconds).

    ``tokens`` is ``D/(c − K)`` (0 without DP comms), or None when K ≥ c and D > 0: the
    pass is communication-bound at every batch.
    """

    name: str
    compute_per_token: sp.Rational
    comms_fixed: sp.Rational
    comms_per_token: sp.Rational
    tokens: sp.Rational | None


@dataclass(frozen=True)
class TrainingAnalysis:
    """Every derived quantity of a training step, exact.

    Attributes follow the JSON keys of ``derive train --format json``; ``tp_width`` is the
    matmul parameters of a layer over 4·d per TP rank, ``tp_critical_width`` the value at
    which TP's all-reduces equal the layer's forward compute.
    """

    problem: TrainingProblem
    params: ParamsPerDevice
    memory: Memory
    terms: tuple[tuple[ActivationTerm, sp.Rational], ...]
    comms: Comms
    flops_model: sp.Rational
    flops_params: sp.Rational  # 6·P_act·T
    flops_attention: sp.Rational  # 3·F_attn,fwd
    attention_pairs: sp.Rational  # (query, key) pairs of one sequence, over every layer
    pair_flops: sp.Rational  # one layer's FLOPs per pair, forward
    flops_recompute: sp.Rational
    recompute_per_token: sp.Rational
    t_math: sp.Rational
    t_comms: sp.Rational
    forward: PassTime
    backward: PassTime
    stretch: sp.Rational
    chunk: tuple[sp.Rational, sp.Rational, sp.Rational]  # F, B, W of a micro-batch on a stage (s)
    bubble: sp.Rational  # the schedule's bubble in seconds (:data:`BUBBLES`), before unequal stages
    bubble_fraction: sp.Rational
    t_lower: sp.Rational
    t_upper: sp.Rational
    mfu: sp.Rational | None
    impossible: bool | None
    tokens_per_device: sp.Rational
    critical: tuple[Critical, ...]
    critical_tokens_per_device: sp.Rational | None
    compute_bound: bool
    tp_layer_params: sp.Rational
    tp_width: sp.Rational | None
    tp_critical_width: sp.Rational | None
    fits: bool | None
    headroom: sp.Rational | None
    smallest_dp: int | None
    smallest_zero: ZeroStage | None
    cost: StepCost | None = None  # with a price or a power per device (issue 36)
    predicted: TrainingAnalysis | None = None  # the run at the efficiencies' π and β (_predicted)

    @property
    def t_predicted(self) -> sp.Rational | None:
        """The predicted step: t_lower of the run at π·E_matmul and each axis at β·E_link."""
        return None if self.predicted is None else self.predicted.t_lower

    @property
    def mfu_predicted(self) -> sp.Rational | None:
        """The MFU of the predicted step, F_model/(N·π·t_predicted)."""
        t, p = self.t_predicted, self.problem
        return None if t is None else self.flops_model / (p.devices * p.peak * t)

    @property
    def bubble_over_ideal(self) -> sp.Rational:
        """Narayanan et al.'s bubble, (pp − 1)/(v·M) of the ideal time (``bubble_fraction`` is
        GPipe's, (pp − 1)/(v·M + pp − 1) of the total)."""
        f, b, _ = self.chunk
        return self.bubble / (self.problem.microbatches * (f + b))

    @property
    def critical_tokens_per_rank(self) -> sp.Rational | None:
        """b*, tokens per DP replica (``critical_tokens_per_device``, by its clearer name)."""
        return self.critical_tokens_per_device

    @property
    def critical_tokens_per_chip(self) -> sp.Rational | None:
        """b* over the tp·pp·cp chips of a DP replica: comparable across layouts."""
        star = self.critical_tokens_per_device
        p = self.problem
        return None if star is None else star / (p.tp * p.pp * p.cp)

    @property
    def critical_batch_tokens(self) -> sp.Rational | None:
        """The global critical batch, b* · dp tokens per step."""
        star = self.critical_tokens_per_device
        return None if star is None else star * self.problem.dp

    @property
    def tp_beta(self) -> sp.Rational:
        """β TP's all-reduces see: its group's (the innermost axis, or the link, at tp = 1)."""
        p = self.problem
        if p.tp > 1:
            return self.comms.bandwidth("tp")
        return p.link if p.placement is None else p.placement.mesh.axes[0].bandwidth

    @property
    def tp_max_scaling_book(self) -> sp.Rational | None:
        """The Scaling Book's largest TP degree, F/Y > C/W read as Y < F·W/C (MLP width F):
        derive's one-way β for W, or under the preset the book's own W of the TP axes
        (Training, "Tensor Parallelism"; GPUs, "Tensor Parallelism"), whatever ``--tp`` is."""
        p = self.problem
        if p.transformer is None:
            return None
        w = self.tp_beta if p.convention != "scaling-book" else self.book_bandwidth("tp")
        return p.arch("d_ff") * w / p.peak

    @property
    def mixed_tokens_per_chip_scaling_book(self) -> sp.Rational | None:
        """The book's least batch per chip of the best mix of FSDP and TP, B/N > α²/(M_X·M_Y·F)
        (Training, "Combining FSDP and Tensor Parallelism", T_comms the max of the two): with
        M·W_axis the book's W of each dim's axes, C²/(W_dp·W_tp·F), whatever this run's split."""
        p = self.problem
        if p.transformer is None:
            return None
        return p.peak**2 / (self.book_bandwidth("dp") * self.book_bandwidth("tp") * p.arch("d_ff"))

    @property
    def fsdp_opt_scaling_book(self) -> sp.Expr | None:
        """The book's optimal FSDP degree, X_opt = √(B/F · M_X/M_Y · N) (the same section), B this
        run's tokens a step and N its devices: exact, a surd."""
        p = self.problem
        if p.transformer is None:
            return None
        ratio = self.book_bandwidth("dp") / self.book_bandwidth("tp")  # M_X/M_Y
        return sp.sqrt(p.batch_tokens * p.devices * ratio / p.arch("d_ff"))

    @property
    def dp_small_x_scaling_book(self) -> sp.Rational | None:
        """The book's DP critical batch over a few nodes, B/N > α·(X−1)/X (GPUs, "What happens
        when X is small?"): C times the slowest scale-out level's precise (D−1)/(D·W)
        (:func:`book_precise_levels`), the node level left out as the book leaves it: a dense
        model whose DP spans a node and beyond (N = 8·X) with no ICI, else None."""
        p, dp = self.problem, [t.levels for t in self.comms.transfers if t.dim == "dp"]
        levels = () if p.is_moe or not dp else dp[0]
        if len(levels) < 2 or any(lv.axis.bandwidth >= p.book_ici for lv in levels):
            return None
        return p.peak * sp.Max(*book_precise_levels(Exchange.ALL_GATHER, levels)[1:])

    def book_bandwidth(self, dim: str) -> sp.Rational:
        """The book's W of a dim's group, V/W its all-gather's time (:func:`book_time_per_byte`;
        a dim of degree 1: the first axis)."""
        t, beta = next((t for t in self.comms.transfers if t.dim == dim), None), self.tp_beta
        if t is None:  # its first axis: both ways on ICI
            return beta * (2 if beta >= self.problem.book_ici else 1)
        return 1 / book_time_per_byte(Exchange.ALL_GATHER, t.levels, self.problem.book_ici)

    def differences(self) -> tuple[tuple[str, sp.Expr | None, sp.Expr | None], ...]:
        """(key, this run's value, derive's own) where a preset and derive's convention differ."""
        p = self.problem
        other = (
            self if p.convention == "derive" else analyse_training(replace(p, convention="derive"))
        )
        mine, own = (read_values(ProblemKind.TRAINING, (a,), _DIFFERENCES) for a in (self, other))
        pairs = [
            (r.json_path(ProblemKind.TRAINING)[-1], mine.get(r), own.get(r)) for r in _DIFFERENCES
        ]
        pairs.append(("tp_max_scaling_book", self.tp_max_scaling_book, other.tp_max_scaling_book))
        return tuple(row for row in pairs if row[1] != row[2])

    @property
    def tp_max_exact(self) -> int | None:
        """derive's per-layer form: the largest tp with P_layer/(4·d·tp) ≥ (tp−1)/tp·π/β, i.e.
        tp ≤ 1 + P_layer·β/(4·d·π) (whether it splits the heads is not asked)."""
        p = self.problem
        if p.transformer is None:
            return None
        room = self.tp_layer_params * self.tp_beta / (4 * p.arch("d_model") * p.peak)
        return 1 + int(sp.floor(room))

    @property
    def attention_rule(self) -> tuple[sp.Expr, sp.Expr]:
        """The pairs of one sequence and one pair's forward FLOPs, as formulas of the model's
        symbols (the worked solution prints them beside the numbers)."""
        m = self.problem.transformer
        assert m is not None
        return attention_pairs(m, sym, context, self.problem.causal), m.pair_flops(
            sym, absorbed=False
        )

    @property
    def no_dp_reason(self) -> str:
        """Why no dp fits at the run's ZeRO stage (``smallest_dp`` is None): what dp does not shard
        already exceeds C, or the dp the memory needs is more than any the batch splits over."""
        p = self.problem
        dp = _dp_needed(p, self.params, self.memory)
        if dp is None:
            return "what it does not shard already exceeds C"
        per_step = int(p.batch_tokens // (p.micro_batch * p.seq))
        rule = (
            f" (a multiple of ep = {p.ep}, pp = {p.pp} or more per rank)" if p.ep * p.pp > 1 else ""
        )
        return (
            f"the memory needs dp ≥ {dp}, and no dp from {dp} up{rule} divides the step's "
            f"{per_step} micro-batches"
        )

    @property
    def params_active(self) -> sp.Rational:
        """P_act: parameters a token uses (the model's)."""
        return self.problem.arch(q.PARAMS_ACTIVE.name)


def attention_pairs(
    m: Transformer, value: Callable[[str], sp.Expr], S: sp.Expr, causal: bool
) -> sp.Expr:
    """The (query, key) pairs a sequence of S tokens attends over every layer, exactly: a
    causal mask keeps j ≤ i, S(S+1)/2 a layer, and a window the last W of them,
    Σ_i min(i, W) = S·k − k(k−1)/2 with k = min(S, W); without a mask each query attends
    k keys (all S, or a window kept inside the sequence). ``value``: the model's numbers
    (or symbols, for the rule)."""
    pairs = sp.Integer(0)
    for count, window in m.attention_layers(value):
        k = S if window is None else sp.Min(S, window)  # keys a query attends at most
        kept = S * (S + 1) / 2 if window is None else S * k - k * (k - 1) / 2
        pairs += count * (kept if causal else S * k)
    return pairs


def _attention(p: TrainingProblem) -> tuple[sp.Rational, sp.Rational]:
    """The pairs of one sequence over every layer and one pair's forward FLOPs in a layer
    (latent attention per head): none without an architecture or by the Scaling Book's 6ND."""
    m = p.transformer
    if m is None or p.convention == "scaling-book":
        return sp.Integer(0), sp.Integer(0)
    return attention_pairs(m, p.arch, p.seq, p.causal), m.pair_flops(p.arch, absorbed=False)


_DIFFERENCES = (q.MEMORY_PER_DEVICE, q.COMMS_BYTES_PER_DEVICE, q.T_COMMS, q.T_LOWER, q.T_UPPER,
                q.CRITICAL_TOKENS_PER_CHIP)  # fmt: skip
"""The rows :meth:`TrainingAnalysis.differences` compares (and the book's TP limit)."""


def _critical(
    name: str, flops_per_token: sp.Rational, comms: Comms, p: TrainingProblem, b: sp.Rational
) -> Critical:
    """The pass's balance; with ``comms.overlap`` (the book's) its binding dim's, each dim's
    comms against the whole compute. TP's exposed all-reduces (without ``--overlap-tp``) sit
    on the compute's critical path, as in T_lower's max(T + E, C): c counts their seconds."""
    c = flops_per_token / (p.tp * p.pp * p.cp * p.peak)
    if not (p.overlap_tp or comms.overlap):
        c += comms.scaling(name, "tp")[1] / b
    options, moe = [], sp.Integer(1)
    if comms.overlap and p.is_moe:  # the book's E/k (GPUs, "MoE models") counts the MLPs alone:
        total, active = p.arch(q.PARAMS.name), p.arch(q.PARAMS_ACTIVE.name)  # DP's traffic is E/k
        moe = p.arch("experts") * active / (p.arch("top_k") * total)  # times the active weights'
    for dim in DIMS if comms.overlap else (None,):
        fixed, scaling = comms.scaling(name, dim)
        fixed *= moe if dim == "dp" else 1
        per_token = scaling / b
        if fixed == 0:
            tokens: sp.Rational | None = sp.Integer(0) if per_token <= c else None
        else:
            tokens = fixed / (c - per_token) if per_token < c else None
        options.append(Critical(name, c, fixed, per_token, tokens))
    return max(options, key=lambda o: (o.tokens is None, o.tokens or 0))


def _dp_needed(p: TrainingProblem, params: ParamsPerDevice, memory: Memory) -> int | None:
    """The smallest dp at which the memory per device fits, whether or not the batch splits
    over it (tp, pp, ZeRO fixed; None when what dp does not shard already exceeds C)."""
    assert p.capacity is not None
    by_dp = {k: shrinks_with_dp(k, p) for k in ("weights", "grads", "optimizer")}
    parts = {"weights": memory.weights, "grads": memory.grads, "optimizer": memory.optimizer}
    sharded = sp.Add(*(v * p.dp for k, v in parts.items() if by_dp[k]))  # what dp = 1 would hold
    room = p.capacity - memory.activations - sp.Add(*(v for k, v in parts.items() if not by_dp[k]))
    if room < 0 or (room == 0 and sharded != 0):
        return None
    return 1 if sharded == 0 else max(1, int(sp.ceiling(sharded / room)))


def _smallest_dp(p: TrainingProblem, params: ParamsPerDevice, memory: Memory) -> int | None:
    """The smallest dp (a multiple of ep) at which the memory per device fits, tp, pp, ZeRO fixed."""
    if p.capacity is None:
        return None
    dp = _dp_needed(p, params, memory)
    return None if dp is None else _runnable_dp(p, -(-dp // p.ep) * p.ep)


def _runnable_dp(p: TrainingProblem, low: int) -> int | None:
    """The smallest dp from ``low`` (a multiple of ep) at which the batch still splits into
    whole micro-batches, at least pp of them per DP rank: a dp ``derive train`` accepts."""
    per_step = int(p.batch_tokens // (p.micro_batch * p.seq))  # micro-batches of the whole step
    return next(
        (
            dp
            for dp in sp.divisors(per_step)
            if dp >= low and dp % p.ep == 0 and per_step // dp >= p.pp
        ),
        None,
    )


def _smallest_zero(
    p: TrainingProblem, params: ParamsPerDevice, terms: tuple[tuple[ActivationTerm, sp.Expr], ...]
) -> ZeroStage | None:
    if p.capacity is None:
        return None
    for stage in ZeroStage:
        if stage is ZeroStage.WEIGHTS and p.pp > 1:
            break  # refused with a pipeline (as DeepSpeed refuses it): never suggested
        if memory_of(replace(p, zero=stage), params, terms).total <= p.capacity:
            return stage
    return None


def _tp_widths(
    p: TrainingProblem, comms: Comms
) -> tuple[sp.Rational, sp.Rational | None, sp.Rational | None]:
    key = "P_block_active" if p.is_moe else "P_block"
    layer = p.arch(key) - p.arch("P_norm")
    if p.tp == 1:
        return layer, None, None
    width = layer / (4 * p.arch("d_model") * p.tp)
    return layer, width, sp.Rational(p.tp - 1, p.tp) * p.peak / comms.bandwidth("tp")


def analyse_training(p: TrainingProblem, same: TrainingAnalysis | None = None) -> TrainingAnalysis:
    """Derive memory, communication, times, the critical batch and the fit of a training step.

    ``same``: the analysis of this very run on another placement (the layout search); its
    parameters, activations, memory and smallest dp and ZeRO stage, which no placement
    changes, are taken from it (a test pins them to a fresh derivation)."""
    if same is None:
        params = params_per_device(p)
        terms = activation_terms(p)
        memory = memory_of(p, params, terms)
    else:
        params, terms, memory = same.params, same.terms, same.memory
    comms = comms_of(p, params)
    active, tokens = p.arch(q.PARAMS_ACTIVE.name), p.batch_tokens
    n = p.devices
    pairs, per_pair = _attention(p)
    attention = pairs * per_pair / p.seq  # the forward's attention FLOPs per token
    forward_per_token = FORWARD_FLOPS * active + attention
    recompute_per_token = {
        Recompute.FULL: forward_per_token,
        Recompute.SELECTIVE: attention,
        Recompute.NONE: sp.Integer(0),
    }[p.recompute]
    backward_per_token = BACKWARD_FLOPS * active + 2 * attention + recompute_per_token
    flops_params = (FORWARD_FLOPS + BACKWARD_FLOPS) * active * tokens
    flops_model = flops_params + 3 * attention * tokens
    flops_recompute = recompute_per_token * tokens
    m = p.microbatches
    per_s = tokens / (n * p.peak * m)  # a chunk's seconds per FLOP a token
    chunk = (forward_per_token * per_s, backward_per_token * per_s, WEIGHT_FLOPS * active * per_s)
    bubble = BUBBLES[p.schedule](sp.Integer(p.pp), p.virtual_stages, *chunk)
    ideal = m * (chunk[0] + chunk[1])
    stretch = (1 + bubble / ideal) * p.imbalance
    hidden = p.overlap_tp or comms.overlap  # the book's passes overlap every dim

    def timed(name: str, flops: sp.Rational) -> PassTime:
        exposed = sp.Integer(0) if hidden else comms.seconds(name, "tp")
        compute = stretch * flops / (n * p.peak)
        return PassTime(name, flops, compute, comms.seconds(name), exposed)

    forward, backward = (
        timed("forward", forward_per_token * tokens),
        timed("backward", backward_per_token * tokens),
    )
    t_lower = forward.bound + backward.bound
    busy = forward.compute + backward.compute + forward.exposed + backward.exposed
    if (
        p.schedule == "dualpipe"
    ):  # a forward chunk overlaps a backward one: one pass's traffic the other's compute
        t_lower = max(busy, forward.comms + backward.comms)
    t_upper = forward.compute + backward.compute + forward.comms + backward.comms
    b = tokens / p.dp
    critical = (
        _critical("forward", forward_per_token, comms, p, b),
        _critical("backward", backward_per_token, comms, p, b),
    )
    never = any(c.tokens is None for c in critical)
    b_star = None if never else max(c.tokens for c in critical if c.tokens is not None)
    mfu = impossible = None
    if p.measured_time is not None:
        mfu = flops_model / (n * p.peak * p.measured_time)
        impossible = bool(p.measured_time < t_lower or mfu > 1)
    layer, width, critical_width = _tp_widths(p, comms)
    fits = headroom = None
    if p.capacity is not None:
        fits, headroom = bool(memory.total <= p.capacity), p.capacity - memory.total
    analysis = TrainingAnalysis(
        problem=p,
        params=params,
        memory=memory,
        terms=terms,
        comms=comms,
        flops_model=flops_model,
        flops_params=flops_params,
        flops_attention=flops_model - flops_params,
        attention_pairs=pairs,
        pair_flops=per_pair,
        flops_recompute=flops_recompute,
        recompute_per_token=recompute_per_token,
        t_math=(flops_model + flops_recompute) / (n * p.peak),
        t_comms=comms.seconds(),
        forward=forward,
        backward=backward,
        stretch=stretch,
        chunk=chunk,
        bubble=bubble,
        bubble_fraction=bubble / (ideal + bubble),
        t_lower=t_lower,
        t_upper=t_upper,
        mfu=mfu,
        impossible=impossible,
        tokens_per_device=b,
        critical=critical,
        critical_tokens_per_device=b_star,
        compute_bound=bool(busy >= forward.comms + backward.comms)
        if p.schedule == "dualpipe"
        else all(bool(x.compute + x.exposed >= x.comms) for x in (forward, backward)),
        tp_layer_params=layer,
        tp_width=width,
        tp_critical_width=critical_width,
        fits=fits,
        headroom=headroom,
        smallest_dp=_smallest_dp(p, params, memory) if same is None else same.smallest_dp,
        smallest_zero=_smallest_zero(p, params, terms) if same is None else same.smallest_zero,
        cost=_cost(p, t_lower),
    )
    return _predicted(analysis) if p.matmul_efficiency or p.link_efficiency else analysis


def _predicted(a: TrainingAnalysis) -> TrainingAnalysis:
    """``a`` with its prediction: the same run at π·E_matmul, each axis at β·E_link (the bare
    E for axes not named, 1 without one), its t_lower the predicted step (the schedule's
    overlaps kept: one time formula)."""
    p, link = a.problem, dict(a.problem.link_efficiency)

    def slow(axis: Axis) -> Axis:
        return replace(axis, bandwidth=axis.bandwidth * link.get(axis.name, link.get("", 1)))

    placed = _placement(p)
    axes = {axis.name: slow(axis) for axis in placed.mesh.axes}
    dims = tuple((d, tuple(Level(axes[v.axis.name], v.size) for v in lv)) for d, lv in placed.dims)
    rates = replace(
        p, peak=p.peak * (p.matmul_efficiency or 1), link=p.link * link.get("", 1),
        placement=Placement(replace(placed.mesh, axes=tuple(axes.values())), dims),
        matmul_efficiency=None, link_efficiency=(),
    )  # fmt: skip
    return replace(a, predicted=analyse_training(rates, a))


def _cost(p: TrainingProblem, t_lower: sp.Rational) -> StepCost | None:
    """The step's bill and energy on every device (the measured step, else its lower bound),
    and the run's when the model gives its training tokens (n = D / tokens per step)."""
    model = p.model.problem
    price, power = model.price_per_hour, model.power
    if price is None and power is None:
        return None
    tokens = None if model.train_tokens is None else model.train_tokens.value
    rate, watts = (None if f is None else f.value for f in (price, power))
    t = t_lower if p.measured_time is None else p.measured_time
    steps = None if tokens is None else tokens / p.batch_tokens
    return step_cost(rate, watts, sp.Integer(p.devices), t, p.batch_tokens, steps)


@dataclass(frozen=True)
class StrategyRow:
    """One strategy on the same N devices: its degrees and analysis, or why it cannot run."""

    name: str
    dp: int
    tp: int
    pp: int
    zero: ZeroStage
    analysis: TrainingAnalysis | None
    why_not: str = ""
    ep: int = 1
    cp: int = 1
    recompute: Recompute | None = None  # set by the search (the named rows keep the run's)
    placement: str = ""  # the dims on the mesh's axes, for a searched row on a mesh


def _tp_choice(p: TrainingProblem, n: int) -> int | None:
    """FSDP+TP's TP degree: the run's own, else the largest divisor of N below N, up to 8, that splits the model."""
    if 1 < p.tp < n:
        return p.tp
    for t in range(min(8, n - 1), 1, -1):
        if n % t == 0 and all(p.arch(k) % t == 0 for k in ("heads", "kv_heads", "d_ff")):
            return t
    return None


def compare_strategies(p: TrainingProblem) -> tuple[tuple[StrategyRow, ...], StrategyRow | None]:
    """DP, FSDP, TP, FSDP+TP and PP on the run's N devices and batch, then the ten best
    layouts of :func:`derive.training.search.search_strategies`; and the winner.

    The winner is the row that fits with the smallest t_lower, ties broken by t_upper (the
    one that sends less); any row's when no capacity is known; None when no row fits.
    """
    n = p.devices
    t = _tp_choice(p, n)
    plans = (
        ("DP", n, 1, 1, ZeroStage.NONE),
        ("FSDP", n, 1, 1, ZeroStage.WEIGHTS),
        ("TP", 1, n, 1, ZeroStage.NONE),
        ("FSDP+TP", n // t if t else 0, t or 0, 1, ZeroStage.WEIGHTS),
        ("PP", 1, 1, n, ZeroStage.NONE),
    )
    rows = []
    for name, dp, tp, pp, zero in plans:
        if not tp:
            why = "no TP degree between 1 and N splits the model"
            rows.append(StrategyRow(name, 0, 0, 0, zero, None, why))
            continue
        dp_, tp_, pp_, zero_ = (str(v) for v in (dp, tp, pp, int(zero)))
        spec = replace(
            p.spec, dp=dp_, tp=tp_, pp=pp_, ep=None, zero=zero_, microbatches=None, origin=None,
            schedule=None,
        )  # fmt: skip
        try:
            run = bind_training(spec, p.model)
        except ProblemError as error:
            rows.append(StrategyRow(name, dp, tp, pp, zero, None, f"{error.what}: {error.why}"))
            continue
        rows.append(StrategyRow(name, dp, tp, pp, zero, analyse_training(run)))
    from derive.training.search import search_strategies  # the search builds on this module

    rows += list(search_strategies(p)[:SEARCH_SHOWN])
    ran = [r for r in rows if r.analysis is not None]
    fitting = [r for r in ran if r.analysis is not None and r.analysis.fits is not False]
    winner = min(
        fitting,
        key=lambda r: (r.analysis.t_lower, r.analysis.t_upper) if r.analysis else (0, 0),
        default=None,
    )
    return tuple(rows), winner


def t_lower_at(a: TrainingAnalysis, tokens: sp.Rational) -> sp.Rational:
    """T_lower at another number of tokens per DP rank, everything else as in ``a``.

    Each pass is max(c·b, D + K·b) with the run's own per-token compute c, fixed comms D and
    per-token comms K (:class:`Critical`); the pipeline bubble is left out, as in the
    critical batch, so with pp = 1 this is ``a.t_lower`` at ``a.tokens_per_device``.
    """
    return sp.Add(
        *(
            sp.Max(c.compute_per_token * tokens, c.comms_fixed + c.comms_per_token * tokens)
            for c in a.critical
        )
    )
