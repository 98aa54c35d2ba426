"""What serving and training need, quantity by quantity: memory on N devices, limits, training.

Each function derives its quantities on the sheet of :func:`~derive.model.analysis.analyse_model`
and says what it left out and why; the worked solution's steps that show them are
:mod:`derive.solution.model_steps`.
"""

from __future__ import annotations

import sympy as sp

from derive.formula.decimals import fmt_decimal
from derive.model.binding import ModelProblem
from derive.model.records import Sheet, Unit
from derive.model.symbols import batch, context, sym

__all__ = ["fit", "training"]


def fit(sheet: Sheet, p: ModelProblem) -> None:
    """Weights and KV cache on the devices, whether they fit, and the limits of the fit."""
    if p.capacity is None:
        sheet.left_out.append(("memory_total", "no HBM capacity: needs a chip or a capacity"))
        return
    C, N = _group(p)
    sheet.q("memory_total", sym("weights_bytes") + sym("kv_bytes"), Unit.BYTES)
    sheet.q("memory_per_device", sym("memory_total") / N, Unit.BYTES)
    if sheet.known("memory_per_device"):
        sheet.q("fits", sp.Le(sym("memory_per_device"), C), Unit.BOOLEAN)
        sheet.q("headroom_per_device", C - sym("memory_per_device"), Unit.BYTES)
    else:
        sheet.left_out.append(("fits", "the memory depends on dims left free: needs their values"))
    _limits(sheet, p)


def _group(p: ModelProblem) -> tuple[sp.Symbol, sp.Symbol]:
    """C and the devices holding one copy of the model: N, or N_tp with data-parallel replicas."""
    return sym("capacity"), sym("devices") if p.replicas == 1 else sym("tp")


def _limits(sheet: Sheet, p: ModelProblem) -> None:
    """The largest batch at S, the longest context at B, the fewest devices at both."""
    C, N = _group(p)
    W, m_kv = sym("weights_bytes"), sym("kv_bytes_per_token")
    if not sheet.known("weights_bytes", "kv_bytes_per_token"):
        sheet.left_out.append(("max_batch", "the model has dims left free: needs their values"))
        return
    spare = N * C - W
    weights_fit = bool(spare.xreplace(sheet.values) >= 0)
    if not weights_fit:
        values = sheet.values
        weights, room = values[W], (N * C).xreplace(values)
        need = sp.ceiling(weights / values[C])
        sheet.verdicts.append(
            f"Does not fit: the weights alone ({fmt_decimal(weights / 10**9)} GB) exceed the "
            f"capacity of {values[N]} device(s){'' if p.replicas == 1 else ' (one replica)'}, "
            f"{'N' if p.replicas == 1 else 'N_tp'}·C = {fmt_decimal(room / 10**9)} GB, so no batch "
            f"fits (max_batch = 0); the weights alone need at least {need} devices, or narrower weights."
        )
    if context in sheet.values:
        sheet.q("max_batch", _largest(spare, m_kv * context, weights_fit), Unit.SEQUENCES)
        if weights_fit and sheet.values[sym("max_batch")] == 0:
            sheet.verdicts.append(
                "Does not fit: the weights fit, but not one sequence's KV cache at this context (max_batch = 0)."
            )
    else:
        sheet.left_out.append(("max_batch", "needs a context S"))
    if batch in sheet.values:
        sheet.q("max_context", _largest(spare, m_kv * batch, weights_fit), Unit.TOKENS)
    else:
        sheet.left_out.append(("max_context", "needs a batch B"))
    if batch in sheet.values and context in sheet.values:
        sheet.q("min_devices", sp.ceiling((W + sym("kv_bytes")) / C), Unit.DEVICES)
    else:
        sheet.left_out.append(("min_devices", "needs a batch B and a context S"))


def _largest(spare: sp.Expr, per_unit: sp.Expr, weights_fit: bool) -> sp.Expr:
    """⌊(N·C − M_W) / per_unit⌋, or 0 when the weights alone do not fit."""
    return sp.floor(spare / per_unit) if weights_fit else sp.Integer(0)


def training(sheet: Sheet, p: ModelProblem) -> None:
    """Training state per device, training FLOPs and time, and the MFU a measured rate implies."""
    N = sym("devices")
    if p.state is not None:
        sheet.q("train_state_bytes", sym("state_bytes") * sym("params") / N, Unit.BYTES)
    if p.train_tokens is not None:
        _train_time(sheet, p)
    _implied_mfu(sheet, p)


def _train_time(sheet: Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    sheet.q("train_flops", 6 * sym("params_active") * sym("tokens"), Unit.FLOPS)
    if p.mfu is not None:
        time = sym("train_flops") / (N * sym("peak") * sym("mfu_given"))
    elif p.measured_tokens_per_s is not None:
        time = sym("tokens") / (N * sym("tokens_per_s"))
    else:
        return
    sheet.q("train_seconds", time, Unit.SECONDS)
    sheet.q("train_days", sym("train_seconds") / 86400, Unit.DAYS)


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
