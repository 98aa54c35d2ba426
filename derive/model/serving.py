"""What serving and training need, quantity by quantity: memory on N devices, limits, training.

Each function derives its quantities on the sheet of :func:`~derive.model.analysis.analyse_model`
and says what it left out and why; the steps that show them are :mod:`derive.solution.model_steps`.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.formula.decimals import counted, fmt_decimal
from derive.model.binding import ModelProblem
from derive.model.records import Sheet
from derive.model.sized import SizedModel
from derive.model.symbols import batch, context, sym


def fit(sheet: Sheet, p: ModelProblem) -> None:
    """Memory on the devices, the fit and the limits; a model known by its size without its
    cache's bytes per token counts its weights alone."""
    if p.capacity is None:
        sheet.left_out.append((q.MEMORY_TOTAL.name, "no HBM capacity: needs a chip or a capacity"))
        return
    C, N = _group(p)
    W, M_kv = sym(q.WEIGHTS_BYTES), sym(q.KV_BYTES) if sym(q.KV_BYTES) in sheet.values else 0
    sheet.q(q.MEMORY_TOTAL, W + M_kv)
    replicated = sym("kv_ways") in sheet.values  # the step's layout: a KV head per device
    per = W / N + M_kv / sym("kv_ways") if replicated else sym(q.MEMORY_TOTAL) / N
    sheet.q(q.MEMORY_PER_DEVICE, per)
    if sheet.known(q.MEMORY_PER_DEVICE):
        sheet.q(q.FITS, sp.Le(sym(q.MEMORY_PER_DEVICE), C))
        sheet.q(q.HEADROOM_PER_DEVICE, C - sym(q.MEMORY_PER_DEVICE))
    else:
        free = "B and S" if isinstance(p.model, SizedModel) else "dims left free"
        sheet.left_out.append((q.FITS.name, f"the memory depends on {free}: needs their values"))
    if M_kv == 0:  # no cache counted: the fewest devices hold the weights
        sheet.q(q.MIN_DEVICES, sp.ceiling(W / C))
    else:
        _limits(sheet, p)


def _group(p: ModelProblem) -> tuple[sp.Symbol, sp.Symbol]:
    """C and the devices holding one copy of the model: N, or N_tp with data-parallel replicas."""
    return sym("capacity"), sym("devices") if p.replicas == 1 else sym("tp")


def _limits(sheet: Sheet, p: ModelProblem) -> None:
    if not sheet.known(q.WEIGHTS_BYTES, q.KV_BYTES_PER_TOKEN):
        sheet.left_out.append(
            (q.MAX_BATCH.name, "the model has dims left free: needs their values")
        )
        return
    _batch_and_context(sheet, p)
    C, W = sym("capacity"), sym(q.WEIGHTS_BYTES)
    if batch in sheet.values and context in sheet.values:
        sheet.q(q.MIN_DEVICES, sp.ceiling((W + sym(q.KV_BYTES)) / C))
    else:
        sheet.left_out.append((q.MIN_DEVICES.name, "needs a batch B and a context S"))


def _batch_and_context(sheet: Sheet, p: ModelProblem) -> None:
    """B_max at the bound S and S_max at the bound B, or why each is left out (a model
    with no KV cache, m_kv = 0, has no limit from memory)."""
    C, N = _group(p)
    W, m_kv = sym(q.WEIGHTS_BYTES), sym(q.KV_BYTES_PER_TOKEN)
    spare = N * C - W
    weights_fit = bool(spare.xreplace(sheet.values) >= 0)
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
    elif sheet.values[m_kv] == 0:
        why = "no KV cache (m_kv = 0): unbounded here; activations, not counted, would bound it"
        sheet.left_out += [(q.MAX_BATCH.name, why), (q.MAX_CONTEXT.name, why)]
        return
    windowed = getattr(p.model, "window", None) is not None
    # each device holds 1/N_kv of the cache, not 1/N, when the KV heads are replicated: the
    # devices hold n_kv = N/N_kv copies of it
    spread = sym("kv_copies") if sym("kv_copies") in sheet.values else 1
    per_sequence = spread * (sym(q.KV_BYTES) / batch if windowed else m_kv * context)
    if context in sheet.values and (not windowed or batch in sheet.values):
        sheet.q(q.MAX_BATCH, _largest(spare, per_sequence, weights_fit))
        if weights_fit and sheet.values[sym(q.MAX_BATCH)] == 0:
            sheet.verdicts.append(
                "Does not fit: the weights fit, but not one sequence's KV cache at this context (max_batch = 0)."
            )
    else:
        sheet.left_out.append(
            (q.MAX_BATCH.name, "needs a context S" + (" and a batch B" if windowed else ""))
        )
    if batch in sheet.values and windowed:
        _longest_windowed(sheet, spare / spread, weights_fit)
    elif batch in sheet.values:
        sheet.q(q.MAX_CONTEXT, _largest(spare, spread * m_kv * batch, weights_fit))
    else:
        sheet.left_out.append((q.MAX_CONTEXT.name, "needs a batch B"))


def _longest_windowed(sheet: Sheet, spare: sp.Expr, weights_fit: bool) -> None:
    """S_max with windowed layers: within the window every layer's cache grows (m_kv per
    token); beyond it only the L − L_win full layers' (m_kv·(L − L_win)/L per token)."""
    L, L_win, window = sym("layers"), sym("windowed_layers"), sym("window")
    m_kv, per_seq_room = sym(q.KV_BYTES_PER_TOKEN), spare / batch
    values = sheet.values
    if not weights_fit:
        sheet.q(q.MAX_CONTEXT, sp.Integer(0))
        return
    if values[L] == values[L_win] and bool((per_seq_room - m_kv * window).xreplace(values) >= 0):
        why = "every layer is windowed: the cache stops growing at the window, so any context fits"
        sheet.left_out.append((q.MAX_CONTEXT.name, why))
        return
    beyond = window + sp.floor((per_seq_room - m_kv * window) / (m_kv * (L - L_win) / L))
    within = sp.floor(per_seq_room / m_kv)
    room_beyond = bool((per_seq_room - m_kv * window).xreplace(values) >= 0)
    sheet.q(q.MAX_CONTEXT, beyond if room_beyond else within)


def _largest(spare: sp.Expr, per_unit: sp.Expr, weights_fit: bool) -> sp.Expr:
    """⌊(N·C − M_W) / per_unit⌋, or 0 when the weights alone do not fit."""
    return sp.floor(spare / per_unit) if weights_fit else sp.Integer(0)


def training(sheet: Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    if p.state is not None:
        sheet.q(q.TRAIN_STATE_BYTES, sym("state_bytes") * sym(q.PARAMS) / N)
    if p.train_tokens is not None:
        _train_time(sheet, p)
    _implied_mfu(sheet, p)


def _train_time(sheet: Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    sheet.q(q.TRAIN_FLOPS, 6 * sym(q.PARAMS_ACTIVE) * sym(q.TOKENS))
    if p.mfu is not None:
        time = sym(q.TRAIN_FLOPS) / (N * sym("peak") * sym("mfu_given"))
    elif p.measured_tokens_per_s is not None:
        time = sym(q.TOKENS) / (N * sym(q.TOKENS_PER_S))
    else:
        time = None
    if time is not None:
        sheet.q(q.TRAIN_SECONDS, time)
        sheet.q(q.TRAIN_DAYS, sym(q.TRAIN_SECONDS) / 86400)
        _run_cost(sheet, p)


def _run_cost(sheet: Sheet, p: ModelProblem) -> None:
    """The run's bill at ``p_h`` dollars per device-hour and its energy at ``W_dev`` watts
    per device: N devices for T seconds (issue 36)."""
    N, T, D = sym("devices"), sym(q.TRAIN_SECONDS), sym(q.TOKENS)
    if p.price_per_hour is not None:
        sheet.q(q.COST_OF_RUN, sym("price") * N * T / 3600)
        sheet.q(q.COST_PER_MILLION_TOKENS, 10**6 * sym(q.COST_OF_RUN) / D)
    if p.power is not None:
        sheet.q(q.ENERGY_OF_RUN, sym("power") * N * T)
        sheet.q(q.ENERGY_PER_TOKEN, sym(q.ENERGY_OF_RUN) / D)


def _implied_mfu(sheet: Sheet, p: ModelProblem) -> None:
    if p.measured_tokens_per_s is None:
        return
    mfu = sheet.q(q.MFU, 6 * sym(q.PARAMS_ACTIVE) * sym(q.TOKENS_PER_S) / sym("peak"))
    if mfu.is_number and mfu.value > 1:
        sheet.warnings.append(
            f"IMPOSSIBLE: the implied MFU is {float(mfu.value):.3g} > 1, faster than the chip's peak. "
            "This is the signature of a wrong FLOP convention (a multiply-add counted as 1 FLOP, a "
            "sparse peak), tokens per second counted over all devices instead of one, or the wrong model."
        )
