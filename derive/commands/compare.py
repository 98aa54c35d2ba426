"""``derive compare``: one problem on many chips, one row per chip and compute dtype.

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

import argparse
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeAlias

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.crossover import NEVER, Crossover
from derive.commands.compare_json import bound_of, compare_json
from derive.commands.compare_ratios import Ratios, follows_note, ratios_to
from derive.commands.compare_tex import compare_tex, operator_groups
from derive.errors import ProblemError
from derive.formula.decimals import fmt_decimal
from derive.present.escape import md_escape
from derive.present.formats import Document, render
from derive.problem.chips import Chip, chip_names, get_chip
from derive.solution.notation import tex, tex_decimal, tex_text_number

if TYPE_CHECKING:
    from derive.commands.cli import ProblemFlags, Subparsers
    from derive.declare.registry import Registry
    from derive.problem.binding import ProblemSpec

__all__ = [
    "Cell",
    "CompareRow",
    "add_compare_parser",
    "baseline_of",
    "chips_of",
    "compare_json",
    "compare_latex",
    "compare_markdown",
    "compare_rows",
    "crossover_tex",
    "num_tex",
    "seconds_tex",
    "table_markdown",
]

MAX_CHIPS = 64

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


def baseline_of(text: str) -> Chip:
    """The one chip ``--baseline`` names (an error names ``--baseline``, not ``--chips``)."""
    if "," in text or not text.strip():
        raise ProblemError(
            f"--baseline {text!r}",
            f"one chip, e.g. --baseline a100; known: {', '.join(chip_names())}",
        )
    return get_chip(text)


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
    from derive.analysis.analyse import analyse
    from derive.problem.binding import bind
    from derive.problem.dtypes import get_dtype

    if spec.peak is not None or spec.bandwidth is not None:
        raise ProblemError(
            "derive compare --peak/--bandwidth",
            "compare uses chips, not given numbers; choose them with --chips a,b (default: every chip)",
        )
    operator = registry.get(spec.operator)
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
    if not rows:
        raise ProblemError(f"--compute {only_compute}", f"none of the chips has a {want} peak")
    return rows


# --- cells ------------------------------------------------------------------------------------------


def _approx(value: sp.Expr) -> str | None:
    return None if value.is_Integer else tex_decimal(value)


def num_tex(value: sp.Expr) -> str:
    """Exact, then ≈ decimal when it is not an integer (LaTeX math)."""
    approx = _approx(value)
    return tex(value) + (rf" \approx {approx}" if approx else "")


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
    return tex_decimal(value)


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


def table_markdown(
    title: str, parts: list[tuple[str, str]], cols: list[str], body: list[list[Cell]]
) -> str:
    """A Markdown table (math in ``$…$``) under a ``##`` heading and a sentence of givens."""
    lines = [
        f"## {md_escape(title)}",
        "",
        "; ".join(f"{md_escape(k)}: {md_escape(v)}" for k, v in parts) + ".",
        "",
        "| " + " | ".join(md_escape(c) for c in cols) + " |",
        "|" + "---|" * len(cols),
    ]
    for cells in body:
        out = []
        for math, words in cells:
            text = f"${math}$" if math is not None else ""
            out.append((text + (" " if text and words else "") + md_escape(words)).strip())
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines) + "\n"


def _title(rows: list[CompareRow], op: str) -> str:
    chips = len({r.chip.name for r in rows})
    return f"Compare: {op} across {chips} chip{'s' if chips > 1 else ''}"


def compare_markdown(rows: list[CompareRow], ratios: list[Ratios] | None = None) -> str:
    """A Markdown table (math in ``$…$``) under a heading naming the problem."""
    op, parts = _header(rows)
    return table_markdown(_title(rows, op), parts, *_layout(rows, ratios))


def compare_latex(rows: list[CompareRow], ratios: list[Ratios] | None = None) -> str:
    """A LaTeX fragment: a table per group of columns, each fitting a paper's column
    (:mod:`derive.commands.compare_tex`); every user string goes through ``tex_escape``."""
    op, parts = _header(rows)
    return compare_tex(
        f"compare: {op}",
        parts,
        *_layout(rows, ratios),
        operator_groups(rows[0].analysis.problem.solve_for.name, ratios),
    )


def compare_document(rows: list[CompareRow], ratios: list[Ratios] | None = None) -> Document:
    """The comparison as a document: its tables are built in code for Markdown and LaTeX."""
    return Document(
        written={
            "md": lambda: compare_markdown(rows, ratios) + (follows_note(ratios) if ratios else ""),
            "tex": lambda: compare_latex(rows, ratios),
        },
        data=lambda: compare_json(rows, ratios),
    )


# --- command ----------------------------------------------------------------------------------------


def run_compare(args: argparse.Namespace) -> int:
    """``derive compare``: one table over chips and compute dtypes."""
    from derive.commands.cli import spec_from_args
    from derive.commands.compare_model import compare_target, run_compare_model

    if args.peak is not None or args.bandwidth is not None:
        raise ProblemError(
            "derive compare --peak/--bandwidth",
            "compare uses chips, not given numbers; choose them with --chips a,b (default: every chip)",
        )
    registry = compare_target(args)
    if registry is None:  # a model: one serving step per chip
        return run_compare_model(args)
    spec = replace(spec_from_args(args), compute=None)
    rows = compare_rows(spec, registry, args.chips, args.compute)
    ratios = None
    if args.baseline is not None:
        baseline = baseline_of(args.baseline).name
        ratios = ratios_to(rows, compare_rows(spec, registry, baseline, args.compute))
    sys.stdout.write(render(compare_document(rows, ratios), args.format))
    return 0


def add_compare_parser(sub: Subparsers, add_problem_flags: ProblemFlags) -> None:
    """Register ``derive compare OPERATOR|MODEL [flags] [--chips a,b] [--baseline CHIP] [--format md|tex|json]``."""
    from derive.commands.cli import add_format_flag
    from derive.commands.compare_model import add_model_compare_flags

    parser = sub.add_parser(
        "compare",
        help="one problem on many chips: a row per chip and compute dtype",
        description="One operator (a row per chip and compute dtype) or one model's serving "
        "step (MODEL --phase decode|prefill: a row per chip, with tokens/s) on many chips, exactly.",
        epilog="The positional names an operator or a model (gpt2-small, llama-3-8b, llama-3-70b, "
        "llama-2-70b, mixtral-8x7b, or one declared in --operators PATH). A model takes --phase, "
        "--devices, --tp, --dtype ROLE=DTYPE (weights=, kv=, activations=) and --set B=… --set S=….",
    )
    add_problem_flags(parser, chip=False)
    add_model_compare_flags(parser)
    parser.add_argument(
        "--chips",
        metavar="A,B",
        help="comma list of chips (default: every chip, in catalogue order)",
    )
    parser.add_argument(
        "--baseline",
        metavar="CHIP",
        help="add ratio columns against this chip (peak, bandwidth, ridge, T_lower speedup; a model's tokens/s)",
    )
    add_format_flag(parser)
    parser.set_defaults(handler=run_compare)
