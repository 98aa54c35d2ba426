"""The worked-solution model: typed steps from a closed list of kinds.

A :class:`Step` has a kind, a named rule, a one-line reason and lines of the
form *symbolic = substituted = result*. Text mixes prose and math as ``Rich``
segments, so each output format escapes prose its own way and keeps math as
LaTeX. Templates lay these out; they compute nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class StepKind(Enum):
    """The closed list of step kinds, each with the rule it applies."""

    FLOPS = "FLOPs"  # count the operator's arithmetic
    BYTES = "Bytes"  # Σ width × elements over tensors moved
    INTENSITY = "Arithmetic intensity"  # I = FLOPs / bytes
    LEADING_ORDER = "Leading order"  # keep the highest power of the growing dims
    RIDGE = "Ridge point"  # π / β
    CROSSOVER = "Crossover"  # solve I(x) = π / β exactly
    CROSSOVER_REGIME = "Crossover at leading order"
    THRESHOLD = "Integer threshold"  # smallest integer with T_math ≥ T_mem
    REGIME_CHECK = "Regime check"  # does the answer respect the regime assumed?
    TIMES = "Times"  # T_math = FLOPs/π, T_mem = bytes/β
    BOUNDS = "Bounds"  # max(T_math, T_mem) ≤ T ≤ T_math + T_mem
    ATTAINABLE = "Attainable throughput"  # min(π, I·β)
    NETWORK = "Network roofline"  # the same against the link bandwidth
    PARTS = "Per-part breakdown"  # a composite's parts at the bound dims
    FUSION = "Fused against unfused"  # intermediates kept on chip are not moved
    STEP = "Time of the step"  # Σ over kernels of each kernel's own roofline bound
    COLLECTIVE = "Collectives"  # ring bytes per device and link time of each collective
    MEASURED = "Measured run"  # MFU = achieved / peak, MBU = achieved / bandwidth
    SERVING = "Serving rates"  # tokens/s = tokens in flight / step time
    # a whole model (derive.solution.model_steps)
    BLOCK_PARAMETERS = "Parameters of one block"  # Σ the elements of a block's weights
    GLOBAL_PARAMETERS = "Parameters outside the blocks"  # embedding, positions, head, final norm
    PARAMETERS = "Parameters"  # P = L·P_block + the globals
    WEIGHTS = "Weights in memory"  # bytes = parameters × bytes per weight
    KV_CACHE = "KV cache"  # 2·L·h_kv·d_h·w_kv per token
    MODEL_FLOPS = "FLOPs per token"  # 2·P_matmul + 4·L·h·d_h·S
    MEMORY_FIT = "Memory on the devices"  # (M_W + M_kv) / N ≤ C
    LIMITS = "Largest batch, longest context, fewest devices"  # the integer unknown of the fit
    TRAINING_STATE = "Training state"  # bytes per parameter × parameters / N
    TRAINING = "Training compute and time"  # 6·P_act·D, over N·π·MFU
    IMPLIED_MFU = "Implied MFU"  # 6·P_act·r / π
    COST = "Cost and energy"  # price · devices · time; power · devices · time
    WHAT_IF = "What-if (Amdahl)"  # T' = T · Σ f_c / s_c
    PEAK_FROM_PARTS = "Peak from the parts"  # units × FLOPs per unit per clock × clock
    SHARDING = "Sharding"  # a dim split over a group: the collective, its time, the largest group
    BUDGET = "Compute-optimal budget"  # C = 6·N·D (Kaplan), D = 20·N (Chinchilla)
    PARALLELISM = "Devices and batch"  # N = dp·tp·pp; tokens per DP rank; micro-batches
    MEMORY = "Memory per device"  # parameters held, state sharded by ZeRO, the fit
    ACTIVATIONS = "Activations"  # Korthikanti et al. (2022), term by term
    COMMUNICATION = "Communication per step"  # ring collectives of each parallelism
    CRITICAL_BATCH = "Critical batch"  # tokens per DP rank where a pass's compute equals its comms
    STRATEGIES = "Strategies compared"  # DP, FSDP, TP, FSDP+TP, PP on the same devices


@dataclass(frozen=True)
class Math:
    """A piece of LaTeX math inside rich text."""

    latex: str


Rich = tuple  # of str (prose) and Math segments


def rich(*parts: str | Math) -> Rich:
    """Build rich text from prose strings and :class:`Math` pieces."""
    return tuple(p for p in parts if p != "")


@dataclass(frozen=True)
class Line:
    """One displayed equation: ``lhs = forms[0] = forms[1] … ≈ approx``."""

    lhs: str
    forms: tuple[str, ...]
    approx: str | None = None
    relation: str = "="

    @staticmethod
    def of(lhs: str, *forms: str, approx: str | None = None, relation: str = "=") -> Line:
        """A line with consecutive duplicate forms removed."""
        out: list[str] = []
        for f in forms:
            if f and (not out or out[-1] != f):
                out.append(f)
        if approx is not None and out and approx == out[-1]:
            approx = None
        return Line(lhs, tuple(out), approx, relation)


@dataclass(frozen=True)
class Step:
    """One numbered step of a worked solution."""

    kind: StepKind
    rule: str
    reason: Rich
    lines: tuple[Line, ...] = ()
    notes: tuple[Rich, ...] = ()
    title: str = ""
    topic: str = ""  # the quantity it answers (a problem set's ``ask`` key)
    table: tuple = ()  # optional: a header row of prose, then rows of Rich cells

    @property
    def heading(self) -> str:
        """The step's title (defaults to its kind's name)."""
        return self.title or self.kind.value
