"""``derive compare MODEL --phase decode|prefill``: one serving step of a model on many chips.

    derive compare llama-3-8b --phase decode --chips h100,b200 --baseline a100 --set B=32 --set S=8192

One row per chip (``--chips a,b`` in the order given, default every chip): the model is
bound with that chip exactly as ``derive model MODEL --chip CHIP`` binds it (same
``--dtype``, ``--set``, ``--devices``, ``--tp`` and timing flags; the compute dtype is the
model's, not a choice), and the step is derived by :func:`derive.model.phase.analyse_phase`
(through :func:`derive.present.serving_step.phase_of`). The givens name the devices in
``derive model``'s words (:func:`derive.present.serving_step.group_given`: the group and
its data-parallel replicas). Columns: peak, HBM bandwidth, ridge, the step's T_lower and
T_upper, the ceiling it binds on, then decode tokens/s and the inter-token latency
(decode; and the matmuls' crossover B*) or prefill tokens/s and the TTFT (prefill), the
rates the cluster's. ``--baseline CHIP`` adds the operator comparison's ratio columns
(:func:`derive.present.compare.ratios.ratio_of`) and one column that is both the T_lower
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
from typing import TYPE_CHECKING

from derive.commands.options import add_model_flags, serving_of
from derive.errors import OperatorFileError, ProblemError, UnknownNameError, did_you_mean
from derive.pipeline import model_names, names_a_config, operator_registry
from derive.pipeline.compare import model_rows
from derive.present.compare.models import model_compare_document
from derive.present.compare.table import chips_of
from derive.present.formats import render
from derive.problem.model_spec import ModelSpec

if TYPE_CHECKING:
    from derive.pipeline import Registry


# the flags that only mean something for one kind of target
_OPERATOR_ONLY: tuple[str, ...] = ("--compute", "--link-bandwidth", "--regime", "--solve-for")
_OPERATOR_ONLY += ("--measured-flops-per-s", "--measured-bytes-per-s")
_MODEL_ONLY = ("--phase", "--devices", "--tp")


def add_model_compare_flags(parser: argparse.ArgumentParser) -> None:
    """``--phase``, ``--devices`` and ``--tp`` on ``derive compare`` (models only)."""
    add_model_flags(parser, _MODEL_ONLY, prefix="a model: ")


def _given(args: argparse.Namespace, flags: tuple[str, ...]) -> str | None:
    return next(
        (f for f in flags if getattr(args, f[2:].replace("-", "_"), None) is not None), None
    )


def compare_target(args: argparse.Namespace) -> Registry | None:
    """The operator registry when ``args.operator`` names an operator; None when it names a model.

    Raises:
        UnknownNameError: the name is neither (the message lists both kinds).
        ProblemError: a flag given that only means something for the other kind.
    """
    name, paths = args.operator, tuple(args.operators)
    registry, refused = None, None
    try:
        registry = operator_registry(paths)
    except OperatorFileError as error:  # a file of models only declares no operator
        refused = error
    if registry is not None and name.lower() in (n.lower() for n in registry.names()):
        flag = _given(args, _MODEL_ONLY)
        if flag is not None:
            raise ProblemError(f"{flag} with operator {name!r}", "only a model has a serving step")
        return registry
    models = model_names(paths)
    if name.lower() not in (n.lower() for n in models) and not names_a_config(name):
        if refused is not None:
            raise refused
        operators = registry.names() if registry is not None else ()
        raise UnknownNameError(
            f"{name!r}",
            f"unknown operator or model; operators: {', '.join(operators)}; "
            f"models: {', '.join(models)}" + did_you_mean(name, operators + models),
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


def run_compare_model(args: argparse.Namespace) -> int:
    """``derive compare MODEL --phase …``: the table in the chosen format."""
    spec = ModelSpec(
        model=args.operator, devices=args.devices, dtypes=tuple(args.dtype), sets=tuple(args.set)
    )
    serving = serving_of(args)
    if serving is None:  # compare_target asked for --phase
        raise ProblemError(f"derive compare {args.operator}", "give --phase decode|prefill")
    rows, ratios = model_rows(spec, serving, args.operators, args.chips, args.baseline)
    shown = {row.chip.name for row in rows}
    skipped = tuple(chip.name for chip in chips_of(args.chips) if chip.name not in shown)
    sys.stdout.write(render(model_compare_document(rows, ratios, skipped), args.format))
    return 0
