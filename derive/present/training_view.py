"""A training step's documents: the worked solution (Markdown, LaTeX) and the JSON report.

The JSON keys are a contract (issue 25): ``memory_per_device`` {weights, grads, optimizer,
activations, total}, ``comms_bytes_per_device`` {dp, tp, pp, ep}, ``t_math``, ``t_comms``,
``t_lower``, ``t_upper``, ``bubble_fraction``, ``mfu``, ``critical_tokens_per_device``;
every value an exact number in sympy's ``str`` syntax (``null`` when not derived).
"""

from __future__ import annotations

from derive.catalogue import ProblemKind, Quantity
from derive.catalogue import table as q
from derive.catalogue.reading import attributes
from derive.catalogue.reading import text_or_none as _s
from derive.present.formats import Document
from derive.present.json_export import laid_out
from derive.solution.steps import Step
from derive.solution.training_steps import training_given, training_steps, training_verdict
from derive.training.analysis import StrategyRow, TrainingAnalysis
from derive.training.binding import ZeroStage

_COSTS = (q.COST_PER_STEP, q.COST_PER_MILLION_TOKENS, q.COST_OF_RUN, q.ENERGY_PER_TOKEN,
          q.ENERGY_OF_RUN)  # fmt: skip
"""A run's money and energy, in its JSON's order (each ``null`` without a price or a power)."""
_MEMORY = q.MEMORY_WEIGHTS, q.MEMORY_GRADS, q.MEMORY_OPTIMIZER, q.ACTIVATIONS, q.MEMORY_PER_DEVICE
_CRITICAL = q.CRITICAL_TOKENS_PER_DEVICE, q.CRITICAL_TOKENS_PER_CHIP, q.CRITICAL_BATCH_TOKENS


_BOOK = (
    "tp_max_scaling_book mixed_tokens_per_chip_scaling_book fsdp_opt_scaling_book "
    "dp_small_x_scaling_book"
)


def training_selected_steps(
    a: TrainingAnalysis,
    rows: tuple[StrategyRow, ...] = (),
    winner: StrategyRow | None = None,
    ask: tuple[str, ...] = (),
) -> tuple[Step, ...]:
    """The steps, only those whose topic is asked when ``ask`` names training quantities.

    The devices step always stays (every other step reads its N, b and M); ``t_lower`` keeps
    the times it bounds, ``mfu`` the bounds it is judged against.
    """
    steps = training_steps(a, rows, winner)
    wanted = set(ask)
    if not wanted:
        return steps
    implied = {
        q.T_UPPER.name: q.T_LOWER.name,
        q.T_COMMS.name: q.T_MATH.name,
        q.BUBBLE_FRACTION.name: q.T_LOWER.name,
        q.T_PREDICTED.name: q.T_LOWER.name,
        q.FIT.name: q.MEMORY_PER_DEVICE.name,
        **dict.fromkeys((row.name for row in _COSTS), q.COST_OF_RUN.name),
    }
    wanted |= {implied[k] for k in ask if k in implied}
    if q.T_LOWER.name in wanted or q.MFU.name in wanted:
        wanted |= {q.T_MATH.name, q.T_LOWER.name}
    if q.COST_OF_RUN.name in wanted:  # the bill is the step's time on every device
        wanted |= {q.T_MATH.name, q.T_LOWER.name}
    if q.MEMORY_PER_DEVICE.name in wanted:
        wanted |= {q.ACTIVATIONS.name, q.FIT.name}
    return tuple(s for s in steps if not s.topic or s.topic in wanted)


def _title(a: TrainingAnalysis) -> str:
    return f"Training {a.problem.model_name} on {a.problem.devices} devices"


def training_document(
    a: TrainingAnalysis,
    rows: tuple[StrategyRow, ...] = (),
    winner: StrategyRow | None = None,
    *,
    title: str | None = None,
    ask: tuple[str, ...] = (),
    level: int = 2,
) -> Document:
    """The worked solution as one document (Markdown, LaTeX, text and its JSON)."""
    steps = training_selected_steps(a, rows, winner, ask)
    context = {
        "level": level,
        "title": title or _title(a),
        "given": training_given(a),
        "steps": steps,
        "verdict": training_verdict(a),
    }
    return Document("kernel", context, lambda: training_json(a, rows, winner))


def _row_json(row: StrategyRow) -> dict[str, object]:
    a = row.analysis
    head = {
        q.STRATEGY.name: row.name,
        **attributes(row, "dp tp pp", None),
        "zero": int(row.zero),
        q.MEMORY_PER_DEVICE.name: None if a is None else _s(a.memory.total),
    }
    after: dict[Quantity, dict[str, object]] = {
        q.FITS: {"comms_bytes_per_step": None if a is None else _s(a.comms.total)},
        q.T_LOWER: {
            "why_not": row.why_not or None,
            **attributes(row, "ep cp", None),
            "recompute": None if row.recompute is None else row.recompute.value,
            "placement": row.placement or None,
        },
    }
    order = q.FITS, *_CRITICAL, q.T_LOWER
    return {**head, **laid_out(ProblemKind.TRAINING, () if a is None else (a,), after, "", order)}


def _cluster_json(a: TrainingAnalysis) -> dict[str, object]:
    """The keys of a run on a mesh, with context parallelism or with a shaped pipeline (none
    otherwise, so a run on one link reports as before): ``mesh`` (its axes), ``placement``
    (each dim's levels), ``comms_time_per_device`` and ``comms_bytes_per_device`` per dim."""
    p = a.problem
    out: dict[str, object] = {}
    if p.cp > 1:
        out["cp"] = p.cp
    if p.stage_layers:
        out["stage_layers"] = list(p.stage_layers)
    if p.virtual_stages > 1:
        out["virtual_stages"] = p.virtual_stages
    if p.schedule != "1f1b":  # F, B, W of a micro-batch on a stage and the bubble in them
        out["schedule"] = p.schedule
        out["chunk_seconds"] = dict(
            zip(("forward", "backward", "weight"), map(_s, a.chunk), strict=True)
        )
        out["bubble_seconds"] = _s(a.bubble)
    if p.pp > 1 and (p.stage_layers or p.virtual_stages > 1 or p.schedule != "1f1b"):
        out["bubble_over_ideal"] = _s(a.bubble_over_ideal)
    if p.zero is ZeroStage.WEIGHTS:
        out["keep_gathered_weights"] = p.keep_gathered
    if p.placement is None and p.cp == 1:
        return out
    if p.placement is not None:
        out["mesh"] = [
            {
                **attributes(axis, "name size", None),
                **attributes(axis, "bandwidth latency", _s),
                "topology": axis.topology.value,
            }
            for axis in p.placement.mesh.axes
        ]
        out["placement"] = {
            dim: [{"axis": lv.axis.name, "size": lv.size} for lv in levels]
            for dim, levels in p.placement.dims
        }
    for section in (q.COMMS_BYTES_PER_DEVICE.name, "comms_time_per_device"):  # rows, per dim
        out[section] = laid_out(ProblemKind.TRAINING, (a,), {}, section)
    return out


def training_json(
    a: TrainingAnalysis, rows: tuple[StrategyRow, ...] = (), winner: StrategyRow | None = None
) -> dict[str, object]:
    """The JSON report of ``derive train --format json``: the run's layout, then its rows'
    values laid out in the contract's order (its memory and its traffic per dim as sections),
    each followed by the keys of the run's own."""
    p = a.problem
    memory = {} if a.memory.activations_counted else {q.ACTIVATIONS: {q.ACTIVATIONS.name: None}}
    head = {
        "model": p.model_name,
        **attributes(p, "devices dp tp pp ep", None),
        "zero": int(p.zero),
        "recompute": p.recompute_text,
        **attributes(p, "batch_tokens seq", _s),
        "micro_batch_size": _s(p.micro_batch),
        "microbatches": _s(p.microbatches),
        "params_per_device": _s(a.params.total),
        q.MEMORY_PER_DEVICE.name: laid_out(
            ProblemKind.TRAINING, (a,), memory, q.MEMORY_PER_DEVICE.name, _MEMORY
        ),
    }
    per_dim = q.COMMS_DP, q.COMMS_TP, q.COMMS_PP, q.COMMS_EP
    verdict = None if a.impossible is None else ("impossible" if a.impossible else "possible")
    after: dict[Quantity, dict[str, object]] = {
        q.HEADROOM_PER_DEVICE: {
            "smallest_dp": a.smallest_dp,
            "smallest_zero": None if a.smallest_zero is None else int(a.smallest_zero),
            q.COMMS_BYTES_PER_DEVICE.name: laid_out(
                ProblemKind.TRAINING, (a,), {}, q.COMMS_BYTES_PER_DEVICE.name, per_dim
            ),
        },
        q.COMMS_BYTES_PER_DEVICE: {
            **attributes(a, "flops_model flops_params flops_attention", _s),
            "attention_mask": "causal" if p.causal else "none",
            "flops_recompute": _s(a.flops_recompute),
        },
        q.MFU: {"measured_verdict": verdict, "tokens_per_device": _s(a.tokens_per_device)},
        q.CRITICAL_TOKENS_PER_DEVICE: {"critical_tokens_per_rank": _s(a.critical_tokens_per_rank)},
        q.CRITICAL_BATCH_TOKENS: {
            **attributes(a, _BOOK, _s),
            **attributes(a, "tp_max_exact compute_bound", None),
            "tp_width_per_rank": _s(a.tp_width),
            "tp_critical_width": _s(a.tp_critical_width),
        },
        _COSTS[-1]: _cluster_json(a),
    }
    times = q.T_MATH, q.T_COMMS, q.T_LOWER, q.T_UPPER, q.BUBBLE_FRACTION, q.MFU
    order = (q.FITS, q.HEADROOM_PER_DEVICE, q.COMMS_BYTES_PER_DEVICE, *times, *_CRITICAL, *_COSTS,
             *((q.T_PREDICTED, q.MFU_PREDICTED) if a.predicted is not None else ()))  # fmt: skip
    report = {**head, **laid_out(ProblemKind.TRAINING, (a,), after, "", order)}
    if p.convention != "derive":  # derive's own output is unchanged
        report["convention"] = p.convention
        report["state_recipe"] = p.state.name
        report["dropout"] = p.dropout
        report["derive_convention"] = {  # where derive's own convention differs, and by how much
            key: {"value": _s(theirs), "ratio": _s(mine / theirs) if mine and theirs else None}
            for key, mine, theirs in a.differences()
        }
    if rows:
        report["strategies"] = [_row_json(row) for row in rows]
        report["winner"] = None if winner is None else winner.name
        report["best"] = None if winner is None else _row_json(winner)
    return report
