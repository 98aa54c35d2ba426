"""A training run bound exactly: the model's analysis, the parallelism, the batch, the ceilings.

:func:`bind_training` checks a :class:`~derive.problem.train_spec.TrainSpec` against the
analysed model and names the flag or key at fault: ``dp·tp·pp·cp`` must split the model where
it must (``tp`` the heads, the KV heads and the MLP width; ``pp`` at most the layers, spread
as :mod:`derive.training.layout` says; ``ep`` the experts and the DP group; ``cp`` the
sequence), the ZeRO stage is 0 to 3 (3 not with a pipeline), the batch is a whole number of
micro-batches on every DP rank, a pipeline has at least ``pp`` micro-batches, and a mesh holds
the devices (:mod:`derive.training.mesh`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum, IntEnum

import sympy as sp

from derive.errors import ProblemError
from derive.formula.decimals import ascii_int, parse_positive
from derive.model.analysis import ModelAnalysis
from derive.model.binding import RECIPES, StateRecipe
from derive.model.sized import NEEDS_ARCHITECTURE
from derive.model.symbols import NOTATION, sym
from derive.model.transformer import Transformer
from derive.problem.chips import Chip
from derive.problem.mesh import parse_mesh
from derive.problem.timing import _efficiency, parse_duration
from derive.problem.train_spec import TrainSpec
from derive.training.layout import cluster_of, flag_on, schedule_of, stage_layers, virtual_stages
from derive.training.mesh import Placement

MAX_DEGREE = 1 << 20
DEFAULT_RECIPE = "adam-mixed"
MAX_CHECKPOINT_TENSORS = 64

CONVENTIONS: dict[str, str] = {
    "derive": "derive's own: adam-mixed state (2 + 2 + 12), no dropout, each ZeRO stage "
    "shards its parts over the DP group",
    "megatron": "Megatron-LM (megatron/training/theoretical_memory_usage.py): the megatron "
    "state (bf16 weights, fp32 main_grad, fp32 master weights and Adam m, v: 18 B/param; "
    "6 + 12/dp with the distributed optimizer, derive's ZeRO-1) on its count of the most "
    "loaded shard's parameters (the state step), and Korthikanti et al.'s "
    "activations with dropout (sbh(34 + 5as/h) per layer); selective, its own formula as "
    "written, GPT's shapes whatever the model's (10 + 24/t, 18 + 4f/h over t with sequence "
    "parallelism) plus its whole-model terms: the input ids and the "
    "embedding's dropout, 8sb + sbh per micro-batch in flight, and with pp = 1 the output "
    "layer and loss, 4sbh(1 + V/h) over t (2(sbV/t + sbh) and 5% temporaries without "
    "sequence parallelism)",
    "deepspeed": "DeepSpeed (estimate_zero2_model_states_mem_needs, "
    "estimate_zero3_model_states_mem_needs, without offload): the deepspeed state (2 + 2 + "
    "16 B/param); ZeRO-2 keeps the bf16 weights whole (2P + 18P/N), ZeRO-3 holds 18P/N and "
    "the largest layer's bf16 weights and gradients gathered (4 bytes each)",
    "scaling-book": "the Scaling Book (Austin et al., How to Scale Your Model, "
    "jax-ml.github.io/scaling-book: Training, GPUs): collectives without the ring factor, an "
    "all-gather or a reduce-scatter V/W, an all-reduce 2V/W, W bidirectional and added over a "
    "TPU's ICI axes, one way over NVLink, NICs and DCN, the slowest network setting the time; "
    "the model split evenly over tp·pp (GPUs, Quiz 5), FSDP gathering once a step, TP its MLP's all-gather and reduce-scatter, a pass's dims "
    "overlapping (the critical batch per chip C/W, the TP limit F·W/C); the book's state, bf16 "
    "weights and fp32 Adam m and v (2 + 8 = 10 bytes per parameter, gradients not counted); its "
    "activation count: about 20 nodes of B·T·d per layer in bf16 without remat, 7 keeping the "
    "big matmuls' outputs (selective), the layer input with block remat (full)",
}
"""The conventions ``--convention`` names, each with its source."""


class ZeroStage(IntEnum):
    """What ZeRO shards over the data-parallel group (stage 3 is FSDP)."""

    NONE = 0
    OPTIMIZER = 1
    GRADIENTS = 2
    WEIGHTS = 3

    @property
    def shards(self) -> tuple[str, ...]:
        """The parts of the state sharded at this stage."""
        return ("optimizer", "grads", "weights")[: int(self)]


class Recompute(str, Enum):
    """Activation recomputation: what the forward pass keeps for the backward pass."""

    FULL = "full"  # each layer's input; the layer's forward runs again in the backward pass
    SELECTIVE = "selective"  # everything but the attention core (softmax and its S² tensors)
    NONE = "none"  # every tensor the backward pass reads


@dataclass(frozen=True)
class StateSplit:
    """Bytes per parameter of the training state in its three parts (ZeRO shards them apart)."""

    name: str
    weights: sp.Rational
    grads: sp.Rational
    optimizer: sp.Rational
    note: str = ""


@dataclass(frozen=True)
class TrainingProblem:
    """A bound training run: every number exact, every name checked.

    Attributes:
        model: the analysed model (its parameter counts are read from it, never recounted).
        dp, tp, pp, ep: data-, tensor-, pipeline- and expert-parallel degrees (ep within dp).
        zero: the ZeRO stage over the DP group.
        recompute: activation recomputation.
        batch_tokens: tokens per optimizer step (all DP ranks); seq: S; micro_batch: b
            (sequences per micro-batch); microbatches: M per DP rank per step.
        peak, link, capacity: FLOP/s per device, link bytes/s (one way), HBM bytes (or None).
        state: the state's bytes per parameter, split.
        measured_time: a measured step time in seconds (or None).
        sequence_parallel: Megatron's sequence parallelism: the norms' and the dropouts' tensors
            split over the TP group too, each all-reduce an all-gather and a reduce-scatter.
        dropout: count the dropout masks and outputs (Korthikanti et al.'s GPT), off for
            derive's models, which train without dropout.
        cp: context-parallel degree (the sequence split over cp ranks, ring attention).
        placement: the dims on the ``--mesh`` axes (None: every dim on one link at ``link``).
        stage_layers: layers per pipeline stage when they differ (empty: equal stages).
        virtual_stages: v of interleaved 1F1B (1: plain 1F1B).
        schedule: the pipeline schedule (:data:`~derive.training.layout.SCHEDULES`): 1f1b, zb1p
            or dualpipe (each device holding stages i and pp − 1 − i).
        keep_gathered: ZeRO-3 gathers the weights once per step and keeps them.
        overlap_tp: ``--overlap-tp``, a schedule that hides TP's all-reduces behind compute.
        count_logits: count the logits the loss keeps (one micro-batch's, bf16, 1/tp of V).
        convention: the named preset (:data:`CONVENTIONS`) whose accounting is followed.
        causal: the attention mask is causal (``--attention-mask causal``, the default) or
            absent (``none``: every query attends every key of its window).
        checkpoint_tensors: a checkpoint policy keeping k bf16 tensors of S·b·d per layer and
            recomputing the rest (FLOPs and comms as full recomputation); None otherwise.
    """

    model: ModelAnalysis
    dp: int
    tp: int
    pp: int
    ep: int
    zero: ZeroStage
    recompute: Recompute
    batch_tokens: sp.Integer
    seq: sp.Integer
    micro_batch: sp.Integer
    microbatches: sp.Integer
    peak: sp.Rational
    peak_text: str
    link: sp.Rational
    link_text: str
    link_name: str
    capacity: sp.Rational | None
    state: StateSplit
    measured_time: sp.Rational | None
    spec: TrainSpec
    sequence_parallel: bool = False
    dropout: bool = False
    cp: int = 1
    placement: Placement | None = None  # None: every dim on one link at β_link
    stage_layers: tuple[int, ...] = ()
    virtual_stages: int = 1
    schedule: str = "1f1b"
    keep_gathered: bool = False
    overlap_tp: bool = False  # TP's all-reduces overlap compute (else on the critical path)
    count_logits: bool = False
    convention: str = "derive"
    checkpoint_tensors: int | None = None  # --recompute tensors=k: k S·b·d tensors per layer
    mesh_default: str | None = None  # --mesh default: the chip's node chosen, with its source
    causal: bool = True  # --attention-mask causal (query i attends keys j <= i) or none
    matmul_efficiency: sp.Rational | None = None  # --matmul-efficiency: of π, for t_predicted
    link_efficiency: tuple[tuple[str, sp.Rational], ...] = ()  # per axis name; "" the rest

    @property
    def recompute_text(self) -> str:
        """The recomputation as typed: ``full``, ``selective``, ``none`` or ``tensors=k``."""
        if self.checkpoint_tensors is not None:
            return f"tensors={self.checkpoint_tensors}"
        return self.recompute.value

    @property
    def book_ici(self) -> sp.Expr:
        """The Scaling Book's ICI: on a TPU (its link ICI) the axes at least β_link fast, whose
        W it takes both ways; ∞ elsewhere (GPUs: NVLink and NICs one way, as its GPU chapter)."""
        chip = self.model.problem.chip
        return self.link if chip is not None and chip.link_name == "ICI" else sp.oo

    @property
    def imbalance(self) -> sp.Rational:
        """pp·v·max_c L_c / L: the largest of the pp·v chunks (stage i's L_i layers cut into v,
        the largest ⌈L_i/v⌉ layers) against an equal share; 1 when the chunks are equal."""
        if self.transformer is None or (not self.stage_layers and self.virtual_stages == 1):
            return sp.Integer(1)
        layers, v = int(self.arch("layers")), self.virtual_stages
        chunk = -(-max(self.stage_layers or (layers // self.pp,)) // v)
        return sp.Rational(self.pp * v * chunk, layers)

    @property
    def transformer(self) -> Transformer | None:
        """The model's declaration (MLP kind, MoE, tied head); None for a model known by its
        size alone (``--params``), which has no architecture."""
        model = self.model.problem.model
        return model if isinstance(model, Transformer) else None

    @property
    def model_name(self) -> str:
        """The model's name (a model known by its size is named after it: ``params-70e9``)."""
        return self.model.problem.model.name

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts (a model known by its size is not split into experts)."""
        return self.transformer is not None and self.transformer.is_moe

    @property
    def devices(self) -> int:
        """N = dp · tp · pp · cp."""
        return self.dp * self.tp * self.pp * self.cp

    def arch(self, key: str) -> sp.Expr:
        """A number of the model (``layers``, ``d_model``…): a given or a derived quantity (0
        when the model has none: no position table, no experts, latent attention's KV heads)."""
        return _arch_table(self.model).get(key, sp.Integer(0))


_ARCH: dict[int, tuple[ModelAnalysis, dict[str, sp.Expr]]] = {}


def _arch_table(model: ModelAnalysis) -> dict[str, sp.Expr]:
    """The model's numbers by key, derived quantities over givens (built once per analysis:
    a layout search reads them thousands of times)."""
    held = _ARCH.get(id(model))
    if held is not None and held[0] is model:
        return held[1]
    given = dict(model.given)
    table = {key: given[note.symbol] for key, note in NOTATION.items() if note.symbol in given}
    first: dict[str, sp.Expr | None] = {}
    for q in model.quantities:  # the first quantity of a key, as model.value reads it
        first.setdefault(q.key, q.value)
    table.update({key: value for key, value in first.items() if value is not None})
    if len(_ARCH) > 64:
        _ARCH.clear()
    _ARCH[id(model)] = (model, table)
    return table


def whole_setting(spec: TrainSpec, field: str, default: int = 1, low: int = 1) -> int:
    """A run's whole-number setting (a parallel degree, ``seq``, ``micro_batch_size``) as the
    binding reads it, ``default`` when not given: the one reader of these settings (the
    solver of an unknown setting reads the run's others with it too).

    Raises:
        ProblemError: not ASCII digits from ``low`` to :data:`MAX_DEGREE`, naming where it
            was written.
    """
    text = getattr(spec, field)
    if text is None:
        return default
    try:  # the shared reader: ASCII digits only (issue 37: --dp ８ ran on 8 devices)
        value = ascii_int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= MAX_DEGREE:
        raise ProblemError(
            spec.where(field), f"must be an integer from {low} to {MAX_DEGREE} in ASCII digits"
        )
    return value


def batch_tokens(spec: TrainSpec) -> sp.Integer:
    """The tokens per step as the binding reads them (given: the caller checked).

    Raises:
        ProblemError: not a positive whole number, naming where it was written.
    """
    tokens = parse_positive(str(spec.batch_tokens), spec.name("batch_tokens"))
    if not tokens.is_integer:
        raise ProblemError(spec.where("batch_tokens"), "a number of tokens is a whole number")
    return sp.Integer(tokens)


def _zero(spec: TrainSpec) -> ZeroStage:
    text = spec.zero
    if text is None:
        return ZeroStage.NONE
    if text.strip() not in ("0", "1", "2", "3"):
        raise ProblemError(
            spec.where("zero"),
            "the ZeRO stage is 0 (none), 1 (optimizer), 2 (+ gradients) or 3 (+ weights: FSDP)",
        )
    return ZeroStage(int(text))


def _recompute(spec: TrainSpec) -> tuple[Recompute, int | None]:
    """The recomputation, and a checkpoint policy's tensors per layer (``tensors=2``)."""
    if spec.recompute is None:
        return Recompute.FULL, None
    text = spec.recompute.strip()
    policy = re.fullmatch(r"tensors\s*=\s*(\d{1,3})", text)
    if policy is not None:
        count = int(policy.group(1))
        if not 1 <= count <= MAX_CHECKPOINT_TENSORS:
            raise ProblemError(
                spec.where("recompute"),
                f"a checkpoint policy keeps 1 to {MAX_CHECKPOINT_TENSORS} tensors per layer",
            )
        return Recompute.FULL, count
    try:
        return Recompute(text), None
    except ValueError:
        raise ProblemError(
            spec.where("recompute"), "one of full, selective, none, tensors=K (e.g. tensors=2)"
        ) from None


def _choice(spec: TrainSpec, field: str, choices: tuple[str, ...], why: str) -> str:
    """A setting that is one of ``choices``, the first when not given."""
    text = (getattr(spec, field) or choices[0]).strip().lower()
    if text not in choices:
        raise ProblemError(spec.where(field), why)
    return text


def _state(recipe: StateRecipe | None, convention: str = "derive") -> StateSplit:
    default = convention if convention in RECIPES else DEFAULT_RECIPE
    recipe = recipe or RECIPES[default]
    if len(recipe.parts) == 3:
        w, g, o = (b for _, b in recipe.parts)
        return StateSplit(recipe.name, w, g, o)
    total = recipe.bytes_per_param
    if total < 4:
        raise ProblemError(
            "--state-bytes",
            f"{total} bytes per parameter cannot hold bf16 weights and gradients (4 bytes): give a recipe",
        )
    return StateSplit(
        recipe.name,
        sp.Integer(2),
        sp.Integer(2),
        total - 4,
        note=f"{total} bytes per parameter read as bf16 weights (2), bf16 gradients (2) "
        f"and {total - 4} of optimizer state",
    )


def _number(problem_model: ModelAnalysis, key: str) -> sp.Expr:
    value = problem_model.value(key)
    if value is None:
        value = dict(problem_model.given).get(sym(key))
    if value is None or not value.is_number:
        raise ProblemError(
            f"model {problem_model.problem.model.name!r}",
            "a training run needs every dim of the model bound: give --set",
        )
    return value


def _check_sized(model: ModelAnalysis, spec: TrainSpec, degrees: dict[str, int]) -> None:
    """A model known by its size alone trains with dp and ZeRO only: no layer to split or keep."""
    for field, degree in degrees.items():
        if degree > 1:
            raise ProblemError(
                spec.where(field),
                f"{field} = {degree} splits the model's layers: {NEEDS_ARCHITECTURE}",
            )
    if spec.recompute is not None and spec.recompute.strip() == Recompute.SELECTIVE.value:
        raise ProblemError(
            spec.where("recompute"),
            f"selective recomputation recomputes the attention core: {NEEDS_ARCHITECTURE}",
        )


def _check_splits(
    model: ModelAnalysis, spec: TrainSpec, tp: int, pp: int, ep: int, dp: int
) -> None:
    """TP splits heads, KV heads and f; PP the layers; EP the experts and the DP group."""
    name = model.problem.model.name
    mla = model.problem.transformer.is_mla
    fields = ("heads", "d_ff") if mla else ("heads", "kv_heads", "d_ff")
    for field in fields:  # latent attention (MLA) has no KV heads: its latent is whole
        value = _number(model, field)
        if value % tp:
            raise ProblemError(
                spec.where("tp"),
                f"{name} has {value} {field.replace('_', ' ')}, not divisible by tp = {tp} "
                "(Megatron splits heads, KV heads and the MLP's width over the TP group)",
            )
    layers = _number(model, "layers")
    if layers < pp:
        raise ProblemError(
            spec.where("pp"), f"{name} has {layers} layers, fewer than pp = {pp} stages"
        )
    if ep > 1:
        if not model.problem.transformer.is_moe:
            raise ProblemError(
                spec.where("ep"), f"expert parallelism needs a mixture of experts; {name} has none"
            )
        experts = _number(model, "experts")
        if experts % ep or dp % ep:
            raise ProblemError(
                spec.where("ep"),
                f"ep = {ep} must divide the experts ({experts}) and dp ({dp}): the experts are spread over part of the DP group",
            )


def _batch(
    spec: TrainSpec, dp: int, pp: int
) -> tuple[sp.Integer, sp.Integer, sp.Integer, sp.Integer]:
    """Tokens per step, S, b and M; the batch is a whole number of micro-batches per DP rank."""
    if spec.batch_tokens is None:
        raise ProblemError(spec.where("batch_tokens"), "give the tokens per step, e.g. 4194304")
    if spec.seq is None:
        raise ProblemError(spec.where("seq"), "give the sequence length S, e.g. 4096")
    tokens = batch_tokens(spec)
    seq = sp.Integer(whole_setting(spec, "seq", 1))
    micro = sp.Integer(whole_setting(spec, "micro_batch_size", 1))
    per_micro = dp * micro * seq
    if tokens % per_micro:
        raise ProblemError(
            spec.where("batch_tokens"),
            f"{tokens} tokens is not a multiple of dp · micro-batch · S = {dp} · {micro} · {seq} = {per_micro}",
        )
    count = sp.Integer(tokens // per_micro)
    if spec.microbatches is not None:
        given = whole_setting(spec, "microbatches", 1)
        if given != count:
            raise ProblemError(
                spec.where("microbatches"),
                f"the batch gives {count} micro-batches per DP rank (batch / (dp · b · S)), not {given}",
            )
    if count < pp:
        flag = "microbatches" if spec.microbatches is not None else "batch_tokens"
        raise ProblemError(
            spec.where(flag),
            f"{count} micro-batch(es) per DP rank is below pp = {pp}: a pipeline needs at least pp in flight",
        )
    return sp.Integer(tokens), seq, micro, count


def _link_efficiency(spec: TrainSpec, axes: tuple[str, ...]) -> tuple[tuple[str, sp.Rational], ...]:
    """``--link-efficiency 0.8`` (every axis) or per axis of the mesh, ``gpu=0.8,node=0.7``; a
    bare number for the axes not named: (axis, E) pairs, ``""`` for the bare one."""
    out: dict[str, sp.Rational] = {}
    for item in spec.link_efficiency.split(",") if spec.link_efficiency is not None else ():
        name, _, value = (part.strip() for part in item.rpartition("="))
        if name in out or (name and name not in axes):
            twice = f"{f'axis {name!r}' if name else 'a bare efficiency'} given twice"
            why = twice if name in out else f"no axis {name!r} in the mesh ({', '.join(axes)})"
            raise ProblemError(spec.where("link_efficiency"), why)
        axis = f" on axis {name!r}" if name else ""
        out[name] = _efficiency(value, spec.name("link_efficiency") + axis)
    return tuple(out.items())


def _default_mesh(spec: TrainSpec, chip: Chip | None, devices: int) -> tuple[TrainSpec, str | None]:
    """``--mesh default``: the chip's node (chips.toml ``node_devices`` on its link, the nodes
    on ``node_link_bytes_per_s``) when the devices fill whole nodes, else today's single axis;
    the spec with the mesh spelled out, and what was chosen, with its source (None otherwise)."""
    node = chip.node if chip is not None and chip.node_link is not None else None
    auto = spec.mesh is None and spec.link_bandwidth is None and node is not None
    wider = auto and node is not None and devices > node.value and chip is not None
    if wider and chip is not None and chip.default_mesh(devices) is not None:
        spec, note = _default_mesh(replace(spec, mesh="default"), chip, devices)  # not one domain
        why = f"{devices} devices are more than one node; --mesh or --link-bandwidth chooses"
        return spec, f"{note} (taken: {why})"
    if spec.mesh is not None and spec.mesh.startswith("tpu:") and chip is not None:
        ici = chip.slice_mesh(spec.mesh[4:])
        return replace(spec, mesh=ici), f"--mesh {spec.mesh}: the {chip.name} slice's ICI: {ici}"
    if spec.mesh is None or spec.mesh.strip().lower() != "default":
        return spec, None
    if chip is None or chip.node is None or chip.node_link is None or chip.link is None:
        name = f"chip {chip.name}" if chip is not None else "no --chip"
        raise ProblemError(
            spec.where("mesh"),
            f"default takes the chip's node from chips.toml, and {name} has none: "
            'give the axes, e.g. "gpu=8@450e9,node=2@50e9"',
        )
    text = chip.default_mesh(devices)
    size = chip.node.text
    if text is None:
        return replace(spec, mesh=None), (
            f"--mesh default: {devices} devices are not a multiple of a {chip.name} node of "
            f"{size}, so every dim rides one {chip.link_name} link"
        )
    source = (
        f"{chip.node.source} ({chip.node.edition}); {chip.node_link.note or chip.node_link.source}"
    )
    return replace(spec, mesh=text), (
        f"--mesh default: {chip.name} nodes of {size} on {chip.link_name}, the nodes on "
        f"{chip.node_link.text} B/s per chip ({source}): {text}"
    )


def bind_training(spec: TrainSpec, model: ModelAnalysis) -> TrainingProblem:
    """Validate a training run against its analysed model; the result is exact."""
    dp, tp, pp = (whole_setting(spec, f, 1) for f in ("dp", "tp", "pp"))
    ep, cp = whole_setting(spec, "ep", 1), whole_setting(spec, "cp", 1)
    zero, (recompute, tensors) = _zero(spec), _recompute(spec)
    known = ", ".join(CONVENTIONS)
    convention = _choice(
        spec, "convention", (*CONVENTIONS,), f"an unknown preset: give one of {known}"
    )
    spec, mesh_default = _default_mesh(spec, model.problem.chip, dp * tp * pp * cp)
    if zero is ZeroStage.WEIGHTS and pp > 1:
        raise ProblemError(
            spec.where("zero"),
            f"ZeRO-3 with a pipeline (pp = {pp}) is refused, as DeepSpeed refuses it (its pipeline "
            "engine runs ZeRO-1 and 2 only): give --zero 1 or 2",
        )
    stages: tuple[int, ...] = ()
    even: tuple[int, ...] = ()
    if isinstance(model.problem.model, Transformer):
        _check_splits(model, spec, tp, pp, ep, dp)
        layers = int(_number(model, "layers"))
        stages = stage_layers(spec, layers, pp)
        even = stages or (layers // pp,) * pp
    else:
        _check_sized(model, spec, {"tp": tp, "pp": pp, "ep": ep, "cp": cp})
    tokens, seq, micro, count = _batch(spec, dp, pp)
    if seq % cp:
        raise ProblemError(spec.where("cp"), f"cp = {cp} does not divide the sequence S = {seq}")
    virtual = virtual_stages(spec, whole_setting(spec, "virtual_stages", 1), pp, even, count)
    schedule = schedule_of(spec, pp, virtual, count, convention)
    problem = model.problem
    chip = problem.chip
    peak = problem.peak or (chip.peak(problem.compute_dtype) if chip is not None else None)
    if peak is None:
        raise ProblemError("--chip", "a training step's time needs a peak: give --chip or --peak")
    if spec.link_bandwidth is not None:
        link_value = parse_positive(spec.link_bandwidth, spec.name("link_bandwidth"))
        link_text, link_name = spec.link_bandwidth.strip(), "given link"
        if chip is not None and chip.link is not None:
            was = f"override of {chip.name}'s {chip.link.text}"
            link_name = chip.link_name if chip.link.value == link_value else was
    elif chip is not None and chip.link is not None:
        link_value, link_text, link_name = chip.link.value, chip.link.text, chip.link_name
    elif spec.mesh is not None:  # the innermost axis stands for "the link" in the prose
        inner = parse_mesh(spec.mesh, spec.where("mesh")).axes[0]
        link_value, link_text = inner.bandwidth, inner.bandwidth_text
        link_name = f"mesh axis {inner.name}"
    else:
        raise ProblemError(
            spec.where("link_bandwidth"), "give the link bandwidth (bytes/s, one way), e.g. 4.5e11"
        )
    sequence_parallel = flag_on(spec, "sequence_parallel")
    keep = flag_on(spec, "keep_gathered_weights")
    if keep and zero is not ZeroStage.WEIGHTS:
        raise ProblemError(
            spec.where("keep_gathered_weights"), "keeps ZeRO-3's gathered weights: give --zero 3"
        )
    degrees = {"tp": tp, "cp": cp, "ep": ep, "pp": pp, "dp": dp // ep}
    placement = cluster_of(spec, degrees)
    measured = None
    if spec.measured_step_time is not None:
        measured = parse_duration(spec.measured_step_time, spec.name("measured_step_time"))
        if measured <= 0:
            raise ProblemError(spec.where("measured_step_time"), "a step takes a positive time")
    return TrainingProblem(
        model=model,
        dp=dp,
        tp=tp,
        pp=pp,
        ep=ep,
        zero=zero,
        recompute=recompute,
        batch_tokens=tokens,
        seq=seq,
        micro_batch=micro,
        microbatches=count,
        peak=peak.value,
        peak_text=peak.text,
        link=link_value,
        link_text=link_text,
        link_name=link_name,
        capacity=problem.capacity.value if problem.capacity is not None else None,
        state=_state(problem.state, convention),
        measured_time=measured,
        spec=spec,
        sequence_parallel=sequence_parallel,
        cp=cp,
        placement=placement,
        stage_layers=stages,
        virtual_stages=virtual,
        schedule=schedule,
        keep_gathered=keep,
        overlap_tp=flag_on(spec, "overlap_tp"),
        count_logits=flag_on(spec, "count_logits"),
        dropout=flag_on(spec, "dropout") if spec.dropout is not None else convention == "megatron",
        convention=convention,
        mesh_default=mesh_default,
        checkpoint_tensors=tensors,
        causal=_choice(spec, "attention_mask", ("causal", "none"), "causal (the default) or none")
        == "causal",
        matmul_efficiency=None
        if spec.matmul_efficiency is None
        else _efficiency(spec.matmul_efficiency, spec.name("matmul_efficiency")),
        link_efficiency=_link_efficiency(
            spec, tuple(a.name for a in placement.mesh.axes) if placement else ("link",)
        ),
    )
