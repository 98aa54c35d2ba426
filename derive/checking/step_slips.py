"""Why a claimed step bound or utilisation is wrong: the classic slips, each recomputed exactly.

A step of kernels is easy to get almost right. Each slip is the same quantity computed
the wrong way from the same analysis (:mod:`derive.analysis.step`,
:mod:`derive.analysis.measured`); a claim that matches one is named by it:

- ``t_lower``: the single roofline of the whole step, ``max(Σ T_math, Σ T_mem)``, given
  for a step of several kernels (the max over the layer instead of the sum per kernel);
  the upper bound; every transfer overlapped when the collectives are waited for; the
  launch overhead or the efficiencies left out; ``Σ T_math`` or ``Σ T_mem`` alone;
- ``t_lower_overlapped``: the serial sum (each transfer waited for);
- ``t_upper``: the lower bound;
- ``mfu``/``mbu``: a percentage written without ``%``, the sparse peak, the derated
  ceiling, FLOPs counted once per multiply-accumulate, MFU and MBU swapped, the
  roofline's fraction of peak instead of the measured one.

Each sentence ends with `` — exact is …`` so the answer can be kept back
(:func:`derive.checking.expected_text.hide` cuts that clause).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.measured import Measured
from derive.analysis.step import StepTime, compose
from derive.catalogue import table as q
from derive.checking.context import Context
from derive.checking.diagnosis_text import approx, sci
from derive.checking.hints import Facet, Rank
from derive.checking.hints import Slip as HintSlip
from derive.checking.quantities import Kind, Target, kind_of
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_text
from derive.problem.chips import Chip, Figure
from derive.problem.timing import Timing

Slip = HintSlip | tuple[sp.Expr | None, str]  # (the value the slip gives, its sentence stem)


def seconds(value: sp.Expr) -> str:
    """A time for prose, in the unit a person would use: ``2.502 ms``."""
    if not value.is_Rational or value <= 0:
        return f"{value} s"
    return time_text(value)


def _nominal(step: StepTime) -> StepTime | None:
    """The same step at the nominal ceilings (no efficiency), or None when nothing is derated."""
    c = step.ceilings
    if c.compute_efficiency == 1 and c.memory_efficiency == 1:
        return None
    kernels = tuple(time.kernel for time in step.kernels)
    return compose(kernels, replace(c, compute_efficiency=sp.Integer(1), memory_efficiency=1))


def time_slips(quantity: str, step: StepTime) -> list[Slip]:
    """The slips of a claimed step bound (``t_lower``, ``t_lower_overlapped``, ``t_upper``).

    The single roofline is a slip only for a step of several kernels: for one kernel it is
    that kernel's own bound (less its launch overhead, a slip named on its own).
    """
    n = len(step.kernels)
    single = (
        step.single_roofline_t_lower if n > 1 else None,
        f"this is the single roofline of the whole step, max(Σ T_math, Σ T_mem) = "
        f"{seconds(step.single_roofline_t_lower)}: it treats the {n} kernels as one, but each "
        "kernel overlaps only its own compute and memory, so the bound is the sum per kernel, "
        "Σ_k max(T_math,k, T_mem,k)",
    )
    upper = (
        step.t_upper,
        "this is T_upper, every time added with nothing overlapped (Σ T_math + T_mem + T_comms)",
    )
    if quantity == q.T_UPPER.name:
        return [
            (
                step.t_lower,
                "this is the lower bound (each kernel's compute and memory overlapped); the upper "
                "bound adds them: Σ_k (T_math,k + T_mem,k + T_comms,k)",
            ),
            single,
        ]
    if quantity == q.T_LOWER_OVERLAPPED.name:
        return [
            (
                step.t_lower_serial,
                "this is the serial sum, each kernel's transfer waited for, "
                "Σ_k [max(T_math,k, T_mem,k) + T_comms,k]; overlapped, a kernel's communication runs "
                "under its own compute and memory: Σ_k max(T_math,k, T_mem,k, T_comms,k)",
            ),
            single,
            upper,
        ]
    out: list[Slip] = [single, upper]
    out.append(
        (
            step.t_lower_overlapped,
            "this takes every transfer as overlapped with its kernel's compute; the collectives "
            "here are waited for, so each kernel adds its T_comms",
        )
    )
    if step.launch_overhead != 0:
        out.append(
            (
                step.t_lower - step.launch_overhead,
                f"the launch overhead is left out: {step.launches} launches add "
                f"{seconds(step.launch_overhead)}",
            )
        )
    nominal = _nominal(step)
    if nominal is not None:
        out.append(
            (
                nominal.t_lower,
                "this is the bound at the nominal ceilings; the efficiency given derates them "
                "(π·η_c and β·η_m)",
            )
        )
    out.append((step.t_math, "this is Σ T_math alone; memory-bound kernels take T_mem"))
    out.append((step.t_mem, "this is Σ T_mem alone; compute-bound kernels take T_math"))
    return out


@dataclass(frozen=True)
class Ceiling:
    """What a measured rate is read against: the ceilings, their efficiencies, the chip's sparse figure.

    Attributes:
        peak, bandwidth: π and β (exact).
        compute_dtype: the dtype whose peak π is.
        timing: the efficiencies given (η_c, η_m).
        chip: the chip (for its sparse figure), or None for typed numbers.
        mac: True when the FLOPs are multiply-accumulates (a MAC is 2 FLOPs).
        fraction_of_peak: what the roofline allows, FLOPs / (T_lower·π), when known.
    """

    peak: sp.Rational
    bandwidth: sp.Rational
    compute_dtype: str
    timing: Timing
    chip: Chip | None
    mac: bool
    fraction_of_peak: sp.Expr | None


def _ceiling_of(a: Analysis) -> Ceiling:
    p = a.problem
    return Ceiling(
        peak=p.peak.value,
        bandwidth=p.bandwidth.value,
        compute_dtype=p.compute_dtype,
        timing=p.timing,
        chip=p.chip,
        mac="multiply-accumulate" in p.operator.doc or "matmul" in p.operator.name,
        fraction_of_peak=a.step.fraction_of_peak if a.step is not None else None,
    )


def sparse_figure(chip: Chip | None, compute_dtype: str, dense: sp.Rational) -> Figure | None:
    """The chip's 2:4 sparse figure for ``compute_dtype`` when it differs from the dense peak."""
    sparse = dict(chip.sparse) if chip is not None else {}
    figure = sparse.get(compute_dtype)
    return figure if figure is not None and figure.value != dense else None


def utilisation_slips(quantity: str, value: sp.Expr, m: Measured, c: Ceiling) -> list[Slip]:
    """The slips of an MFU or MBU claim (``value`` is the exact one)."""
    out: list[Slip] = [
        HintSlip(
            value * 100,
            f"this looks like a percentage written without the % sign (write "
            f"{fmt_decimal(value * 100)}% or {fmt_decimal(value)})",
            Rank.UNITS,
        )
    ]
    other = q.MBU.name if quantity == q.MFU.name else q.MFU.name
    swapped = getattr(m, other)
    if swapped is not None:
        out.append(
            (
                swapped,
                "this is the MBU (achieved bytes/s over β), not the MFU"
                if quantity == q.MFU.name
                else "this is the MFU (achieved FLOP/s over π), not the MBU",
            )
        )
    if quantity == q.MBU.name:
        eta = c.timing.memory_efficiency
        if eta != 1 and m.bytes_per_s is not None:
            out.append(
                (
                    m.bytes_per_s / (c.bandwidth * eta),
                    "this divides by the derated bandwidth β·η; MBU is against the nominal β",
                )
            )
        return out
    flops_per_s = m.flops_per_s
    assert flops_per_s is not None
    figure = sparse_figure(c.chip, c.compute_dtype, c.peak)
    if figure is not None:
        out.append(
            HintSlip(
                flops_per_s / figure.value,
                f"this divides by the {c.chip.name} {c.compute_dtype} sparse figure "  # type: ignore[union-attr]
                f"({figure.text} FLOP/s, 2:4 structured sparsity); MFU is against the dense peak "
                f"{sci(c.peak)} FLOP/s",
                Rank.VARIANT,
            )
        )
    eta = c.timing.compute_efficiency
    if eta != 1:
        out.append(
            (
                flops_per_s / (c.peak * eta),
                "this divides by the derated peak π·η; MFU is against the nominal peak π",
            )
        )
    out.append(
        HintSlip(
            value / 2,
            "MACs counted as one FLOP: this is half the MFU (a multiply-accumulate is 2 FLOPs)"
            if c.mac
            else "this is half the MFU: FLOPs counted once where the operator counts two",
            Rank.VARIANT,
            frozenset({Facet.COUNTS_FLOPS}),
        )
    )
    if c.fraction_of_peak is not None:
        out.append(
            (
                c.fraction_of_peak,
                "this is the fraction of peak the roofline allows, FLOPs / (T_lower·π), not "
                "the measured MFU (FLOPs / (T_measured·π))",
            )
        )
    return out


def step_slips(ctx: Context, quantity: str, claim: sp.Expr, target: Target) -> list[HintSlip]:
    """The slip rows of a step bound or a utilisation, each sentence ending `` — exact is …``
    (empty when the claim is no number)."""
    a = ctx.analysis
    value = target.value
    if value is None or not claim.is_number:
        return []
    if quantity in (q.MFU.name, q.MBU.name):
        assert a.measured is not None  # the target exists, so the measurement does
        slips = utilisation_slips(quantity, value, a.measured, _ceiling_of(a))
        exact = approx(value)
    elif kind_of(quantity) is Kind.ANALYSED:
        return []  # read from the analysis: no slip of its own is known yet
    else:
        assert a.step is not None  # the target exists, so the step does
        slips = time_slips(quantity, a.step)
        exact = seconds(value)
    rows = [s if isinstance(s, HintSlip) else HintSlip(*s) for s in slips]
    return [replace(r, why=f"{r.why} — exact is {exact}") for r in rows]
