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

from dataclasses import replace

import sympy as sp

from derive.catalogue import table as q
from derive.model.binding import ModelProblem
from derive.model.counting import flops, memory_of_weights_and_cache, parameters
from derive.model.counts import block_parts, substitutions
from derive.model.expand import Role
from derive.model.records import ModelAnalysis, Sheet
from derive.model.serving import fit, training
from derive.model.sized import SizedModel
from derive.model.sized_steps import by_size
from derive.model.symbols import batch, context, sym


def select_quantities(a: ModelAnalysis, ask: tuple[str, ...]) -> ModelAnalysis:
    """The analysis asked for some quantities: its worked solution shows the steps that derive
    them and every quantity they use, and says only why an asked one was left out (all when
    none asked)."""
    if not ask:
        return a
    left_out = tuple((k, why) for k, why in a.left_out if k in ask)
    return replace(a, left_out=left_out, ask=ask)


def _given(p: ModelProblem) -> dict[sp.Symbol, sp.Basic]:
    values: dict[sp.Symbol, sp.Basic] = {}
    bound = dict(p.bound)
    if not isinstance(p.model, SizedModel):  # a size is the first step's, not a given
        for s, v in substitutions(p.model).items():
            values[s] = v.xreplace(bound)
    for dim in (batch, context):
        if dim in bound:
            values[dim] = bound[dim]
    values[sym("w_weights")] = p.dtype(Role.WEIGHT).width
    if not isinstance(p.model, SizedModel):  # a size's cache is given in bytes
        values[sym("w_kv")] = p.dtype(Role.KV_CACHE).width
    values[sym("devices")] = p.devices
    if p.replicas > 1:
        values[sym("tp")] = p.tp
    if (ways := p.kv_ways) is not None and p.capacity is not None:
        values[sym("kv_ways")] = sp.Integer(ways)
        values[sym("kv_copies")] = sp.Rational(p.devices, ways)
    given = (
        ("capacity", p.capacity),
        ("peak", p.peak),
        (q.TOKENS.name, p.train_tokens),
        ("mfu_given", p.mfu),
        (q.TOKENS_PER_S.name, p.measured_tokens_per_s),
        ("price", p.price_per_hour),
        ("power", p.power),
    )
    values.update({sym(name): figure.value for name, figure in given if figure is not None})
    if p.state is not None:
        values[sym("state_bytes")] = p.state.bytes_per_param
    return values


def _check_context(sheet: Sheet, p: ModelProblem) -> None:
    """A context longer than a learned position table cannot be run: say so."""
    rows, length = sheet.values.get(sym("positions")), p.value_of(context)
    if rows is not None and length is not None and rows.is_number and length > rows:
        sheet.warnings.append(
            f"The context S = {length} is longer than the model's {rows} learned positions: "
            "the model cannot run it as declared (the counts still follow the formulas)."
        )


def analyse_model(p: ModelProblem) -> ModelAnalysis:
    """Derive every quantity the problem allows, in the order the worked solution shows them."""
    sheet = Sheet(_given(p))
    given = tuple(sorted(sheet.values.items(), key=lambda kv: kv[0].name))
    if isinstance(p.model, SizedModel):
        by_size(sheet, p)
    else:
        _check_context(sheet, p)
        parameters(sheet, p)
        memory_of_weights_and_cache(sheet, p)
        flops(sheet, p)
        fit(sheet, p)
    training(sheet, p)
    return ModelAnalysis(
        problem=p,
        given=given,
        quantities=tuple(sheet.derived),
        parts=() if isinstance(p.model, SizedModel) else tuple(block_parts(p.model)),
        verdicts=tuple(sheet.verdicts),
        warnings=tuple(sheet.warnings),
        left_out=tuple(sheet.left_out),
    )
