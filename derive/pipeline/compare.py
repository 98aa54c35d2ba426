"""``derive compare``'s rows: one problem derived on many chips (an operator per chip and
compute dtype, a model's serving step per chip); :mod:`derive.present.compare` lays them out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.analyse import Analysis, analyse
from derive.errors import ProblemError
from derive.present.compare.kernels import KernelRow
from derive.present.compare.models import ModelRow
from derive.present.compare.ratios import Ratios, ratio_of
from derive.present.compare.table import CompareRow, baseline_of, chips_of

if TYPE_CHECKING:
    from derive.declare.registry import Registry
    from derive.problem.binding import ProblemSpec
    from derive.problem.chips import Chip
    from derive.problem.kernel_spec import KernelSpec
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec


_GIVEN = "given"
"""The compute column of the row of typed numbers (its peak is the one typed)."""


def _given_chip(spec: ProblemSpec) -> Chip | None:
    """``--peak``/``--bandwidth`` as a chip of one peak, for a row beside the named chips.

    Raises:
        ProblemError: one of the two without the other.
    """
    from derive.problem.chips import Chip, custom_figure

    if spec.peak is None and spec.bandwidth is None:
        return None
    if spec.peak is None or spec.bandwidth is None:
        raise ProblemError(
            "derive compare --peak/--bandwidth",
            "give both, for a row of your numbers beside the chips",
        )
    link = custom_figure(spec.link_bandwidth, "--link-bandwidth") if spec.link_bandwidth else None
    peak = custom_figure(spec.peak, "--peak")
    return Chip(
        _GIVEN,
        "given numbers",
        "link",
        ((_GIVEN, peak),),
        custom_figure(spec.bandwidth, "--bandwidth"),
        link,
    )


def kernel_rows(spec: KernelSpec, chips: str | None = None) -> list[KernelRow]:
    """A kernel by its numbers on every chip and compute dtype (``--compute`` keeps one), and
    on the typed ``--peak``/``--bandwidth`` as a last row named ``given``."""
    from derive.pipeline import derive_kernel
    from derive.problem.dtypes import get_dtype

    want = get_dtype(spec.compute).compute_as if spec.compute else None
    named = replace(spec, peak=None, bandwidth=None, compute=None, dtypes=())
    rows = [
        KernelRow(
            chip.name, dtype, derive_kernel(replace(named, chip=chip.name, compute=dtype)).kernel
        )
        for chip in chips_of(chips)
        for dtype, _ in chip.peaks
        if want is None or dtype == want
    ]
    if spec.peak is not None or spec.bandwidth is not None:
        typed = replace(spec, chip=None, compute=None, dtypes=())
        rows.append(KernelRow(_GIVEN, _GIVEN, derive_kernel(typed).kernel))
    if not rows:
        raise ProblemError(f"--compute {spec.compute}", f"none of the chips has a {want} peak")
    return rows


def compare_rows(
    spec: ProblemSpec,
    registry: Registry,
    chips: str | None = None,
    only_compute: str | None = None,
) -> list[CompareRow]:
    """Bind and analyse ``spec`` on every chip and compute dtype; rows in chip order, then the chip's dtype order.

    ``spec`` is a :class:`~derive.problem.binding.ProblemSpec` without hardware numbers; its
    ``chip`` and ``compute`` are replaced per row. ``only_compute`` keeps one compute dtype.
    """
    from derive.problem.binding import bind
    from derive.problem.dtypes import get_dtype

    given = _given_chip(spec)
    operator = registry.get(spec.operator)
    typed, spec = spec, replace(spec, peak=None, bandwidth=None)
    want = get_dtype(only_compute).compute_as if only_compute else None
    rows: list[CompareRow] = []
    done: dict[tuple[sp.Rational, sp.Rational, str | None], Analysis] = {}
    for chip in chips_of(chips):
        for dtype, peak in chip.peaks:
            if want is not None and dtype != want:
                continue
            link = spec.link_bandwidth or (chip.link.text if chip.link else None)
            key = (peak.value, chip.hbm.value, link)
            if key not in done:  # chips and dtypes with the same numbers share one analysis
                done[key] = analyse(bind(replace(spec, chip=chip.name, compute=dtype), operator))
            rows.append(CompareRow(chip, dtype, done[key]))
    if given is not None:  # the numbers typed, as one more row after the chips
        rows.append(
            CompareRow(given, _GIVEN, analyse(bind(replace(typed, compute=None), operator)))
        )
    if not rows:
        raise ProblemError(f"--compute {only_compute}", f"none of the chips has a {want} peak")
    return rows


def _row(
    model: ModelSpec, serving: ServingSpec, operators: tuple[str, ...], chip: Chip, named: bool
) -> ModelRow | None:
    """The chip's row; None for a chip without a peak in the model's compute dtype unless ``named``."""
    from derive.pipeline.cache import model_analysis, serving_analysis

    spec = replace(model, chip=chip.name)
    analysis = model_analysis(spec, operators)
    dtype = analysis.problem.compute_dtype
    if dtype not in chip.peak_dtypes():
        if not named:
            return None
        raise ProblemError(
            f"chip {chip.name!r}",
            f"has no {dtype} peak, the dtype {analysis.problem.model.name} computes in (it has "
            f"{', '.join(chip.peak_dtypes())}); compare other chips or choose the dtypes with --dtype",
        )
    return ModelRow(chip, analysis, serving_analysis(spec, serving, operators))


def model_rows(
    model: ModelSpec,
    serving: ServingSpec,
    operators: Sequence[str | Path] = (),
    chips: str | None = None,
    baseline: str | None = None,
) -> tuple[list[ModelRow], list[Ratios] | None]:
    """One row per chip, and with a ``baseline`` chip each row's ratios to its row.

    ``model`` is bound on each chip (its ``chip`` replaced). Without ``chips`` every chip
    with a peak in the model's compute dtype has a row; a chip named in ``chips`` or
    ``baseline`` without one is an error.
    """
    names = tuple(str(p) for p in operators)
    named = chips is not None
    rows = [
        row
        for chip in chips_of(chips)
        if (row := _row(model, serving, names, chip, named)) is not None
    ]
    if not rows:
        raise ProblemError(f"derive compare {model.model}", "no chip has a peak in its dtype")
    if baseline is None:
        return rows, None
    chip = baseline_of(baseline)
    base = next((row for row in rows if row.chip == chip), None) or _row(
        model, serving, names, chip, True
    )
    assert base is not None  # a named chip has a row or raised
    return rows, [
        ratio_of(
            (row.chip, row.compute, row.phase.step.t_lower),
            (base.chip, base.compute, base.phase.step.t_lower),
        )
        for row in rows
    ]


def tensors_compute(spec: ProblemSpec, registry: Registry, chips: str | None) -> str:
    """The compute dtype the tensors' dtypes imply (the widest read), as bound on the first
    chip: what ``compare --format tex`` tabulates when no ``--compute`` is given."""
    from derive.problem.binding import bind

    first = chips_of(chips)[0].name
    return bind(replace(spec, chip=first), registry.get(spec.operator)).compute_dtype
