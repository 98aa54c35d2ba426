"""``derive compare --flops F --bytes Q``: a kernel by its numbers, one row per chip and peak.

Each row is the kernel's roofline on that chip at that compute dtype's peak (and a row of
typed ``--peak``/``--bandwidth`` numbers, named ``given``): exact values in the JSON,
decimals in the Markdown table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

import sympy as sp

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import ProblemKind, Quantity
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import column_unit, time_in
from derive.present.formats import Document
from derive.present.json_export import laid_out


@dataclass(frozen=True)
class KernelRow:
    """One chip (or the typed numbers) and compute dtype: the kernel derived there."""

    chip: str
    compute: str
    kernel: KernelNumbers


def _decimal(value: sp.Expr | None) -> str:
    if value is None:
        return "—"
    if value == sp.oo:
        return "∞"
    if value.is_Integer and abs(value) >= 10**6:  # a count or a ceiling: 9.89e14, not 15 digits
        return re.sub(r"e\+?0*(\d)", r"e\1", f"{float(value):.5g}")
    return fmt_decimal(value)


def kernel_compare_table(rows: list[KernelRow]) -> Document:
    """The table (``kernel_compare.*.j2``): ceilings, ridge, the kernel's intensity, bound,
    attainable, T_lower."""
    first = rows[0].kernel
    counts = (
        f"FLOPs {_decimal(first.flops)}, bytes {_decimal(first.bytes)}"
        if first.flops is not None and first.bytes is not None
        else f"intensity {_decimal(first.intensity)} FLOPs/byte"
    )
    unit = column_unit(row.kernel.step.t_lower for row in rows if row.kernel.step is not None)
    cells = []
    for row in rows:
        k = row.kernel
        t_lower = k.step.t_lower if k.step is not None else None
        cells.append(
            [
                row.chip,
                row.compute,
                _decimal(k.peak.value),
                _decimal(k.bandwidth.value),
                _decimal(k.ridge),
                _decimal(k.intensity),
                k.binding,
                _decimal(k.attainable),
                f"{fmt_decimal(100 * k.fraction_of_peak, 4)}%",
                time_in(t_lower, unit) if t_lower is not None else "—",
            ]
        )
    return Document("kernel_compare", {"counts": counts, "unit": unit.text, "rows": cells})


def refuse_kernel_table(flag: str) -> NoReturn:
    """``--baseline`` or ``--format tex`` on a kernel by its numbers: there is no such table."""
    raise ProblemError(
        flag, "a kernel by its numbers is compared as a Markdown, text or JSON table"
    )


def kernel_compare_document(rows: Callable[[], list[KernelRow]]) -> Document:
    """The comparison as a document: its table in Markdown and plain text (LaTeX is
    refused), ``rows()`` derived only when it prints."""
    return Document(
        written={"tex": lambda: refuse_kernel_table("--format tex")},
        built=lambda: kernel_compare_table(rows()),
        data=lambda: kernel_compare_json(rows()),
    )


def _kernel_json(row: KernelRow) -> dict[str, object]:
    k = row.kernel
    after: dict[Quantity, dict[str, object]] = {
        q.BYTES: {"peak": str(k.peak.value), "bandwidth": str(k.bandwidth.value)},
        q.INTENSITY: {"binding": k.binding},
    }
    order = q.FLOPS, q.BYTES, q.RIDGE, q.INTENSITY, q.ATTAINABLE, q.FRACTION_OF_PEAK, q.T_LOWER
    rows = laid_out(ProblemKind.KERNEL, (k,), after, "", order)
    return {"chip": row.chip, "compute_dtype": row.compute, **rows}


def kernel_compare_json(rows: list[KernelRow]) -> list[dict]:
    """One object per row, every quantity as an exact string (``oo`` for an unbounded I): the
    kernel's rows laid out, its hardware after the bytes, its step's lower bound last."""
    return [_kernel_json(row) for row in rows]
