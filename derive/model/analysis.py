"""Whole-model analysis: one pure function from a bound model problem to a frozen record.

:func:`analyse_model` derives, in order, each quantity as a formula in the
notation's symbols (:mod:`derive.model.symbols`) and its exact value, the values
of earlier quantities substituted into later ones (*symbolic = numbers = result*):
parameters (per block and global), weights and KV-cache bytes, FLOPs per token,
memory on ``N`` devices with the fit, the largest batch and context and the fewest
devices, training state, training time at an MFU or the MFU a measured rate implies.
A quantity that needs something not given (a capacity, a bound ``S``) is left out
and the record says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

import sympy as sp

from derive.model.binding import ModelProblem
from derive.model.counts import Part, block_parts, global_parts, substitutions
from derive.model.expand import Role
from derive.model.symbols import batch, context, sym
from derive.problem.decimals import fmt_decimal

__all__ = ["ModelAnalysis", "ModelStep", "Quantity", "Unit", "analyse_model", "select_quantities"]


class Unit(str, Enum):
    """The unit of a quantity (JSON ``unit``)."""

    PARAMS = "parameters"
    BYTES = "B"
    BYTES_PER_TOKEN = "B/token"
    FLOPS = "FLOP"
    FLOPS_PER_TOKEN = "FLOP/token"
    SECONDS = "s"
    DAYS = "days"
    FRACTION = "1"
    SEQUENCES = "sequences"
    TOKENS = "tokens"
    DEVICES = "devices"
    BOOLEAN = "bool"


@dataclass(frozen=True)
class Quantity:
    """One derived quantity: its key, formula in symbols, exact value and unit."""

    key: str
    formula: sp.Basic
    value: sp.Basic
    unit: Unit

    @property
    def is_number(self) -> bool:
        """True when the value is a number (or a truth value), not symbolic."""
        return bool(self.value.is_number) or isinstance(self.value, sp.logic.boolalg.BooleanAtom)


@dataclass(frozen=True)
class ModelStep:
    """A step of the worked solution: a rule, a reason, its quantities, notes, parts."""

    title: str
    rule: str
    reason: str
    quantities: tuple[Quantity, ...]
    notes: tuple[str, ...] = ()
    parts: tuple[Part, ...] = ()


@dataclass(frozen=True)
class ModelAnalysis:
    """Every derived quantity of a model problem, in steps, with verdicts and warnings."""

    problem: ModelProblem
    given: tuple[tuple[sp.Symbol, sp.Expr], ...]
    steps: tuple[ModelStep, ...]
    verdicts: tuple[str, ...]
    warnings: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...]

    def quantity(self, key: str) -> Quantity | None:
        """The quantity called ``key`` (a JSON key such as ``params``), or None."""
        for step in self.steps:
            for q in step.quantities:
                if q.key == key:
                    return q
        return None

    def value(self, key: str) -> sp.Basic | None:
        """The exact value of a quantity, or None when it was not derived."""
        q = self.quantity(key)
        return None if q is None else q.value


def select_quantities(a: ModelAnalysis, ask: tuple[str, ...]) -> ModelAnalysis:
    """The steps that derive the asked quantities and every quantity they use (all when none asked)."""
    if not ask:
        return a
    by_key = {q.key: q for step in a.steps for q in step.quantities}
    needed: set[str] = set()
    todo = [k for k in ask if k in by_key]
    while todo:
        key = todo.pop()
        if key in needed:
            continue
        needed.add(key)
        todo += [s.name for s in by_key[key].formula.free_symbols if s.name in by_key]
    steps = tuple(st for st in a.steps if any(q.key in needed for q in st.quantities))
    left_out = tuple((k, why) for k, why in a.left_out if k in ask)
    return replace(a, steps=steps, left_out=left_out)


@dataclass
class _Sheet:
    """The running substitution: symbol → exact value, grown one quantity at a time."""

    values: dict[sp.Symbol, sp.Basic]
    steps: list[ModelStep] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def q(self, key: str, formula: sp.Basic, unit: Unit) -> Quantity:
        value = formula.xreplace(self.values)
        if isinstance(value, sp.Expr) and not value.is_number:
            value = sp.expand(value)
        self.values[sym(key)] = value
        return Quantity(key, formula, value, unit)

    def step(
        self,
        title: str,
        rule: str,
        reason: str,
        *qs: Quantity,
        notes: tuple[str, ...] | list[str] = (),
        parts: tuple[Part, ...] = (),
    ) -> None:
        self.steps.append(ModelStep(title, rule, reason, tuple(qs), tuple(notes), tuple(parts)))

    def known(self, *keys: str) -> bool:
        """True when every key's value is a number."""
        return all(sym(k) in self.values and bool(self.values[sym(k)].is_number) for k in keys)


def _given(p: ModelProblem) -> dict[sp.Symbol, sp.Basic]:
    values: dict[sp.Symbol, sp.Basic] = {}
    bound = dict(p.bound)
    for s, v in substitutions(p.model).items():
        values[s] = v.xreplace(bound)
    for dim in (batch, context):
        if dim in bound:
            values[dim] = bound[dim]
    values[sym("w_weights")] = p.dtype(Role.WEIGHT).width
    values[sym("w_kv")] = p.dtype(Role.KV_CACHE).width
    values[sym("devices")] = p.devices
    if p.capacity is not None:
        values[sym("capacity")] = p.capacity.value
    if p.peak is not None:
        values[sym("peak")] = p.peak.value
    if p.train_tokens is not None:
        values[sym("tokens")] = p.train_tokens.value
    if p.mfu is not None:
        values[sym("mfu_given")] = p.mfu.value
    if p.measured_tokens_per_s is not None:
        values[sym("tokens_per_s")] = p.measured_tokens_per_s.value
    if p.state is not None:
        values[sym("state_bytes")] = p.state.bytes_per_param
    return values


def analyse_model(p: ModelProblem) -> ModelAnalysis:
    """Derive every quantity the problem allows, in the order the worked solution shows them."""
    sheet = _Sheet(_given(p))
    given = tuple(sorted(sheet.values.items(), key=lambda kv: kv[0].name))
    _parameters(sheet, p)
    _memory_of_weights_and_cache(sheet)
    _flops(sheet, p)
    _fit(sheet, p)
    _training(sheet, p)
    return ModelAnalysis(
        p,
        given,
        tuple(sheet.steps),
        tuple(sheet.verdicts),
        tuple(sheet.warnings),
        tuple(sheet.left_out),
    )


def _parameters(sheet: _Sheet, p: ModelProblem) -> None:
    m = p.model
    parts = block_parts(m)
    by_block = {
        key: [pt for pt in parts if pt.block.value == block]
        for key, block in (("P_attn", "attention"), ("P_mlp", "mlp"), ("P_norm", "norms"))
    }
    block_qs = [
        sheet.q(key, sp.Add(*(pt.formula for pt in ps)), Unit.PARAMS)
        for key, ps in by_block.items()
        if ps
    ]
    keys = [q.key for q in block_qs]
    active_key = "P_mlp"
    if m.is_moe:
        block_qs.append(
            sheet.q("P_mlp_active", sp.Add(*(pt.active for pt in by_block["P_mlp"])), Unit.PARAMS)
        )
        active_key = "P_mlp_active"
    block_qs.append(sheet.q("P_block", sp.Add(*(sym(k) for k in keys)), Unit.PARAMS))
    if m.is_moe:
        active = [sym(active_key if k == "P_mlp" else k) for k in keys]
        block_qs.append(sheet.q("P_block_active", sp.Add(*active), Unit.PARAMS))
    sheet.step(
        "Parameters of one block",
        "a block's parameters are the elements of its weight tensors",
        "Attention has the q, k, v and o projections; the MLP its "
        + ("gate, up and down" if m.mlp_kind.matrices == 3 else "up and down")
        + " matrices"
        + (
            " for each of E experts, plus a d·E router (no bias), of which a token uses k experts"
            if m.is_moe
            else ""
        )
        + "; each norm its γ"
        + (" and β" if m.norm_kind.vectors == 2 else "")
        + ".",
        *block_qs,
        parts=parts,
    )
    globals_ = global_parts(m)
    global_qs = [sheet.q(key, pt.formula, Unit.PARAMS) for key, pt in globals_]
    sheet.step(
        "Parameters outside the blocks",
        "the embedding table is V·d; a learned position table n_pos·d; an untied head d·V; the final norm",
        "The token embedding is a table of V rows of width d"
        + (
            "; the head is tied to it (it reads the same table, stored once)"
            if m.tied_embeddings
            else "; the output head is a separate d·V matrix (no bias)"
        )
        + ".",
        *global_qs,
    )
    g_keys = [k for k, _ in globals_]
    lookup = [k for k in g_keys if k in ("P_embed", "P_pos")]
    L = sym("layers")
    qs = [sheet.q("params", L * sym("P_block") + sp.Add(*(sym(k) for k in g_keys)), Unit.PARAMS)]
    block_active = sym("P_block_active" if m.is_moe else "P_block")
    qs.append(
        sheet.q("params_active", L * block_active + sp.Add(*(sym(k) for k in g_keys)), Unit.PARAMS)
    )
    qs.append(sheet.q("params_embedding", sp.Add(*(sym(k) for k in lookup)), Unit.PARAMS))
    sheet.step(
        "Parameters",
        "P = L·P_block + the globals; P_act counts what one token uses; P_lookup the tables read by lookup",
        "Every block is the same, so the blocks contribute L times one block."
        + (
            " A token runs k of the E experts, so it uses fewer parameters than the model stores."
            if m.is_moe
            else ""
        ),
        *qs,
    )


def _memory_of_weights_and_cache(sheet: _Sheet) -> None:
    w = sheet.q("weights_bytes", sym("params") * sym("w_weights"), Unit.BYTES)
    sheet.step(
        "Weights in memory",
        "bytes = parameters × bytes per weight",
        "Every parameter is stored once at the weight width.",
        w,
    )
    L, kv, dh = sym("layers"), sym("kv_heads"), sym("head_dim")
    per_token = sheet.q("kv_bytes_per_token", 2 * L * kv * dh * sym("w_kv"), Unit.BYTES_PER_TOKEN)
    total = sheet.q("kv_bytes", sym("kv_bytes_per_token") * batch * context, Unit.BYTES)
    sheet.step(
        "KV cache",
        "2 (a key and a value) × L layers × h_kv heads × d_h per head × bytes per element, per token",
        "Each position of context keeps one key and one value vector per KV head in every layer; "
        "B sequences of S positions keep B·S of them.",
        per_token,
        total,
    )


def _flops(sheet: _Sheet, p: ModelProblem) -> None:
    m = p.model
    d, V, L = sym("d_model"), sym("vocab"), sym("layers")
    matmul_params = sym("params_active") - sym("params_embedding")
    if m.tied_embeddings:
        matmul_params = matmul_params + d * V
    pm = sheet.q("P_matmul", matmul_params, Unit.PARAMS)
    fm = sheet.q("flops_matmuls", 2 * sym("P_matmul"), Unit.FLOPS_PER_TOKEN)
    fa = sheet.q(
        "flops_attention", 4 * L * sym("heads") * sym("head_dim") * context, Unit.FLOPS_PER_TOKEN
    )
    ft = sheet.q(
        "flops_per_token", sym("flops_matmuls") + sym("flops_attention"), Unit.FLOPS_PER_TOKEN
    )
    f2n = sheet.q("flops_2n", 2 * sym("params_active"), Unit.FLOPS_PER_TOKEN)
    notes = [
        "Convention: 2 FLOPs per multiply-accumulate. A token is multiplied by every weight it uses "
        "except the lookup tables (embedding, positions), which are read, not multiplied"
        + (
            "; the tied head's d·V matmul happens although its weights are the embedding's"
            if m.tied_embeddings
            else ""
        )
        + ". Attention at context S adds, per layer, the scores q·k over S positions (2·h·d_h·S) "
        "and the weighted sum of the values (2·h·d_h·S). Biases and norm scales count 2 each like "
        "any weight; softmax and other elementwise work is not counted.",
    ]
    ratio = sheet.values[sym("flops_per_token")] / sheet.values[sym("flops_2n")]
    if ratio.is_number:
        notes.append(
            f"The common shortcut 2N (N the parameters a token uses) gives F_2N; this convention is "
            f"{float(ratio):.4g}× that ({float((ratio - 1) * 100):+.2f}%)."
        )
    else:
        notes.append(
            "The common shortcut 2N (N the parameters a token uses) gives F_2N; the ratio depends on the dims left free."
        )
    sheet.step(
        "FLOPs per token",
        "F_token = 2·P_matmul (matmuls) + 4·L·h·d_h·S (attention)",
        "The forward pass of one token at context S, in two named parts.",
        pm,
        fm,
        fa,
        ft,
        f2n,
        notes=notes,
    )


def _fit(sheet: _Sheet, p: ModelProblem) -> None:
    if p.capacity is None:
        sheet.left_out.append(("memory_total", "no capacity: give --chip or --capacity"))
        return
    C, N = sym("capacity"), sym("devices")
    total = sheet.q("memory_total", sym("weights_bytes") + sym("kv_bytes"), Unit.BYTES)
    per = sheet.q("memory_per_device", sym("memory_total") / N, Unit.BYTES)
    qs = [total, per]
    notes = [
        "Weights and KV cache are spread evenly over the N devices; activations and framework memory are not counted."
    ]
    if sheet.known("memory_per_device"):
        qs.append(sheet.q("fits", sp.Le(sym("memory_per_device"), C), Unit.BOOLEAN))
        qs.append(sheet.q("headroom_per_device", C - sym("memory_per_device"), Unit.BYTES))
    else:
        sheet.left_out.append(("fits", "memory depends on dims left free: bind them with --set"))
    sheet.step(
        "Memory on the devices",
        "M = M_W + M_kv, spread over N devices; it fits when M/N ≤ C",
        "Serving keeps the weights and the KV cache of every sequence in HBM.",
        *qs,
        notes=notes,
    )
    _limits(sheet, p)


def _limits(sheet: _Sheet, p: ModelProblem) -> None:
    C, N = sym("capacity"), sym("devices")
    W, m_kv = sym("weights_bytes"), sym("kv_bytes_per_token")
    if not sheet.known("weights_bytes", "kv_bytes_per_token"):
        sheet.left_out.append(("max_batch", "the model has free dims: bind them with --set"))
        return
    spare = N * C - W
    weights_fit = bool(spare.xreplace(sheet.values) >= 0)
    qs: list[Quantity] = []
    notes: list[str] = []
    if not weights_fit:
        values = sheet.values
        weights, room = values[W], (N * C).xreplace(values)
        need = sp.ceiling(weights / values[C])
        sheet.verdicts.append(
            f"Does not fit: the weights alone ({fmt_decimal(weights / 10**9)} GB) exceed the "
            f"capacity of {values[N]} device(s), N·C = {fmt_decimal(room / 10**9)} GB, so no batch "
            f"fits (max_batch = 0); the weights alone need at least {need} devices, or narrower weights."
        )
    if context in sheet.values:
        qs.append(
            sheet.q("max_batch", _largest(spare, m_kv * context, weights_fit), Unit.SEQUENCES)
        )
        if weights_fit and sheet.values[sym("max_batch")] == 0:
            sheet.verdicts.append(
                "Does not fit: the weights fit, but not one sequence's KV cache at this context (max_batch = 0)."
            )
    else:
        sheet.left_out.append(("max_batch", "needs a context: --set S=…"))
    if batch in sheet.values:
        qs.append(sheet.q("max_context", _largest(spare, m_kv * batch, weights_fit), Unit.TOKENS))
    else:
        sheet.left_out.append(("max_context", "needs a batch: --set B=…"))
    if batch in sheet.values and context in sheet.values:
        qs.append(sheet.q("min_devices", sp.ceiling((W + sym("kv_bytes")) / C), Unit.DEVICES))
    else:
        sheet.left_out.append(("min_devices", "needs a batch and a context: --set B=… --set S=…"))
    if not qs:
        return
    notes.append(
        "B_max and S_max are the largest integers with M_W + m_kv·B·S ≤ N·C; N_min the smallest integer with M_W + M_kv ≤ N·C."
    )
    sheet.step(
        "Largest batch, longest context, fewest devices",
        "solve M_W + m_kv·B·S ≤ N·C for the integer unknown",
        "The KV cache grows with B·S; what is left of N·C after the weights bounds it.",
        *qs,
        notes=notes,
    )


def _largest(spare: sp.Expr, per_unit: sp.Expr, weights_fit: bool) -> sp.Expr:
    """⌊(N·C − M_W) / per_unit⌋, or 0 when the weights alone do not fit."""
    return sp.floor(spare / per_unit) if weights_fit else sp.Integer(0)


def _training(sheet: _Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    if p.state is not None:
        q = sheet.q("train_state_bytes", sym("state_bytes") * sym("params") / N, Unit.BYTES)
        parts = " + ".join(f"{b} ({name})" for name, b in p.state.parts)
        sheet.step(
            "Training state",
            "bytes per parameter × parameters, sharded over N devices",
            f"Recipe {p.state.name}: {parts} bytes per parameter.",
            q,
        )
    if p.train_tokens is not None:
        _train_time(sheet, p)
    _implied_mfu(sheet, p)


def _train_time(sheet: _Sheet, p: ModelProblem) -> None:
    N = sym("devices")
    qs = [sheet.q("train_flops", 6 * sym("params_active") * sym("tokens"), Unit.FLOPS)]
    notes = [
        "6 = 2 (forward) + 4 (backward: gradients for the activations and for the weights, 2 each) "
        "FLOPs per parameter a token uses, per token; attention's S-dependent FLOPs are not in 6N."
    ]
    if p.mfu is not None:
        time = sym("train_flops") / (N * sym("peak") * sym("mfu_given"))
    elif p.measured_tokens_per_s is not None:
        time = sym("tokens") / (N * sym("tokens_per_s"))
        notes.append(
            "With a measured rate r per device, the time is D / (N·r), whatever the FLOP convention."
        )
    else:
        time = None
    if time is not None:
        qs.append(sheet.q("train_seconds", time, Unit.SECONDS))
        qs.append(sheet.q("train_days", sym("train_seconds") / 86400, Unit.DAYS))
    sheet.step(
        "Training compute and time",
        "F_train = 6·P_act·D; T = F_train / (N·π·η)",
        "Training on D tokens"
        + (", at a fraction η of the peak π of each of N devices." if p.mfu is not None else "."),
        *qs,
        notes=notes,
    )


def _implied_mfu(sheet: _Sheet, p: ModelProblem) -> None:
    if p.measured_tokens_per_s is None:
        return
    q = sheet.q("mfu", 6 * sym("params_active") * sym("tokens_per_s") / sym("peak"), Unit.FRACTION)
    notes = []
    if q.is_number and q.value > 1:
        sheet.warnings.append(
            f"IMPOSSIBLE: the implied MFU is {float(q.value):.3g} > 1, faster than the chip's peak. "
            "This is the signature of a wrong FLOP convention (a multiply-add counted as 1 FLOP, a "
            "sparse peak), tokens per second counted over all devices instead of one, or the wrong model."
        )
        notes.append("An MFU above 1 cannot happen: check the measurement and the convention.")
    sheet.step(
        "Implied MFU",
        "MFU = 6·P_act·r / π, r the measured tokens per second per device",
        "The FLOPs the measured rate needs, as a fraction of the peak.",
        q,
        notes=notes,
    )
