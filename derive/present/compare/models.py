"""``derive compare MODEL --phase …``'s table: one serving step of a model on many chips.

One row per chip (:class:`ModelRow`, derived by :mod:`derive.pipeline.compare`). Columns:
peak, HBM bandwidth, ridge, the step's T_lower and T_upper, the ceiling it binds on, then
decode tokens/s and the inter-token latency (decode; and the matmuls' crossover B*) or
prefill tokens/s and the TTFT (prefill), the rates the cluster's. With a baseline, the
operator comparison's ratio columns and one column that is both the T_lower speedup and the
tokens/s ratio (equal: the same tokens are in flight on every chip). The givens name the
devices in ``derive model``'s words (:func:`derive.present.serving_step.group_given`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from derive.catalogue import table as q
from derive.catalogue.reading import attributes
from derive.present.compare.json import quantity_json, ratios_json
from derive.present.compare.ratios import Ratios, follows_note
from derive.present.compare.table import (
    Cell,
    comparison,
    crossover_tex,
    num_tex,
    seconds_tex,
)
from derive.present.compare.tex import (
    LINE_ANY_SIZE,
    SPEEDUP,
    Exact,
    compare_tex,
    model_groups,
)
from derive.present.formats import Document
from derive.present.serving_step import group_given
from derive.solution.notation import tex_decimal, tex_text_number

if TYPE_CHECKING:
    from derive.catalogue import Quantity
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import PhaseAnalysis
    from derive.problem.chips import Chip


@dataclass(frozen=True)
class ModelRow:
    """One chip's row: the chip, the bound model's analysis and the step of the phase."""

    chip: Chip
    analysis: ModelAnalysis
    phase: PhaseAnalysis

    @property
    def compute(self) -> str:
        """The compute dtype the model runs in (its widest dtype)."""
        return self.analysis.problem.compute_dtype

    @property
    def decode(self) -> bool:
        """Whether the step is a decode step."""
        return self.phase.phase.value == "decode"


# --- layout -----------------------------------------------------------------------------------------


def _header(rows: list[ModelRow], skipped: tuple[str, ...]) -> tuple[str, list[tuple[str, str]]]:
    first = rows[0]
    problem, phase = first.analysis.problem, first.phase
    names = {dtype.name for _, dtype in problem.dtypes}
    dtypes = (
        f"{names.pop()} for every tensor"
        if len(names) == 1
        else ", ".join(f"{role.flag}={dtype.name}" for role, dtype in problem.dtypes)
    )
    chips = len(rows)
    title = f"Compare: {problem.model.name} {phase.phase.value} across {chips} chip{'s' if chips > 1 else ''}"
    return title, [
        ("batch", f"B = {phase.batch}"),
        ("context", f"S = {phase.context}"),
        ("dtypes", dtypes),
        ("tensor parallel", f"{group_given(phase)}; counts and times per device"),
    ] + ([(f"no {first.compute} peak, left out", ", ".join(skipped))] if skipped else [])


def _columns(decode: bool, link: bool, baseline: str | None) -> list[str]:
    cols = ["chip", "compute", "peak (FLOP/s)", "HBM (B/s)"] + (["link (B/s)"] if link else [])
    cols += ["ridge (FLOP/B)"]
    cols += ["T_lower (s)", "T_upper (s)", "bound"]
    if decode:
        cols += ["tokens/s", "inter-token latency (s)", "matmul crossover B*"]
    else:
        cols += ["prefill tokens/s", "TTFT (s)"]
    if baseline is not None:
        cols += [f"peak ×{baseline}", "HBM ×", "ridge ×", SPEEDUP, "follows"]
    return cols


def _cells(row: ModelRow, ratio: Ratios | None) -> list[Cell]:
    phase, chip = row.phase, row.chip
    cells: list[Cell] = [
        (None, chip.name),
        (None, row.compute),
        (tex_text_number(chip.peak(row.compute).text), ""),
        (tex_text_number(chip.hbm.text), ""),
    ]
    if phase.tp > 1:
        cells.append((tex_text_number(chip.link.text), "") if chip.link else (None, "—"))
    cells += [
        (num_tex(phase.ridge), ""),
        (seconds_tex(phase.step.t_lower), ""),
        (seconds_tex(phase.step.t_upper), ""),
        (None, phase.step.binding.value),
        (Exact(tex_decimal(phase.tokens_per_s), phase.tokens_per_s), ""),
        (seconds_tex(phase.latency), ""),
    ]
    if row.decode:
        cells.append(crossover_tex(phase.crossover) if phase.crossover else (None, "—"))
    if ratio is not None:
        ratios = (ratio.peak, ratio.bandwidth, ratio.ridge, ratio.speedup)
        cells += [(num_tex(value), "") if value is not None else (None, "—") for value in ratios]
        cells.append((None, ratio.follows.value))
    return cells


def _layout(
    rows: list[ModelRow], ratios: list[Ratios] | None
) -> tuple[list[str], list[list[Cell]]]:
    cols = _columns(rows[0].decode, rows[0].phase.tp > 1, ratios[0].baseline if ratios else None)
    body = [_cells(row, ratios[index] if ratios else None) for index, row in enumerate(rows)]
    return cols, body


# --- formats ----------------------------------------------------------------------------------------


def model_compare_document(
    rows: list[ModelRow], ratios: list[Ratios] | None, skipped: tuple[str, ...] = ()
) -> Document:
    """The comparison of a model's serving step as a document: in Markdown and plain text
    its table (:func:`~derive.present.compare.table.comparison`; then, with a baseline,
    which ceiling each speedup follows), in LaTeX a table per group of columns built in
    code, each fitting a paper's column (:mod:`derive.present.compare.tex`; every user
    string escaped), its JSON by :func:`model_compare_json`."""
    title, parts = _header(rows, skipped)
    note = follows_note(ratios) if ratios else ""
    return Document(
        written={
            "tex": lambda: compare_tex(
                title.replace("Compare", "compare", 1),
                parts,
                *_layout(rows, ratios),
                model_groups(ratios),
                LINE_ANY_SIZE,
            ),
        },
        built=lambda: comparison(title, parts, *_layout(rows, ratios), note),
        data=lambda: model_compare_json(rows, ratios),
    )


def _crossover_json(phase: PhaseAnalysis) -> dict[str, object] | None:
    """The decode matmuls' crossover: ``derive model``'s keys and the operator compare's."""
    from derive.present.json_export import crossover_json

    found = crossover_json(phase.crossover)
    if found is None or phase.crossover is None:
        return None
    return found | {"variable": phase.crossover.variable.name, "leading_order": False}


def model_compare_json(
    rows: list[ModelRow], ratios: list[Ratios] | None = None
) -> list[dict[str, object]]:
    """One object per chip: the operator comparison's keys where they apply, and the step's
    (its rows laid out in the contract's order, as the serving step's values read them)."""
    from derive.catalogue import ProblemKind
    from derive.present.json_export import laid_out, step_json

    order = (q.T_MATH, q.T_MEM, q.T_LOWER, q.T_UPPER, q.TOKENS_PER_S, q.INTER_TOKEN_LATENCY,
             q.PREFILL_TOKENS_PER_S, q.TTFT)  # fmt: skip
    out: list[dict[str, object]] = []
    for index, row in enumerate(rows):
        phase, problem, step = row.phase, row.analysis.problem, row.phase.step
        decode = row.decode
        after: dict[Quantity, dict[str, object]] = {
            q.T_UPPER: {
                "bound": step.binding.value,
                q.FRACTION_OF_PEAK.name: quantity_json(step.fraction_of_peak),
            },
            q.TTFT: {q.CROSSOVER.name: _crossover_json(phase), q.STEP.name: step_json(step)},
        }
        item: dict[str, object] = {
            "chip": row.chip.name,
            "title": row.chip.title,
            "compute_dtype": row.compute,
            "model": problem.model.name,
            "phase": phase.phase.value,
            "dtypes": {role.flag: dtype.name for role, dtype in problem.dtypes},
            "set": {dim.name: int(value) for dim, value in problem.bound},
            "devices": int(problem.devices),
            **attributes(phase, "tp replicas", None),
            "peak": quantity_json(row.chip.peak(row.compute).value),
            "bandwidth": quantity_json(row.chip.hbm.value),
            q.RIDGE.name: quantity_json(phase.ridge),
            **laid_out(ProblemKind.SERVING, phase.roots, after, "", order, quantity_json),
        }
        if ratios is not None:
            ratio = ratios[index]
            speedup = ratio.speedup if decode else None
            item["ratios"] = ratios_json(ratio) | {
                q.TOKENS_PER_S.name: quantity_json(speedup),
                q.PREFILL_TOKENS_PER_S.name: None if decode else quantity_json(ratio.speedup),
            }
        out.append(item)
    return out
