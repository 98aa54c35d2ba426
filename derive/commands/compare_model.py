"""``derive compare MODEL --phase decode|prefill``: one serving step of a model on many chips.

    derive compare llama-3-8b --phase decode --chips h100,b200 --baseline a100 --set B=32 --set S=8192

One row per chip (``--chips a,b`` in the order given, default every chip): the model is
bound with that chip exactly as ``derive model MODEL --chip CHIP`` binds it (same
``--dtype``, ``--set``, ``--devices``, ``--tp`` and timing flags; the compute dtype is the
model's, not a choice), and the step is derived by :func:`derive.model.phase.analyse_phase`
(through :func:`derive.commands.model_phase.phase_of`). The givens name the devices in
``derive model``'s words (:func:`derive.commands.model_phase.group_given`: the group and
its data-parallel replicas). Columns: peak, HBM bandwidth, ridge, the step's T_lower and
T_upper, the ceiling it binds on, then decode tokens/s and the inter-token latency
(decode; and the matmuls' crossover B*) or prefill tokens/s and the TTFT (prefill), the
rates the cluster's. ``--baseline CHIP`` adds the operator comparison's ratio columns
(:func:`derive.commands.compare_ratios.ratio_of`) and one column that is both the T_lower
speedup and the tokens/s ratio (equal: the same tokens are in flight on every chip), with
the same sentence saying which ceiling the speedup follows. ``--measured-time`` is refused:
a measured time is one run on one chip (``derive model … --measured-time`` judges it).

Whether the positional names an operator or a model is decided here
(:func:`compare_target`; an operator wins a name both declare); flags that only mean
something for the other kind are refused.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from derive.commands.compare import (
    Cell,
    baseline_of,
    chips_of,
    crossover_tex,
    num_tex,
    seconds_tex,
    table_markdown,
)
from derive.commands.compare_json import quantity_json, ratios_json
from derive.commands.compare_ratios import Ratios, follows_note, ratio_of
from derive.commands.compare_tex import LINE_ANY_SIZE, SPEEDUP, compare_tex, model_groups
from derive.commands.model_phase import group_given
from derive.errors import OperatorFileError, ProblemError, UnknownNameError, did_you_mean
from derive.present.formats import Document, render
from derive.solution.notation import tex_decimal, tex_text_number

if TYPE_CHECKING:
    from derive.declare.registry import Registry
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import PhaseAnalysis
    from derive.problem.chips import Chip

__all__ = [
    "ModelRow",
    "add_model_compare_flags",
    "compare_target",
    "model_compare_json",
    "model_compare_latex",
    "model_compare_markdown",
    "model_rows",
    "run_compare_model",
]

# (attribute, flag) of the flags that only mean something for one kind of target.
_OPERATOR_ONLY = (
    ("compute", "--compute"),
    ("link_bandwidth", "--link-bandwidth"),
    ("regime", "--regime"),
    ("solve_for", "--solve-for"),
    ("measured_flops_per_s", "--measured-flops-per-s"),
    ("measured_bytes_per_s", "--measured-bytes-per-s"),
)
_MODEL_ONLY = (("phase", "--phase"), ("devices", "--devices"), ("tp", "--tp"))


def add_model_compare_flags(parser: argparse.ArgumentParser) -> None:
    """``--phase``, ``--devices`` and ``--tp`` on ``derive compare`` (models only)."""
    parser.add_argument(
        "--phase",
        choices=("decode", "prefill"),
        help="a model: compare one serving step, decode or prefill (as 'derive model --phase')",
    )
    parser.add_argument("--devices", metavar="N", help="a model: devices holding it (default 1)")
    parser.add_argument(
        "--tp",
        metavar="N",
        help="a model: tensor-parallel degree T, a divisor of --devices (default --devices); "
        "--devices/T data-parallel replicas each serve their own B sequences",
    )


def _given(args: argparse.Namespace, flags: tuple[tuple[str, str], ...]) -> str | None:
    return next((flag for name, flag in flags if getattr(args, name, None) is not None), None)


def compare_target(args: argparse.Namespace) -> Registry | None:
    """The operator registry when ``args.operator`` names an operator; None when it names a model.

    Raises:
        UnknownNameError: the name is neither (the message lists both kinds).
        ProblemError: a flag given that only means something for the other kind.
    """
    from derive.declare.registry import load_registry
    from derive.model.registry import load_models

    name, paths = args.operator, tuple(Path(path) for path in args.operators)
    registry, refused = None, None
    try:
        registry = load_registry(paths)
    except OperatorFileError as error:  # a file of models only declares no operator
        refused = error
    if registry is not None and name.lower() in (n.lower() for n in registry.names()):
        flag = _given(args, _MODEL_ONLY)
        if flag is not None:
            raise ProblemError(f"{flag} with operator {name!r}", "only a model has a serving step")
        return registry
    models = load_models(paths)
    if name.lower() not in (n.lower() for n in models.names()):
        if refused is not None:
            raise refused
        operators = registry.names() if registry is not None else ()
        raise UnknownNameError(
            f"{name!r}",
            f"unknown operator or model; operators: {', '.join(operators)}; "
            f"models: {', '.join(models.names())}" + did_you_mean(name, operators + models.names()),
        )
    flag = _given(args, _OPERATOR_ONLY)
    if flag is not None:
        raise ProblemError(
            f"{flag} with model {name!r}",
            "an operator's flag; a model takes --phase, --devices, --tp, --dtype ROLE=DTYPE, --set",
        )
    if getattr(args, "measured_time", None) is not None:
        raise ProblemError(
            f"--measured-time with model {name!r}",
            "a measured time is one run on one chip, not a comparison across chips; "
            f"give it to derive model {name} --chip CHIP --phase decode|prefill --measured-time T",
        )
    if args.phase is None:
        raise ProblemError(
            f"derive compare {name}", "a model is compared by one step: give --phase decode|prefill"
        )
    return None


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


def _row(args: argparse.Namespace, chip: Chip, named: bool = True) -> ModelRow | None:
    """The chip's row; None for a chip without a peak in the model's compute dtype unless ``named``."""
    from derive.checking.api import model_analysis_for
    from derive.commands.model_phase import phase_of
    from derive.problem.model_spec import ModelSpec

    spec = ModelSpec(
        model=args.operator,
        chip=chip.name,
        devices=args.devices,
        dtypes=tuple(args.dtype),
        sets=tuple(args.set),
    )
    analysis = model_analysis_for(spec, tuple(args.operators))
    dtype = analysis.problem.compute_dtype
    if dtype not in chip.peak_dtypes():
        if not named:
            return None
        raise ProblemError(
            f"chip {chip.name!r}",
            f"has no {dtype} peak, the dtype {analysis.problem.model.name} computes in (it has "
            f"{', '.join(chip.peak_dtypes())}); compare other chips or choose the dtypes with --dtype",
        )
    phase = phase_of(args, analysis)
    if phase is None:  # compare_target asked for --phase
        raise ProblemError(f"derive compare {args.operator}", "give --phase decode|prefill")
    return ModelRow(chip, analysis, phase)


def model_rows(args: argparse.Namespace) -> tuple[list[ModelRow], list[Ratios] | None]:
    """One row per chip, and with ``--baseline`` each row's ratios to the baseline chip's row.

    Without ``--chips`` every chip with a peak in the model's compute dtype has a row; a
    chip named in ``--chips`` or ``--baseline`` without one is an error.
    """
    named = args.chips is not None
    rows = [row for chip in chips_of(args.chips) if (row := _row(args, chip, named)) is not None]
    if not rows:
        raise ProblemError(f"derive compare {args.operator}", "no chip has a peak in its dtype")
    if args.baseline is None:
        return rows, None
    chip = baseline_of(args.baseline)
    base = next((row for row in rows if row.chip == chip), None) or _row(args, chip)
    assert base is not None  # a named chip has a row or raised
    return rows, [
        ratio_of(
            (row.chip, row.compute, row.phase.step.t_lower),
            (base.chip, base.compute, base.phase.step.t_lower),
        )
        for row in rows
    ]


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
        (tex_decimal(phase.tokens_per_s), ""),
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


def model_compare_markdown(
    rows: list[ModelRow], ratios: list[Ratios] | None = None, skipped: tuple[str, ...] = ()
) -> str:
    """The Markdown table, then (with a baseline) which ceiling each speedup follows."""
    title, parts = _header(rows, skipped)
    table = table_markdown(title, parts, *_layout(rows, ratios))
    return table + (follows_note(ratios) if ratios else "")


def model_compare_latex(
    rows: list[ModelRow], ratios: list[Ratios] | None = None, skipped: tuple[str, ...] = ()
) -> str:
    """A LaTeX fragment: a table per group of columns, each fitting a paper's column
    (:mod:`derive.commands.compare_tex`; every user string escaped)."""
    title, parts = _header(rows, skipped)
    title = title.replace("Compare", "compare", 1)
    return compare_tex(title, parts, *_layout(rows, ratios), model_groups(ratios), LINE_ANY_SIZE)


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
    """One object per chip: the operator comparison's keys where they apply, and the step's."""
    from derive.present.json_export import step_json

    out: list[dict[str, object]] = []
    for index, row in enumerate(rows):
        phase, problem, step = row.phase, row.analysis.problem, row.phase.step
        decode = row.decode
        item: dict[str, object] = {
            "chip": row.chip.name,
            "title": row.chip.title,
            "compute_dtype": row.compute,
            "model": problem.model.name,
            "phase": phase.phase.value,
            "dtypes": {role.flag: dtype.name for role, dtype in problem.dtypes},
            "set": {dim.name: int(value) for dim, value in problem.bound},
            "devices": int(problem.devices),
            "tp": phase.tp,
            "replicas": phase.replicas,
            "peak": quantity_json(row.chip.peak(row.compute).value),
            "bandwidth": quantity_json(row.chip.hbm.value),
            "ridge": quantity_json(phase.ridge),
            "t_math": quantity_json(step.t_math),
            "t_mem": quantity_json(step.t_mem),
            "t_lower": quantity_json(step.t_lower),
            "t_upper": quantity_json(step.t_upper),
            "bound": step.binding.value,
            "fraction_of_peak": quantity_json(step.fraction_of_peak),
            "tokens_per_s": quantity_json(phase.tokens_per_s) if decode else None,
            "inter_token_latency": quantity_json(phase.latency) if decode else None,
            "prefill_tokens_per_s": None if decode else quantity_json(phase.tokens_per_s),
            "ttft": None if decode else quantity_json(phase.latency),
            "crossover": _crossover_json(phase),
            "step": step_json(step),
        }
        if ratios is not None:
            ratio = ratios[index]
            speedup = ratio.speedup if decode else None
            item["ratios"] = ratios_json(ratio) | {
                "tokens_per_s": quantity_json(speedup),
                "prefill_tokens_per_s": None if decode else quantity_json(ratio.speedup),
            }
        out.append(item)
    return out


def run_compare_model(args: argparse.Namespace) -> int:
    """``derive compare MODEL --phase …``: the table in the chosen format."""
    rows, ratios = model_rows(args)
    shown = {row.chip.name for row in rows}
    skipped = tuple(chip.name for chip in chips_of(args.chips) if chip.name not in shown)
    document = Document(
        written={
            "md": lambda: model_compare_markdown(rows, ratios, skipped),
            "tex": lambda: model_compare_latex(rows, ratios, skipped),
        },
        data=lambda: model_compare_json(rows, ratios),
    )
    sys.stdout.write(render(document, args.format))
    return 0
