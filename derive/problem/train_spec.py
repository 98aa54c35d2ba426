"""A training run on a cluster, as typed: ``derive train`` flags or a problem's ``train = {…}``.

Every field is text as the user wrote it (or None); :func:`derive.training.binding.bind_training`
checks it against the model and names the flag (``--dp 3``) or the key
(``rooflines.toml: problem 'x': train key 'dp'``) that is wrong. In a problem set, a
``model = "NAME"`` problem takes ``train = { dp = 8, tp = 1, zero = 1, recompute = "full",
batch_tokens = 4194304, seq = 4096, … }`` (keys: :data:`TRAIN_KEYS`), and may ``ask`` for
:data:`TRAIN_ASK_KEYS`; ``train_plot = { from = 1024, to = 1048576 }`` draws t_lower
against the tokens per device for DP and FSDP.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from derive.catalogue import ProblemKind, Use, names_for
from derive.errors import ProblemError

TRAIN_KEYS: dict[str, tuple[type, ...]] = {
    "dp": (int,),
    "tp": (int,),
    "pp": (int,),
    "ep": (int,),
    "zero": (int,),
    "recompute": (str,),
    "batch_tokens": (int, str),
    "seq": (int,),
    "micro_batch_size": (int,),
    "microbatches": (int,),
    "link_bandwidth": (str,),
    "measured_step_time": (str,),
    "sequence_parallel": (bool,),
    "cp": (int,),
    "mesh": (str,),
    "place": (str,),
    "stage_layers": (str,),
    "virtual_stages": (int,),
    "schedule": (str,),
    "keep_gathered_weights": (bool,),
    "overlap_tp": (bool,),
    "count_logits": (bool,),
    "convention": (str,),
    "dropout": (bool,),
    "attention_mask": (str,),
    "matmul_efficiency": (str,),
    "link_efficiency": (str,),
}
"""The keys of a problem's ``train`` table, with their TOML types."""

TRAIN_ASK_KEYS = names_for(ProblemKind.TRAINING, Use.ASK)
"""What a training problem may ask for besides the model's quantities (the catalogue's rows)."""

TRAIN_CHECK_KEYS = names_for(ProblemKind.TRAINING, Use.CHECK)
"""The quantities of a training run a claim (``derive check``) or an ``expect`` may name (the catalogue's rows)."""

MAX_PLOT_TOKENS = 1 << 40


@dataclass(frozen=True)
class TrainPlot:
    """t_lower against the tokens per DP rank, over [start, stop] (powers of two between)."""

    start: int
    stop: int


@dataclass(frozen=True)
class TrainSpec:
    """A training run as typed. ``origin`` is None for flags, else the problem (``file: problem 'x'``)."""

    dp: str | None = None
    tp: str | None = None
    pp: str | None = None
    ep: str | None = None
    zero: str | None = None
    recompute: str | None = None
    batch_tokens: str | None = None
    seq: str | None = None
    micro_batch_size: str | None = None
    microbatches: str | None = None
    link_bandwidth: str | None = None
    measured_step_time: str | None = None
    sequence_parallel: str | None = None
    cp: str | None = None
    mesh: str | None = None
    place: str | None = None
    stage_layers: str | None = None
    virtual_stages: str | None = None
    schedule: str | None = None
    keep_gathered_weights: str | None = None
    overlap_tp: str | None = None
    count_logits: str | None = None
    convention: str | None = None
    dropout: str | None = None
    attention_mask: str | None = None
    matmul_efficiency: str | None = None
    link_efficiency: str | None = None
    origin: str | None = None
    plot: TrainPlot | None = None

    def name(self, field: str) -> str:
        """The flag (``--batch-tokens``) or the problem's key, without the value typed."""
        if self.origin is not None:
            return f"{self.origin}: train key {field!r}"
        return "--" + field.replace("_", "-")

    def where(self, field: str) -> str:
        """Where the user wrote ``field``: the flag with its value, or the problem's key."""
        flag, value = self.name(field), getattr(self, field, None)
        return flag if self.origin is not None or value is None else f"{flag} {value}"


def _plot(raw: object, where: str) -> TrainPlot:
    at = f"{where}: key 'train_plot'"
    if not isinstance(raw, dict) or set(raw) - {"from", "to"}:
        raise ProblemError(at, "a table { from = 1024, to = 1048576 } (tokens per device)")
    start, stop = raw.get("from", 1024), raw.get("to", 1 << 20)
    ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop))
    if not ok or not 1 <= start < stop <= MAX_PLOT_TOKENS:
        raise ProblemError(at, "needs integers 1 <= from < to <= 2^40")
    return TrainPlot(start, stop)


def train_spec(table: dict, where: str) -> TrainSpec | None:
    """The ``train`` table of a model problem (None without one), checked key by key."""
    raw = table.get("train")
    if raw is None:
        if "train_plot" in table:
            raise ProblemError(f"{where}: key 'train_plot'", "draws a training run: give 'train'")
        return None
    if not isinstance(raw, dict):
        raise ProblemError(
            f"{where}: key 'train'", "a table like { dp = 8, batch_tokens = 4194304 }"
        )
    for key, value in raw.items():
        at = f"{where}: train key {key!r}"
        if key not in TRAIN_KEYS:
            raise ProblemError(at, f"unknown key; allowed: {', '.join(TRAIN_KEYS)}")
        types = TRAIN_KEYS[key]
        if isinstance(value, bool) != (bool in types) or not isinstance(value, types):
            words = {int: "an integer", str: "text", bool: "true or false"}
            kinds = " or ".join(words[t] for t in types)
            raise ProblemError(at, f"must be {kinds}, got {value!r}")
    plot = _plot(table["train_plot"], where) if "train_plot" in table else None
    names = {f.name for f in fields(TrainSpec)} - {"origin", "plot"}
    return TrainSpec(**{key: str(raw[key]) for key in names if key in raw}, origin=where, plot=plot)
