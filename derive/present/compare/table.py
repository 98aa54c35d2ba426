"""``derive compare``'s table: one problem on many chips, one row per chip and compute dtype.

The table a person builds by hand when choosing hardware ("H100 vs B200 for fp8
decode"): for each chip (every shipped chip in file order, or ``--chips a,b`` in
the order given) and each compute dtype the chip has a dense peak for, the problem
is bound with that chip and ``--compute <dtype>`` (the tensors keep the dtypes given
with ``--dtype``) and analysed exactly. ``--compute DTYPE`` keeps only that dtype's rows.

Columns: chip, compute dtype, peak, HBM bandwidth, ridge, the headline crossover
(the exact one when it is a number or a definite never/always; else the
leading-order one under ``--regime``, marked; else the formula or status), the
smallest compute-bound integer, and when every dim is bound T_math, T_mem, the
bound and the attainable fraction of peak. Operators with comms get the link
crossover (and T_comms) too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.crossover.records import NEVER, Crossover
from derive.errors import ProblemError
from derive.formula.decimals import fmt_decimal
from derive.present.compare.json import bound_of, compare_json, own_comms
from derive.present.compare.ratios import Ratios, follows_note
from derive.present.compare.tex import Exact, compare_tex, operator_groups, time_column
from derive.present.formats import Document
from derive.problem.chips import Chip, chip_names, get_chip
from derive.solution.notation import tex, tex_decimal, tex_text_number

MAX_CHIPS = 64
MARKDOWN_TIME_DIGITS = 5  # a time in its column's unit, as precise as the seconds it replaces

Cell: TypeAlias = tuple[str | None, str]
"""A table cell: (LaTeX math or None, words)."""


@dataclass(frozen=True)
class CompareRow:
    """One (chip, compute dtype) row: the chip, the dtype and the exact analysis."""

    chip: Chip
    compute: str
    analysis: Analysis

    @property
    def headline(self) -> tuple[Crossover, bool]:
        """The crossover to show and whether it is the leading-order one."""
        return self.analysis.headline


def chips_of(text: str | None) -> tuple[Chip, ...]:
    if text is None:
        return tuple(get_chip(n) for n in chip_names())
    names = [n.strip() for n in text.split(",")]
    if not text.strip() or any(not n for n in names) or len(names) > MAX_CHIPS:
        raise ProblemError(
            f"--chips {text!r}",
            f"a comma list of chip names, e.g. h100,b200; known: {', '.join(chip_names())}",
        )
    chips: list[Chip] = []
    for n in names:
        chip = get_chip(n)
        if chip not in chips:
            chips.append(chip)
    return tuple(chips)


def baseline_parts(text: str) -> tuple[Chip, str | None]:
    """``--baseline CHIP`` or ``CHIP:DTYPE`` (the problem in DTYPE at DTYPE's peak on CHIP:
    fp8 against bf16 on one chip is ``--dtype fp8 --chips h100 --baseline h100:bf16``).

    Raises:
        ProblemError: not one chip, an unknown dtype, or a dtype the chip has no peak for.
    """
    from derive.problem.dtypes import get_dtype

    name, colon, dtype = text.partition(":")
    chip = baseline_of(name)
    if not colon:
        return chip, None
    compute = get_dtype(dtype.strip()).compute_as
    if compute not in chip.peak_dtypes():
        raise ProblemError(
            f"--baseline {text!r}",
            f"{chip.name} has no {compute} peak; it has {', '.join(chip.peak_dtypes())}",
        )
    return chip, dtype.strip()


def baseline_of(text: str) -> Chip:
    """The one chip ``--baseline`` names (an error names ``--baseline``, not ``--chips``)."""
    if "," in text or not text.strip():
        raise ProblemError(
            f"--baseline {text!r}",
            f"one chip, e.g. --baseline a100; known: {', '.join(chip_names())}",
        )
    return get_chip(text)


# --- cells ------------------------------------------------------------------------------------------


def _approx(value: sp.Expr) -> str | None:
    return None if value.is_Integer else tex_decimal(value)


def num_tex(value: sp.Expr) -> str:
    """Exact, then ≈ decimal when it is not an integer (LaTeX math, carrying the value: a
    paper's table rounds it)."""
    approx = _approx(value)
    return Exact(tex(value) + (rf" \approx {approx}" if approx else ""), value)


def crossover_tex(crossover: Crossover) -> Cell:
    """(math, words) for a crossover cell: math is None for a bare status."""
    if crossover.exact is not None and crossover.exact.is_number:
        return num_tex(crossover.exact), ""
    if crossover.exact is not None:
        return tex(crossover.exact), ""
    return None, crossover.status


def _threshold(crossover: Crossover) -> str | None:
    return (
        str(crossover.min_compute_bound)
        if crossover.min_compute_bound is not None and crossover.status != NEVER
        else None
    )


def seconds_tex(value: sp.Expr) -> str:
    """A time in seconds, 5 significant digits (carrying the value: a paper's table puts a
    column of times in one unit chosen for it)."""
    return Exact(tex_decimal(value), value)


def _percent(value: sp.Expr) -> str:
    return fmt_decimal(100 * value, 3)


def _network(rows: list[CompareRow]) -> bool:
    return any(
        r.analysis.network is not None and r.analysis.network.crossover is not None for r in rows
    )


def _header(rows: list[CompareRow]) -> tuple[str, list[tuple[str, str]]]:
    """Prose naming the problem (plain text) and its parts."""
    problem = rows[0].analysis.problem
    names = {dt.name for _, dt in problem.dtypes}
    parts = [
        (
            "dtypes",
            f"{names.pop()} for every tensor"
            if len(names) == 1
            else ", ".join(f"{n}={dt.name}" for n, dt in problem.dtypes),
        )
    ]
    if problem.regime is not None:
        parts.append(("regime", problem.regime.pretty))
    parts.append(("bound", ", ".join(f"{d}={v}" for d, v in problem.bound) or "none"))
    parts.append(("crossover solved for", problem.solve_for.name))
    own = own_comms(rows[0].analysis) if rows[0].analysis.all_bound else None
    if own is not None:  # the book's times laid out, derive's own said once (it is the chips')
        parts.append(("convention", "scaling-book (T_comms the Scaling Book's k·V/W on the mesh; "
                                    f"derive's exact default {float(own) * 1e6:.5g} µs)"))  # fmt: skip
    return problem.operator.name, parts


def _cells(row: CompareRow, all_bound: bool, network: bool) -> list[Cell]:
    """Each cell as (math or None, words)."""
    analysis = row.analysis
    crossover, leading = row.headline
    math, words = crossover_tex(crossover)
    cells = [
        (None, row.chip.name),
        (None, row.compute),
        (tex_text_number(row.chip.peak(row.compute).text), ""),
        (tex_text_number(row.chip.hbm.text), ""),
        (num_tex(analysis.memory.ridge), ""),
        (math, " ".join(w for w in (words, "(leading order)" if leading else "") if w)),
        (_threshold(crossover), "" if _threshold(crossover) else "—"),
    ]
    if all_bound:
        cells += [
            (seconds_tex(analysis.t_math), ""),
            (seconds_tex(analysis.memory.time), ""),
            (None, bound_of(analysis)),
            (None, _percent(analysis.fraction_of_peak) + "%"),
        ]
    if network:
        net = analysis.network
        if net is not None and net.crossover is not None:
            nm, nw = crossover_tex(net.crossover)
            cells.append((nm, nw))
            if all_bound:
                cells.append((seconds_tex(net.time), ""))
        else:
            cells += [(None, "—")] + ([(None, "—")] if all_bound else [])
    return cells


def _columns(rows: list[CompareRow], all_bound: bool, network: bool) -> list[str]:
    variable = rows[0].analysis.problem.solve_for.name
    cols = [
        "chip",
        "compute",
        "peak (FLOP/s)",
        "HBM (B/s)",
        "ridge (FLOP/B)",
        f"crossover {variable}*",
        f"min compute-bound {variable}",
    ]
    if all_bound:
        cols += ["T_math (s)", "T_mem (s)", "bound", "of peak"]
    if network:
        cols += [f"link crossover {variable}*"] + (["T_comms (s)"] if all_bound else [])
    return cols


def _layout(
    rows: list[CompareRow], ratios: list[Ratios] | None = None
) -> tuple[list[str], list[list[Cell]]]:
    all_bound = rows[0].analysis.all_bound
    network = _network(rows)
    cols = _columns(rows, all_bound, network)
    body = [_cells(r, all_bound, network) for r in rows]
    if ratios is not None:
        cols += [f"peak ×{ratios[0].baseline}", "HBM ×", "ridge ×"]
        cols += ["speedup (T_lower)", "follows"] if all_bound else []
        for cells, ratio in zip(body, ratios, strict=True):
            cells += [
                (num_tex(ratio.peak), ""),
                (num_tex(ratio.bandwidth), ""),
                (num_tex(ratio.ridge), ""),
            ]
            if all_bound and ratio.speedup is not None:
                cells += [(num_tex(ratio.speedup), ""), (None, ratio.follows.value)]
            elif all_bound:
                cells += [(None, "—"), (None, "—")]
    return cols, body


# --- formats ----------------------------------------------------------------------------------------


def comparison(
    title: str,
    parts: list[tuple[str, str]],
    cols: list[str],
    body: list[list[Cell]],
    note: str = "",
) -> Document:
    """The table (``compare.md.j2``: math in ``$…$``; ``compare.txt.j2``: plain notation)
    under a heading and a sentence of givens, then ``note``; a column of times in one unit
    chosen for it (:func:`~derive.present.compare.tex.time_column`)."""
    cols, body = list(cols), [list(cells) for cells in body]
    for index, header in enumerate(cols):
        timed = time_column(header, [cells[index] for cells in body], MARKDOWN_TIME_DIGITS)
        if timed is not None:
            cols[index] = timed[0]
            for cells, cell in zip(body, timed[1]):
                cells[index] = cell
    return Document("compare", dict(title=title, parts=parts, cols=cols, body=body, note=note))


def _title(rows: list[CompareRow], op: str) -> str:
    chips = len({r.chip.name for r in rows})
    return f"Compare: {op} across {chips} chip{'s' if chips > 1 else ''}"


def compare_document(
    table: Callable[[str | None], tuple[list[CompareRow], list[Ratios] | None]],
    compute: str | None,
    paper: Callable[[], str],
) -> Document:
    """The comparison of ``table(compute)`` (its rows, their ratios to a baseline) as a
    document: in Markdown and plain text its table under a heading naming the problem
    (:func:`comparison`), in LaTeX a paper's table built in code (with no compute named, a
    row per chip in each tensor dtype, ``paper()``; a table per group of columns, each
    fitting a paper's column: :mod:`derive.present.compare.tex`; every user string through
    ``tex_escape``), its JSON by :func:`compare_json`."""

    def tables() -> Document:
        rows, ratios = table(compute)
        op, parts = _header(rows)
        note = follows_note(ratios) if ratios else ""
        return comparison(_title(rows, op), parts, *_layout(rows, ratios), note)

    def latex() -> str:
        rows, ratios = table(paper() if compute is None else compute)
        op, parts = _header(rows)
        groups = operator_groups(rows[0].analysis.problem.solve_for.name, ratios)
        return compare_tex(f"compare: {op}", parts, *_layout(rows, ratios), groups)

    return Document(
        written={"tex": latex},
        built=tables,
        data=lambda: compare_json(*table(compute)),
    )
