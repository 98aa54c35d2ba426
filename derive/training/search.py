"""The best layout: every factorization of the devices, every placement on the mesh, exactly.

:func:`search_strategies` tries every ``dp·tp·pp·ep·cp = N`` whose degrees split the model
(``tp`` the heads, KV heads and MLP width; ``pp`` the layers into equal stages; ``cp`` the
sequence; ``ep`` the experts and the DP group) and whose batch splits into at least ``pp``
micro-batches per DP rank; on a mesh, every placement of those dims from the innermost axis
out (:func:`~derive.training.mesh.placements`); and for each recomputation, the smallest ZeRO
stage that fits. That choice loses nothing: ZeRO-1 sends what ZeRO-0 sends with less memory,
and each further stage only sends more (ZeRO-2 a reduce-scatter per micro-batch, ZeRO-3 its
gathers), so at a given recomputation the smallest stage that fits is the fastest that fits
(a brute-force test checks it on small meshes); and a recomputation that needs no smaller a
ZeRO stage than a lighter one already tried is skipped (more FLOPs, no less traffic). ZeRO-3
is not tried with a pipeline.

Rows are ranked: those that fit first, then by ``t_lower``, ``t_upper`` and memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy as sp

from derive.errors import ProblemError
from derive.training.analysis import StrategyRow, TrainingAnalysis, analyse_training
from derive.training.binding import Recompute, TrainingProblem, ZeroStage, bind_training
from derive.training.memory import activation_terms, memory_of, params_per_device
from derive.training.mesh import Placement, placements

RECOMPUTES = (Recompute.NONE, Recompute.SELECTIVE, Recompute.FULL)


def _divisors(n: int) -> list[int]:
    return [int(d) for d in sp.divisors(n)]


def degrees_of(p: TrainingProblem) -> Iterator[dict[str, int]]:
    """Every (dp, tp, pp, ep, cp) with product N that splits the model and the sequence."""
    n, model = p.devices, p.transformer
    split = (
        ("heads", "d_ff") if model is not None and model.is_mla else ("heads", "kv_heads", "d_ff")
    )
    layers = int(p.arch("layers")) if model is not None else 1
    for tp in _divisors(n):
        if (model is None and tp > 1) or any(p.arch(k) % tp for k in split if model):
            continue
        for cp in _divisors(n // tp):
            if (model is None and cp > 1) or p.seq % cp:
                continue
            for pp in _divisors(n // (tp * cp)):
                if (model is None and pp > 1) or layers % pp or pp > layers:
                    continue
                dp = n // (tp * cp * pp)
                eps = [1]
                if p.is_moe:
                    eps = [e for e in _divisors(dp) if p.arch("experts") % e == 0]
                for ep in eps:
                    yield {"dp": dp, "tp": tp, "pp": pp, "ep": ep, "cp": cp}


def _bind(p: TrainingProblem, degrees: dict[str, int]) -> TrainingProblem | None:
    """The run at these degrees (ZeRO-1, no recomputation), or None when it cannot run."""
    given: dict[str, Any] = {dim: str(degrees[dim]) for dim in ("dp", "tp", "pp", "ep", "cp")}
    unset = (
        "microbatches",
        "stage_layers",
        "virtual_stages",
        "schedule",
        "place",
        "keep_gathered_weights",
    )
    given.update(zero="1", recompute=Recompute.NONE.value)
    spec = replace(p.spec, **given, **dict.fromkeys(unset), origin=None)
    try:
        return bind_training(spec, p.model)
    except ProblemError:
        return None


def _zero_that_fits(run: TrainingProblem) -> ZeroStage:
    """The smallest ZeRO stage (from 1) at which the run fits; the largest tried when none does."""
    stages = [z for z in ZeroStage if z >= ZeroStage.OPTIMIZER]
    if run.pp > 1:
        stages = [z for z in stages if z is not ZeroStage.WEIGHTS]
    if run.capacity is None:
        return stages[0]
    params, terms = params_per_device(run), activation_terms(run)  # equal stages: no ZeRO in them
    for stage in stages:
        if memory_of(replace(run, zero=stage), params, terms).total <= run.capacity:
            return stage
    return stages[-1]


def rank_key(a: TrainingAnalysis) -> tuple[bool, Fraction, Fraction, Fraction]:
    """Fits first, then the fastest t_lower, the smallest t_upper, the least memory (as
    Python's exact fractions, which compare about five times faster than sympy's)."""
    t_lower, t_upper, memory = (
        Fraction(int(x.p), int(x.q)) for x in (a.t_lower, a.t_upper, a.memory.total)
    )
    return (a.fits is False, t_lower, t_upper, memory)


def _row(a: TrainingAnalysis, placement: Placement | None) -> StrategyRow:
    q = a.problem
    name = f"{q.dp}·{q.tp}·{q.pp}" + (f"·cp{q.cp}" if q.cp > 1 else "")
    name += f"·ep{q.ep}" if q.ep > 1 else ""
    where = "" if placement is None else placement.text()
    return StrategyRow(name, q.dp, q.tp, q.pp, q.zero, a, "", q.ep, q.cp, q.recompute, where)


def search_strategies(p: TrainingProblem) -> tuple[StrategyRow, ...]:
    """Every layout of the run's devices, ranked (:func:`rank_key`)."""
    found = []
    for degrees in degrees_of(p):
        base = _bind(p, degrees)
        if base is None:
            continue
        layouts: tuple[Placement | None, ...] = (None,)
        if base.placement is not None:
            dims = {
                **{k: degrees[k] for k in ("tp", "cp", "ep", "pp")},
                "dp": degrees["dp"] // degrees["ep"],
            }
            layouts = placements(base.placement.mesh, dims)
        chosen: list[ZeroStage] = []
        for recompute in RECOMPUTES if base.transformer is not None else (Recompute.NONE,):
            run = replace(base, recompute=recompute)
            run = replace(run, zero=_zero_that_fits(run))
            if any(run.zero >= zero for zero in chosen):
                continue  # more FLOPs (and traffic) at a ZeRO stage no smaller: never faster
            first: TrainingAnalysis | None = None
            for placement in layouts:
                where = run if placement is None else replace(run, placement=placement)
                a = analyse_training(where, first)  # memory is the same on every placement
                first = first or a
                found.append((a, placement))
            if first is not None and first.fits is not False:  # one that does not fit prunes none
                chosen.append(run.zero)
    found.sort(key=lambda item: rank_key(item[0]))
    return tuple(_row(a, placement) for a, placement in found)
