"""``derive compare --format tex``: the comparison as LaTeX tables that fit a paper's column.

The Markdown table has a column per quantity, up to 17 with ``--baseline``: far wider
than a page. The LaTeX fragment splits those columns into groups (the chips' ceilings,
the crossover, the times, the ratios to the baseline chip, the speedup …), each a
``tabularx`` at ``\\linewidth`` whose first row is its title and whose rows start with the
chip and its compute dtype, laid out by ``templates/compare.tex.j2`` with the answer
key's table macro (``layout.tex.j2``): cells at ``\\scriptsize`` that wrap, a formula's wide
fraction written ``(a)/(b)`` so it breaks at its signs, a fraction of two integers as a
``\\tfrac``, rows spaced so stacked fractions do not touch, and column widths planned
for a two-column article's column (:func:`_widths`; a model's for the larger
``\\scriptsize`` of 11 and 12pt papers too, :data:`LINE_ANY_SIZE`). Every column lands
in exactly one group (:func:`tex_tables` refuses a layout that would drop one), so every
exact value of the Markdown table is in the LaTeX too; a decimal goes beside its exact
value, or under it when the cell is too narrow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy as sp

from derive.formula.durations import column_unit
from derive.present.render import render_template
from derive.present.tex_layout import tex_slashed, tex_width
from derive.solution.notation import tex_decimal
from derive.solution.steps import Math

if TYPE_CHECKING:
    from derive.present.compare.ratios import Ratios


Cell = tuple[str | None, str]  # as derive.commands.compare.Cell: (LaTeX math or None, words)
RichCell = tuple[str | Math, ...]


class Exact(str):
    """A cell's LaTeX math (exact, ``≈ decimal``, as Markdown prints it) that also carries the
    exact number it shows, so a paper's table can round it and choose its time unit."""

    value: sp.Expr

    def __new__(cls, latex: str, value: sp.Expr) -> Exact:
        made = super().__new__(cls, latex)
        made.value = value
        return made


PAPER_DIGITS = 4  # significant digits of a rounded number in a paper's table
TIME_DIGITS = 3  # of a time, in the column's unit
KEY_COLUMNS = 2  # chip, compute dtype: at the head of every table
CELL_CAP = 12.0  # a cell wider than this (in characters) is left to wrap
LINE = 55  # characters of \scriptsize prose across a two-column article's column (230 pt), with a margin
LINE_ANY_SIZE = 48  # the same at 11 and 12pt, whose \scriptsize is 8pt, not 7pt (a model's tables)
SCRIPT = 0.75  # a \tfrac's digits against the cell's
SPEEDUP = "speedup (T_lower) = tokens/s ×"
"""A model comparison's one column of both ratios: the same tokens are in flight on every
chip, so the tokens/s ratio is the T_lower speedup (its JSON keeps both keys)."""
_NUMBER_FRACTION = re.compile(r"^(- )?\\frac(\{\d+\}\{\d+\})$")
_APPROX = r" \approx "


@dataclass(frozen=True)
class ColumnGroup:
    """A table of the fragment: its title and the headers of its columns, in order.

    Headers absent from the comparison are skipped; a group with none is left out.
    ``compute_notes`` (one per row, or empty) is added to each row's compute dtype cell.
    """

    title: str
    headers: tuple[str, ...]
    compute_notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TexTable:
    """One ``tabularx``: a title, the header row then rows of rich cells, the X columns' widths."""

    title: str
    rows: tuple[tuple[str | RichCell, ...], ...]
    widths: tuple[str, ...]


def _rich(cell: Cell) -> RichCell:
    """A cell as rich text: an exact value's ``≈ decimal`` is its own piece, so it can wrap
    under it, and a fraction of two integers is a ``\\tfrac`` (a narrow cell would write a
    long ``\\frac`` as ``(a)/(b)``, which is wider and, with no sign, cannot break)."""
    math, words = cell
    parts: list[str | Math] = []
    if math is not None:
        exact, approx, decimal = math.partition(_APPROX)
        parts.append(Math(_NUMBER_FRACTION.sub(r"\1\\tfrac\2", exact)))
        if approx:
            parts += [" ", Math(_APPROX.lstrip() + decimal)]
    if words:
        parts += [" "] * bool(parts) + [words]
    return tuple(parts)


def _math_width(latex: str) -> float:
    """The printed width of a piece of math, in characters (a ``\\tfrac``'s digits are small)."""
    if r"\tfrac" in latex:
        return SCRIPT * tex_width(latex.replace(r"\tfrac", r"\frac"))
    return tex_width(latex)


def _pieces(cell: RichCell) -> list[float]:
    """The widths of the pieces a cell's lines cannot break inside (TeX breaks inline math
    after a + or - sign and after a ``\\times``)."""
    widths: list[float] = []
    for part in cell:
        if isinstance(part, Math):
            slashed = tex_slashed(part.latex).replace(" - ", " + ").replace(r" \times ", " + ")
            widths += [_math_width(term) for term in slashed.split(" + ")]
        else:
            widths += [float(len(word)) for word in part.split()]
    return widths or [0.0]


def _cell_width(cell: RichCell) -> float:
    return sum(_math_width(p.latex) if isinstance(p, Math) else len(p) for p in cell)


def _widths(
    header: tuple[str, ...], body: list[tuple[RichCell, ...]], line: int = LINE
) -> tuple[str, ...]:
    """``\\hsize`` factors (summing exactly to the number of columns), planned for a line of
    ``line`` characters (:data:`LINE`, or :data:`LINE_ANY_SIZE` to fit 11 and 12pt papers too): each column gets its widest unbreakable piece (or its header's
    longest word), then the room left goes to the columns whose cells would rather not
    wrap, up to :data:`CELL_CAP` each. On a wider line every column widens in proportion."""
    least, wanted = [], []
    for index, name in enumerate(header):
        cells = [row[index] for row in body]
        floor = max([max(_pieces(c)) for c in cells] + [len(w) for w in name.split()])
        least.append(floor)
        want = max(min(_cell_width(c), CELL_CAP) for c in cells)
        wanted.append(floor if index < KEY_COLUMNS else max(floor, want))
    room = line - len(header) - sum(least)  # a column's padding is about a character
    extra = [w - f for w, f in zip(wanted, least, strict=True)]
    if room <= 0:
        shares = least
    elif room < sum(extra):
        shares = [f + room * e / sum(extra) for f, e in zip(least, extra, strict=True)]
    else:
        spare = room - sum(extra)
        shares = [w + spare * w / sum(wanted) for w in wanted]
    total = sum(shares)
    factors = [Fraction(round(100 * w * len(header) / total), 100) for w in shares]
    widest = shares.index(max(shares))
    factors[widest] += len(header) - sum(factors)  # exactly the number of columns
    return tuple(f"{float(f):.2f}" for f in factors)


def time_column(header: str, cells: list[Cell], digits: int) -> tuple[str, list[Cell]] | None:
    """A column of times (its header ends ``(s)``, every cell an :class:`Exact`) in one unit
    chosen for it (:func:`~derive.formula.durations.column_unit`: the largest time's), to ``digits`` significant digits, the unit in its
    header: ``T_math (s)`` of 5.5587e-4 s becomes ``T_math (ms)`` of 0.556. None for any
    other column. Markdown's tables and a paper's share it."""
    exact = [c[0] for c in cells if isinstance(c[0], Exact)]
    if not (header.endswith(" (s)") and exact and len(exact) == len(cells)):
        return None
    unit = column_unit(e.value for e in exact)
    step = sp.Rational(unit.seconds.numerator, unit.seconds.denominator)
    scaled: list[Cell] = [
        (tex_decimal(e.value / step, digits), words) for e, (_, words) in zip(exact, cells)
    ]
    return header.removesuffix(" (s)") + f" ({unit.text})", scaled


def _paper_column(header: str, cells: list[Cell]) -> tuple[str, list[Cell]]:
    """A column as a paper prints it: exact numbers rounded (the JSON keeps them exact), and
    a column of times in one unit chosen for it, named in its header (``T_math (ms)``)."""
    timed = time_column(header, cells, TIME_DIGITS)
    if timed is not None:
        return timed
    rounded: list[Cell] = [
        (tex_decimal(m.value, PAPER_DIGITS) if isinstance(m, Exact) else m, w) for m, w in cells
    ]
    return header, rounded


def _same(cells: list[Cell]) -> bool:
    """Every row shows one value (a table of several rows prints it once, in its caption)."""
    return len(cells) > 1 and all(c == cells[0] for c in cells)


def _said(header: str, cell: Cell) -> str:
    """``header: value`` for a caption (math in ``$…$``, as the caption escapes nothing else)."""
    math, words = cell
    return f"{header}: " + " ".join(x for x in (f"${math}$" if math else "", words) if x)


def tex_tables(
    cols: list[str],
    body: list[list[Cell]],
    groups: tuple[ColumnGroup, ...],
    line: int = LINE,
    legend: dict[str, dict[str, str]] | None = None,
) -> list[TexTable]:
    """The comparison's columns split into one table per group, the key columns in each,
    set for a paper: numbers rounded (:func:`_paper_column`), a column that shows one
    value on every row left out and said once in its table's caption (the compute dtype
    in the first table's), and each status word a column shows explained in the caption
    (``legend``: header → word → meaning).

    Raises:
        ValueError: a column in no group or in two (a layout bug: a value would be lost).
    """
    placed = [h for g in groups for h in g.headers if h in cols]
    value_columns = cols[KEY_COLUMNS:]
    if sorted(placed) != sorted(value_columns):
        raise ValueError(f"compare columns {value_columns} not grouped once each: {placed}")
    columns = [_paper_column(h, [cells[i] for cells in body]) for i, h in enumerate(cols)]
    notes = [
        [g.compute_notes[n] if g.compute_notes else "" for n in range(len(body))] for g in groups
    ]
    compute = columns[KEY_COLUMNS - 1]
    keys = list(range(KEY_COLUMNS))
    if _same(compute[1]) and not any(any(n) for n in notes):
        keys.pop()  # one compute dtype on every row: said in the first caption
    tables: list[TexTable] = []
    for group, group_notes in zip(groups, notes):
        indices = [cols.index(h) for h in group.headers if h in cols]
        kept = [i for i in indices if not _same(columns[i][1])] or indices
        if not indices:
            continue
        said = [_said(columns[i][0], columns[i][1][0]) for i in indices if i not in kept]
        if len(keys) < KEY_COLUMNS and not tables:
            said.insert(0, _said("compute", compute[1][0]))
        for i in indices:
            words = sorted({cell[1] for cell in columns[i][1]})
            meaning = (legend or {}).get(cols[i], {})
            said += [f"{w}: {meaning[w]}" for w in words if w in meaning]
        title = group.title + (f" ({'; '.join(said)})" if said else "")
        rows = []
        for number in range(len(body)):
            key = [_rich(columns[i][1][number]) for i in keys]
            if group_notes[number]:
                key[-1] = (*key[-1], " " + group_notes[number])
            rows.append(tuple(key + [_rich(columns[i][1][number]) for i in kept]))
        header = tuple(columns[i][0] for i in keys + kept)
        tables.append(TexTable(title, (header, *rows), _widths(header, rows, line)))
    return tables


# --- the groups of each kind of comparison ---------------------------------------------------------


def operator_groups(variable: str, ratios: list[Ratios] | None) -> tuple[ColumnGroup, ...]:
    """An operator's tables (:mod:`derive.commands.compare`): the chips' ceilings, the
    crossovers in ``variable``, the times, and with a baseline the ratios and the speedup."""
    groups = [
        ColumnGroup("The chips' ceilings", ("peak (FLOP/s)", "HBM (B/s)", "ridge (FLOP/B)")),
        ColumnGroup(
            f"Crossover {variable}* (rounded) and the smallest compute-bound {variable}",
            (
                f"crossover {variable}*",
                f"min compute-bound {variable}",
                f"link crossover {variable}*",
            ),
        ),
        ColumnGroup(
            "Times, the bound and the fraction of peak",
            ("T_math (s)", "T_mem (s)", "T_comms (s)", "bound", "of peak"),
        ),
    ]
    if ratios:
        base = ratios[0].baseline
        notes = tuple("" if r.compute == r.row_compute else f"({r.compute})" for r in ratios)
        groups += [
            ColumnGroup(
                f"Ratios to {base}: each row ÷ {base}'s row of its compute dtype (or of the "
                "dtype in brackets)",
                (f"peak ×{base}", "HBM ×", "ridge ×"),
                notes,
            ),
            ColumnGroup(
                f"Speedup over {base}: T_lower on {base} ÷ T_lower on the row, and the "
                "ceiling whose ratio it equals",
                ("speedup (T_lower)", "follows"),
                notes,
            ),
        ]
    return tuple(groups)


def model_groups(ratios: list[Ratios] | None) -> tuple[ColumnGroup, ...]:
    """A model's tables (:mod:`derive.commands.compare_model`): the chips' ceilings, the
    step's bounds, its serving numbers, and with a baseline the ratios and the speedup."""
    groups = [
        ColumnGroup(
            "The chips' ceilings",
            ("peak (FLOP/s)", "HBM (B/s)", "link (B/s)", "ridge (FLOP/B)"),
        ),
        ColumnGroup("The step's bounds", ("T_lower (s)", "T_upper (s)", "bound")),
        ColumnGroup(
            "Serving",
            (
                "tokens/s",
                "inter-token latency (s)",
                "matmul crossover B*",
                "prefill tokens/s",
                "TTFT (s)",
            ),
        ),
    ]
    if ratios:
        base = ratios[0].baseline
        groups += [
            ColumnGroup(
                f"Ratios to {base}: each row ÷ {base}'s", (f"peak ×{base}", "HBM ×", "ridge ×")
            ),
            ColumnGroup(
                f"Speedup over {base}: T_lower on {base} ÷ T_lower on the row (the tokens/s "
                "ratio), and the ceiling whose ratio it equals",
                (SPEEDUP, "follows"),
            ),
        ]
    return tuple(groups)


def compare_tex(
    title: str,
    parts: list[tuple[str, str]],
    cols: list[str],
    body: list[list[Cell]],
    groups: tuple[ColumnGroup, ...],
    line: int = LINE,
) -> str:
    """The LaTeX fragment: a comment naming the problem, then one table per group, its
    columns planned for a line of ``line`` characters (:func:`_widths`), its status words
    explained (:data:`LEGEND`)."""
    if cols and cols[0] == "chip":  # a paper names chips as their vendors do (H100, TPU v5e)
        body = [[_chip_display(row[0]), *row[1:]] for row in body]
    return render_template(
        "compare.tex.j2",
        "tex",
        title=title,
        parts=parts,
        tables=tex_tables(cols, body, groups, line, LEGEND),
    )


def _chip_display(cell: Cell) -> Cell:
    """A chip's cell with its paper name (chips.toml ``short``); a chip given by its figures
    alone keeps the text it has."""
    from derive.problem.chips import load_chips

    math, words = cell
    chip = load_chips().get(words.strip().lower())
    return (math, chip.display) if chip is not None else cell


LEGEND: dict[str, dict[str, str]] = {
    "follows": {
        "compute": "the speedup is the peak's ratio",
        "bandwidth": "the speedup is the HBM bandwidth's ratio",
        "both": "the two ratios are equal and the speedup is that ratio",
        "mixed": (
            "the speedup follows neither ratio alone (kernels bound on different ceilings,"
            " on the link, or fixed latencies)"
        ),
    },
    "bound": {
        "compute": "the peak binds",
        "memory": "the HBM bandwidth binds",
        "comms": "the interconnect binds",
    },
}
"""What each status word of a column means (a paper's caption says it; Markdown's note too)."""
