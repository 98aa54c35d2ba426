"""Every quantity derive answers, one row each (the records: :mod:`derive.catalogue.records`).

The rows are Python, not a data file: each is a constant the code names (``RIDGE.name``,
checked by mypy and an import, where a misspelt string would be a silent miss), and its
fields are enums (:class:`~derive.catalogue.kinds.ProblemKind`,
:class:`~derive.formula.units.Dimension`, :class:`~derive.catalogue.records.Use`) that a
data file would spell as strings again. The order of the rows is the order every list
of names is printed in (a kind's ``ask`` keys, the JSON of a whole model, the kernel's
answer boxes).

To add a quantity: add its row here (the name is its JSON key), compute it where its
kind is analysed, and print it where its step is written; ``docs/architecture.md``
("Adding a quantity") walks through one.
"""

from __future__ import annotations

from derive.catalogue.kinds import ProblemKind
from derive.catalogue.records import At, Box, Computation, Exactness, Quantity, Roof, Use
from derive.formula.units import Dimension

_ROWS: list[Quantity] = []


def _row(name: str, prose: str, dimension: Dimension | None, *at: At, **facts: object) -> Quantity:
    """Declare one row (in the catalogue's order) and return it."""
    row = Quantity(name, prose, dimension, at, **facts)  # type: ignore[arg-type]
    _ROWS.append(row)
    return row


_K = ProblemKind
OP, KERNEL, MODEL, SERVING, TRAINING = _K.OPERATOR, _K.KERNEL, _K.MODEL, _K.SERVING, _K.TRAINING
BUDGET, WHAT_IF, COMMS = _K.BUDGET, _K.WHAT_IF, _K.COMMS
_LINK_TIME = At(COMMS, Use.NONE, read="time")  # a comms-only operator's time: its both bounds
ASK, EXPECT, CHECK, BOX = Use.ASK, Use.EXPECT, Use.CHECK, Use.BOX
ALL = ASK | EXPECT | CHECK | BOX
_D = Dimension
_C = Computation

# What an answer box asks a student to type (``{dims}``, ``{others}``: see records.Box).
_FORMULA, _NUMBER, _SECONDS = "a formula in {dims}", "a number", "seconds: a formula in {dims}"
_RATIO, _TIME = "FLOPs/byte: a number", "a time with its unit (1.2 ms, 850 us)"
_FRACTION = "a fraction (0.35) or a percentage (35%)"
_STEP_SECONDS = "a time with its unit (s, ms, µs)"
_RIDGE_BOX = ("Ridge point", r"\pi / \beta")
_T_MATH_BOX = ("Compute time", r"T_{\text{math}}")
_T_MEM_BOX = ("Memory time", r"T_{\text{mem}}")
_COUNTS = "both counts, --flops and --bytes (an intensity alone gives no times)"
_MEASURED = "a measured run: --measured-time TIME (with both counts) or --measured-{}-per-s R"

# A training run's quantities (a model problem with ``train``; ``derive train``'s JSON).
_TRAIN_CHECK = EXPECT | CHECK | BOX
_TRAIN_ASKED = ASK | _TRAIN_CHECK
_TRAIN_BYTES = "bytes: a number with a unit (GB, GiB, …)"
_TRAIN_SECONDS = "a time with its unit (s, ms)"


def _train(
    label: str, latex: str, placeholder: str, phrase: str = "", json: str = "", read: str = ""
) -> At:
    """A quantity in a training problem: asked when it has a phrase, always checked and boxed;
    ``read``: its place in the run's :class:`~derive.training.analysis.TrainingAnalysis`."""
    uses = _TRAIN_ASKED if phrase else _TRAIN_CHECK
    return At(TRAINING, uses, phrase, Box(label, latex, placeholder), json=json, read=read)


# --- the roofline of one operator or kernel -------------------------------------------

FLOPS = _row(
    "flops", "FLOPs", _D.FLOPS,
    At(OP, ALL, "the FLOPs", Box("FLOPs", "", _FORMULA)), At(KERNEL, Use.NONE),
    plain="FLOPs", latex=r"\text{FLOPs}", rule="the operator's FLOP count",
    aliases=("flop", "#flops", "n_flops", "flopcount"), computation=_C.FLOPS,
    slips=("mac_counted_once", "other_dtype", "per_tensor_terms"),
)  # fmt: skip
BYTES = _row(
    "bytes", "bytes", _D.BYTES,
    At(
        OP, ALL, "the bytes moved through memory", Box("Bytes moved", "", _FORMULA),
        read="memory.bytes",
    ),
    At(KERNEL, Use.NONE),  # a kernel's counts, as given: names its formulas may use
    plain="bytes", latex=r"\text{bytes}",
    rule="bytes = Σ width × elements over every tensor read or written",
    aliases=("byte", "bytesmoved", "bytes_moved", "bytes_mem", "bytes_memory", "memorybytes"),
    computation=_C.BYTES, slips=("other_dtype", "per_tensor_terms", "leading_order"),
)  # fmt: skip
INTENSITY = _row(
    "intensity", "intensity", _D.INTENSITY,
    At(
        OP, ALL, "the arithmetic intensity", Box("Arithmetic intensity", "I", _FORMULA),
        read="memory.intensity",
    ),
    At(KERNEL, ALL, "the arithmetic intensity", Box("Arithmetic intensity", "I", _RATIO)),
    plain="I", latex="I", rule="I = FLOPs / bytes",
    aliases=(
        "i", "ai", "arithmeticintensity", "arithmetic_intensity", "i_mem", "i_memory",
        "flops/bytes", "fracflopsbytes",
    ),
    computation=_C.INTENSITY,
    slips=("inverse", "mac_counted_once", "the_ridge", "other_dtype", "leading_order"),
)  # fmt: skip
INTENSITY_BOUND = _row(
    "intensity_bound", "intensity at the bound dims", _D.INTENSITY, At(OP, EXPECT),
    plain="I",
)  # fmt: skip
INTENSITY_REGIME = _row(
    "intensity_regime", "leading-order intensity", _D.INTENSITY,
    At(
        OP, ALL, "the leading-order intensity under the regime",
        Box("Intensity at leading order", "I", _FORMULA),
    ),
    plain="I", latex="I", rule="leading order under a one-parameter scaling",
    aliases=("i_regime", "i_leading", "i_lead"), computation=_C.INTENSITY,
    family=INTENSITY.name,
)  # fmt: skip
INTENSITY_REGIME_BOUND = _row(
    "intensity_regime_bound", "leading-order intensity at the bound dims", _D.INTENSITY,
    At(OP, EXPECT), plain="I",
)  # fmt: skip
RIDGE = _row(
    "ridge", "ridge point", _D.INTENSITY,
    At(
        OP, ALL, "the ridge point of the hardware", Box(*_RIDGE_BOX, _NUMBER),
        read="memory.ridge",
    ),
    At(
        KERNEL, ALL, "the ridge point of the hardware", Box(*_RIDGE_BOX, _RATIO),
        prose="ridge point π/β",
    ),
    plain="π/β", latex=r"\pi / \beta", rule="ridge = peak / bandwidth",
    aliases=("ridgepoint", "ridge_point", "i_ridge", "pi/beta", "fracpibeta", "i_*", "i^*"),
    computation=_C.RIDGE,
    slips=("inverse", "derated_ridge", "sparse_peak", "kernel_intensity", "other_dtype"),
)  # fmt: skip
EFFECTIVE_RIDGE = _row(
    "effective_ridge", "derated ridge point π·η_c/(β·η_m)", _D.INTENSITY,
    At(
        KERNEL, ALL, "the ridge point of the derated ceilings",
        Box("Derated ridge point", r"\pi \eta_c / (\beta \eta_m)", _RATIO),
    ),
    plain="π·η_c/(β·η_m)", latex=r"\pi \eta_c / (\beta \eta_m)",
    aliases=("ridge_eff", "ridge_effective", "i_ridge,eff"),
    slips=("nominal_ridge", "inverse"),
)  # fmt: skip
CROSSOVER = _row(
    "crossover", "crossover", _D.COUNT,
    At(
        OP, ALL, "the exact crossover and the smallest compute-bound integer value",
        Box("Crossover", "{x}^*", "a number{others}"),
        json="crossover.exact",
    ),
    At(
        SERVING, ALL, "the batch at which decode becomes compute-bound",
        Box("Batch at which decode becomes compute-bound", "B^*", "a number, or B ≥ …"),
        json="serving.crossover.exact", needs="decode (and a crossover that happens)",
    ),
    plain="x*", latex="{x}^*", computation=_C.CROSSOVER, exactness=Exactness.CROSSING,
    slips=("leading_order", "threshold_side", "other_dtype", "ridge_for_crossover"),
)  # fmt: skip
CROSSOVER_REGIME = _row(
    "crossover_regime", "crossover at leading order", _D.COUNT,
    At(
        OP, ASK | EXPECT,
        "the crossover at leading order and the smallest compute-bound integer value",
        shows=(CROSSOVER.name,),
        json="crossover_regime.exact",
    ),
    plain="x*",
)  # fmt: skip
CROSSOVER_STATUS = _row(
    "crossover_status", "whether a crossover exists", None,
    At(OP, EXPECT, json="crossover.status"),
)  # fmt: skip
MIN_COMPUTE_BOUND = _row(
    "min_compute_bound", "smallest compute-bound integer", _D.COUNT,
    At(OP, EXPECT, json="crossover.min_compute_bound"),
)  # fmt: skip
MIN_COMPUTE_BOUND_REGIME = _row(
    "min_compute_bound_regime", "smallest compute-bound integer at leading order", _D.COUNT,
    At(OP, EXPECT, json="crossover_regime.min_compute_bound"),
)  # fmt: skip
REGIME_HOLDS = _row(
    "regime_holds", "whether the regime holds", None,
    At(OP, ASK, "whether the answer respects the regime assumed"),
)  # fmt: skip
TIMES = _row(
    "times", "T_math and T_mem", None,
    At(OP, ASK, "T_math and T_mem", shows=("t_math", "t_mem")),
    rule="T_math = FLOPs / π, T_mem = bytes / β",
)  # fmt: skip
BOUNDS = _row(
    "bounds", "bounds on the runtime", None,
    At(OP, ASK, "lower and upper bounds on the runtime", shows=("t_lower", "t_upper")),
    rule="max(T_math, T_mem) ≤ T ≤ T_math + T_mem",
)  # fmt: skip
_ATTAINABLE_BOX = Box("Attainable FLOP/s", "", "FLOP/s: a number (7.3e13)")
ATTAINABLE = _row(
    "attainable", "attainable FLOP/s", _D.FLOP_RATE,
    At(OP, ALL, "the attainable FLOP/s and the fraction of peak", _ATTAINABLE_BOX),
    At(KERNEL, ALL, "the attainable FLOP/s", _ATTAINABLE_BOX),
    plain="P", rule="attainable FLOP/s = min(π, I·β)", computation=_C.ANALYSED,
    aliases=("p_attainable", "p", "perf", "performance", "attainableflop/s"),
    slips=("larger_ceiling", "nominal_ceilings", "sparse_peak"),
)  # fmt: skip
FRACTION_OF_PEAK = _row(
    "fraction_of_peak", "fraction of peak", _D.COUNT,
    At(KERNEL, ALL, "the fraction of peak", Box("Fraction of peak", "", _FRACTION)),
    At(OP, Use.NONE),  # in its JSON report and a Python attribute only
    plain="P/π", aliases=("fractionofpeak", "fraction", "f_peak"),
    slips=("percent_without_sign", "larger_ceiling", "nominal_ceilings", "sparse_peak"),
)  # fmt: skip
FUSION_SAVINGS_TOTAL = _row("fusion_savings_total", "fusion savings over every layer", _D.BYTES,
    At(OP, EXPECT | CHECK | BOX, box=Box("Fusion savings × layers", "", _TRAIN_BYTES)), computation=_C.ANALYSED)  # fmt: skip
T_MATH = _row(
    "t_math", "T_math", _D.TIME,
    At(OP, EXPECT | CHECK | BOX, box=Box(*_T_MATH_BOX, _SECONDS)),
    At(KERNEL, ALL, "T_math", Box(*_T_MATH_BOX, _TIME), needs=_COUNTS, json="step.t_math"),
    At(SERVING, Use.NONE, json="serving.step.t_math"),
    _train(
        "Compute time of a step", r"T_{\text{math}}", _TRAIN_SECONDS,
        "the compute and communication times of a step",
    ),
    plain="T_math", latex=r"T_{\text{math}}",
    aliases=("tmath", "t_compute", "t_comp", "t_flops", "flops/pi", "fracflopspi"),
    computation=_C.COMPUTE_TIME,
    slips=("the_other_time", "nominal_ceiling", "sparse_peak", "mac_counted_once"),
)  # fmt: skip
T_MEM = _row(
    "t_mem", "T_mem", _D.TIME,
    At(OP, EXPECT | CHECK | BOX, box=Box(*_T_MEM_BOX, _SECONDS), read="memory.time"),
    At(KERNEL, ALL, "T_mem", Box(*_T_MEM_BOX, _TIME), needs=_COUNTS, json="step.t_mem"),
    At(SERVING, Use.NONE, json="serving.step.t_mem"),
    plain="T_mem", latex=r"T_{\text{mem}}",
    aliases=("tmem", "t_memory", "bytes/beta", "fracbytesbeta"),
    computation=_C.TRANSFER_TIME, slips=("the_other_time", "nominal_ceiling"),
)  # fmt: skip

# --- the interconnect's roofline of an operator that sends bytes between chips --------

NETWORK_BYTES = _row(
    "network_bytes", "network bytes", _D.BYTES,
    At(OP, CHECK | BOX, box=Box("Bytes over the link", "", _FORMULA), json="network.bytes"),
    aliases=("bytes_network", "bytes_comms", "bytes_net"),
    computation=_C.BYTES, roof=Roof.NETWORK, family=BYTES.name,
)  # fmt: skip
NETWORK_INTENSITY = _row(
    "network_intensity", "network intensity", _D.INTENSITY,
    At(
        OP, CHECK | BOX, box=Box("Link intensity", r"I_{\text{link}}", _FORMULA),
        json="network.intensity",
    ),
    latex=r"I_{\text{link}}", plain="I_link",
    aliases=("i_network", "i_net", "i_comms", "i_comm"),
    computation=_C.INTENSITY, roof=Roof.NETWORK, family=INTENSITY.name,
)  # fmt: skip
NETWORK_RIDGE = _row(
    "network_ridge", "network ridge point", _D.INTENSITY,
    At(
        OP, CHECK | BOX, box=Box("Link ridge point", r"\pi / \beta_{\text{link}}", _NUMBER),
        json="network.ridge",
    ),
    aliases=("ridge_network",), computation=_C.RIDGE, roof=Roof.NETWORK,
    family=RIDGE.name,
)  # fmt: skip
NETWORK_CROSSOVER = _row(
    "network_crossover", "network crossover", _D.COUNT,
    At(
        OP, CHECK | BOX,
        box=Box(
            "Link crossover", r"{x}^*_{\text{link}}", "a number, or a formula in {dims}"
        ),
        json="network.crossover.exact",
    ),
    latex=r"{x}^*_{\text{link}}", aliases=("crossover_network",),
    computation=_C.CROSSOVER, roof=Roof.NETWORK, family=CROSSOVER.name,
    exactness=Exactness.CROSSING,
)  # fmt: skip
T_COMMS = _row(
    "t_comms", "T_comms", _D.TIME,
    At(
        OP, CHECK | BOX, box=Box("Communication time", r"T_{\text{comms}}", _SECONDS),
        json="network.t_comms", read="network.time",
    ),
    _LINK_TIME, At(KERNEL, Use.NONE, json="step.t_comms"),
    At(SERVING, Use.NONE, json="serving.step.t_comms"),
    _train(
        "Communication time of a step", r"T_{\text{comms}}", _TRAIN_SECONDS,
        "the communication time of a step",
    ),
    latex=r"T_{\text{comms}}", plain="T_comms",
    aliases=("t_comm", "tcomms", "t_network", "t_net", "t_ici"),
    computation=_C.TRANSFER_TIME, roof=Roof.NETWORK, family=T_MEM.name,
)  # fmt: skip

# --- the bounds of a step (an operator's kernels, a kernel, a serving step) ----------


def _bound(side: str, phrase: str) -> tuple[At, ...]:
    """Where a step's ``side`` bound ("lower" or "upper") is: an operator's, a kernel's, a
    serving step's, a comms-only operator's (its link time) and a training step's."""
    latex, bound = rf"T_{{\text{{{side}}}}}", side.capitalize() + " bound"
    runtime, step = f"{bound} on the runtime", f"{bound} of the step's time"
    return (
        # boxed on the page of an operator that only communicates (a bound of its link time)
        At(OP, CHECK | BOX, box=Box(runtime, latex, _TIME)),
        At(
            KERNEL, ALL, f"the {side} bound on the runtime, T_{side}", Box(runtime, latex, _TIME),
            prose=f"{side} bound T_{side}", needs=_COUNTS, json=f"step.t_{side}",
        ),
        At(
            SERVING, EXPECT | CHECK | BOX, box=Box(f"{step}, per device", latex, _STEP_SECONDS),
            json=f"serving.step.t_{side}",
        ),
        _LINK_TIME,
        _train(step, latex, _TRAIN_SECONDS, phrase),
    )  # fmt: skip


T_LOWER = _row(
    "t_lower", "step lower bound T_lower", _D.TIME,
    *_bound("lower", "the lower and upper bounds on the step's time"),
    latex=r"T_{\text{lower}}", plain="T_lower",
    aliases=("t_low", "t_lowerbound", "t_min", "t_step", "t_lower,serial"),
    computation=_C.STEP_TIME,
    slips=("t_upper", "single_roofline", "launch_overhead_left_out", "one_time_alone"),
)  # fmt: skip
T_LOWER_OVERLAPPED = _row(
    "t_lower_overlapped", "overlapped lower bound T_lower", _D.TIME,
    At(OP, CHECK, json="step.t_lower_overlapped"),
    aliases=("t_lower,overlapped", "t_overlapped"), computation=_C.STEP_TIME,
    slips=("serial_sum",), family=T_LOWER.name,
)  # fmt: skip
T_UPPER = _row(
    "t_upper", "step upper bound T_upper", _D.TIME,
    *_bound("upper", "the upper bound on the step's time"),
    latex=r"T_{\text{upper}}", plain="T_upper",
    aliases=("t_up", "t_upperbound", "t_max"), computation=_C.STEP_TIME,
    slips=("t_lower", "launch_overhead_left_out"),
)  # fmt: skip
NETWORK = _row(
    "network", "the network roofline", None,
    At(
        OP, ASK, "the network roofline: link intensity, ridge, crossover and T_comms",
        shows=(
            NETWORK_BYTES.name,
            NETWORK_INTENSITY.name,
            NETWORK_RIDGE.name,
            NETWORK_CROSSOVER.name,
            T_COMMS.name,
        ),
    ),
    rule="the same roofline against the interconnect: I_link = FLOPs / bytes sent",
)  # fmt: skip
STEP = _row(
    "step", "the step's time", None,
    At(OP, ASK),
    At(SERVING, ASK, "the time of one step, kernel by kernel", shows=(T_LOWER.name,)),
)  # fmt: skip

# --- a serving step (a model problem with ``phase``) ----------------------------------

TOKENS_PER_S = _row(
    "tokens_per_s", "decode rate", _D.TOKEN_RATE,
    At(
        SERVING, ALL, "the decode rate in tokens per second",
        Box("Decode rate", r"\text{tokens/s}", "tokens per second (4.5e3 tokens/s)"),
        needs="decode", read="decode.tokens_per_s",
    ),
    slips=("single_roofline", "t_upper", "one_sequence", "times_devices", "one_replica"),
)  # fmt: skip
INTER_TOKEN_LATENCY = _row(
    "inter_token_latency", "inter-token latency", _D.TIME,
    At(
        SERVING, ALL, "the inter-token latency",
        Box("Inter-token latency", r"T_{\text{token}}", _STEP_SECONDS),
        needs="decode", read="decode.latency",
    ),
    slips=("single_roofline",),
)  # fmt: skip
TTFT = _row(
    "ttft", "time to first token", _D.TIME,
    At(
        SERVING, ALL, "the time to first token",
        Box("Time to first token", r"T_{\text{TTFT}}", _STEP_SECONDS),
        needs="prefill", read="prefill.latency",
    ),
    slips=("single_roofline",),
)  # fmt: skip
PREFILL_TOKENS_PER_S = _row(
    "prefill_tokens_per_s", "prefill rate", _D.TOKEN_RATE,
    At(
        SERVING, ALL, "the prefill rate in tokens per second",
        Box("Prefill rate", r"\text{tokens/s}", "tokens per second"),
        needs="prefill", read="prefill.tokens_per_s",
    ),
)  # fmt: skip
_SHARDED = "a sharded operator: --shard in the book's notation on --mesh"
COLLECTIVES = _row("collectives", "the collectives", None, At(OP, ASK | CHECK, needs=_SHARDED, json="sharding.collectives"), computation=_C.ANALYSED)  # fmt: skip
STRATEGY = _row("strategy", "the winning strategy", None, At(OP, ASK | CHECK | BOX, "the winning strategy", Box("Winning strategy", "", "its name or its collectives"), needs=_SHARDED, json="sharding.strategy"), computation=_C.ANALYSED, unit="word")  # fmt: skip
TENSOR_BYTES = _row("bytes_per_device", "a tensor's bytes per device", _D.BYTES, At(OP, ASK | CHECK | BOX, "a tensor's bytes on each device", Box("A tensor's bytes per device", "", "the tensor and its bytes (Y = 64 MiB)"), needs=_SHARDED, json="sharding.tensors"), computation=_C.ANALYSED)  # fmt: skip
MEASURED = _row(
    "measured", "the measured run", None,
    At(OP, ASK),
    At(SERVING, ASK, "the MFU and MBU of the measured step", shows=("step_mfu", "step_mbu")),
)  # fmt: skip
PARTS = _row("parts", "the breakdown of a composite part by part", None, At(OP, ASK))
_STEP_FRACTION = "a fraction (0.42) or 42%"
_STEP_MEASURED = "a measured time or rate (measured_time, measured_tokens_per_s)"
STEP_MFU = _row(
    "step_mfu", "MFU of the measured step", _D.COUNT,
    At(
        SERVING, EXPECT | CHECK | BOX, box=Box("MFU of the measured step", r"\text{MFU}", _STEP_FRACTION),
        needs=_STEP_MEASURED, read="measured.mfu",
    ),
)  # fmt: skip
STEP_MBU = _row(
    "step_mbu", "MBU of the measured step", _D.COUNT,
    At(
        SERVING, EXPECT | CHECK | BOX, box=Box("MBU of the measured step", r"\text{MBU}", _STEP_FRACTION),
        needs=_STEP_MEASURED, read="measured.mbu",
    ),
)  # fmt: skip

# --- a whole model (``derive model``; the JSON contract's keys, in order) -------------
# Each row holds the model's notation of it (symbol, meaning), which
# :mod:`derive.model.symbols` reads; a model page builds each box from the phrase, that
# symbol and the unit of the value.

_MODEL = ALL


def _model(
    name: str,
    phrase: str,
    dimension: Dimension | None,
    latex: str,
    meaning: str,
    *more: At,
    **facts: object,
) -> Quantity:
    prose, at = phrase.removeprefix("the "), At(MODEL, _MODEL, phrase)
    return _row(name, prose, dimension, at, *more, latex=latex, meaning=meaning, **facts)


PARAMS = _model(
    "params", "the total number of parameters", _D.COUNT, "P", "total parameters",
    At(
        BUDGET, ASK | EXPECT | CHECK, "the compute-optimal number of parameters N",
        latex="N",
    ),
    counts="parameters",
)  # fmt: skip
PARAMS_ACTIVE = _model(
    "params_active",
    "the parameters one token uses",
    _D.COUNT,
    r"P_{\mathrm{act}}",
    "parameters used per token",
    counts="parameters",
)
PARAMS_EMBEDDING = _model(
    "params_embedding",
    "the parameters of the embedding and position tables",
    _D.COUNT,
    r"P_{\mathrm{lookup}}",
    "embedding and position tables (a lookup)",
    counts="parameters",
)
WEIGHTS_BYTES = _model(
    "weights_bytes", "the bytes of the weights", _D.BYTES, "M_{W}", "bytes of the weights"
)
KV_BYTES_PER_TOKEN = _model(
    "kv_bytes_per_token",
    "the KV-cache bytes per token of context",
    _D.BYTES,
    r"m_{\mathrm{kv}}",
    "KV-cache bytes per token of context",
    unit="byte/token",
)
KV_BYTES = _model(
    "kv_bytes",
    "the KV-cache bytes of the batch at its context",
    _D.BYTES,
    r"M_{\mathrm{kv}}",
    "KV-cache bytes of B sequences of S tokens",
)
FLOPS_PER_TOKEN = _model(
    "flops_per_token",
    "the forward FLOPs per token (matmuls and attention), against the 2N shortcut",
    _D.FLOPS,
    r"F_{\mathrm{token}}",
    "forward FLOPs per token at context S",
    unit="FLOP/token",
)
MEMORY_TOTAL = _model(
    "memory_total", "the memory of weights and KV cache", _D.BYTES, "M", "weights and KV cache"
)
MEMORY_PER_DEVICE = _model(
    "memory_per_device",
    "the memory per device",
    _D.BYTES,
    r"M_{\mathrm{dev}}",
    "memory per device",
    _train(
        "Memory per device",
        r"M_{\text{dev}}",
        _TRAIN_BYTES,
        "the memory per device (weights, gradients, optimizer state, activations)",
        json="memory_per_device.total",
        read="memory.total",
    ),
)
FITS = _model(
    "fits",
    "whether it fits",
    None,
    r"\mathrm{fits}",
    "whether the memory per device is within the capacity",
    _train("Does it fit?", r"\text{fits}", "yes or no"),
    unit="bool",
)
HEADROOM_PER_DEVICE = _model(
    "headroom_per_device",
    "the capacity left per device",
    _D.BYTES,
    r"H_{\mathrm{dev}}",
    "capacity left per device",
    _train("Headroom per device", "H", _TRAIN_BYTES, read="headroom"),
)
MAX_BATCH = _model(
    "max_batch",
    "the largest batch that fits at this context",
    _D.COUNT,
    r"B_{\max}",
    "largest batch that fits at context S",
    exactness=Exactness.COUNT,
    counts="sequences",
)
MIN_DEVICES = _model(
    "min_devices",
    "the fewest devices that hold weights and KV cache",
    _D.COUNT,
    r"N_{\min}",
    "fewest devices that hold weights and KV cache",
    exactness=Exactness.COUNT,
    counts="devices",
)
MAX_CONTEXT = _model(
    "max_context",
    "the longest context that fits at this batch",
    _D.COUNT,
    r"S_{\max}",
    "longest context that fits at batch B",
    exactness=Exactness.COUNT,
    unit="tokens",
)
TRAIN_STATE_BYTES = _model(
    "train_state_bytes",
    "the training-state bytes per device",
    _D.BYTES,
    r"M_{\mathrm{train}}",
    "training state per device",
)
TRAIN_FLOPS = _model(
    "train_flops", "the training FLOPs", _D.FLOPS, r"F_{\mathrm{train}}", "training FLOPs"
)
TRAIN_SECONDS = _model(
    "train_seconds", "the training time", _D.TIME, r"T_{\mathrm{train}}", "training time"
)
TRAIN_DAYS = _model(
    "train_days",
    "the training time in days",
    _D.TIME,
    r"T_{\mathrm{days}}",
    "training time in days",
    unit="days",
)

# --- utilisation of a measured run (an operator's step, a kernel, a model's training) --

MFU = _row(
    "mfu", "MFU", _D.COUNT,
    At(OP, CHECK, read="measured.mfu"),
    At(
        KERNEL, ALL, "the MFU the measurement implies",
        Box("MFU of the measured run", r"\text{MFU}", _FRACTION), needs=_MEASURED.format("flops"),
        read="measured.mfu",
    ),
    At(MODEL, _MODEL, "the MFU the measured rate implies"),
    _train(
        "MFU of the measured step", r"\mathrm{MFU}", "a fraction (0.42) or 42%",
        "the MFU of the measured step",
    ),
    latex=r"\mathrm{MFU}", plain="MFU", aliases=("eta_mfu",), computation=_C.UTILISATION,
    meaning="model FLOPs utilisation implied by a measured rate",
    slips=(
        "sparse_peak", "mfu_mbu_swapped", "mac_counted_once", "percent_without_sign",
        "two_n_for_six_n",
    ),
)  # fmt: skip
MBU = _row(
    "mbu", "MBU", _D.COUNT,
    At(OP, CHECK, read="measured.mbu"),
    At(
        KERNEL, ALL, "the MBU the measurement implies",
        Box("MBU of the measured run", r"\text{MBU}", _FRACTION), needs=_MEASURED.format("bytes"),
        read="measured.mbu",
    ),
    latex=r"\text{MBU}", plain="MBU", aliases=("eta_mbu",), computation=_C.UTILISATION,
    slips=("mfu_mbu_swapped", "percent_without_sign"),
)  # fmt: skip

# --- money and energy (issue 36): a price per device-hour and a power per device ----------
# Dollars and joules are not among the four base units a claim's unit is read in, so a
# claim is a plain number of dollars (joules); ``--given``/``--define`` read ``$`` and ``J``.

_DOLLARS = "dollars: a number (1.2e6)"
_JOULES = "joules: a number (3.6e12)"
_PRICE, _POWER = "a price per device-hour (price_per_hour)", "a power (power)"
COST_PER_MILLION_TOKENS = _row(
    "cost_per_million_tokens", "cost per million tokens", _D.COUNT,
    At(MODEL, _MODEL, "the cost per million training tokens"),
    At(
        SERVING, ALL, "the cost per million generated tokens",
        Box("Cost per million tokens", r"c_{\text{Mtok}}", _DOLLARS),
        needs=_PRICE, read="cost.cost_per_million_tokens",
    ),
    _train(
        "Cost per million tokens", r"c_{\text{Mtok}}", _DOLLARS,
        read="cost.cost_per_million_tokens",
    ),
    latex=r"c_{\mathrm{Mtok}}", meaning="dollars per million tokens",
    rule="cost per Mtok = 10^6 · p_h · N / (3600 · tokens/s)",
    unit="$",
)  # fmt: skip
COST_PER_STEP = _row(
    "cost_per_step", "cost of one step", _D.COUNT,
    At(
        SERVING, ALL, "the cost of one step",
        Box("Cost of one step", r"C_{\text{step}}", _DOLLARS),
        needs=_PRICE, read="cost.cost_per_step",
    ),
    _train(
        "Cost of one step", r"C_{\text{step}}", _DOLLARS, "the cost of one step",
        read="cost.cost_per_step",
    ),
    rule="cost per step = p_h · N · t_step / 3600",
    unit="$",
)  # fmt: skip
COST_OF_RUN = _row(
    "cost_of_run", "cost of the training run", _D.COUNT,
    At(MODEL, _MODEL, "the cost of the training run"),
    _train(
        "Cost of the run", r"C_{\text{run}}", _DOLLARS, "the cost of the training run",
        read="cost.cost_of_run",
    ),
    latex=r"C_{\mathrm{run}}", meaning="dollars for the whole training run",
    rule="cost = p_h · N · T / 3600",
    unit="$",
)  # fmt: skip
ENERGY_OF_RUN = _row(
    "energy_of_run", "energy of the training run", _D.COUNT,
    At(MODEL, _MODEL, "the energy of the training run"),
    _train(
        "Energy of the run", r"E_{\text{run}}", _JOULES, "the energy of the training run",
        read="cost.energy_of_run",
    ),
    latex=r"E_{\mathrm{run}}", meaning="joules for the whole training run",
    rule="E = W_dev · N · T",
    unit="J",
)  # fmt: skip
ENERGY_PER_TOKEN = _row(
    "energy_per_token", "energy per token", _D.COUNT,
    At(MODEL, _MODEL, "the energy per training token"),
    At(
        SERVING, ALL, "the energy per generated token",
        Box("Energy per token", r"E_{\text{token}}", "joules per token (0.5)"),
        needs=_POWER, read="cost.energy_per_token",
    ),
    _train(
        "Energy per token", r"E_{\text{token}}", "joules per token (0.5)",
        read="cost.energy_per_token",
    ),
    latex=r"E_{\mathrm{token}}", meaning="joules per token",
    rule="E/token = W_dev · N / (tokens/s)",
    unit="J/token",
)  # fmt: skip

# --- a training step on a cluster (a model problem with ``train``; ``derive train``) ----

MEMORY_WEIGHTS, MEMORY_GRADS, MEMORY_OPTIMIZER = (
    _row(
        f"memory_{part}", f"{what} per device", _D.BYTES,
        _train(
            f"{what.capitalize()} per device", rf"M_{{{symbol}}}", _TRAIN_BYTES,
            json=f"memory_per_device.{part}", read=f"memory.{part}",
        ),
    )
    for part, what, symbol in (
        ("weights", "weights", "W"), ("grads", "gradients", "G"),
        ("optimizer", "optimizer state", "O"),
    )
)  # fmt: skip
ACTIVATIONS = _row(
    "activations", "activations per device", _D.BYTES,
    _train(
        "Activations per device", r"M_{A}", _TRAIN_BYTES, "the activations per device",
        json="memory_per_device.activations", read="memory.activations",
    ),
)  # fmt: skip
FIT = _row(
    "fit", "the fit", None,
    At(
        TRAINING, ASK, "whether it fits, and the smallest dp and ZeRO stage that do",
        shows=(FITS.name,),
    ),
)  # fmt: skip
COMMS_BYTES_PER_DEVICE = _row(
    "comms_bytes_per_device", "bytes sent per device per step", _D.BYTES,
    _train(
        "Bytes sent per device per step", "V", _TRAIN_BYTES,
        "the bytes each device sends per step", json="comms_bytes_total", read="comms.total",
    ),
)  # fmt: skip
_DIMS = ("dp", "tp", "pp", "ep", "cp")  # the parallel dims whose traffic a run counts
COMMS_DP, COMMS_TP, COMMS_PP, COMMS_EP, COMMS_CP = (
    _row(
        f"comms_{group}", f"{group.upper()} bytes per device per step", _D.BYTES,
        _train(
            f"{group.upper()} bytes per device per step", rf"V_{{\text{{{group}}}}}",
            _TRAIN_BYTES, json=f"comms_bytes_per_device.{group}", read=f"comms.of({group})",
        ),
    )
    for group in _DIMS
)  # fmt: skip
T_COMMS_DP, T_COMMS_TP, T_COMMS_PP, T_COMMS_EP, T_COMMS_CP = (
    _row(
        f"t_comms_{group}", f"{group.upper()} communication time of a step", _D.TIME,
        _train(
            f"{group.upper()} communication time of a step",
            rf"T_{{\text{{comms,{group}}}}}", _TRAIN_SECONDS,
            json=f"comms_time_per_device.{group}", read=f"comms.time_of({group})",
        ),
    )
    for group in _DIMS
)  # fmt: skip
BUBBLE_FRACTION = _row(
    "bubble_fraction", "pipeline bubble", _D.COUNT,
    _train(
        "Pipeline bubble", r"\text{bubble}", "a fraction, e.g. 0.05", "the pipeline bubble"
    ),
)  # fmt: skip
T_PREDICTED = _row(
    "t_predicted", "predicted step time", _D.TIME,
    _train("Predicted step time", r"T_{\text{pred}}", _TRAIN_SECONDS, "the predicted step time"),
)  # fmt: skip
MFU_PREDICTED = _row(
    "mfu_predicted", "predicted MFU", _D.COUNT,
    _train("MFU of the predicted step", r"\mathrm{MFU}_{\text{pred}}", "a fraction (0.42) or 42%"),
)  # fmt: skip
CRITICAL_TOKENS_PER_DEVICE = _row(
    "critical_tokens_per_device", "critical batch per DP rank", _D.COUNT,
    _train(
        "Critical batch per DP rank", "b^{*}", "tokens per DP rank",
        "the critical batch per DP rank",
    ),
    aliases=("critical_batch", "b_star"),
    unit="tokens",
)  # fmt: skip
CRITICAL_TOKENS_PER_CHIP = _row(
    "critical_tokens_per_chip", "critical batch per chip", _D.COUNT,
    _train("Critical batch per chip", r"b^{*}_{\text{chip}}", "tokens per chip"),
    unit="tokens",
)  # fmt: skip
CRITICAL_BATCH_TOKENS = _row(
    "critical_batch_tokens", "global critical batch", _D.COUNT,
    _train("Global critical batch", r"B^{*}", "tokens per step"),
    unit="tokens",
)  # fmt: skip
COMPARE_STRATEGIES = _row(
    "compare_strategies", "the strategies compared", None,
    At(TRAINING, ASK, "DP, FSDP, TP, FSDP+TP and PP compared"),
)  # fmt: skip

# --- a scaling-law budget and a what-if on a measured step, as set problems (issue 36) ----

_NATIVE = ASK | EXPECT | CHECK
TOKENS = _row(
    "tokens", "training tokens", _D.COUNT,
    At(BUDGET, _NATIVE, "the number of training tokens D"),
    latex="D", meaning="training tokens",
    rule="D = r·N (Chinchilla), or C/(k·N)", unit="tokens",
)  # fmt: skip
TRAINING_COMPUTE = _row(
    "training_compute", "training compute", _D.FLOPS,
    At(BUDGET, _NATIVE, "the training compute C", json="compute"),
    latex="C", meaning="training FLOPs", rule="C = k·N·D (Kaplan)",
)  # fmt: skip
TOKENS_PER_PARAM = _row(
    "tokens_per_param", "tokens per parameter", _D.COUNT,
    At(BUDGET, _NATIVE, "the tokens per parameter D/N"),
    latex="r", meaning="tokens per parameter", rule="r = D/N",
)  # fmt: skip
WHAT_IF_TIME = _row(
    "what_if_time", "new step time", _D.TIME,
    At(WHAT_IF, _NATIVE, "the new step time", json="what_if.time", read="time"),
    latex="T'", aliases=("new_time",), rule="T' = T · Σ f_c / s_c",
)  # fmt: skip
WHAT_IF_RATE = _row(
    "what_if_rate", "new rate", _D.COUNT,
    At(WHAT_IF, _NATIVE, "the new rate", json="what_if.rate", read="rate"),
    latex="r'", aliases=("new_rate",), rule="r' = r · S",
)  # fmt: skip
WHAT_IF_SPEEDUP = _row(
    "what_if_speedup", "overall speed-up", _D.COUNT,
    At(WHAT_IF, _NATIVE, "the speed-up of the whole step", json="what_if.speedup", read="speedup"),
    latex="S", rule="S = T / T' = 1 / Σ f_c / s_c",
)  # fmt: skip
WHAT_IF_LIMIT = _row(
    "what_if_limit", "Amdahl limit", _D.COUNT,
    At(
        WHAT_IF, _NATIVE, "the Amdahl limit (the changed classes free)", json="what_if.limit",
        read="limit",
    ),
    latex=r"S_{\max}", aliases=("amdahl_limit",),
    rule="S_∞ = 1 / (1 − Σ_changed f_c)",
)  # fmt: skip

QUANTITIES: tuple[Quantity, ...] = tuple(_ROWS)
"""Every row, in the catalogue's order."""
