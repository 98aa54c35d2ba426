"""A whole model's worked solution and JSON report (``derive model``).

Every line reads *symbolic = numbers = result ≈ human units*. Bytes are shown in
both decimal and binary units, each named (GB = 10^9 B, GiB = 2^30 B), never one
passed off as the other. JSON keys are a contract: every quantity of the issue's
list is present (``null`` when it was not derived) as ``{exact, value, unit, formula}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.catalogue import ProblemKind, phrase_of
from derive.catalogue import table as q
from derive.catalogue.reading import attributes
from derive.catalogue.reading import text_or_none as _optional
from derive.formula.decimals import fmt_decimal, fmt_ending_decimal
from derive.formula.durations import time_text
from derive.model.analysis import ModelAnalysis
from derive.model.records import Quantity, Unit
from derive.model.sized import SizedModel
from derive.model.symbols import NOTATION, batch, context
from derive.model.transformer import FLAG_FIELDS, OPTIONAL_SIZE_FIELDS, Transformer
from derive.present.escape import md_escape, tex_escape
from derive.present.formats import Document
from derive.problem.sets.problem_set import MODEL_ASK_KEYS
from derive.solution.model_steps import model_steps, verdict_words
from derive.solution.notation import tex, tex_text_number

# The quantities of the JSON contract, in order: the keys a model problem may ask for.
JSON_KEYS = MODEL_ASK_KEYS

# What a question asks for each quantity (a problem set's ``ask``).
ASK_PHRASES = {name: phrase_of(ProblemKind.MODEL, name) for name in JSON_KEYS}

_GB = sp.Integer(10) ** 9


def _given_rows(a: ModelAnalysis) -> tuple[tuple[str, str, str], ...]:
    """(symbol, meaning, value) for the architecture and the run, in the notation's order."""
    order = {key: i for i, key in enumerate(NOTATION)}
    config = dict(a.problem.model.source)  # a config's own field names, when read from one
    rows = []
    for s, v in sorted(a.given, key=lambda kv: order.get(kv[0].name, len(order))):
        if s in (batch, context):
            rows.append((tex(s), "batch (sequences)" if s == batch else "context (tokens)", tex(v)))
        else:
            n = NOTATION[s.name]
            meaning = n.meaning + (f" (config: {config[s.name]})" if s.name in config else "")
            rows.append((n.latex, meaning, _given_value(v)))
    return tuple(rows)


def _given_value(value: sp.Expr) -> str:
    """A given as its reader wrote it: a decimal that ends prints as one (a price of 2.49,
    not 249/100); an integer or a fraction that never ends prints exactly."""
    ending = fmt_ending_decimal(value) if value.is_Rational and not value.is_Integer else None
    return tex_text_number(ending) if ending is not None else tex(value)


def _hardware_rows(a: ModelAnalysis) -> tuple[tuple[str, str, str, str], ...]:
    """C, β when it overrides the chip's, π: (name, symbol, value, source)."""
    p = a.problem
    hbm = p.bandwidth if p.bandwidth is not None and p.bandwidth.overrides else None
    rows = (
        ("HBM capacity per device", "C", p.capacity, "B"),
        ("HBM bandwidth", r"\beta", hbm, "B/s"),
        (f"peak ({p.compute_dtype})", r"\pi", p.peak, "FLOP/s"),
    )
    return tuple(
        (name, symbol, tex_text_number(fig.text) + rf"\ \text{{{unit}}}", fig.cite())
        for name, symbol, fig, unit in rows
        if fig is not None
    )


@dataclass(frozen=True)
class EarlierGivens:
    """The givens table an earlier problem of a key or sheet printed for the same model: a
    later problem refers to it and prints only the rows it does not share (issue 33)."""

    number: int
    id: str
    given: tuple[tuple[str, str, str], ...]
    hardware: tuple[tuple[str, str, str, str], ...]

    @staticmethod
    def of(a: ModelAnalysis, number: int, problem_id: str) -> EarlierGivens:
        """The table problem ``number`` (``problem_id``) prints for ``a``."""
        return EarlierGivens(number, problem_id, _given_rows(a), _hardware_rows(a))


def _title(a: ModelAnalysis) -> str:
    p = a.problem
    where = "" if p.hardware_name == "no hardware" else f" on {p.hardware_name}"
    n = f" ×{p.devices}" if p.devices != 1 and where else ""
    return f"Model {p.model.name}{where}{n}"


def _context(
    a: ModelAnalysis, title: str | None, text: str, earlier: EarlierGivens | None = None
) -> dict:
    p = a.problem
    given, all_hardware = _given_rows(a), _hardware_rows(a)
    hardware = all_hardware
    if earlier is not None:  # the rows the earlier table printed are not printed again
        given = tuple(row for row in given if row not in earlier.given)
        hardware = tuple(row for row in hardware if row not in earlier.hardware)
    stored = getattr(p.model, "stored_as", None)
    dtypes = ", ".join(
        f"{r.flag} {dt.name} ({tex(dt.width)} B{', ' + dt.note if dt is stored else ''})"
        for r, dt in p.dtypes
    )
    return dict(
        title=title or _title(a),
        text=text,
        model=p.model,
        describe=p.model.describe(),
        chip=p.chip,
        devices=int(p.devices),
        dtypes=dtypes,
        bound=tuple(f"{d.name} = {v}" for d, v in p.bound),
        given=given,
        hardware=hardware,
        any_hardware=bool(all_hardware),
        earlier=earlier,
        steps=model_steps(a),
        verdicts=a.verdicts,
        warnings=a.warnings,
        left_out=a.left_out,
    )


def model_template_context(a: ModelAnalysis, title: str | None = None, text: str = "") -> dict:
    """What the model templates print (givens, hardware, steps as views), for other front ends."""
    return _context(a, title, text)


def model_document(
    a: ModelAnalysis,
    title: str | None = None,
    text: str = "",
    level: int = 1,
    givens_only: bool = False,
    earlier: EarlierGivens | None = None,
) -> Document:
    """The worked solution as a document (``model.*.j2``; JSON: :func:`model_json`);
    ``givens_only``: the question, without the steps; ``earlier``:
    the same model's table printed by an earlier problem, referred to instead of repeated."""
    return Document(
        template="model",
        context=dict(level=level, givens_only=givens_only, **_context(a, title, text, earlier)),
        data=lambda: model_json(a),
    )


def _short(q: Quantity) -> str:
    if not q.value.is_number:
        return str(q.value)
    if q.value.is_Integer and abs(q.value) >= 10**12:
        text = f"{float(q.value):.5g}".replace("e+", "e")
    else:
        text = str(q.value) if q.value.is_Integer else fmt_decimal(q.value)
    if q.unit is Unit.BYTES and abs(q.value) >= 10**6:
        text += f" B ≈ {fmt_decimal(q.value / _GB)} GB"
    elif q.unit is Unit.SECONDS:
        text = time_text(q.value)
    elif q.unit is Unit.DAYS:
        text += f" {q.unit.value}"
    text += _MONEY_WORDS.get(q.unit, "")
    return text


_MONEY_WORDS = {Unit.DOLLARS: " USD", Unit.JOULES: " J", Unit.JOULES_PER_TOKEN: " J/token"}
"""The unit words after a bill or an energy at a glance (``$`` is math in Markdown and TeX)."""


def _glanced(q: Quantity) -> tuple[str, str]:
    """One answer at a glance, Markdown and LaTeX: its symbol and value (``$P$ = 8030261248``),
    or a yes-or-no answer in words (``it fits``)."""
    if isinstance(q.value, sp.logic.boolalg.BooleanAtom):
        words = verdict_words(q.key, bool(q.value))
        return md_escape(words), tex_escape(words)
    symbol = f"${NOTATION[q.key].latex}$" if q.key in NOTATION else None
    if q.key in NOTATION and not q.value.is_number:  # a formula in the dims, as math
        line = f"${NOTATION[q.key].latex} = {tex(q.value)}$"
        return line, line
    big = q.value.is_Integer and abs(q.value) >= 10**12
    if q.key in NOTATION and (big or (not q.value.is_Integer and "e" in fmt_decimal(q.value))):
        # a count too long to read in full, or a decimal past e-notation (a run's cost in
        # dollars): rounded, with its power of ten, as math
        shown = f"{float(q.value):.5g}" if big else fmt_decimal(q.value)
        math = f"${NOTATION[q.key].latex} = {tex_text_number(shown)}$"
        rest = f" B ≈ {fmt_decimal(q.value / _GB)} GB" if q.unit is Unit.BYTES else ""
        rest = _MONEY_WORDS.get(q.unit, rest)
        return math + md_escape(rest), math + tex_escape(rest)
    value = _short(q)
    return (
        f"{symbol or md_escape(q.key)} = {md_escape(value)}",
        f"{symbol or tex_escape(q.key)} = {tex_escape(value)}",
    )


def glance(a: ModelAnalysis, keys: tuple[str, ...]) -> tuple[str, str]:
    """The answers to ``keys`` on one line, for Markdown and for LaTeX."""
    parts = [_glanced(q) for key in keys if (q := a.quantity(key)) is not None]
    if not parts:
        return "—", "—"
    return "; ".join(md for md, _ in parts), "; ".join(tex for _, tex in parts)


def _quantity_json(q: Quantity | None) -> dict | None:
    if q is None:
        return None
    value: object
    if isinstance(q.value, sp.logic.boolalg.BooleanAtom):
        return {
            "exact": bool(q.value),
            "value": bool(q.value),
            "unit": q.unit.value,
            "formula": str(q.formula),
        }
    value = float(q.value) if q.value.is_number else None
    if q.unit in (Unit.SEQUENCES, Unit.TOKENS, Unit.DEVICES) and q.value.is_Integer:
        value = int(q.value)
    return {"exact": str(q.value), "value": value, "unit": q.unit.value, "formula": str(q.formula)}


def _architecture_json(m: Transformer | SizedModel) -> dict[str, object] | None:
    """The architecture's fields as exact strings (None for a model known by its size alone)."""
    if isinstance(m, SizedModel):
        return None
    out: dict[str, object] = {
        **attributes(m, "layers d_model heads kv_heads head_dim d_ff"),
        "mlp": m.mlp_kind.value,
        "vocab": str(m.vocab),
        "tied_embeddings": m.tied_embeddings,
        "positions": _optional(m.positions),
        "bias": m.bias,
        "norm": None if m.norm_kind.value == "none" else m.norm_kind.value,
        **attributes(m, "experts top_k", _optional),
    }
    out |= attributes(m, FLAG_FIELDS[2:], None)  # after tied_embeddings and bias, above
    out["norms_per_block"] = m.norms_per_block
    return out | attributes(m, OPTIONAL_SIZE_FIELDS[3:], _optional)


def model_json(a: ModelAnalysis) -> dict:
    """Every derived quantity under its contract key (``null`` when not derived)."""
    p = a.problem
    m = p.model
    out: dict[str, object] = {
        "model": m.name,
        "architecture": _architecture_json(m),
        "chip": p.chip.name if p.chip else None,
        "capacity": None if p.capacity is None else str(p.capacity.value),
        "peak": None if p.peak is None else str(p.peak.value),
        "compute_dtype": p.compute_dtype,
        "devices": int(p.devices),
        "dtypes": {r.flag: dt.name for r, dt in p.dtypes},
        "set": {d.name: int(v) for d, v in p.bound},
    }
    for key in JSON_KEYS:
        out[key] = _quantity_json(a.quantity(key))
    fpt = out[q.FLOPS_PER_TOKEN.name]
    if isinstance(fpt, dict):
        fpt[q.PARTS.name] = {
            "matmuls": _quantity_json(a.quantity("flops_matmuls")),
            "attention": _quantity_json(a.quantity("flops_attention")),
        }
        fpt["shortcut_2n"] = _quantity_json(a.quantity("flops_2n"))
    out["breakdown"] = {
        row.key: _quantity_json(row) for row in a.quantities if row.key.startswith("P_")
    }
    out["verdicts"] = list(a.verdicts)
    out["warnings"] = list(a.warnings)
    out["left_out"] = {key: why for key, why in a.left_out}
    return out
