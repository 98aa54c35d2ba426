"""A model problem's serving step, as typed in a problem set (``phase = "decode"`` …).

Keys of a ``model = "NAME"`` problem: ``phase`` (``decode`` or ``prefill``), ``tp`` (an
integer dividing ``devices``: ``devices / tp`` data-parallel replicas), the model's own
``measured_tokens_per_s`` (with a phase: the serving rate of the whole cluster, as the
step's ``tokens_per_s`` or ``prefill_tokens_per_s``), the timing keys of :data:`derive.problem.timing.TIMING_KEYS` (text), and
``serving_plot = { from = 1, to = 1024, contexts = [2048, 32768] }``: tokens/s against
the batch for each context, the decode crossover marked. Checked here so an error names
the problem; derived by :mod:`derive.model.phase`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from derive.catalogue import ProblemKind, Use, names_for
from derive.errors import DeriveError, ProblemError
from derive.formula.decimals import parse_positive_int
from derive.problem.timing import TIMING_KEYS, TimingSpec, bind_timing, timing_error_in_keys

SERVING_KEYS: dict[str, type] = {
    "phase": str,
    "tp": int,
    "serving_plot": dict,
    "mesh": str,
    **{name: str for name in TIMING_KEYS},
}
"""The keys a model problem takes for its serving step, with their TOML types."""

SERVING_ASK_KEYS = names_for(ProblemKind.SERVING, Use.ASK)
"""What a serving problem may ask for besides the model's quantities."""

MAX_CONTEXTS = 6
MAX_BATCH = 1 << 20


@dataclass(frozen=True)
class ServingPlot:
    """Tokens/s against the batch, one curve per context length."""

    start: int
    stop: int
    contexts: tuple[int, ...]


@dataclass(frozen=True)
class ServingSpec:
    """The serving step of a model problem, as typed."""

    phase: str
    tp: str | None = None
    timing: TimingSpec = field(default_factory=TimingSpec)
    plot: ServingPlot | None = None
    convention: str | None = None  # --convention: derive's own, or scaling-book (no TP comms)
    mesh: str | None = None  # --mesh: the axes TP's all-reduces run on (derive.problem.mesh)


def _plot(raw: dict, where: str) -> ServingPlot:
    allowed = {"from", "to", "contexts"}
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ProblemError(
            f"{where}: serving_plot key {unknown[0]!r}", "allowed: from, to, contexts"
        )
    start, stop, contexts = raw.get("from", 1), raw.get("to"), raw.get("contexts")
    if (
        not isinstance(start, int)
        or not isinstance(stop, int)
        or isinstance(start, bool)
        or isinstance(stop, bool)
    ):
        raise ProblemError(f"{where}: serving_plot", "from and to are integers (batch sizes)")
    if not 1 <= start < stop <= MAX_BATCH:
        raise ProblemError(f"{where}: serving_plot", f"needs 1 <= from < to <= {MAX_BATCH}")
    if (
        not isinstance(contexts, list)
        or not 1 <= len(contexts) <= MAX_CONTEXTS
        or not all(isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in contexts)
    ):
        raise ProblemError(
            f"{where}: serving_plot contexts",
            f"a list of 1 to {MAX_CONTEXTS} positive integers (context lengths S)",
        )
    return ServingPlot(start, stop, tuple(contexts))


MAX_DIVISORS_SHOWN = 12


def _check_tp(tp: object, devices: object, where: str) -> None:
    """Refuse a ``tp`` that does not divide ``devices`` (a bad ``devices`` is reported when bound)."""
    if not isinstance(devices, int) or isinstance(devices, bool) or devices <= 0:
        return
    if isinstance(tp, int) and not isinstance(tp, bool) and 0 < tp <= devices and devices % tp == 0:
        return
    allowed = [str(d) for d in sp.divisors(devices)]
    more = ", …" if len(allowed) > MAX_DIVISORS_SHOWN else ""
    shown = ", ".join(allowed[:MAX_DIVISORS_SHOWN]) + more
    raise ProblemError(
        f"{where}: key 'tp' ({tp})",
        f"the tensor-parallel degree divides devices ({devices}) into replicas: one of {shown}",
    )


def serving_spec(table: dict, where: str) -> ServingSpec | None:
    """The serving keys of a model problem's table (None when it has no ``phase``)."""
    given = [key for key in SERVING_KEYS if key in table]
    if "phase" not in table:
        if given:
            raise ProblemError(
                f"{where}: key {given[0]!r}",
                'times a serving step: add phase = "decode" or "prefill"',
            )
        return None
    if table["phase"] not in ("decode", "prefill"):
        raise ProblemError(f"{where}: key 'phase'", "decode or prefill")
    tp = table.get("tp")
    if tp is not None:
        _check_tp(tp, table.get("devices", 1), where)
    timing = TimingSpec(**{k: table.get(k) for k in (*TIMING_KEYS, "measured_tokens_per_s")})
    try:
        bind_timing(timing)
    except DeriveError as error:
        raise timing_error_in_keys(error, where) from None
    plot = _plot(table["serving_plot"], where) if "serving_plot" in table else None
    if plot is not None and table["phase"] != "decode":
        raise ProblemError(f"{where}: serving_plot", 'plots the decode rate: phase = "decode"')
    tp_text = None if tp is None else str(tp)
    return ServingSpec(table["phase"], tp_text, timing, plot, mesh=table.get("mesh"))


PROMPT = "T"
"""A prefill's prompt length, as the serving literature writes it (B prompts of T tokens)."""


def prompt_as_context(sets: tuple[str, ...], phase: str | None, where: str) -> tuple[str, ...]:
    """``--set T=…`` of a prefill read as the context ``S`` (the prompt is the context it fills).

    Outside a prefill the items are returned as typed (a ``T`` there is refused when bound,
    naming the prefill). ``T`` and ``S`` both given must agree; one of them is kept.

    >>> prompt_as_context(("B=1", "T=1024"), "prefill", "--set")
    ('B=1', 'S=1024')

    Raises:
        ProblemError: T and S given with different values, naming ``where``.
    """
    if phase != "prefill":
        return sets
    named = [(item, *(s.strip() for s in item.partition("=")[::2])) for item in sets]
    prompt = [(item, value) for item, name, value in named if name == PROMPT]
    if not prompt:
        return sets
    context = [(item, value) for item, name, value in named if name == "S"]
    for (t_item, t_value), (s_item, s_value) in ((t, s) for t in prompt for s in context):
        if parse_positive_int(t_value, f"{where} T") != parse_positive_int(s_value, f"{where} S"):
            raise ProblemError(
                f"{where} {t_item} and {s_item}",
                "a prefill's prompt length T is its context S: give one of them (or equal values)",
            )
    kept = [item for item, name, _ in named if name != PROMPT]
    if context:
        return tuple(kept)
    first = prompt[-1][1]
    index = next(i for i, (_, name, _) in enumerate(named) if name == PROMPT)
    kept.insert(index, f"S={first}")
    return tuple(kept)
