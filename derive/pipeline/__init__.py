"""The pipeline, in one place: spec → bind → analyse → steps → render.

>>> d = solve("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")
>>> d.crossover_regime.min_compute_bound
121
>>> d.intensity_regime.exact, d.ridge.exact
(2*B, 9850/41)
>>> d
<Derivation matmul (X bf16, Y int8, Z bf16) on tpu-v5e: compute-bound for B ≥ 121 (crossover at leading order 4925/41 ≈ 120.12)>

Whole models the same way:

>>> solve_model("gpt2-small").analysis.value("params")
124439808

This module is the front door: each problem kind is a module of
:mod:`derive.pipeline.kinds` (an operator, a comms-only operator, a kernel by its numbers,
a whole model, a serving step, a decode's crossover, a training run, questions alone)
holding its frozen derivation record and its entry (:func:`derive_spec`,
:func:`derive_kernel`, :func:`derive_model`, :func:`derive_serving`, …), re-exported here.
The entries read :mod:`derive.pipeline.cache`, so the checker and the commands share one
analysis of a problem; every record has one surface (:mod:`derive.pipeline.kinds.surface`):

>>> solve_model("gpt2-small").params.exact
124439808
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from derive.analysis.analyse import analyse
from derive.catalogue import table as q
from derive.declare.operator import Operator
from derive.declare.registry import Registry, load_registry
from derive.errors import ProblemError, UnknownNameError
from derive.lazy import lazy_getattr
from derive.pipeline.kinds.operator import (
    Derivation,
    analyse_spec,
    derive_operator,
    derive_spec,
)
from derive.pipeline.kinds.surface import Value
from derive.problem.binding import ProblemSpec, bind
from derive.problem.chips import Chip, load_chips
from derive.problem.comms_binding import only_communicates
from derive.solution.builder import build_solution

if TYPE_CHECKING:
    from derive.pipeline.budget import BudgetDerivation, derive_budget
    from derive.pipeline.kinds.comms import CommsDerivation, derive_comms
    from derive.pipeline.kinds.decode_crossover import DecodeCrossoverDerivation
    from derive.pipeline.kinds.kernel import KernelDerivation, derive_kernel
    from derive.pipeline.kinds.model import ModelDerivation, derive_model, solve_model
    from derive.pipeline.kinds.questions import (
        answer_for,
        answer_one,
        answer_set_questions,
        entry_quantities,
        question_spec_of,
        solve_questions,
    )
    from derive.pipeline.kinds.serving import (
        ServingDerivation,
        derive_serving,
        derive_serving_step,
        derive_set_serving,
    )
    from derive.pipeline.kinds.training import TrainingDerivation, derive_training, solve_training
    from derive.pipeline.what_if import WhatIfDerivation

# The kinds an operator's derivation does not use are imported on first use (PEP 562, as
# ``derive/__init__.py`` does): a key of operator problems then loads no model, serving,
# training or question layer, nor the comms-only kind (what that saves a cold key:
# benchmarks/README.md).
_LAZY = {
    "budget": "BudgetDerivation derive_budget",
    "kinds.comms": "CommsDerivation derive_comms",
    "kinds.decode_crossover": "DecodeCrossoverDerivation",
    "kinds.kernel": "KernelDerivation derive_kernel",
    "kinds.model": "ModelDerivation derive_model solve_model",
    "kinds.questions": "answer_for answer_one answer_set_questions entry_quantities "
    "question_spec_of solve_questions",
    "kinds.serving": "ServingDerivation derive_serving derive_serving_step derive_set_serving",
    "kinds.training": "TrainingDerivation derive_training solve_training",
    "what_if": "WhatIfDerivation",
}


__getattr__ = lazy_getattr(globals(), _LAZY)


__all__ = [
    "BudgetDerivation",
    "CommsDerivation",
    "DecodeCrossoverDerivation",
    "Derivation",
    "KernelDerivation",
    "ModelDerivation",
    "Registry",
    "ServingDerivation",
    "TrainingDerivation",
    "Value",
    "WhatIfDerivation",
    "analyse_spec",
    "answer_for",
    "answer_one",
    "answer_set_questions",
    "chips",
    "derive_budget",
    "derive_comms",
    "derive_kernel",
    "derive_model",
    "derive_operator",
    "derive_serving",
    "derive_serving_step",
    "derive_set_serving",
    "derive_spec",
    "derive_training",
    "entry_quantities",
    "model_names",
    "names_a_config",
    "operator_registry",
    "question_spec_of",
    "registry_naming",
    "solve",
    "solve_model",
    "solve_questions",
    "solve_training",
]


def chips() -> tuple[Chip, ...]:
    """Every chip derive knows, in catalogue order (``derive chips``), as frozen records.

    >>> [chip.name for chip in chips()][:2]
    ['tpu-v5e', 'tpu-v5p']
    """
    return tuple(load_chips().values())


def operator_registry(operators: Sequence[str | Path] = ()) -> Registry:
    """The built-in operators and those declared in ``operators`` (Python files), read now."""
    return load_registry(tuple(Path(p) for p in operators))


def registry_naming(
    name: str, operators: Sequence[str | Path] = (), *, instead: str = ""
) -> Registry:
    """The operators, refusing ``name`` in one line when it names a model rather than an operator.

    ``instead`` is what to run for a model (``{name}`` is the model); by default
    ``derive model {name}``.

    Raises:
        UnknownNameError: ``name`` is a model's, not an operator's.
    """
    registry = operator_registry(operators)
    known = {operator.lower() for operator in registry.names()}
    if name.lower() not in known and name.lower() in {m.lower() for m in model_names(operators)}:
        advice = (instead or "try derive model {name}").format(name=name)
        raise UnknownNameError(
            f"operator {name!r}", f"{name} is a model, not an operator: {advice}"
        )
    return registry


def model_names(operators: Sequence[str | Path] = ()) -> tuple[str, ...]:
    """The names of the built-in models and of those declared in ``operators``."""
    from derive.model.registry import load_models

    return load_models(tuple(Path(p) for p in operators)).names()


def names_a_config(name: str) -> bool:
    """Whether a model argument is a config.json path (or a folder holding one), not a name."""
    from derive.model.config_file import is_config_path

    return is_config_path(name)


def solve(
    operator: str | Operator | None = None,
    *,
    dtype: str | None = None,
    dtypes: tuple[str, ...] | list[str] | dict[str, str] = (),
    compute: str | None = None,
    chip: str | None = None,
    peak: str | None = None,
    bandwidth: str | None = None,
    link_bandwidth: str | None = None,
    regime: str | None = None,
    set: dict[str, int] | tuple[str, ...] = (),
    solve_for: str | None = None,
    operators: tuple[str | Path, ...] = (),
    given: Mapping[str, str] | tuple[str, ...] = (),
    define: Mapping[str, str] | tuple[str, ...] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
    flops: str | int | None = None,
    bytes: str | int | None = None,
    intensity: str | int | None = None,
    mesh: str | None = None,
) -> Derivation | CommsDerivation | KernelDerivation:
    """Derive a problem from Python, with the same arguments as ``derive solve``.

    Without an operator, ``flops`` and ``bytes`` (or ``intensity``) give a kernel by its
    numbers, a :class:`KernelDerivation` (``derive solve --flops … --bytes …``):

    >>> k = solve(flops="1e12", bytes="2.5e9", chip="h100")
    >>> k.intensity.exact, k.t_lower.exact
    (400, 1/989)

    Args:
        operator: a registered operator's name (``"matmul"``) or an ``Operator`` or
            ``Composite`` object, registered or not.
        dtype: one dtype for every tensor (``"bf16"``).
        dtypes: ``{"Y": "int8"}`` or ``("bf16", "Y=int8")``.
        compute: the compute dtype whose peak is used (default: the widest read).
        chip: a chip name (``derive chips``), or else ``peak`` and ``bandwidth``.
        peak: FLOP/s as decimal text (``"1.97e14"``), kept exact.
        bandwidth: HBM bytes/s as decimal text.
        link_bandwidth: interconnect bytes/s (one way) as decimal text.
        regime: an asymptotic regime (``"B << D, F"``).
        set: bound dims, ``{"D": 4096}`` or ``("D=4096",)``.
        solve_for: the dim to solve the crossover for (default ``B`` or the first dim).
        operators: operator files to load besides the built-in ones.
        given: named values with optional units, ``{"price": "2.49 $/h"}``.
        define: defined quantities, ``{"cost": "price * t_lower"}`` (derive's safe parser).
        equations: ``["t_lower = 1 ms"]``, solved exactly for ``unknowns`` (``["B"]``).
        mesh: the collectives' mesh, as ``--mesh`` (``"gpu=8@450e9:switch,node=2@5e10"``).

    Returns:
        The :class:`Derivation`: exact quantities as attributes, the worked solution
        (``d.questions`` holds the given, defined and solved quantities). An operator that
        only communicates (a bare all-reduce) has no roofline: a :class:`CommsDerivation`,
        its time on the link ``d.t_comms``.
    """
    counts = {q.FLOPS.name: flops, q.BYTES.name: bytes, q.INTENSITY.name: intensity}
    if operator is None or any(value is not None for value in counts.values()):
        return _solve_kernel(
            operator, counts, dtype, compute, chip, peak, bandwidth, link_bandwidth
        )
    from derive.pipeline.kinds.questions import _items, answer_for, question_spec_of

    spec = ProblemSpec(
        operator.name if isinstance(operator, Operator) else operator,
        ((dtype,) if dtype else ()) + _items(dtypes),
        compute,
        chip,
        peak,
        bandwidth,
        link_bandwidth,
        regime,
        _items(set),
        solve_for,
        mesh=mesh,
    )
    d: Derivation | CommsDerivation
    if isinstance(operator, Operator) and only_communicates(operator):
        from derive.pipeline.kinds.comms import derive_comms

        d = derive_comms(spec, operator)
    elif isinstance(operator, Operator):
        analysis = analyse(bind(spec, operator))
        d = Derivation(analysis, build_solution(analysis), spec=spec)
    else:
        names = tuple(str(path) for path in operators)
        derivation = derive_spec(spec, load_registry(tuple(Path(name) for name in names)))
        d = replace(derivation, operators=names)  # either kind: the spec as typed, its files
    questions = question_spec_of(given, define, equations, unknowns)
    return d if questions is None else replace(d, questions=answer_for(questions, d.analysis))


def _solve_kernel(
    operator: object,
    counts: Mapping[str, str | int | None],
    dtype: str | None,
    compute: str | None,
    chip: str | None,
    peak: str | None,
    bandwidth: str | None,
    link_bandwidth: str | None,
) -> KernelDerivation:
    """:func:`solve` of a kernel by its numbers (no operator: its counts given).

    Raises:
        ProblemError: an operator and counts together, or neither.
    """
    from derive.pipeline.kinds.kernel import derive_kernel
    from derive.problem.kernel_spec import KernelSpec

    given = {key: str(value) for key, value in counts.items() if value is not None}
    if operator is not None:
        raise ProblemError(f"{next(iter(given))}=", "a kernel's counts go without an operator")
    if not given:
        raise ProblemError("solve", "give an operator, or flops= and bytes= (or intensity=)")
    spec = KernelSpec(
        flops=given.get(q.FLOPS.name),
        bytes=given.get(q.BYTES.name),
        intensity=given.get(q.INTENSITY.name),
        chip=chip,
        peak=peak,
        bandwidth=bandwidth,
        link_bandwidth=link_bandwidth,
        compute=compute,
        dtypes=(dtype,) if dtype else (),
    )
    return derive_kernel(spec)
