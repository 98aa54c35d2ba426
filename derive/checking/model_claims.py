"""Judging a claim about a whole-model quantity (``params``, ``kv_bytes_per_token``, ``mfu``, …).

The claim is read only by :mod:`derive.formula` (:func:`~derive.formula.answer.read_answer`
with the whitelisted unit reader): a number or a formula in the dims the problem leaves
free, optionally with a unit that measures what the quantity measures (``1.5 GB``,
``48 KiB``, ``30 days``, ``2.1e21 FLOPs``); per-token and count words (``/token``,
``parameters``, ``sequences``, ``devices``) may follow, a count may carry a size suffix
(``8B``, ``124 million``; :mod:`derive.checking.scales`), and a fraction (``mfu``) may be a
percentage (``42%``). It is right when it equals the
exact value, or, for numbers, lies within the tolerance. A wrong number gets a diagnosis
when its ratio to the answer is a known slip: GiB written as GB (or back), a factor 2
(K and V, two FLOPs per multiply-add), the 2N shortcut, total for active parameters, 2N
FLOPs per token for training's 6N (a third), a number right to 2 significant figures.
``fits`` takes yes or no.

:func:`read_model_claim` raises :class:`~derive.errors.ParseError` for a claim that
cannot be read (the caller makes it the ``unreadable`` verdict); a quantity the problem
did not derive raises :class:`~derive.errors.ProblemError` (the caller's mistake).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from derive.catalogue import Exactness, find
from derive.catalogue.table import (
    BYTES,
    CROSSOVER,
    FITS,
    FLOPS,
    FLOPS_PER_TOKEN,
    MFU,
    PARAMS,
    PARAMS_ACTIVE,
    TRAIN_DAYS,
    TRAIN_FLOPS,
    TRAIN_SECONDS,
    WEIGHTS_BYTES,
)
from derive.checking.diagnosis_text import exact_decimal
from derive.checking.expected_text import in_unit, label_of, missed
from derive.checking.hints import Facet, Rank, Slip, bare_number_slips, earned, facets
from derive.checking.rounding import rounded_as_written
from derive.checking.scales import ScaleReading, read_claim
from derive.checking.serving_claims import SERVING_QUANTITIES
from derive.checking.thresholds import count_reason
from derive.checking.verdict import Verdict
from derive.errors import ParseError, ProblemError
from derive.formula.answer import Relation
from derive.formula.decimals import fmt_decimal
from derive.formula.limits import show
from derive.formula.literals import as_written
from derive.formula.scales import Scale
from derive.formula.units import Dimension, describe_dimension, unit_alternatives
from derive.formula.units import Unit as WrittenUnit
from derive.model.analysis import ModelAnalysis
from derive.model.records import Quantity, Unit
from derive.model.symbols import batch, context
from derive.present.model_view import JSON_KEYS
from derive.problem.model_spec import ModelSpec
from derive.problem.sets.problem_set import ModelEntry
from derive.solution.model_steps import verdict_words

if TYPE_CHECKING:
    from derive.checking.api import Judged

MODEL_QUANTITIES: tuple[str, ...] = JSON_KEYS
"""Every whole-model quantity a claim may be about (the JSON keys of ``derive model``)."""

_DAY = 86400
# quantity unit -> (what a written unit must measure, base units per one of the quantity's unit)
_COUNT = (Dimension.COUNT, 1)
_MEASURE: dict[Unit, tuple[Dimension, int]] = {
    **dict.fromkeys((Unit.BYTES, Unit.BYTES_PER_TOKEN), (Dimension.BYTES, 1)),
    **dict.fromkeys((Unit.FLOPS, Unit.FLOPS_PER_TOKEN), (Dimension.FLOPS, 1)),
    Unit.SECONDS: (Dimension.TIME, 1),
    Unit.DAYS: (Dimension.TIME, _DAY),
    Unit.TOKENS_PER_S: (Dimension.TOKEN_RATE, 1),
    **dict.fromkeys(
        (Unit.PARAMS, Unit.FRACTION, Unit.SEQUENCES, Unit.TOKENS, Unit.DEVICES), _COUNT
    ),
    # dollars and joules are not among a claim's base units: a plain number of them
    **dict.fromkeys((Unit.DOLLARS, Unit.JOULES, Unit.JOULES_PER_TOKEN), _COUNT),
}
# words that may follow a value of a quantity in this unit (dropped before reading)
_WORDS: dict[Unit, str] = {
    Unit.PARAMS: r"params|parameters|weights",
    Unit.BYTES_PER_TOKEN: r"/\s*tokens?|per\s+tokens?",
    Unit.FLOPS_PER_TOKEN: r"/\s*tokens?|per\s+tokens?",
    Unit.SEQUENCES: r"sequences?",
    Unit.DEVICES: r"devices?|chips?",
    Unit.DOLLARS: r"\$|USD|dollars?",
    Unit.JOULES: r"J|joules?",
    Unit.JOULES_PER_TOKEN: r"J\s*/\s*tokens?|joules?\s+per\s+tokens?",
}
_NOT_COUNTS = frozenset({Unit.FRACTION, Unit.SECONDS, Unit.DAYS})
_FITS, _DOES_NOT_FIT = verdict_words(FITS.name, True), verdict_words(FITS.name, False)
_YES = ("yes", "true", _FITS.removeprefix("it "), _FITS)
_NO = ("no", "false", _DOES_NOT_FIT.removeprefix("it "), _DOES_NOT_FIT)
_GB, _GIB = sp.Integer(10) ** 9, sp.Integer(2) ** 30


def _truth_said(text: str) -> str:
    """A yes or a no as written: ``Yes.``, ``no, it does not fit``, ``no (it does not fit)``
    (a sentence whose rest says the same) read as its first word; else the text, refused."""
    said = " ".join(as_written(text).strip().lower().split()).rstrip(".!")
    head, _, rest = said.partition(" ")
    head, rest = head.rstrip(","), rest.strip(" ()")  # yes, it fits; no (it does not fit)
    if head in ("yes", "no") and (not rest or rest in (_YES if head == "yes" else _NO)):
        return head
    return said


@dataclass(frozen=True)
class ModelClaim:
    """A claim read for one model quantity.

    Attributes:
        text: as typed.
        raw: the value as written (before its unit).
        value: the value in the quantity's own unit (bytes, seconds, days, …), or a truth value.
        unit: the unit written, if any.
        read_as: how it was read, in one line (``48 KiB = 49152 bytes``).
        relation: how the value relates to the quantity (``B \\geq 367`` for a crossover).
        scale: the size suffix read after the number (``8B``: billion), if any.
    """

    text: str
    raw: sp.Basic
    value: sp.Basic
    unit: WrittenUnit | None
    read_as: str
    relation: Relation = Relation.EQUALS
    scale: Scale | None = None


def judged_by(
    a: ModelAnalysis, claim: ModelClaim, exact: str, expected: str
) -> Callable[..., Judged]:
    """How a model claim's verdict is recorded: ``done(verdict, diagnosis, hidden, error)``,
    the diagnosis stating the answer and the same kept back (``hidden``), ``exact`` its text
    (``124439808``, ``True``) and ``expected`` with its unit and a decimal."""
    from derive.checking.api import Judged, ModelDetail

    detail = ModelDetail(a, claim, exact)
    return lambda verdict, said, hidden, error=None: Judged(
        verdict, claim.read_as, said, hidden, expected, error, detail
    )


def model_analysis_for(
    problem: ModelSpec | ModelEntry, operators: Sequence[str | Path] = ()
) -> ModelAnalysis:
    """The analysed whole-model problem a check needs (cached).

    Raises:
        DeriveError: the model is unknown or the problem cannot be bound.
    """
    from derive.pipeline.cache import model_analysis

    return model_analysis(problem.spec, tuple(str(p) for p in operators))


def model_quantity(a: ModelAnalysis, quantity: str) -> Quantity:
    """The derived quantity ``quantity``.

    Raises:
        ProblemError: unknown, or not derived for this problem (the reason named).
    """
    from derive.checking.training_claims import TRAINING_QUANTITIES

    every = MODEL_QUANTITIES + SERVING_QUANTITIES + TRAINING_QUANTITIES
    if quantity not in every:
        known = ", ".join(dict.fromkeys(every))
        raise ProblemError(f"quantity {quantity!r}", f"unknown quantity; known: {known}")
    q = a.quantity(quantity)
    if q is None:
        why = dict(a.left_out).get(quantity) or "; ".join(
            dict.fromkeys(w for k, w in a.left_out if k not in SERVING_QUANTITIES)
        )
        raise ProblemError(
            f"--quantity {quantity}", f"not derived for this problem ({why or 'not asked'})"
        )
    return q


def joined(
    a: ModelAnalysis, kept: Sequence[Quantity], left_out: Sequence[tuple[str, str]]
) -> ModelAnalysis:
    """``a`` with a serving step's or a training run's quantities last (theirs win over the
    model's of one key) and the reasons it left the others out: what a model-judged claim
    is read and judged against."""
    ours = {k.key for k in kept}
    quantities = tuple(k for k in a.quantities if k.key not in ours)
    others = tuple((k, w) for k, w in a.left_out if k not in ours)
    return replace(a, quantities=(*quantities, *kept), left_out=(*others, *left_out))


def _is_truth(value: sp.Basic) -> bool:
    return isinstance(value, sp.logic.boolalg.BooleanAtom)


_NOT_GIVEN_NAMES = frozenset({"s", "h", "d", "D", "k", "K", "M", "G", "T", "W"})
"""Givens' symbols a claim does not take by name: a unit or a size suffix reads them first."""


def typed_name(latex: str) -> str:
    """A givens table's symbol as people type it: ``h_{\\mathrm{kv}}`` is ``h_kv``.

    >>> typed_name(r"h_{\\mathrm{kv}}"), typed_name(r"d_{h}"), typed_name("L")
    ('h_kv', 'd_h', 'L')
    """
    return re.sub(r"\\math(?:rm|it)\{([^{}]*)\}", r"\1", latex).replace("{", "").replace("}", "")


def _givens(a: ModelAnalysis) -> dict[str, tuple[sp.Symbol, sp.Expr]]:
    """The givens table's symbols a claim may use, by their typed name, with their values."""
    from derive.model.symbols import NOTATION

    latex = {n.symbol: n.latex for n in NOTATION.values()}
    out = {}
    for symbol, value in a.given:
        name = typed_name(latex.get(symbol, symbol.name))
        if symbol not in (batch, context) and name not in _NOT_GIVEN_NAMES and value.is_number:
            out[name] = (symbol, value)
    return out


def _left_side_names(name: str, quantity: str) -> bool:
    """True when a left side names ``quantity``: its name, a spelling of its catalogue row,
    ``T`` for a time, ``B`` or ``B^*`` for the crossover."""
    from derive.checking.claims import normalise_name

    key, row = normalise_name(name), find(quantity)
    spelled = (quantity,) if row is None else (*row.spellings(), row.plain, row.latex)
    if key in {normalise_name(s) for s in spelled if s}:
        return True
    if quantity == CROSSOVER.name and key in ("b", "b^*", "b_*"):
        return True
    return row is not None and row.dimension is Dimension.TIME and key in ("t", "time")


def _symbols(a: ModelAnalysis) -> dict[str, sp.Symbol]:
    dims = {d.name: d for d in (batch, context, *a.problem.model.free_dims)}
    return {**{k: s for k, (s, _) in _givens(a).items()}, **dims}


def read_model_claim(
    a: ModelAnalysis, quantity: str, text: str, syntax: str = "auto"
) -> ModelClaim:
    """Read ``text`` as a claim about ``quantity`` (derived by ``a``).

    Raises:
        ParseError: unreadable (with a position where there is one); LimitError: too large;
        ProblemError: the quantity is unknown or was not derived.
    """
    from derive.checking.matching import check_size

    q = model_quantity(a, quantity)
    if not isinstance(text, str):
        raise ParseError("claim", f"expected text, got {type(text).__name__}")
    if _is_truth(q.value):
        said = _truth_said(text)
        if said not in _YES + _NO:
            raise ParseError(f"claim {show(text)}", f"for {quantity}, claim yes or no")
        return ModelClaim(text, sp.true, sp.true if said in _YES else sp.false, None, said)
    names = _symbols(a)
    words = _WORDS.get(q.unit)
    # a currency first (``$0.14``) is put last before the unit words come off, as the
    # answer reader puts it (it read ``0.14 USD`` and then refused the word)
    typed = as_written(text)
    body = re.sub(rf"\s*(?:{words})\s*$", "", typed, flags=re.I) if words else typed
    # a bare B after a value is the bytes unit when bytes are asked and the batch cannot be
    # meant: B is bound, or the quantity does not depend on it (bytes per token of a model
    # with no set batch); otherwise it is the batch dim (``57344*S B`` for the KV cache of an
    # unbound batch is a formula in B)
    b_is_bytes = _MEASURE[q.unit][0] is Dimension.BYTES and (
        a.problem.value_of(batch) is not None or batch not in q.value.free_symbols
    )

    def unit_ok(unit: WrittenUnit, head: str) -> bool:
        return unit.text != "B" or b_is_bytes

    measure = None if q.unit in _NOT_COUNTS else _MEASURE[q.unit][0]
    scales = ScaleReading.of(quantity, measure, lambda: q.value.is_number, frozenset(names))
    order = None if quantity == CROSSOVER.name else f"give {quantity} as a value, not an inequality"
    fraction = q.unit is Unit.FRACTION
    answer, _, percent = read_claim(text, names, syntax, scales, order, fraction, unit_ok, body)
    if answer.name is not None and not _left_side_names(answer.name, quantity):
        raise ParseError(
            f"claim {show(text)}",
            f"the left side {show(answer.name)} does not name {quantity} "
            f"(write the value alone, or as {quantity} = …)",
        )
    given = {symbol: v for symbol, v in _givens(a).values()}
    raw = answer.expr.xreplace(given) if answer.expr.free_symbols & set(given) else answer.expr
    value = raw
    scaled = answer.scale is not None
    read_as = answer.value_as_typed if scaled else _plain(raw)
    if answer.unit is not None:
        value = raw * answer.unit.factor / _MEASURE[q.unit][1]
        read_as += f" {answer.unit.text}"
        if (answer.unit.factor != 1 or scaled) and answer.unit.dimension is _MEASURE[q.unit][0]:
            read_as += f" = {_plain(value)} {unit_word(q.unit)}".rstrip()
    elif scaled:
        read_as += f" = {_plain(value)} {unit_word(q.unit)}".rstrip()
    if percent:
        value = raw / 100
        read_as += f"% = {_plain(value)}"
    check_size(value, f"claim {show(text)}")
    if answer.name is not None and answer.relation is not Relation.EQUALS:
        read_as = f"{answer.name} {answer.relation.value} {read_as}"
    note = scales.note(answer)
    if note:
        read_as += f"   ({note})"
    return ModelClaim(text, raw, value, answer.unit, read_as, answer.relation, answer.scale)


def _plain(expr: sp.Basic) -> str:
    return exact_decimal(expr) if expr.is_Rational else str(expr)


def unit_word(unit: Unit) -> str:
    """A model quantity's unit in words, as a verdict prints it (``bytes``, ``parameters``)."""
    words = {
        Unit.PARAMS: "parameters",
        Unit.BYTES: BYTES.prose,
        Unit.FLOPS: FLOPS.prose,
        Unit.FRACTION: "",
    }
    return words.get(unit, unit.value)


def shown_expected(q: Quantity) -> str:
    """The exact value with its unit, and a decimal in human units (GB and GiB both named)."""
    if _is_truth(q.value):
        return "yes (it fits)" if bool(q.value) else "no (it does not fit)"
    value, bytes_ = q.value, _MEASURE[q.unit][0] is Dimension.BYTES
    text = f"{_plain(value)} {unit_word(q.unit)}".rstrip()
    if not value.is_number or (value.is_Integer and abs(value) < (1000 if bytes_ else 10**7)):
        return text
    if value.is_Integer and not bytes_:
        exponent = len(str(abs(int(value)))) - 1
        return f"{text} ≈ {fmt_decimal(value / sp.Integer(10) ** exponent)}e{exponent}"
    return f"{text} ≈ {in_unit(value, q.unit.value, q.unit is Unit.FRACTION)}"


def _slips(a: ModelAnalysis, q: Quantity, claim: ModelClaim) -> list[Slip]:
    """The slip table of a model quantity: each row the quantity computed the slip's way."""
    quantity, target, unit = q.key, q.value, claim.unit
    measure = _MEASURE[q.unit][0]
    rows: list[Slip] = []
    if unit is not None and unit.dimension is measure:
        for other, factor in unit_alternatives(unit):
            rows.append(
                Slip(
                    target * unit.factor / factor,  # right in ``other``, read in the unit written
                    f"read as {other} it would be right: 1 {unit.text} is "
                    f"{exact_decimal(unit.factor)} B, 1 {other} is {exact_decimal(factor)} B"
                    if unit.dimension is Dimension.BYTES
                    else f"read as {other} it would be right",
                    Rank.UNITS,
                )
            )
    if quantity == FLOPS_PER_TOKEN.name:
        rows.append(
            Slip(a.value("flops_2n"), "that is the 2N shortcut, not the matmul and attention FLOPs")
        )
    if quantity == PARAMS.name:
        rows.append(
            Slip(
                a.value(PARAMS_ACTIVE.name),
                "that is the active parameters; the total counts every expert",
            )
        )
    if quantity == PARAMS_ACTIVE.name:
        rows.append(
            Slip(a.value(PARAMS.name), "that is the total; a token uses only its top-k experts")
        )
    if _uses_flops_per_token(a, quantity):
        rows.append(
            Slip(
                target / 3,
                "that uses 2N FLOPs per token (a forward pass) where training takes 6N "
                "(2 forward + 4 backward): the factor of 3",
            )
        )
    if quantity in (PARAMS.name, PARAMS_ACTIVE.name):
        rows += _without_tables(a, target)
    if quantity == WEIGHTS_BYTES.name:
        rows += _other_widths(a)
    return rows + [
        Slip(target * r, why, rank, fits) for r, why, rank, fits in _RATIO_SLIPS
    ]  # fmt: skip


_GIB_AS_GB = "the claim looks like GiB (2^30 B) read as GB (10^9 B)"
_GB_AS_GIB = "the claim looks like GB (10^9 B) read as GiB (2^30 B)"
_RATIO_SLIPS: tuple[tuple[sp.Expr, str, Rank, frozenset[Facet]], ...] = (
    (_GB / _GIB, _GIB_AS_GB, Rank.UNITS, frozenset({Facet.BYTES})),
    (_GIB / _GB, _GB_AS_GIB, Rank.UNITS, frozenset({Facet.BYTES})),
    (sp.Rational(1, 2), "that counts one of K and V: the cache holds both", Rank.NAMED,
     frozenset({Facet.KV})),
    (sp.Rational(1, 2), "that counts one FLOP per multiply-add; a multiply-add is 2", Rank.VARIANT,
     frozenset({Facet.FLOPS})),
)  # fmt: skip
"""Ratios of a claim to the answer that name a slip, with the facets of the quantities they fit."""


_WIDTHS = (
    (sp.Integer(4), "fp32"),
    (sp.Integer(2), "bf16"),
    (sp.Integer(1), "int8 or fp8"),
    (sp.Rational(1, 2), "int4"),
)


def _other_widths(a: ModelAnalysis) -> list[Slip]:
    """The weights' bytes at another width per parameter (a dtype misread)."""
    params, weights = a.value(PARAMS.name), a.value(WEIGHTS_BYTES.name)
    if not params or weights is None:
        return []
    width = weights / params
    return [
        Slip(
            params * w,
            f"that counts {exact_decimal(w)} byte{'' if w == 1 else 's'} per parameter (as if "
            f"the weights were {name}); they are {exact_decimal(width)} "
            f"byte{'' if width == 1 else 's'} each",
            Rank.VARIANT,
        )
        for w, name in _WIDTHS
        if w != width
    ]


def _without_tables(a: ModelAnalysis, target: sp.Expr) -> list[Slip]:
    """The parameters without the embedding table and/or the head (when the model has them;
    two tables of one size are one slip: either may have been left out)."""
    embed, head = a.value("P_embed") or 0, a.value("P_head") or 0
    either = "one of the embedding table and the output head (each V·d)"
    tries = (
        (embed + head if embed and head else 0, "the embedding table and the output head"),
        (head, either if head == embed else "the output head"),
        (embed, "the embedding table"),
    )
    return [
        Slip(target - left_out, f"that leaves out {what}: the parameters count every table")
        for left_out, what in tries
        if left_out
    ]


def _uses_flops_per_token(a: ModelAnalysis, quantity: str) -> bool:
    """True for a training quantity computed from 6N FLOPs per token (a time only at a given MFU)."""
    return quantity in (MFU.name, TRAIN_FLOPS.name) or (
        quantity in (TRAIN_SECONDS.name, TRAIN_DAYS.name) and a.problem.mfu is not None
    )


def _exact_count(quantity: str) -> bool:
    """True for a count defined by a floor or a ceiling (the catalogue says so): no tolerance."""
    found = find(quantity)
    return found is not None and found.exactness is Exactness.COUNT


def judge_model_claim(
    a: ModelAnalysis,
    quantity: str,
    claim: ModelClaim,
    rtol: sp.Rational,
    extra: Sequence[Slip] = (),
) -> Judged:
    """Judge a claim read by :func:`read_model_claim` against the exact value.

    ``extra``: the slip rows of a serving step or a training run for this quantity, weighed
    with the model's own (one slip is named, :func:`derive.checking.hints.earned`).
    """
    from derive.checking.matching import as_percent, right_to

    q = model_quantity(a, quantity)
    done = judged_by(a, claim, str(q.value), shown_expected(q))
    if _is_truth(q.value):
        right = bool(claim.value) == bool(q.value)
        said = verdict_words(q.key, bool(q.value))
        verdict = Verdict.CORRECT if right else Verdict.INCORRECT
        return done(verdict, (said,), () if not right else (said,))
    target = q.value
    value = claim.value
    unit = claim.unit
    measure = _MEASURE[q.unit][0]
    label = label_of(quantity)
    stated = in_unit(target, q.unit.value, q.unit is Unit.FRACTION)
    if unit is not None and unit.dimension is not measure:
        what = describe_dimension(unit.dimension)[0]
        wants = describe_dimension(measure)[0]
        why = f"{unit.text} measures {what}, but the {label} is {wants}" + (
            f" (in {unit_word(q.unit)})" if measure is not Dimension.COUNT else ""
        )
        return done(Verdict.INCORRECT, (why,), (why,))
    if sp.expand(value - target) == 0:
        return done(
            Verdict.CORRECT, (f"the claim equals the exact {label}, {stated}",),
            (f"the claim equals the exact {label}",), sp.Integer(0) if target.is_number else None,
        )  # fmt: skip
    if value.is_number and target.is_Integer and _exact_count(quantity):
        said, hidden = count_reason(label, value, target)
        error = abs(value - target) / abs(target) if target else None
        return done(Verdict.INCORRECT, (said,), (hidden,), error)
    if value.is_number and target.is_number and target != 0:
        error = abs(value - target) / abs(target)
        percent = as_percent(error)
        if error <= rtol:
            return done(
                Verdict.CORRECT,
                (right_to(rtol, label, stated, error),),
                (f"right to {as_percent(rtol)}, not exact (relative error {percent})",),
                error,
            )  # fmt: skip
        rounded = rounded_as_written(claim.raw, value, target, rtol)
        rows = _slips(a, q, claim) + list(extra)
        if unit is None:
            rows += bare_number_slips(value, target, measure)
        # the answer rounded: a slip that gives the same number is a coincidence
        found = None if rounded else earned(rows, value, rtol, facets(quantity))
        hint = f": {found.why}" if found is not None else ""
        said = missed(label, stated, claim.text, error, bool(value < target)) + hint
        first = (rounded,) if rounded else ()
        return done(
            Verdict.INCORRECT, (*first, said),
            (*first, f"the claim is off by {percent}{hint}"), error,
        )  # fmt: skip
    said = f"the exact {label} is {stated}"
    hidden = f"the claim is not the {label} derived"
    return done(Verdict.INCORRECT, (said,), (hidden,))
