"""Worked-solution steps of a whole model: the same typed :class:`Step` records as an
operator's, built from the frozen :class:`~derive.model.records.ModelAnalysis`.

The analysis derives quantities (each a formula in the notation's symbols and its exact
value); this module groups them into steps by :data:`STEPS`, one row per step (its kind,
the quantities it shows, its rule, reason and notes), and writes each quantity as one line
*symbolic = numbers = result ≈ human units*, the values of earlier lines substituted into
later ones. A step is shown when the analysis derived one of its quantities (and, for a
problem that asks for some, when it holds one the asked ones use). Computes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from derive.catalogue import table as catalogue
from derive.formula.durations import time_tex
from derive.model.binding import ModelProblem
from derive.model.records import ModelAnalysis, Quantity, Unit
from derive.model.sized import SizedModel
from derive.model.symbols import NOTATION, sym, tex_names
from derive.solution.notation import tex, tex_decimal
from derive.solution.steps import Line, Math, Rich, Step, StepKind, rich

_GB, _GIB = 10**9, 2**30
_MONEY_AND_ENERGY = {
    Unit.DOLLARS: r"\ \text{USD}",
    Unit.JOULES: r"\ \text{J}",
    Unit.JOULES_PER_TOKEN: r"\ \text{J/token}",
}
_NAMES = tex_names()


@dataclass(frozen=True)
class ModelStepRule:
    """One step of a model's worked solution: which quantities it shows and what it says."""

    kind: StepKind
    keys: tuple[str, ...]  # the quantities it shows, in the analysis' order
    rule: Callable[[ModelProblem], str]
    reason: Callable[[ModelProblem], str]
    notes: Callable[[ModelAnalysis], tuple[str, ...]] = lambda a: ()
    parts: bool = False  # the block's weights as a table


def _block_reason(p: ModelProblem) -> str:
    m = p.transformer
    attention = (
        "Latent attention has "
        + ("the q_a bottleneck and q_b, " if m.q_lora_rank is not None else "the q projection, ")
        + "kv_a (the latent and the rope key), kv_b (keys and values per head) and o"
        if m.is_mla
        else "Attention has the q, k, v and o projections"
    )
    mlp = (
        "; the MLP its "
        + ("gate, up and down" if m.mlp_kind.matrices == 3 else "up and down")
        + " matrices"
    )
    if m.is_moe:
        mlp += " for each of E routed experts, of which a token uses k"
        if m.shared_experts is not None:
            shared = "n_s·f" if m.d_ff_shared is None else "f_s"
            mlp += f", plus n_s shared experts every token uses (one MLP of width {shared})"
            if m.shared_gate:
                mlp += " gated by a d → 1 projection"
        mlp += ", and a d·E router" + (" with a bias" if m.router_bias else " (no bias)")
        if m.dense_layers is not None:
            mlp += "; the first L_dense blocks have a dense MLP instead (P_mlp,dense)"
    norms = "; each norm its scale" + (" and shift" if m.norm_kind.vectors == 2 else "")
    if m.qk_norm:
        norms += " (the q and k norms have width " + (
            "h·d_h and h_kv·d_h)" if m.qk_norm_full else "d_h)"
        )
    return attention + mlp + norms + "."


def _globals_reason(p: ModelProblem) -> str:
    return (
        "The token embedding is a table of V rows of width d"
        + (
            "; the head is tied to it (it reads the same table, stored once)"
            if p.transformer.tied_embeddings
            else "; the output head is a separate d·V matrix (no bias)"
        )
        + "."
    )


def _params_rule(p: ModelProblem) -> str:
    return (
        "P = L·P_block"
        if p.transformer.dense_layers is None
        else "P = (L − L_dense)·P_block + L_dense·P_block,dense"
    ) + " + the globals; P_act counts what one token uses; P_lookup the tables read by lookup"


def _params_reason(p: ModelProblem) -> str:
    m = p.transformer
    reason = (
        "Every block is the same, so the blocks contribute L times one block."
        if m.dense_layers is None
        else "L_dense blocks are dense and L − L_dense have the experts; each kind contributes its count times one block."
    )
    if m.is_moe:
        reason += " A token runs k of the E routed experts"
        reason += " and every shared expert" if m.shared_experts is not None else ""
        reason += ", so it uses fewer parameters than the model stores."
    return reason


def _kv_rule(p: ModelProblem) -> str:
    m = p.transformer
    rule = (
        "(r_kv latent + d_R rope key) × L layers × bytes per element, per token"
        if m.is_mla
        else "2 (a key and a value) × L layers × h_kv heads × d_h per head × bytes per element, per token"
    )
    return rule + (
        "; a windowed layer keeps min(S, S_win) positions" if m.window is not None else ""
    )


def _kv_reason(p: ModelProblem) -> str:
    m = p.transformer
    reason = (
        "Latent attention caches, per position and layer, one latent of rank r_kv (keys and "
        "values of every head are expanded from it) and one rope key of width d_R shared by the heads"
        if m.is_mla
        else "Each position of context keeps one key and one value vector per KV head in every layer"
    )
    if m.window is None:
        return reason + "; B sequences of S positions keep B·S of them."
    return reason + (
        "; B sequences keep S positions in each of the L − L_win full layers and "
        "min(S, S_win) in each of the L_win windowed layers."
    )


def _kv_notes(a: ModelAnalysis) -> tuple[str, ...]:
    if a.problem.transformer.window is None:
        return ()
    return (
        "m_kv is the bytes per token while the context is within the window; beyond it only "
        "the full layers' cache grows.",
    )


def _attention_note(p: ModelProblem) -> str:
    """What attention's FLOPs count, per layer and position of context."""
    m = p.transformer
    if m.is_mla:
        text = (
            "Latent attention at context S adds, per layer, in its absorbed form (kv_b folded into "
            "the query and the output, as decode runs it): the scores over the latent and the rope "
            "key (2·h·(r_kv + d_R) per position) and the weighted sum of the latents (2·h·r_kv)."
        )
    else:
        text = (
            "Attention at context S adds, per layer, the scores q·k over S positions (2·h·d_h·S) "
            "and the weighted sum of the values (2·h·d_h·S)."
        )
    if m.window is not None:
        text += " A windowed layer attends to min(S, S_win) positions instead of S."
    return text


def _flops_rule(p: ModelProblem) -> str:
    m = p.transformer
    if m.is_mla:
        attention = "2·h·(2·r_kv + d_R)·Σ_layers positions"
    else:
        attention = "4·h·d_h·Σ_layers positions" if m.window is not None else "4·L·h·d_h·S"
    return (
        f"F_token = 2·P_matmul (matmuls) + {attention} (attention); "
        "P_matmul leaves out lookups and norms"
    )


def _flops_notes(a: ModelAnalysis) -> tuple[str, ...]:
    tied = a.problem.transformer.tied_embeddings
    convention = (
        "Convention: 2 FLOPs per multiply-accumulate. A token is multiplied by every weight it uses "
        "except the lookup tables (embedding, positions), which are read, not multiplied, and "
        "the norms' scales and shifts, applied elementwise"
        + (
            "; the tied head's d·V matmul happens although its weights are the embedding's"
            if tied
            else ""
        )
        + ". "
        + _attention_note(a.problem)
        + " Biases count 2 each like any weight; norms, softmax and other elementwise work are "
        "not counted."
    )
    flops, shortcut = a.value(catalogue.FLOPS_PER_TOKEN.name), a.value("flops_2n")
    assert isinstance(flops, sp.Expr) and isinstance(shortcut, sp.Expr)
    ratio = flops / shortcut
    return (
        convention,
        "The common shortcut 2N (N the parameters a token uses) gives F_2N; "
        + (
            f"this convention is {float(ratio):.4g}× that ({float((ratio - 1) * 100):+.2f}%)."
            if ratio.is_number
            else "the ratio depends on the dims left free."
        ),
    )


def _fit_notes(a: ModelAnalysis) -> tuple[str, ...]:
    p = a.problem
    spread = "Weights are" if p.kv_ways is not None else "Weights and KV cache are"
    notes = [
        f"Data parallel: {p.devices} devices are {p.replicas} replicas of a tensor-parallel group "
        f"of N_tp = {p.tp}; each replica holds its own copy of the weights and the KV cache of its "
        "B sequences, spread evenly over its N_tp devices; activations and framework memory are "
        "not counted."
        if p.replicas > 1
        else f"{spread} spread evenly over the N devices; activations and framework memory are not counted."
    ]
    ways = p.kv_ways
    if ways is not None:
        notes.append(
            f"The group of {p.tp} devices is larger than the model's {p.transformer.kv_heads} KV "
            f"heads: as the step does, each device holds one head's cache, M_kv/N_kv with N_kv = "
            f"{ways}, replicated {p.tp // ways} times; the K/V projections' copies are not counted."
            if not p.transformer.is_mla
            else "Latent attention: as the step does, every device holds the whole latent cache "
            "(N_kv = 1)."
        )
    return tuple(notes)


def _group(p: ModelProblem) -> str:
    return "N" if p.replicas == 1 else "N_tp"


def _limits_notes(a: ModelAnalysis) -> tuple[str, ...]:
    if isinstance(a.problem.model, SizedModel) and not _sized_cache(a.problem):
        return ("N_min counts the weights alone: the model's KV cache is not given.",)
    if a.problem.kv_ways is not None:
        return (
            f"B_max and S_max are the largest integers with M_W/{_group(a.problem)} + m_kv·B·S/N_kv"
            f" ≤ C; N_min the smallest integer with M_W + M_kv ≤ N_min·C (the cache spread evenly).",
        )
    if a.problem.replicas == 1:
        return (
            "B_max and S_max are the largest integers with M_W + m_kv·B·S ≤ N·C; N_min the smallest integer with M_W + M_kv ≤ N·C.",
        )
    return (
        "Per replica: B_max and S_max are the largest integers with M_W + m_kv·B·S ≤ N_tp·C; "
        "N_min the smallest group with M_W + M_kv ≤ N_min·C.",
    )


def _state_reason(p: ModelProblem) -> str:
    assert p.state is not None  # the step shows train_state_bytes, derived from a recipe
    parts = " + ".join(f"{b} ({name})" for name, b in p.state.parts)
    return f"Recipe {p.state.name}: {parts} bytes per parameter."


def _training_notes(a: ModelAnalysis) -> tuple[str, ...]:
    six = (
        "6 = 2 (forward) + 4 (backward: gradients for the activations and for the weights, 2 each) "
        "FLOPs per parameter a token uses, per token; attention's S-dependent FLOPs are not in 6N."
    )
    if a.problem.mfu is None and a.problem.measured_tokens_per_s is not None:
        return (
            six,
            "With a measured rate r per device, the time is D / (N·r), whatever the FLOP convention.",
        )
    return (six,)


def _mfu_notes(a: ModelAnalysis) -> tuple[str, ...]:
    mfu = a.value(catalogue.MFU.name)
    if isinstance(mfu, sp.Expr) and mfu.is_number and mfu > 1:
        return ("An MFU above 1 cannot happen: check the measurement and the convention.",)
    return ()


_TRAINING_ROWS: tuple[ModelStepRule, ...] = (
    ModelStepRule(
        StepKind.TRAINING_STATE,
        (catalogue.TRAIN_STATE_BYTES.name,),
        lambda p: "bytes per parameter × parameters, sharded over N devices",
        _state_reason,
    ),
    ModelStepRule(
        StepKind.TRAINING,
        (catalogue.TRAIN_FLOPS.name, catalogue.TRAIN_SECONDS.name, catalogue.TRAIN_DAYS.name),
        lambda p: "F_train = 6·P_act·D; T = F_train / (N·π·MFU)",
        lambda p: (
            "Training on D tokens"
            + (
                ", at the assumed MFU (the fraction of the peak π reached) on each of N devices."
                if p.mfu is not None
                else "."
            )
        ),
        _training_notes,
    ),
    ModelStepRule(
        StepKind.COST,
        (
            catalogue.COST_OF_RUN.name,
            catalogue.COST_PER_MILLION_TOKENS.name,
            catalogue.ENERGY_OF_RUN.name,
            catalogue.ENERGY_PER_TOKEN.name,
        ),
        lambda p: "cost = p_h·N·T / 3600 (T in s, p_h in dollars per device-hour); E = W_dev·N·T",
        lambda p: "Every device is billed and draws power for the whole run.",
    ),
    ModelStepRule(
        StepKind.IMPLIED_MFU,
        (catalogue.MFU.name,),
        lambda p: "MFU = 6·P_act·r / π, r the measured tokens per second per device",
        lambda p: "The FLOPs the measured rate needs, as a fraction of the peak.",
        _mfu_notes,
    ),
)

_FIT_KEYS = (
    catalogue.MEMORY_TOTAL.name,
    catalogue.MEMORY_PER_DEVICE.name,
    catalogue.FITS.name,
    catalogue.HEADROOM_PER_DEVICE.name,
)
_WEIGHTS = ModelStepRule(
    StepKind.WEIGHTS,
    (catalogue.WEIGHTS_BYTES.name,),
    lambda p: "bytes = parameters × bytes per weight",
    lambda p: "Every parameter is stored once at the weight width.",
)

_LIMITS = ModelStepRule(
    StepKind.LIMITS,
    (catalogue.MAX_BATCH.name, catalogue.MAX_CONTEXT.name, catalogue.MIN_DEVICES.name),
    lambda p: (
        f"solve M_W/{_group(p)} + m_kv·B·S/N_kv ≤ C for the integer unknown"
        if p.kv_ways is not None
        else f"solve M_W ≤ {_group(p)}·C for the integer unknown"
        if isinstance(p.model, SizedModel) and not _sized_cache(p)
        else f"solve M_W + m_kv·B·S ≤ {_group(p)}·C for the integer unknown"
    ),
    lambda p: (
        f"The KV cache grows with B·S; what is left of {_group(p)}·C after the weights bounds it."
    ),
    _limits_notes,
)


STEPS: tuple[ModelStepRule, ...] = (
    ModelStepRule(
        StepKind.BLOCK_PARAMETERS,
        (
            "P_attn",
            "P_mlp",
            "P_norm",
            "P_mlp_dense",
            "P_mlp_active",
            "P_block",
            "P_block_active",
            "P_block_dense",
        ),
        lambda p: "a block's parameters are the elements of its weight tensors",
        _block_reason,
        parts=True,
    ),
    ModelStepRule(
        StepKind.GLOBAL_PARAMETERS,
        ("P_embed", "P_pos", "P_head", "P_final"),
        lambda p: (
            "the embedding table is V·d; a learned position table n_pos·d; an untied head d·V; the final norm"
        ),
        _globals_reason,
    ),
    ModelStepRule(
        StepKind.PARAMETERS,
        (catalogue.PARAMS.name, catalogue.PARAMS_ACTIVE.name, catalogue.PARAMS_EMBEDDING.name),
        _params_rule,
        _params_reason,
    ),
    _WEIGHTS,
    ModelStepRule(
        StepKind.KV_CACHE,
        (catalogue.KV_BYTES_PER_TOKEN.name, catalogue.KV_BYTES.name),
        _kv_rule,
        _kv_reason,
        _kv_notes,
    ),
    ModelStepRule(
        StepKind.MODEL_FLOPS,
        (
            "P_matmul",
            "flops_matmuls",
            "flops_attention",
            catalogue.FLOPS_PER_TOKEN.name,
            "flops_2n",
        ),
        _flops_rule,
        lambda p: "The forward pass of one token at context S, in two named parts.",
        _flops_notes,
    ),
    ModelStepRule(
        StepKind.MEMORY_FIT,
        _FIT_KEYS,
        lambda p: (
            f"M = M_W + M_kv; the weights spread over {_group(p)} devices, the cache over "
            f"N_kv (a KV head each, as the step lays it out); it fits when M_W/{_group(p)} + "
            "M_kv/N_kv ≤ C"
            if p.kv_ways is not None
            else "M = M_W + M_kv, spread over N devices; it fits when M/N ≤ C"
            if p.replicas == 1
            else "M = M_W + M_kv per replica, spread over its N_tp devices; it fits when M/N_tp ≤ C"
        ),
        lambda p: "Serving keeps the weights and the KV cache of every sequence in HBM.",
        _fit_notes,
    ),
    _LIMITS,
    *_TRAINING_ROWS,
)


def _sized_reason(p: ModelProblem) -> str:
    model = p.model
    assert isinstance(model, SizedModel)
    return "The model is known by its size alone" + (
        "; a token uses fewer parameters than it stores (a mixture of experts)."
        if model.params_active != model.params
        else "; every token uses every parameter (P_act = P)."
    )


def _sized_cache(p: ModelProblem) -> bool:
    """Whether a model known by its size was given its KV cache's bytes per token."""
    return isinstance(p.model, SizedModel) and p.model.kv_bytes_per_token is not None


# A model known by its size alone (derive.model.sized_steps): its size is given, and only the
# weights are in memory (the KV cache needs an architecture).
SIZED_STEPS: tuple[ModelStepRule, ...] = (
    ModelStepRule(
        StepKind.PARAMETERS,
        (catalogue.PARAMS.name, catalogue.PARAMS_ACTIVE.name),
        lambda p: "given: the model's size (P) and the parameters a token uses (P_act)",
        _sized_reason,
    ),
    _WEIGHTS,
    ModelStepRule(
        StepKind.KV_CACHE,
        (catalogue.KV_BYTES_PER_TOKEN.name, catalogue.KV_BYTES.name),
        lambda p: "given: the KV cache's bytes per token of context, every layer (m_kv)",
        lambda p: "B sequences of S positions keep B·S tokens of cache.",
    ),
    ModelStepRule(
        StepKind.MEMORY_FIT,
        _FIT_KEYS,
        lambda p: (
            "M = M_W"
            + (" + M_kv" if _sized_cache(p) else "")
            + " spread over N devices; it fits when M/N ≤ C"
        ),
        lambda p: (
            "Serving keeps the weights and the KV cache of every sequence in HBM."
            if _sized_cache(p)
            else "Serving keeps the weights in HBM; the KV cache needs an architecture (or "
            "--kv-bytes-per-token) and is not counted."
        ),
        lambda a: (
            (
                "Activations"
                if _sized_cache(a.problem)
                else "Only the weights are counted: the KV cache, activations"
            )
            + " and framework memory come on top, so the fit is necessary, not sufficient.",
        ),
    ),
    _LIMITS,
    *_TRAINING_ROWS,
)


def _value_tex(value: sp.Basic) -> str:
    if isinstance(value, sp.logic.boolalg.BooleanAtom):
        return r"\text{yes}" if bool(value) else r"\text{no}"
    return tex(value)


def _numbers_tex(formula: sp.Basic, values: dict[sp.Symbol, sp.Basic]) -> str:
    names = dict(_NAMES)
    for s in formula.free_symbols:
        if s in values:
            v = values[s]
            text = tex(v)
            simple = not (v.is_Add or (v.is_number and v < 0))
            names[s] = text if simple else rf"\left({text}\right)"
    return tex(formula, symbol_names=names, mul_symbol="dot")


def human(value: sp.Basic, unit: Unit) -> str | None:
    """An approximate decimal with its unit, for display (bytes in GB and GiB)."""
    if not isinstance(value, sp.Expr) or not value.is_number:
        return None
    if unit in (Unit.BYTES, Unit.BYTES_PER_TOKEN):
        suffix = r"\ \text{B/token}" if unit is Unit.BYTES_PER_TOKEN else ""
        if abs(value) >= 10**6:
            gb, gib = _approx(value / _GB, 5), _approx(value / _GIB, 5)
            return rf"{gb}\ \text{{GB}}\ ({gib}\ \text{{GiB}}){suffix}"
        return None if value.is_Integer else tex_decimal(value) + suffix
    if unit is Unit.SECONDS:
        return time_tex(value)
    if unit is Unit.DAYS or unit is Unit.FRACTION:
        word = {Unit.DAYS: r"\ \text{days}", Unit.FRACTION: ""}[unit]
        return _approx(value, 4) + word
    if unit in _MONEY_AND_ENERGY:
        return _approx(value, 5) + _MONEY_AND_ENERGY[unit]
    if value.is_Integer and abs(value) < 10**7:
        return None
    return _approx(value, 5)


def _approx(value: sp.Expr, digits: int) -> str:
    """A rounded decimal for display; integers of 8 digits or more in scientific form."""
    if value.is_Integer and abs(value) >= 10**7:
        mantissa, exponent = f"{float(value):.{digits - 1}e}".split("e")
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return tex_decimal(value, digits)


def _truncated(value: sp.Expr, places: int = 3) -> str:
    """A positive number cut (not rounded) after ``places`` decimals: 42.8019… → ``42.801``."""
    n = int(value * 10**places // 1)  # sympy floors a Rational exactly
    return f"{n // 10**places}.{n % 10**places:0{places}d}"


_ROUNDING = {
    sp.floor: (r"\left\lfloor ", r" \right\rfloor"),
    sp.ceiling: (r"\left\lceil ", r" \right\rceil"),
}


# A comparison's outcome in words, by quantity: (when it holds, when it does not).
_VERDICT_WORDS = {catalogue.FITS.name: ("it fits", "it does not fit")}


def verdict_words(key: str, holds: bool) -> str:
    """A yes-or-no quantity's answer in words: ``it fits``, ``it does not fit``."""
    yes, no = _VERDICT_WORDS.get(key, ("it holds", "it does not hold"))
    return yes if holds else no


# A comparison's sign when it holds and when it does not.
_SIGNS = {
    sp.LessThan: (r"\leq", ">"),
    sp.StrictLessThan: ("<", r"\geq"),
    sp.GreaterThan: (r"\geq", "<"),
    sp.StrictGreaterThan: (">", r"\leq"),
}


def _comparison_lines(q: Quantity, values: dict[sp.Symbol, sp.Basic]) -> tuple[Line, ...]:
    """A yes-or-no quantity said as its comparison, then in numbers with the verdict in
    words, never as ``fits = … = yes``: ``M_dev ≤ C``, ``14187922432 ≤ 1.6 × 10^10, so it
    fits`` (or ``M_dev > C``, ``… so it does not fit``)."""
    left, right = q.formula.args
    holds = bool(q.value)
    sign = _SIGNS[type(q.formula)][0 if holds else 1]
    words = rf",\ \text{{so {verdict_words(q.key, holds)}}}"
    return (
        Line(tex(left, symbol_names=_NAMES), (tex(right, symbol_names=_NAMES),), relation=sign),
        Line(_numbers_tex(left, values), (_numbers_tex(right, values) + words,), relation=sign),
    )


def _lines(q: Quantity, values: dict[sp.Symbol, sp.Basic]) -> tuple[Line, ...]:
    """A quantity's lines: a comparison's two, else one."""
    if type(q.formula) in _SIGNS and isinstance(q.value, sp.logic.boolalg.BooleanAtom):
        return _comparison_lines(q, values)
    return (_line(q, values),)


def _line(q: Quantity, values: dict[sp.Symbol, sp.Basic]) -> Line:
    """``lhs = symbolic = numbers [= ⌊inner…⌋] = result ≈ human``, repeats left out."""
    symbolic = tex(q.formula, symbol_names=_NAMES)
    forms = [symbolic]
    numbers = _numbers_tex(q.formula, values)
    if numbers != symbolic:
        forms.append(numbers)
    if q.formula.func in _ROUNDING and q.value.is_number:
        inner = q.formula.args[0].xreplace(values)
        if inner.is_number and not inner.is_Integer:
            left, right = _ROUNDING[q.formula.func]
            forms.append(f"{left}{_truncated(inner)}\\ldots{right}")
    result = _value_tex(q.value)
    if q.unit is Unit.SECONDS and q.value.is_number:  # the exact seconds, then their reading
        result += r"\ \text{s}"
    if result != forms[-1]:
        forms.append(result)
    return Line(NOTATION[q.key].latex, tuple(forms), human(q.value, q.unit))


_NAME_PART = re.compile(r"([Wb])_(\w+)|γ|β")


def _name_rich(name: str) -> Rich:
    """A weight's name with its symbols as math: ``W_q, b_q`` → $W_{q}$, $b_{q}$; γ, β."""
    out: list[str | Math] = []
    last = 0
    for m in _NAME_PART.finditer(name):
        out.append(name[last : m.start()])
        if m.group(1):
            out.append(Math(rf"{m.group(1)}_{{\mathrm{{{m.group(2)}}}}}"))
        else:
            out.append(Math(r"\gamma" if m.group(0) == "γ" else r"\beta"))
        last = m.end()
    out.append(name[last:])
    return rich(*out)


def _part_rows(a: ModelAnalysis, values: dict[sp.Symbol, sp.Basic]) -> tuple[tuple, ...]:
    """A header, then one row of rich cells per part: block, weights, formula, value."""
    if not a.parts:
        return ()
    rows: list[tuple] = [("block", "weights", "count", "value")]
    for pt in a.parts:
        count: Rich = rich(Math(tex(pt.formula, symbol_names=_NAMES)))
        if pt.active != pt.formula:
            count = count + rich(" (a token uses ", Math(tex(pt.active, symbol_names=_NAMES)), ")")
        value = rich(Math(tex(pt.formula.xreplace(values))))
        rows.append((rich(pt.block.value), _name_rich(pt.name), count, value))
    return tuple(rows)


def _needed(a: ModelAnalysis) -> set[str]:
    """The quantities the asked ones use (every quantity when the problem asks for none)."""
    by_key = {q.key: q for q in a.quantities}
    if not a.ask:
        return set(by_key)
    needed: set[str] = set()
    todo = [k for k in a.ask if k in by_key]
    while todo:
        key = todo.pop()
        if key not in needed:
            needed.add(key)
            todo += [s.name for s in by_key[key].formula.free_symbols if s.name in by_key]
    return needed


def _shown_rows(a: ModelAnalysis) -> tuple[tuple[ModelStepRule, tuple[Quantity, ...]], ...]:
    """Each step shown, with its quantities: those with a quantity the asked ones use."""
    needed = _needed(a)
    out = []
    for row in SIZED_STEPS if isinstance(a.problem.model, SizedModel) else STEPS:
        quantities = tuple(q for q in a.quantities if q.key in row.keys)
        if any(q.key in needed for q in quantities):
            out.append((row, quantities))
    return tuple(out)


def shown_quantities(a: ModelAnalysis) -> tuple[Quantity, ...]:
    """The quantities the worked solution shows, in order (every one when none is asked)."""
    return tuple(q for _, quantities in _shown_rows(a) for q in quantities)


def model_steps(a: ModelAnalysis) -> tuple[Step, ...]:
    """The model's worked solution: a step per row of :data:`STEPS` that is shown."""
    values: dict[sp.Symbol, sp.Basic] = dict(a.given)
    out = []
    for row, quantities in _shown_rows(a):
        table = _part_rows(a, values) if row.parts else ()
        lines: list[Line] = []
        for q in quantities:
            lines += _lines(q, values)
            values[sym(q.key)] = q.value
        out.append(
            Step(
                kind=row.kind,
                rule=row.rule(a.problem),
                reason=rich(row.reason(a.problem)),
                lines=tuple(lines),
                notes=tuple(rich(n) for n in row.notes(a)),
                title=row.kind.value,
                topic=quantities[0].key,
                table=table,
            )
        )
    return tuple(out)
