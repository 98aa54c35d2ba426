"""Serving phases of a model: the time of one decode or prefill step on a tensor-parallel group.

A phase turns the model's kernels (:mod:`derive.model.expand`) into the kernels of one
step on one device of a group of ``tp`` devices (:mod:`derive.analysis.step`):

- decode: ``B`` sequences, one new token each (``B`` tokens in flight), attention reads
  the KV cache of ``S`` positions per sequence;
- prefill: ``B`` prompts of ``S`` tokens (``B·S`` tokens in flight), attention over the
  ``S`` positions of the prompt (counted in full: the causal mask is not halved).

Data parallelism: ``devices`` = ``replicas`` × ``tp``; each replica is a tensor-parallel
group serving its own ``B`` sequences, so the step per device is one group's and the
cluster's rates are ``replicas`` times one group's.

Tensor parallelism (Megatron): the Q/K/V, gate/up and head projections are split by
output columns, the O and down projections by input rows; attention splits its heads
and the KV cache (beyond h_kv devices, each holds one KV head, replicated); norms, the
embedding lookup and a MoE router are replicated. Each row
split is followed by an all-reduce of its output activations (two per layer), ring
algorithm, waited for. A block's kernels run once per layer (``launches = layers``).
Conventions: weights are read once per step, the embedding reads one row per token, a MoE
layer reads the experts its T tokens touch (at least k, at most min(E, k·T); derive takes the
upper bound min(E, k·T), see :class:`ExpertsRead`), the FLOPs are the expansion's (2 per weight element used, 4·h·d_h·S
per token for attention).

The decode crossover is the batch at which the weight-streaming matmuls become
compute-bound, solved exactly for ``B`` with ``S`` bound (and at leading order,
``B ≪ d``: activations negligible against weights); the step crossover is the same for
the whole step's summed FLOPs and bytes, ``never`` when the KV reads keep it memory-bound.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import sympy as sp

from derive.analysis.collectives import group_levels
from derive.analysis.crossover.records import Crossover
from derive.analysis.crossover.solve import reduced_parts, solve_crossover
from derive.analysis.measured import Measured, measure
from derive.analysis.network import (
    Exchange,
    Level,
    book_ici,
    book_latency,
    book_time_per_byte,
    bytes_per_byte,
    calls_latency,
    level_costs,
    time_per_byte,
)
from derive.analysis.step import Ceilings, Kernel, StepTime, compose
from derive.catalogue import ProblemKind
from derive.declare.collective import CollectiveKind
from derive.errors import ProblemError
from derive.model.binding import ModelProblem, bind_tp
from derive.model.costs import StepCost, step_cost
from derive.model.expand import Block, KernelOp, ModelTensor, Role, expand, tokens
from derive.model.expand import Kernel as ModelKernel
from derive.model.sized import SizedModel
from derive.model.symbols import batch, context
from derive.problem.chips import Figure, spelled_mesh
from derive.problem.mesh import parse_mesh
from derive.problem.timing import Timing

_ROW_SPLIT = frozenset({"o", "down", "experts_down", "shared_down", "dense_down"})
# replicated on every device: the router (and the shared expert's gate), and latent attention's shared projections
_REPLICATED = frozenset({"router", "q_a", "kv_a", "shared_expert_gate"})
_MATMULS = frozenset({KernelOp.MATMUL, KernelOp.MOE_MATMUL})
_SPLIT_OPS = _MATMULS | {KernelOp.ATTENTION}  # the kernels tensor parallelism splits


class Phase(Enum):
    """The serving phases."""

    DECODE = "decode"
    PREFILL = "prefill"


def parse_phase(text: str) -> Phase:
    """``decode`` or ``prefill``; anything else is a one-line error."""
    try:
        return Phase(text)
    except ValueError:
        raise ProblemError(f"--phase {text}", "a phase is decode or prefill") from None


@dataclass(frozen=True)
class ExpertsRead:
    """The experts one MoE layer reads in a step of T tokens (decode: T = B; prefill: T = B·S).

    Each token routes to k of the E experts, so the step touches at least k experts (every
    token picks the same ones) and at most min(E, k·T) (no two tokens share one). derive's
    convention is the upper bound, ``read``; under uniform routing the expected count is
    ``uniform`` = E·(1 − (1 − k/E)^T), between the two.

    Attributes:
        experts: E; ``top_k``: k; ``tokens``: T, the tokens in flight in the step.
        lower: k, the fewest experts read; ``read``: min(E, k·T), the convention.
        uniform: E·(1 − (1 − k/E)^T), the expectation under uniform routing (exact; the
            power is left unevaluated when T > 256, its fraction having about T digits).
    """

    experts: sp.Integer
    top_k: sp.Integer
    tokens: sp.Integer
    lower: sp.Integer
    read: sp.Integer
    uniform: sp.Rational


EXACT_POWER = 256  # above it, (1 − k/E)^T stays a power: its fraction would have ~T digits


def experts_read(experts: sp.Integer, top_k: sp.Integer, in_flight: sp.Integer) -> ExpertsRead:
    """The experts a step of ``in_flight`` tokens reads per MoE layer (both bounds, the expectation).

    >>> r = experts_read(sp.Integer(8), sp.Integer(2), sp.Integer(1))
    >>> r.lower, r.read, r.uniform
    (2, 2, 2)
    """
    e, k = sp.Integer(experts), sp.Integer(top_k)
    return ExpertsRead(
        experts=e,
        top_k=k,
        tokens=sp.Integer(in_flight),
        lower=k,
        read=sp.Min(e, k * in_flight),
        uniform=e * (1 - sp.Pow(1 - k / e, in_flight, evaluate=in_flight <= EXACT_POWER)),
    )


@dataclass(frozen=True)
class PhaseAnalysis:
    """One serving step of a model on one device of a tensor-parallel group.

    Attributes:
        phase: decode or prefill.
        tp: devices in the tensor-parallel group.
        batch: B; ``context``: S; ``tokens``: tokens in flight in one group (B, or B·S).
        step: the step's kernels, times and bounds per device.
        tokens_per_s: the cluster's rate, replicas × tokens / t_lower (decode: B per step and
            replica; prefill: B·S, ``prefill_tokens_per_s``).
        latency: decode: the inter-token latency; prefill: the time to first token.
        matmul_flops, matmul_bytes: the weight-streaming matmuls' counts per device, in B.
        step_flops, step_bytes: the whole step's counts per device, in B.
        crossover: B at which the matmuls become compute-bound (decode only).
        crossover_regime: the same at leading order, B ≪ d (weights only in the bytes).
        crossover_step: B at which the whole step's summed counts become compute-bound.
        measured: what a measured step time (or rate) implies.
        ridge: π / β.
        replicas: data-parallel replicas, devices / tp (1: one group over every device).
        measured_tokens_per_s: the measured rate of the cluster, when the step's time was
            measured as a rate (the measured time is then replicas × tokens / rate).
        experts_read: for a MoE, the experts one layer reads in this step (None otherwise).
        kv_ways: devices the KV heads are split over, min(tp, h_kv); below tp, each device
            holds one KV head, replicated tp/h_kv times.
        assumptions: what a model known by its size alone assumed, one line each (empty
            for an architecture).
    """

    phase: Phase
    tp: int
    batch: sp.Integer
    context: sp.Integer
    tokens: sp.Integer
    step: StepTime
    tokens_per_s: sp.Expr
    latency: sp.Expr
    matmul_flops: sp.Expr
    matmul_bytes: sp.Expr
    step_flops: sp.Expr
    step_bytes: sp.Expr
    crossover: Crossover | None
    crossover_regime: Crossover | None
    crossover_step: Crossover | None
    measured: Measured | None
    ridge: sp.Rational
    replicas: int = 1
    measured_tokens_per_s: sp.Rational | None = None
    experts_read: ExpertsRead | None = None
    kv_ways: int = 1
    assumptions: tuple[str, ...] = ()
    convention: str = "derive"  # or scaling-book: the step without TP's all-reduces
    default_latency: sp.Expr | None = None  # derive's own step time under another convention
    cost: StepCost | None = None  # with a price or a power per device (issue 36)
    mesh: str = ""  # --mesh as read, and the rule of TP's all-reduce on it, one per level
    mesh_rules: tuple[str, ...] = ()
    mesh_chosen: bool = False  # --mesh default taken for TP beyond one node, unasked
    tp_max_generation: sp.Expr | None = None  # the book's Y < F/(B·β), β = W_hbm/W_ici (a mesh)

    kind = ProblemKind.SERVING
    """A timed serving step (a decode with no batch is a :class:`DecodeCrossover`)."""

    context_limit = None
    """None: a timed step binds S, so its whole step's crossover is not a formula in S."""

    context_last = None
    """None, as :attr:`context_limit`."""

    step_fraction = None
    """None, as :attr:`context_limit`."""

    @property
    def roots(self) -> tuple[object, ...]:
        """The records its rows read: the step, also under its phase's name (a decode's rate
        reads ``decode.tokens_per_s``, a prefill has none)."""
        return ({self.phase.value: self}, self)


@dataclass(frozen=True)
class DecodeCrossover:
    """The decode crossover asked without a batch: B solved, no step timed.

    The matmuls' counts hold no ``S`` (each token reads the weights and its own
    activations), so their crossover needs none; the whole step's adds the KV reads, so
    with ``S`` free it is a formula in S, a batch only while S < ``context_limit``.

    Attributes:
        tp, replicas: the group and its data-parallel replicas, as for a step.
        context: S when bound, else None (the whole step's crossover is then in S).
        matmul_flops, matmul_bytes, step_flops, step_bytes: counts per device, in B (and S).
        crossover, crossover_regime, crossover_step: as in :class:`PhaseAnalysis`.
        context_limit: with S free, the S below which the whole step can turn compute-bound
            (the root of the crossover's condition, linear in S); None otherwise.
        context_last: the largest integer S below ``context_limit`` (None with it).
        step_fraction: with S free, the whole step's B*(S) as (numerator, denominator), the
            numerator positive (``c / (a − b·S)``, not ``−c / (b·S − a)``); None otherwise.
        ridge: π / β.
        assumptions: what a model known by its size alone assumed (empty otherwise).
    """

    tp: int
    replicas: int
    context: sp.Integer | None
    matmul_flops: sp.Expr
    matmul_bytes: sp.Expr
    step_flops: sp.Expr
    step_bytes: sp.Expr
    crossover: Crossover
    crossover_regime: Crossover
    crossover_step: Crossover
    context_limit: sp.Expr | None
    context_last: sp.Integer | None
    step_fraction: tuple[sp.Expr, sp.Expr] | None
    ridge: sp.Rational
    assumptions: tuple[str, ...] = ()

    kind = ProblemKind.DECODE_CROSSOVER
    """A decode's crossover, B solved (a serving problem with no batch)."""


def _expr(value: sp.Expr | int) -> sp.Expr:
    """An int field (the lookup's 0 FLOPs) as a sympy integer; an expression as it is."""
    return sp.Integer(value) if isinstance(value, int) else value


def _number(value: sp.Expr, bound: dict[sp.Symbol, sp.Integer], what: str) -> sp.Expr:
    value = _expr(value).xreplace(bound)
    if not value.is_number:
        raise ProblemError(what, "bind every dim of the model with --set to time a step")
    return value


_KV_PROJECTIONS = frozenset({"k", "v"})


def _ways(kernel: ModelKernel, tensor: ModelTensor | None, tp: int, kv_ways: int) -> int:
    """The devices a kernel's tensor is split over: ``kv_ways`` for the K/V heads, else ``tp``."""
    if kernel.name in _KV_PROJECTIONS or (tensor is not None and tensor.role is Role.KV_CACHE):
        return kv_ways
    return tp


def _share(
    tensor: ModelTensor, kernel: ModelKernel, tp: int, read: bool, kv_ways: int
) -> sp.Rational:
    """The fraction of a tensor one device holds or moves under tensor parallelism.

    K/V heads split over ``kv_ways`` = min(tp, h_kv) devices: beyond h_kv each device holds
    one KV head (its projections and its cache), replicated tp/h_kv times.
    """
    tp = _ways(kernel, tensor, tp, kv_ways)
    if tp == 1 or kernel.name in _REPLICATED or kernel.operator not in _SPLIT_OPS:
        return sp.Integer(1)
    if tensor.role is not Role.ACTIVATION or kernel.operator is KernelOp.ATTENTION:
        return sp.Rational(1, tp)  # weights, KV cache and attention's heads are split
    row = kernel.name in _ROW_SPLIT
    return sp.Rational(1, tp) if (row and read) or (not row and not read) else sp.Integer(1)


def _bytes(kernel: ModelKernel, problem: ModelProblem, tp: int, kv_ways: int) -> sp.Expr:
    total = sp.Integer(0)
    for tensors, read in ((kernel.reads, True), (kernel.writes, False)):
        for tensor in tensors:
            elements = tensor.elements
            if kernel.operator is KernelOp.EMBEDDING and tensor.role is Role.WEIGHT:
                elements = tokens * tensor.shape[-1]  # a lookup reads one row per token
            elif kernel.operator is KernelOp.MOE_MATMUL and tensor.role is Role.WEIGHT:
                experts = tensor.shape[0]  # the step reads the experts its tokens touch
                elements = elements / experts * sp.Min(experts, problem.transformer.top_k * tokens)
            width = problem.dtype(tensor.role).width
            total += elements * width * _share(tensor, kernel, tp, read, kv_ways)
    return total


def _comms(
    kernel: ModelKernel, problem: ModelProblem, tp: int, levels: tuple[Level, ...]
) -> tuple[sp.Expr, int]:
    """The all-reduce after a row split: bytes one device sends, and its ring steps (on a
    mesh: the bytes over its links, one call whose latency is the mesh's)."""
    if tp == 1 or kernel.name not in _ROW_SPLIT:
        return sp.Integer(0), 0
    kind = CollectiveKind.ALL_REDUCE
    size = sp.Add(*(t.elements * problem.dtype(t.role).width for t in kernel.writes))
    if levels:
        return size * bytes_per_byte(Exchange.ALL_REDUCE, levels), 1
    return kind.fraction(tp) * size, kind.steps(tp)


def _network(
    problem: ModelProblem, tp: int, mesh: str | None, timing: Timing
) -> tuple[str, tuple[Level, ...], bool]:
    """``_tp_levels`` of ``--mesh``, or of ``--mesh default`` when TP spans more than one of
    the chip's nodes (its NICs, not one NVLink domain); True when chosen so, unasked."""
    chip = problem.chip
    node = chip.node if chip is not None and chip.node_link is not None else None
    chosen = mesh is None and node is not None and tp > node.value
    mesh = "default" if chosen else mesh
    if mesh is not None and timing.link_latency:
        raise ProblemError(
            "--link-latency", "the mesh gives each axis its latency: name=size@bw+5us"
        )
    return (*_tp_levels(problem, tp, mesh), chosen)


def _tp_levels(problem: ModelProblem, tp: int, text: str | None) -> tuple[str, tuple[Level, ...]]:
    """``--mesh`` as read (``default``: the chip's node; ``tpu:AxB``: its slice) and TP's
    group on it, the mesh's innermost axes; empty without a mesh or at tp = 1."""
    if text is None:
        return "", ()
    n = int(problem.devices)
    mesh = parse_mesh(spelled_mesh(text, problem.chip, n))
    if mesh.devices != n:
        raise ProblemError(
            f"--mesh {text}",
            f"its axes hold {mesh.devices} devices; the step runs on --devices {n}",
        )
    return mesh.text(), group_levels(mesh, tp, "the tensor-parallel group") if tp > 1 else ()


@dataclass(frozen=True)
class _Counts:
    """A model kernel's counts per device, in B (S and the model's dims bound)."""

    kernel: ModelKernel
    flops: sp.Expr
    bytes: sp.Expr
    comms: sp.Expr
    steps: int
    launches: int


def _sized_counts(problem: ModelProblem, phase: Phase, tp: int) -> tuple[_Counts, ...]:
    """A model known by its size: its weights streamed once per step (2·P_active FLOPs a
    token), and its KV cache of B·S tokens read (attention's FLOPs only when given)."""
    model = problem.model
    assert isinstance(model, SizedModel) and model.kv_bytes_per_token is not None
    bound = {dim: value for dim, value in problem.bound if dim is not batch}
    in_flight = batch if phase is Phase.DECODE else batch * context
    share = sp.Rational(1, tp)
    weights = ModelTensor("weights", (model.params,), Role.WEIGHT, model.params)
    cache = ModelTensor("KV_cache", (batch, context), Role.KV_CACHE, batch * context)
    attention_flops = model.attention_flops_per_token or sp.Integer(0)
    kernels = (
        (
            ModelKernel(
                "weights", KernelOp.MATMUL, Block.GLOBALS, False, (weights,), (), 2 * tokens
            ),
            2 * model.params_active * in_flight,
            model.params * problem.dtype(Role.WEIGHT).width,
        ),
        (
            ModelKernel("attention", KernelOp.ATTENTION, Block.ATTENTION, False, (cache,), (), 0),
            attention_flops * in_flight,
            model.kv_bytes_per_token * batch * context,
        ),
    )

    def at(e: sp.Expr) -> sp.Expr:
        return sp.expand((share * e).xreplace(bound))

    return tuple(
        _Counts(k, at(flops), at(moved), sp.Integer(0), 0, 1) for k, flops, moved in kernels
    )


def sized_assumptions(problem: ModelProblem, phase: Phase, tp: int) -> tuple[str, ...]:
    """What a step of a model known by its size assumes, one line each (empty otherwise)."""
    model = problem.model
    if not isinstance(model, SizedModel):
        return ()
    width = problem.dtype(Role.WEIGHT)
    tokens_text = "B" if phase is Phase.DECODE else "B·S"
    lines = [
        f"every weight is read once per step: P·w = {model.params} × {width.width} B "
        f"({width.name}), every expert included",
        f"2·P_active = 2 × {model.params_active} FLOPs per token, {tokens_text} tokens a step",
        f"the KV cache is read whole: {model.kv_bytes_per_token} B per token × B·S tokens",
        "activations' bytes are left out: they need an architecture",
    ]
    if model.attention_flops_per_token is None:
        lines.append(
            "attention's FLOPs are left out: they need an architecture "
            "(or --attention-flops-per-token)"
        )
    else:
        lines.append(f"attention: {model.attention_flops_per_token} FLOPs per token, as given")
    if tp > 1:
        lines.append(
            f"weights, FLOPs and KV cache split evenly over tp = {tp}; "
            "the all-reduces are left out: they need an architecture"
        )
    return tuple(lines)


def _counts(
    problem: ModelProblem, phase: Phase, tp: int, levels: tuple[Level, ...] = ()
) -> tuple[_Counts, ...]:
    if isinstance(problem.model, SizedModel):
        return _sized_counts(problem, phase, tp)
    model = problem.transformer
    bound = {dim: value for dim, value in problem.bound if dim is not batch}
    kv = problem.kv_split(tp)
    in_flight = batch if phase is Phase.DECODE else batch * context
    per_token = {tokens: in_flight}
    out = []
    for kernel in expand(model).kernels:
        repeat = int(_number(kernel.copies(model), bound, "the model's layers"))
        ways = _ways(kernel, None, tp, kv)
        split = sp.Integer(1) if kernel.name in _REPLICATED else sp.Rational(1, ways)
        if kernel.operator not in _SPLIT_OPS:
            split = sp.Integer(1)
        comms, steps = _comms(kernel, problem, tp, levels)
        flops, moved = _expr(kernel.flops), _bytes(kernel, problem, tp, kv)
        at = [e.xreplace(per_token).xreplace(bound) for e in (flops, moved, comms)]
        n_flops, n_bytes, n_comms = (
            sp.expand(k * e) for k, e in zip((repeat * split, repeat, repeat), at, strict=True)
        )
        out.append(_Counts(kernel, n_flops, n_bytes, n_comms, repeat * steps, repeat))
    return tuple(out)


def _check_split(problem: ModelProblem, tp: int, tp_text: str | None) -> None:
    """Refuse a degree that does not split the heads, naming the flag that set it: ``--tp``,
    or ``--devices`` when the degree is its default (all the devices).

    The query heads are split tp ways; the KV heads tp ways up to h_kv, and beyond it each
    device holds one (tp a multiple of h_kv, each head replicated tp/h_kv times).
    """
    if isinstance(problem.model, SizedModel):
        return  # no heads to split: the step splits evenly (sized_assumptions says so)
    model = problem.transformer
    bound = dict(problem.bound)
    typed = tp_text is not None or problem.tp != problem.devices
    heads = _number(model.heads, bound, "the model's heads")
    kv = _number(model.kv_heads, bound, "the model's kv_heads")
    why = None
    if heads % tp:
        why = f"{model.name} has {heads} heads, not divisible by {tp}"
    elif kv % tp and tp % kv and not model.is_mla:
        why = (
            f"{model.name} has {kv} kv heads: {tp} neither divides them nor is a multiple of "
            "them (beyond the KV heads, each device holds one, replicated)"
        )
    if why is not None:
        raise ProblemError(
            f"--tp {tp}" if typed else f"--devices {problem.devices}",
            why + ("" if typed else " (the tensor-parallel degree --tp defaults to --devices)"),
        )


def _tp(problem: ModelProblem, text: str | None) -> int:
    """The tensor-parallel degree: ``text`` when given (it divides the devices), else the problem's."""
    return int(bind_tp(text, problem.devices) if text is not None else problem.tp)


def _ceilings(
    problem: ModelProblem,
    peak: sp.Rational,
    tp: int,
    timing: Timing,
    levels: tuple[Level, ...] = (),
    book: bool = False,
) -> Ceilings:
    """π, β and β_link; on a mesh β_link is the all-reduce's bytes over its time per byte (the
    Scaling Book's time when ``book``: :func:`~derive.analysis.network.book_time_per_byte`)."""
    link = problem.chip.link.value if problem.chip is not None and problem.chip.link else None
    bandwidth = problem.bandwidth.value if problem.bandwidth is not None else peak
    if levels:
        every, ici = (Exchange.ALL_REDUCE, levels), book_ici(levels)
        per_byte = book_time_per_byte(*every, ici) if book else time_per_byte(*every)
        link, latency = bytes_per_byte(*every) / per_byte, book_latency(*every, ici)
        timing = replace(timing, link_latency=latency if book else calls_latency(*every))
    return Ceilings.of(peak, bandwidth, link if tp > 1 else None, timing)


def _step_at(counts: tuple[_Counts, ...], b_value: sp.Integer, ceilings: Ceilings) -> StepTime:
    at_b = {batch: b_value}
    return compose(
        tuple(
            Kernel(
                name=count.kernel.name + (f" ×{count.launches}" if count.launches > 1 else ""),
                flops=count.flops.xreplace(at_b),
                bytes=count.bytes.xreplace(at_b),
                comms_bytes=count.comms.xreplace(at_b),
                parts=(count.kernel.name,),
                latency_steps=count.steps,
                launches=count.launches,
            )
            for count in counts
        ),
        ceilings,
    )


def decode_rates(
    problem: ModelProblem,
    tp_text: str | None,
    timing: Timing,
    batches: tuple[int, ...],
    mesh: str | None = None,
) -> tuple[sp.Rational, ...]:
    """Decode tokens/s of the cluster (replicas × B / t_lower) at each batch, the rest as bound."""
    peak = _ceilings_of(problem)[0]
    tp = _tp(problem, tp_text)
    _check_split(problem, tp, tp_text)
    levels = _network(problem, tp, mesh, timing)[1]
    counts = _counts(problem, Phase.DECODE, tp, levels)
    ceilings = _ceilings(problem, peak.value, tp, timing, levels)
    replicas = int(problem.devices) // tp
    return tuple(
        replicas * sp.Integer(b) / _step_at(counts, sp.Integer(b), ceilings).t_lower
        for b in batches
    )


def _branch(expr: sp.Expr, every_expert: bool) -> sp.Expr:
    """``expr`` with each min(E, k·B) taken on one side: E (k·B ≥ E) or k·B (k·B < E)."""
    return expr.replace(
        lambda e: isinstance(e, sp.Min),
        lambda e: next(a for a in e.args if (batch in a.free_symbols) != every_expert),
    )


def _crossover_in_b(
    flops: sp.Expr, bytes_: sp.Expr, peak: sp.Rational, bandwidth: sp.Rational, leading: bool
) -> Crossover:
    """Solve for B where the bytes hold min(E, k·B) (a MoE's experts read), branch by branch.

    Solved first where every expert is read (k·B ≥ E, where a crossover usually lies); if the
    root falls below E/k, the other branch (each token's own k experts) is solved instead.
    ``leading`` drops the activations' bytes (B → 0 after the branch is chosen).
    """

    def solve(every_expert: bool) -> Crossover:
        b = _branch(bytes_, every_expert)
        if leading:
            return solve_crossover(flops, b.xreplace({batch: 0}), peak, bandwidth, batch)
        return solve_crossover(*reduced_parts(flops, b), peak, bandwidth, batch)

    full = solve(True)
    knees = [_knee(m) for m in sp.preorder_traversal(bytes_) if isinstance(m, sp.Min)]
    if not knees or full.min_compute_bound is None or full.min_compute_bound >= max(knees):
        return full
    below = solve(False)
    found = below.min_compute_bound
    return below if found is not None and found < max(knees) else full


def _knee(minimum: sp.Min) -> sp.Expr:
    """E/k, the batch from which min(E, k·B) reads every expert."""
    every = next(a for a in minimum.args if batch not in a.free_symbols)
    per_token = next(a for a in minimum.args if batch in a.free_symbols)
    return every / sp.Poly(per_token, batch).LC()


def at_batch_and_context(problem: ModelProblem, b: int, s: int) -> ModelProblem:
    """The same problem with ``B`` and ``S`` bound to other values (a plot's points)."""
    others = tuple((dim, value) for dim, value in problem.bound if dim not in (batch, context))
    return replace(problem, bound=(*others, (batch, sp.Integer(b)), (context, sp.Integer(s))))


def _ceilings_of(problem: ModelProblem) -> tuple[Figure, Figure]:
    """The peak and bandwidth a step is timed at; no ceilings, or a model known by its size
    without its KV cache's bytes per token, is refused."""
    model = problem.model
    if isinstance(model, SizedModel) and model.kv_bytes_per_token is None:
        raise ProblemError(
            "--phase",
            "a serving step of a model known by its size reads its KV cache: give "
            "--kv-bytes-per-token (the bytes one token of context holds, every layer)",
        )
    peak_figure = problem.peak
    if peak_figure is None and problem.chip is not None:
        peak_figure = problem.chip.peak(problem.compute_dtype)
    if peak_figure is None or problem.bandwidth is None:
        raise ProblemError(
            "--phase",
            "a step's time needs a peak and a bandwidth: give --chip (or --peak and --bandwidth)",
        )
    return peak_figure, problem.bandwidth


def analyse_decode_crossover(problem: ModelProblem, tp_text: str | None) -> DecodeCrossover:
    """The decode crossover for B, the batch left free (``derive model --phase decode``
    without ``--set B``): the matmuls' exact and leading-order batch, and the whole step's
    at the bound S, or as a formula in S when S is free too.
    """
    peak, bandwidth = (figure.value for figure in _ceilings_of(problem))
    free = tuple((dim, value) for dim, value in problem.bound if dim is not batch)
    problem = replace(problem, bound=free)
    tp = _tp(problem, tp_text)
    _check_split(problem, tp, tp_text)
    counts = _counts(problem, Phase.DECODE, tp)
    matmuls = [count for count in counts if count.kernel.operator in _MATMULS]
    mm_flops = sp.Add(*(count.flops for count in matmuls))
    mm_bytes = sp.Add(*(count.bytes for count in matmuls))
    all_flops = sp.Add(*(count.flops for count in counts))
    all_bytes = sp.Add(*(count.bytes for count in counts))
    whole = _crossover_in_b(all_flops, all_bytes, peak, bandwidth, leading=False)
    limit = _context_limit(whole)
    return DecodeCrossover(
        tp=tp,
        replicas=int(problem.devices) // tp,
        context=problem.value_of(context),
        matmul_flops=mm_flops,
        matmul_bytes=mm_bytes,
        step_flops=all_flops,
        step_bytes=all_bytes,
        crossover=_crossover_in_b(mm_flops, mm_bytes, peak, bandwidth, leading=False),
        crossover_regime=_crossover_in_b(mm_flops, mm_bytes, peak, bandwidth, leading=True),
        crossover_step=whole,
        context_limit=limit,
        context_last=None if limit is None else sp.ceiling(limit) - 1,
        step_fraction=_positive_fraction(whole.exact) if limit is not None else None,
        ridge=peak / bandwidth,
        assumptions=sized_assumptions(problem, Phase.DECODE, tp),
    )


def _positive_fraction(value: sp.Expr | None) -> tuple[sp.Expr, sp.Expr] | None:
    """``value`` as (numerator, denominator) with a positive number on top."""
    if value is None:
        return None
    numerator, denominator = sp.fraction(sp.together(value))
    if numerator.is_number and numerator < 0:
        return -numerator, sp.expand(-denominator)
    return numerator, denominator


def _context_limit(whole: Crossover) -> sp.Expr | None:
    """The S below which a crossover in S exists: the root of its condition when that is
    linear in S and falls as S grows (the KV reads outgrow the FLOPs); else None."""
    condition = whole.condition
    if condition is None or condition.free_symbols != {context}:
        return None
    poly = sp.Poly(condition, context)
    if poly.degree() != 1 or poly.LC() >= 0:
        return None
    return sp.Rational(-poly.nth(0), poly.LC())


def analyse_phase(
    problem: ModelProblem,
    phase: Phase,
    tp_text: str | None,
    timing: Timing,
    crossovers: bool = True,
    convention: str | None = None,
    mesh: str | None = None,
) -> PhaseAnalysis:
    """The time of one step of ``phase`` per device, its rates and the decode crossover.

    ``crossovers=False`` skips solving the crossovers (a plot's many points need only the step).
    ``convention="scaling-book"`` leaves TP's all-reduces out, as the book's inference chapter
    estimates a step ("Theoretical estimates for LLM latency and throughput": T = max(bytes/W_hbm,
    FLOPs/C)), or on a ``mesh`` typed times them as its "Note on ICI bounds for generation" does
    (2·B·D/W_ici a gather or a scatter, W both ways on a torus), and keeps derive's own time beside.
    """
    convention = (convention or "derive").strip().lower()
    if convention not in ("derive", "scaling-book"):
        raise ProblemError(f"--convention {convention}", "a serving step's: derive or scaling-book")
    peak_figure, bandwidth_figure = _ceilings_of(problem)
    b_value, s_value = problem.value_of(batch), problem.value_of(context)
    if b_value is None or s_value is None:
        crossover_only = (
            " (derive model --phase decode without B gives its crossover alone)"
            if b_value is None
            else ""
        )
        raise ProblemError(
            "--phase", f"a step needs a batch and a context: --set B=… --set S=…{crossover_only}"
        )
    tp = _tp(problem, tp_text)
    _check_split(problem, tp, tp_text)
    mesh_text, levels, chosen = _network(problem, tp, mesh, timing)
    counts = _counts(problem, phase, tp, levels)
    ceilings = _ceilings(problem, peak_figure.value, tp, timing, levels)
    step = default = _step_at(counts, b_value, ceilings)
    if convention == "scaling-book":  # TP left out, or on a mesh typed timed as the book: 2V/W
        if mesh is None or chosen:
            counts = tuple(replace(c, comms=sp.Integer(0), steps=0) for c in counts)
        ceilings = _ceilings(problem, peak_figure.value, tp, timing, levels, book=True)
        step = _step_at(counts, b_value, ceilings)
    in_flight = b_value if phase is Phase.DECODE else b_value * s_value
    matmuls = [count for count in counts if count.kernel.operator in _MATMULS]
    mm_flops = sp.Add(*(count.flops for count in matmuls))
    mm_bytes = sp.Add(*(count.bytes for count in matmuls))
    all_flops = sp.Add(*(count.flops for count in counts))
    all_bytes = sp.Add(*(count.bytes for count in counts))
    peak, bandwidth = peak_figure.value, bandwidth_figure.value
    decode = phase is Phase.DECODE and crossovers
    replicas = int(problem.devices) // tp
    rate = timing.measured_tokens_per_s
    if rate is not None:  # the cluster's rate: each replica makes its tokens in one step
        timing = replace(timing, measured_time=replicas * in_flight / rate)
    return PhaseAnalysis(
        phase=phase,
        tp=tp,
        batch=b_value,
        context=s_value,
        tokens=in_flight,
        step=step,
        tokens_per_s=replicas * in_flight / step.t_lower,
        latency=step.t_lower,
        matmul_flops=mm_flops,
        matmul_bytes=mm_bytes,
        step_flops=all_flops,
        step_bytes=all_bytes,
        crossover=(
            _crossover_in_b(mm_flops, mm_bytes, peak, bandwidth, leading=False) if decode else None
        ),
        crossover_regime=(
            _crossover_in_b(mm_flops, mm_bytes, peak, bandwidth, leading=True) if decode else None
        ),
        crossover_step=(
            _crossover_in_b(all_flops, all_bytes, peak, bandwidth, leading=False)
            if decode
            else None
        ),
        measured=measure(
            timing,
            flops=step.flops,
            moved=step.bytes,
            peak=peak,
            bandwidth=bandwidth,
            lower_bound=step.nominal_lower,
        ),
        ridge=peak / bandwidth,
        replicas=replicas,
        measured_tokens_per_s=rate,
        experts_read=_experts_read(problem, in_flight),
        kv_ways=problem.kv_split(tp),
        assumptions=sized_assumptions(problem, phase, tp),
        cost=_cost(problem, step.t_lower, replicas * in_flight),
        convention=convention,
        default_latency=default.t_lower if convention != "derive" else None,
        mesh=mesh_text,
        mesh_chosen=chosen,
        mesh_rules=tuple(c.rule for c in level_costs(Exchange.ALL_REDUCE, levels)),
        tp_max_generation=_generation_tp(problem, phase, levels, b_value, bandwidth),
    )


def _generation_tp(
    problem: ModelProblem, phase: Phase, levels: tuple[Level, ...], b: sp.Expr, hbm: sp.Expr
) -> sp.Expr | None:
    """Inference, "Note on ICI bounds for generation": TP's T_ici = 2BD/W_ici passes the
    weights' T_hbm = 2DF/(Y·W_hbm) from Y = F·W_ici/(B·W_hbm), W_ici the book's W of TP's axes."""
    if phase is not Phase.DECODE or not levels or isinstance(problem.model, SizedModel):
        return None
    w = 1 / book_time_per_byte(Exchange.ALL_GATHER, levels, book_ici(levels))
    return _number(problem.transformer.d_ff, dict(problem.bound), "the MLP's width") * w / (b * hbm)


def _cost(problem: ModelProblem, step_time: sp.Expr, tokens: sp.Expr) -> StepCost | None:
    """The step's bill and energy on every device, when a price or a power is given."""
    if problem.price_per_hour is None and problem.power is None:
        return None
    price, power = problem.price_per_hour, problem.power
    return step_cost(
        None if price is None else price.value,
        None if power is None else power.value,
        problem.devices,
        step_time,
        tokens,
    )


def _experts_read(problem: ModelProblem, in_flight: sp.Integer) -> ExpertsRead | None:
    if isinstance(problem.model, SizedModel):
        return None
    model = problem.transformer
    if not model.is_moe:
        return None
    bound = dict(problem.bound)
    return experts_read(
        _number(model.experts, bound, "the model's experts"),
        _number(model.top_k, bound, "the model's top_k"),
        in_flight,
    )
