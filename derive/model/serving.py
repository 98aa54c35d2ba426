"""What serving and training need, quantity by quantity: memory on N devices, limits, training.

Each function derives its quantities on the sheet of :func:`~derive.model.analysis.analyse_model`
and says what it left out and why; the steps that show them are :mod:`derive.solution.model_steps`.
"""

from __future__ import annotations

import sympy as sp

from derive.formula.decimals import counted, fmt_decimal
from derive.model.binding import ModelProblem
from derive.model.records import Quantity, Sheet, Unit
from derive.model.symbols import batch, context, sym

__all__ = ["fit", "training"]


def fit(sheet: Sheet, p: ModelProblem) -> None:
    if p.capacity is None:
        sheet.left_out.append(("memory_total", "no HBM capacity: needs a chip or a capacity"))
        return
    C, N = _group(p)
    total = sheet.q("memory_total", sym("weights_bytes") + sym("kv_bytes"), Unit.BYTES)
    per = sheet.q("memory_per_device", sym("memory_total") / N, Unit.BYTES)
    qs = [total, per]
    if sheet.known("memory_per_device"):
        qs.append(sheet.q("fits", sp.Le(sym("memory_per_device"), C), Unit.BOOLEAN))
        qs.append(sheet.q("headroom_per_device", C - sym("memory_per_device"), Unit.BYTES))
    else:
        sheet.left_out.append(("fits", "the memory depends on dims left free: needs their values"))
    _limits(sheet, p)


def _group(p: ModelProblem) -> tuple[sp.Symbol, sp.Symbol]:
    """C and the devices holding one copy of the model: N, or N_tp with data-parallel replicas."""
    return sym("capacity"), sym("devices") if p.replicas == 1 else sym("tp")


def _limits(sheet: Sheet, p: ModelProblem) -> None:
    C, N = _group(p)
    W, m_kv = sym("weights_bytes"), sym("kv_bytes_per_token")
    if not sheet.known("weights_bytes", "kv_bytes_per_token"):
        sheet.left_out.append(("max_batch", "the model has dims left free: needs their values"))
        return
    spare = N * C - W
    weights_fit = bool(spare.xreplace(sheet.values) >= 0)
    qs: list[Quantity] = []
    if not weights_fit:
        values = sheet.values
        weights, room = values[W], (N * C).xreplace(values)
        need = sp.ceiling(weights / values[C])
        sheet.verdicts.append(
            f"Does not fit: the weights alone ({fmt_decimal(weights / 10**9)} GB) exceed the "
            f"capacity of {counted(values[N], 'device')}{'' if p.replicas == 1 else ' (one replica)'}, "
            f"{'N' if p.replicas == 1 else 'N_tp'}·C = {fmt_decimal(room / 10**9)} GB, so no batch "
            f"fits (max_batch = 0); the weights alone need at least {need} devices, or narrower weights."
        )
    windowed = p.transformer.window is not None
    per_sequence = sym("kv_bytes") / batch if windowed else m_kv * context
    if context in sheet.values and (not windowed or batch in sheet.values):
        qs.append(sheet.q("max_batch", _largest(spare, per_sequence, weights_fit), Unit.SEQUENCES))
        if weights_fit and sheet.values[sym("max_batch")] == 0:
            sheet.verdicts.append(
                "Does not fit: the weights fit, but not one sequence's KV cache at this context (max_batch = 0)."
            )
    else:
        sheet.left_out.append(
            ("max_batch", "needs a context S" + (" and a batch B" if windowed else ""))
        )
    if batch in sheet.values and windowed:
        _longest_windowed(sheet, p, spare, weights_fit, qs)
    elif batch in sheet.values:
        qs.append(sheet.q("max_context", _largest(spare, m_kv * batch, weights_fit), Unit.TOKENS))
    else:
        sheet.left_out.append(("max_context", "needs a batch B"))
    if batch in sheet.values and context in sheet.values:
        qs.append(sheet.q("min_devices", sp.ceiling((W + sym("kv_bytes")) / C), Unit.DEVICES))
    else:
        sheet.left_out.append(("min_devices", "needs a batch B and a context S"))


def _longest_windowed(
    sheet: Sheet, p: ModelProblem, spare: sp.Expr, weights_fit: bool, qs: list[Quantity]
) -> None:
    """S_max with windowed layers: within the window every layer's cache grows (m_kv per
    token); beyond it only the L − L_win full layers' (m_kv·(L − L_win)/L per token)."""
    L, L_win, window = sym("layers"), sym("windowed_layers"), sym("window")
    m_kv, per_seq_room = sym("kv_bytes_per_token"), spare / batch
    values = sheet.values
    if not weights_fit:
        qs.append(sheet.q("max_context", sp.Integer(0), Unit.TOKENS))
        return
    if values[L] == values[L_win] and bool((per_seq_room - m_kv * window).xreplace(values) >= 0):
        sheet.left_out.append(
            (
                "max_context",
                "every layer is windowed: the cache stops growing at the window, so any context fits",
            )
        )
        return
    beyond = window + sp.floor((per_seq_room - m_kv * window) / (m_kv * (L - L_win) / L))
    within = sp.floor(per_seq_room / m_kv)
    room_beyond = bool((per_seq_room - m_kv * window).xreplace(values) >= 0)
    qs.append(sheet.q("max_context", beyond if room_beyond else within, Unit.TOKENS))


def _largest(spare: sp.Expr, per_unit: sp.Expr, weights_fit: bool) -> sp.Expr:
    """⌊(N·C − M_W) / per_unit⌋, or 0 when the weights alone do not fit."""
    return sp.floor(spare / per_unit) if weights_fit else sp.Integer(0)


def training(sheet: Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    if p.state is not None:
        sheet.q("train_state_bytes", sym("state_bytes") * sym("params") / N, Unit.BYTES)
    if p.train_tokens is not None:
        _train_time(sheet, p)
    _implied_mfu(sheet, p)


def _train_time(sheet: Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    qs = [sheet.q("train_flops", 6 * sym("params_active") * sym("tokens"), Unit.FLOPS)]
    if p.mfu is not None:
        time = sym("train_flops") / (N * sym("peak") * sym("mfu_given"))
    elif p.measured_tokens_per_s is not None:
        time = sym("tokens") / (N * sym("tokens_per_s"))
    else:
        time = None
    if time is not None:
        qs.append(sheet.q("train_seconds", time, Unit.SECONDS))
        qs.append(sheet.q("train_days", sym("train_seconds") / 86400, Unit.DAYS))
        _run_cost(sheet, p)


def _run_cost(sheet: Sheet, p: ModelProblem) -> None:
    """The run's bill at ``p_h`` dollars per device-hour and its energy at ``W_dev`` watts
    per device: N devices for T seconds (issue 36)."""
    N, T, D = sym("devices"), sym("train_seconds"), sym("tokens")
    if p.price_per_hour is not None:
        sheet.q("cost_of_run", sym("price") * N * T / 3600, Unit.DOLLARS)
        sheet.q("cost_per_million_tokens", 10**6 * sym("cost_of_run") / D, Unit.DOLLARS)
    if p.power is not None:
        sheet.q("energy_of_run", sym("power") * N * T, Unit.JOULES)
        sheet.q("energy_per_token", sym("energy_of_run") / D, Unit.JOULES_PER_TOKEN)


def _implied_mfu(sheet: Sheet, p: ModelProblem) -> None:
    if p.measured_tokens_per_s is None:
        return
    q = sheet.q("mfu", 6 * sym("params_active") * sym("tokens_per_s") / sym("peak"), Unit.FRACTION)
    if q.is_number and q.value > 1:
        sheet.warnings.append(
            f"IMPOSSIBLE: the implied MFU is {float(q.value):.3g} > 1, faster than the chip's peak. "
            "This is the signature of a wrong FLOP convention (a multiply-add counted as 1 FLOP, a "
            "sparse peak), tokens per second counted over all devices instead of one, or the wrong model."
        )
