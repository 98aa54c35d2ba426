"""The pipeline, in one place: spec → bind → analyse → steps → render.

>>> d = solve("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")
>>> d.crossover_regime.min_compute_bound
121
>>> d.intensity_regime, d.ridge
(2*B, 9850/41)
>>> d
<Derivation matmul (X bf16, Y int8, Z bf16) on tpu-v5e: compute-bound for B ≥ 121 (crossover at leading order 4925/41 ≈ 120.12)>

Whole models the same way:

>>> solve_model("gpt2-small").analysis.value("params")
124439808

One entry per problem kind, each returning a frozen derivation that renders itself:
:func:`derive_spec` (an operator), :func:`derive_kernel` (a kernel by its numbers),
:func:`derive_model` (a whole model) and :func:`derive_serving` (one serving step of a
model). They read :mod:`derive.pipeline.cache`, so the checker and the commands share
one analysis of a problem; :mod:`derive.pipeline.kinds` puts the four behind one protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.analyse import Analysis, analyse
from derive.analysis.crossover.records import Crossover
from derive.catalogue import ProblemKind
from derive.declare.operator import Operator
from derive.declare.registry import Registry, load_registry
from derive.errors import ProblemError, UnknownNameError
from derive.present.formats import Document, render
from derive.present.view import solution_document
from derive.problem.binding import ProblemSpec, bind
from derive.problem.chips import Chip, load_chips
from derive.problem.comms_binding import only_communicates
from derive.solution.builder import Solution, build_solution
from derive.solution.verdicts import verdict_text

if TYPE_CHECKING:  # whole models load on first use: solve and the commands do not pay for them
    from derive.analysis.comms_only import CommsAnalysis
    from derive.analysis.kernel_numbers import KernelNumbers
    from derive.model.analysis import ModelAnalysis
    from derive.model.phase import DecodeCrossover, PhaseAnalysis
    from derive.problem.kernel_spec import KernelSpec
    from derive.problem.model_spec import ModelSpec
    from derive.problem.question_spec import QuestionSpec
    from derive.problem.serving_spec import ServingSpec
    from derive.problem.sets.problem_set import ModelEntry, ProblemSet
    from derive.problem.train_spec import TrainSpec
    from derive.questions.records import Known, Questions
    from derive.training.analysis import StrategyRow, TrainingAnalysis

__all__ = [
    "CommsDerivation",
    "DecodeCrossoverDerivation",
    "Derivation",
    "KernelDerivation",
    "ModelDerivation",
    "Registry",
    "ServingDerivation",
    "TrainingDerivation",
    "answer_for",
    "answer_one",
    "answer_set_questions",
    "chips",
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


class _Shown:
    """Markdown, LaTeX and Jupyter's views of a derivation, from its :meth:`document` and the
    questions (givens, defined quantities, equations) that follow it."""

    questions: Questions | None

    def document(self, title: str | None = None, text: str = "", level: int = 2) -> Document:
        raise NotImplementedError

    def markdown(self, title: str | None = None, text: str = "", level: int = 2) -> str:
        """The worked solution as Markdown."""
        return _with_questions_md(
            render(self.document(title, text, level), "md"), self.questions, level
        )

    def latex(self, title: str | None = None, text: str = "") -> str:
        """The worked solution as a LaTeX fragment."""
        return _with_questions_tex(render(self.document(title, text), "tex"), self.questions)

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return self.latex()


@dataclass(frozen=True, repr=False)
class Derivation(_Shown):
    """A derived problem: the exact analysis and its worked solution.

    The quantities of ``derive solve --format json`` are attributes of the same name. One
    rule: a quantity is an exact sympy value (``d.intensity``, ``d.t_lower``, ``d.ridge``;
    ``None`` where it needs a dim left unbound), except the two crossovers, which are
    :class:`~derive.analysis.crossover.records.Crossover` records (``d.crossover.exact``,
    ``d.crossover_regime.min_compute_bound``): a crossover is a root and an integer
    threshold together. Shows itself in Jupyter as the worked solution; ``repr`` is one
    line. ``derive.check(d, quantity, claim)`` judges a claim about it.
    """

    analysis: Analysis
    solution: Solution
    spec: ProblemSpec | None = None
    """The problem as typed (what ``derive.check`` re-derives variants from)."""
    operators: tuple[str, ...] = ()
    """The operator files the problem's operator came from."""
    questions: Questions | None = None
    """Its given, defined and solved quantities (``given=``, ``define=``, ``equations=``)."""

    @property
    def kind(self) -> ProblemKind:
        """An operator problem (``derive.check`` takes a derivation as its problem)."""
        return ProblemKind.OPERATOR

    def __repr__(self) -> str:
        problem = self.analysis.problem
        dtypes = ", ".join(f"{name} {dtype.name}" for name, dtype in problem.dtypes)
        crossover, leading = self.analysis.headline
        verdict = verdict_text(crossover, self.analysis.memory.ridge, leading=leading)
        return (
            f"<Derivation {problem.operator.name} ({dtypes}) on {problem.hardware_name}: {verdict}>"
        )

    @property
    def flops(self) -> sp.Expr:
        """FLOPs, as declared."""
        return self.analysis.flops

    @property
    def bytes(self) -> sp.Expr:
        """Bytes moved through memory, every tensor once."""
        return self.analysis.memory.bytes

    @property
    def intensity(self) -> sp.Expr:
        """FLOPs / bytes, in lowest terms."""
        return self.analysis.memory.intensity

    @property
    def intensity_bound(self) -> sp.Expr | None:
        """The intensity with the bound dims substituted."""
        return self.analysis.intensity_bound

    @property
    def intensity_regime(self) -> sp.Expr | None:
        """The leading-order intensity under the regime (None without one)."""
        return self.analysis.intensity_regime

    @property
    def intensity_regime_bound(self) -> sp.Expr | None:
        """The leading-order intensity with the bound dims substituted."""
        return self.analysis.intensity_regime_bound

    @property
    def ridge(self) -> sp.Expr | None:
        """Peak / HBM bandwidth."""
        return self.analysis.memory.ridge

    @property
    def crossover(self) -> Crossover:
        """The exact crossover (status, root, smallest compute-bound integer)."""
        return self.analysis.crossover

    @property
    def crossover_regime(self) -> Crossover | None:
        """The crossover at leading order (None without a regime)."""
        return self.analysis.crossover_regime

    @property
    def regime_holds(self) -> bool | None:
        """Whether the leading-order answer respects the regime it assumed."""
        return self.analysis.regime_holds

    @property
    def t_math(self) -> sp.Expr:
        """FLOPs / peak, in seconds (a formula while dims are unbound)."""
        return self.analysis.t_math

    @property
    def t_mem(self) -> sp.Expr | None:
        """Bytes / bandwidth, in seconds."""
        return self.analysis.memory.time

    @property
    def t_lower(self) -> sp.Expr | None:
        """max(T_math, T_mem) when every dim is bound."""
        return self.analysis.t_lower

    @property
    def t_upper(self) -> sp.Expr | None:
        """T_math + T_mem when every dim is bound."""
        return self.analysis.t_upper

    @property
    def attainable(self) -> sp.Expr | None:
        """min(peak, I·bandwidth) when every dim is bound."""
        return self.analysis.attainable

    @property
    def fraction_of_peak(self) -> sp.Expr | None:
        """Attainable / peak when every dim is bound."""
        return self.analysis.fraction_of_peak

    def document(self, title: str | None = None, text: str = "", level: int = 2) -> Document:
        """The worked solution as a document, for :func:`~derive.present.formats.render`."""
        return solution_document(self.solution, title, text, level)

    def as_json(self) -> dict:
        """The JSON object of ``derive solve --format json``."""
        from derive.present.json_export import to_json

        return _with_questions_json(to_json(self.analysis), self.questions)


def analyse_spec(spec: ProblemSpec, registry: Registry) -> Analysis:
    """Bind and analyse one problem, without its worked solution (a plot's series)."""
    return analyse(bind(spec, registry.get(spec.operator)))


def derive_spec(spec: ProblemSpec, registry: Registry) -> Derivation | CommsDerivation:
    """Bind, analyse and build the steps for one problem (an operator that only
    communicates is timed on its link: a :class:`CommsDerivation`)."""
    operator = registry.get(spec.operator)
    if only_communicates(operator):
        return derive_comms(spec, operator)
    analysis = analyse(bind(spec, operator))
    return Derivation(analysis, build_solution(analysis), spec)


@dataclass(frozen=True, repr=False)
class CommsDerivation(_Shown):
    """An operator that only communicates (a bare all-reduce), timed on the link.

    ``d.analysis.time`` is T_comms, exact; there is no intensity, ridge or crossover (no
    compute). Shows itself in Jupyter as the worked solution; ``repr`` is one line.
    """

    analysis: CommsAnalysis
    spec: ProblemSpec | None = None
    operators: tuple[str, ...] = ()
    questions: Questions | None = None

    @property
    def kind(self) -> ProblemKind:
        """An operator problem."""
        return ProblemKind.OPERATOR

    @property
    def t_comms(self) -> sp.Expr:
        """The time on the link, T_comms (also the step's T_lower and T_upper)."""
        return self.analysis.time

    def __repr__(self) -> str:
        problem = self.analysis.problem
        return (
            f"<CommsDerivation {problem.operator.name} on {problem.hardware_name}: "
            f"link-bound, T_comms = {self.analysis.time}>"
        )

    def document(self, title: str | None = None, text: str = "", level: int = 1) -> Document:
        """The worked solution as a document (its collectives, then the time on the link)."""
        from derive.present.comms_view import comms_document

        return comms_document(self.analysis, level=level)

    def as_json(self) -> dict:
        """Every quantity, as exact strings (``derive solve --format json``)."""
        from derive.present.comms_view import comms_json

        return _with_questions_json(comms_json(self.analysis), self.questions)


def derive_comms(spec: ProblemSpec, operator: Operator) -> CommsDerivation:
    """An operator that only communicates, bound and timed on its link."""
    from derive.analysis.comms_only import analyse_comms
    from derive.problem.comms_binding import bind_comms

    return CommsDerivation(analyse_comms(bind_comms(spec, operator)), spec)


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


def derive_operator(
    spec: ProblemSpec, operators: Sequence[str | Path] = ()
) -> Derivation | CommsDerivation:
    """An operator problem (the built-in operators and those of ``operators``), derived.

    The analysis comes from :mod:`derive.pipeline.cache`, shared with the checker.
    """
    from derive.pipeline.cache import operator_analysis, registry

    names = tuple(str(p) for p in operators)
    operator = registry(names).get(spec.operator)
    if only_communicates(operator):
        return replace(derive_comms(spec, operator), operators=names)
    analysis = operator_analysis(spec, names)
    return Derivation(analysis, build_solution(analysis), spec, names)


def solve(
    operator: str | Operator,
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
) -> Derivation | CommsDerivation:
    """Derive a problem from Python, with the same arguments as ``derive solve``.

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

    Returns:
        The :class:`Derivation`: exact quantities as attributes, the worked solution
        (``d.questions`` holds the given, defined and solved quantities). An operator that
        only communicates (a bare all-reduce) has no roofline: a :class:`CommsDerivation`,
        its time on the link ``d.t_comms``.
    """
    items = (
        tuple(f"{k}={v}" for k, v in dtypes.items()) if isinstance(dtypes, dict) else tuple(dtypes)
    )
    sets = tuple(f"{k}={v}" for k, v in set.items()) if isinstance(set, dict) else tuple(set)
    spec = ProblemSpec(
        operator.name if isinstance(operator, Operator) else operator,
        ((dtype,) if dtype else ()) + items,
        compute,
        chip,
        peak,
        bandwidth,
        link_bandwidth,
        regime,
        sets,
        solve_for,
    )
    d: Derivation | CommsDerivation
    if isinstance(operator, Operator) and only_communicates(operator):
        d = derive_comms(spec, operator)
    elif isinstance(operator, Operator):
        analysis = analyse(bind(spec, operator))
        d = Derivation(analysis, build_solution(analysis), spec)
    else:
        names = tuple(str(path) for path in operators)
        derivation = derive_spec(spec, load_registry(tuple(Path(name) for name in names)))
        if isinstance(derivation, CommsDerivation):
            d = replace(derivation, operators=names)
        else:
            d = Derivation(derivation.analysis, derivation.solution, spec, names)
    questions = question_spec_of(given, define, equations, unknowns)
    if questions is None:
        return d
    return replace(d, questions=answer_for(questions, d.analysis))


@dataclass(frozen=True)
class ModelDerivation(_Shown):
    """A derived whole model: the exact analysis, shown in Jupyter as its worked solution."""

    analysis: ModelAnalysis
    spec: ModelSpec | None = None
    """The problem as typed (``derive.check`` takes a model derivation as its problem)."""
    questions: Questions | None = None
    """Its given, defined and solved quantities (``given=``, ``define=``, ``equations=``)."""

    @property
    def kind(self) -> ProblemKind:
        """A whole-model problem."""
        return ProblemKind.MODEL

    def document(self, title: str | None = None, text: str = "", level: int = 2) -> Document:
        """The worked solution as a document, for :func:`~derive.present.formats.render`."""
        from derive.present.model_view import model_document

        return model_document(self.analysis, title, text, level=level)

    def as_json(self) -> dict:
        """The JSON object of ``derive model --format json``."""
        from derive.present.model_view import model_json

        return _with_questions_json(model_json(self.analysis), self.questions)


def derive_model(spec: ModelSpec, operators: Sequence[str | Path] = ()) -> ModelDerivation:
    """A whole-model problem (the built-in models and those of ``operators``), derived (cached)."""
    from derive.pipeline.cache import model_analysis

    return ModelDerivation(model_analysis(spec, tuple(str(p) for p in operators)), spec)


@dataclass(frozen=True)
class ServingDerivation:
    """One serving step of a whole model: the model's analysis and the step's."""

    analysis: ModelAnalysis
    phase: PhaseAnalysis

    def document(self, level: int = 2) -> Document:
        """The step's worked solution as a document, a section after the model's."""
        from derive.present.serving_step import phase_document

        return phase_document(self.phase, self.analysis, level=level)

    def markdown(self, level: int = 2) -> str:
        """The step's worked solution, as a Markdown section after the model's."""
        return render(self.document(level), "md")

    def latex(self) -> str:
        """The step's worked solution, as a LaTeX fragment after the model's."""
        from derive.present.serving_step import phase_latex

        return phase_latex(self.phase, self.analysis)

    def as_json(self) -> dict:
        """The step's keys (``derive model --phase … --format json``, under ``serving``)."""
        from derive.present.serving_step import phase_json

        return phase_json(self.phase)


def derive_serving(
    spec: ModelSpec, serving: ServingSpec, operators: Sequence[str | Path] = ()
) -> ServingDerivation:
    """One serving step (decode or prefill) of a whole-model problem, derived (cached)."""
    from derive.pipeline.cache import model_analysis, serving_analysis

    names = tuple(str(p) for p in operators)
    return ServingDerivation(model_analysis(spec, names), serving_analysis(spec, serving, names))


@dataclass(frozen=True)
class DecodeCrossoverDerivation:
    """The decode crossover of a whole model asked without a batch: B solved, no step timed."""

    analysis: ModelAnalysis
    phase: DecodeCrossover

    def document(self, level: int = 2) -> Document:
        """The crossover's worked solution as a document, a section after the model's."""
        from derive.present.serving_step import crossover_document

        return crossover_document(self.phase, self.analysis, level=level)

    def markdown(self, level: int = 2) -> str:
        """The crossover's worked solution, as a Markdown section after the model's."""
        return render(self.document(level), "md")

    def latex(self) -> str:
        """The crossover's worked solution, as a LaTeX fragment after the model's."""
        return render(self.document(), "tex")

    def as_json(self) -> dict:
        """The crossover's keys (``derive model --phase decode --format json``, ``serving``)."""
        from derive.present.serving_step import crossover_json

        return crossover_json(self.phase)


def _no_timing_without_a_step(serving: ServingSpec) -> None:
    """Refuse a timing flag of a decode asked without a batch: no step is timed to use it."""
    from dataclasses import fields

    from derive.problem.timing import bind_timing

    bind_timing(serving.timing)  # a bad value is named first, as for a step
    for item in fields(serving.timing):
        value = getattr(serving.timing, item.name)
        if value is not None:
            flag = "--" + item.name.replace("_", "-")
            raise ProblemError(
                f"{flag} {value}",
                "times a step, and a decode without a batch gives only its crossover: "
                "give --set B=…",
            )


def derive_serving_step(
    spec: ModelSpec, serving: ServingSpec, operators: Sequence[str | Path] = ()
) -> ServingDerivation | DecodeCrossoverDerivation:
    """A serving step, or for a decode whose batch is free its crossover alone (B solved
    for, as an operator's crossover is): what ``derive model --phase`` prints."""
    from derive.model.symbols import batch
    from derive.pipeline.cache import decode_crossover_analysis, model_analysis

    names = tuple(str(p) for p in operators)
    analysis = model_analysis(spec, names)
    if serving.phase == "decode" and analysis.problem.value_of(batch) is None:
        _no_timing_without_a_step(serving)
        return DecodeCrossoverDerivation(analysis, decode_crossover_analysis(spec, serving, names))
    return derive_serving(spec, serving, operators)


def derive_set_serving(
    entry: ModelEntry, operators: Sequence[str | Path] = ()
) -> ServingDerivation | DecodeCrossoverDerivation:
    """A set's serving problem as ``derive model --phase`` derives it: its step, or for a
    decode with no batch its crossover alone (what ``derive key`` and ``derive serve`` show).

    Raises:
        ProblemError: a decode with no batch asks for what only a step has (its rate, its time).
        DeriveError: the step or the crossover cannot be derived.
    """
    from derive.catalogue import table as q
    from derive.problem.serving_spec import SERVING_ASK_KEYS

    serving = entry.serving
    assert serving is not None  # called for a problem with a phase
    derived = derive_serving_step(entry.spec, serving, operators)
    if isinstance(derived, DecodeCrossoverDerivation):
        timed = [k for k in entry.ask if k in SERVING_ASK_KEYS and k != q.CROSSOVER.name]
        if timed:
            raise ProblemError(
                f"ask {timed[0]!r}",
                "times a step, and a decode with no batch gives only its crossover: "
                "give B in 'set' (set = { B = … })",
            )
    return derived


@dataclass(frozen=True)
class KernelDerivation:
    """A kernel given by its numbers: its counts, ceilings and step, and the timing as typed."""

    kernel: KernelNumbers
    spec: KernelSpec

    def document(self) -> Document:
        """The worked solution as a document (``derive solve --flops … --bytes …``)."""
        from derive.present.kernel_view import kernel_document

        return kernel_document(self.kernel, self.spec.timing)

    def markdown(self) -> str:
        """The worked solution (``derive solve --flops … --bytes …``)."""
        return render(self.document(), "md")

    def as_json(self) -> dict:
        """Every quantity, as exact strings (``derive solve --flops … --format json``)."""
        from derive.present.kernel_view import kernel_json

        return kernel_json(self.kernel)


def derive_kernel(spec: KernelSpec) -> KernelDerivation:
    """A kernel given by its numbers, derived (cached)."""
    from derive.pipeline.cache import kernel_analysis

    return KernelDerivation(kernel_analysis(spec), spec)


def _items(value: Mapping[str, object] | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    if isinstance(value, Mapping):
        return tuple(f"{k}={v}" for k, v in value.items())
    return tuple(value)


def solve_model(
    model: str,
    *,
    chip: str | None = None,
    peak: str | None = None,
    bandwidth: str | None = None,
    capacity: str | None = None,
    devices: int | str | None = None,
    dtypes: dict[str, str] | tuple[str, ...] | list[str] = (),
    set: dict[str, int] | tuple[str, ...] = (),
    train_tokens: str | None = None,
    mfu: str | None = None,
    measured_tokens_per_s: str | None = None,
    state_bytes: str | None = None,
    phase: str | None = None,
    tp: int | str | None = None,
    efficiency: str | None = None,
    compute_efficiency: str | None = None,
    memory_efficiency: str | None = None,
    launch_overhead: str | None = None,
    link_latency: str | None = None,
    measured_time: str | None = None,
    operators: tuple[str | Path, ...] = (),
    params: str | None = None,
    params_active: str | None = None,
    kv_bytes_per_token: str | None = None,
    attention_flops_per_token: str | None = None,
    given: Mapping[str, str] | tuple[str, ...] = (),
    define: Mapping[str, str] | tuple[str, ...] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
    price_per_hour: str | None = None,
    power: str | None = None,
) -> ModelDerivation | ServingDerivation | DecodeCrossoverDerivation:
    """Derive a whole model from Python, with the same arguments as ``derive model``.

    ``model`` is a name or a config.json path; ``model=""`` with ``params="70e9"`` (and
    ``params_active``) is a model by its size alone; its serving step takes
    ``kv_bytes_per_token`` (and ``attention_flops_per_token``), as ``derive model --params``.

    ``dtypes`` may be ``{"weights": "int8"}`` or ``("weights=int8",)``; ``set`` may be
    ``{"B": 32, "S": 8192}``; hardware numbers are strings so they stay exact.
    ``given``, ``define``, ``equations`` and ``unknowns`` are as :func:`solve`'s, over the
    model's quantities (``weights_bytes``, ``train_seconds``, ``memory_total``, …).

    With ``phase="decode"`` or ``"prefill"`` (``--phase``), the result is one serving step,
    a :class:`ServingDerivation` (``.analysis`` the model's, ``.phase`` the step's); ``tp``
    and the timing keywords (``efficiency``, ``launch_overhead="5us"``, ``measured_time``,
    …) are those of ``derive model --phase``, and ``measured_tokens_per_s`` is then the
    step's measured serving rate, as on the command line. A decode without ``B`` in ``set``
    is its crossover alone, a :class:`DecodeCrossoverDerivation` (B solved for, no step
    timed); a prefill takes its prompt length as ``T`` or ``S``.

    Raises:
        DeriveError: a bad value, named by its flag; a step's keyword without ``phase``.
    """
    from derive.model.analysis import analyse_model
    from derive.model.binding import bind_model
    from derive.model.registry import load_models
    from derive.problem.model_spec import ModelSpec
    from derive.problem.serving_spec import ServingSpec, prompt_as_context
    from derive.problem.timing import TimingSpec

    step = {
        "efficiency": efficiency,
        "compute_efficiency": compute_efficiency,
        "memory_efficiency": memory_efficiency,
        "launch_overhead": launch_overhead,
        "link_latency": link_latency,
        "measured_time": measured_time,
    }
    if phase is not None and phase not in ("decode", "prefill"):
        raise ProblemError(f"phase {phase!r}", "decode or prefill")
    if phase is None:
        timed = [name for name, value in step.items() if value is not None]
        if timed or tp is not None:
            raise ProblemError((timed or ["tp"])[0], 'times a serving step: give phase="decode"')

    spec = ModelSpec(
        model=model,
        chip=chip,
        peak=peak,
        bandwidth=bandwidth,
        capacity=capacity,
        devices=None if devices is None else str(devices),
        dtypes=_items(dtypes),
        sets=prompt_as_context(_items(set), phase, "set"),
        train_tokens=train_tokens,
        mfu=mfu,
        measured_tokens_per_s=None if phase is not None else measured_tokens_per_s,
        state_bytes=state_bytes,
        tp=None if tp is None else str(tp),
        params=params,
        params_active=params_active,
        kv_bytes_per_token=kv_bytes_per_token,
        attention_flops_per_token=attention_flops_per_token,
        price_per_hour=price_per_hour,
        power=power,
    )
    if phase is not None:
        timing = TimingSpec(**step, measured_tokens_per_s=measured_tokens_per_s)
        serving = ServingSpec(phase, None if tp is None else str(tp), timing)
        return derive_serving_step(spec, serving, operators)
    registry = load_models(tuple(Path(p) for p in operators))
    analysis = analyse_model(bind_model(spec, registry.resolve(spec)))
    questions = question_spec_of(given, define, equations, unknowns)
    if questions is None:
        return ModelDerivation(analysis, spec)
    from derive.questions.quantities import model_quantities

    return ModelDerivation(
        analysis, spec, questions=answer_one(questions, model_quantities(analysis))
    )


# -- questions: givens, defined quantities, equations --------------------------------------


def question_spec_of(
    given: Mapping[str, str] | tuple[str, ...] | list[str] = (),
    define: Mapping[str, str] | tuple[str, ...] | list[str] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
) -> QuestionSpec | None:
    """The questions of ``--given/--define/--equation/--unknown`` (or the Python keywords)."""
    from derive.problem.question_spec import question_spec_from_flags

    return question_spec_from_flags(_items(given), _items(define), equations, unknowns)


def answer_one(spec: QuestionSpec, own: Mapping[str, Known] | None = None) -> Questions:
    """Answer one problem's questions over its own quantities (none: givens alone)."""
    from derive.questions.solve import answer_questions

    return answer_questions(spec, own or {})


def answer_for(spec: QuestionSpec, analysis: object, phase: object = None) -> Questions:
    """A problem's questions over the quantities of its kind (an operator, a comms-only
    operator, a kernel, a model, and a serving step's)."""
    from derive.errors import ProblemError
    from derive.questions.quantities import explain_missing, quantities_of

    try:
        return answer_one(spec, quantities_of(analysis, phase))
    except ProblemError as error:
        raise explain_missing(error, analysis) from None


def solve_questions(
    given: Mapping[str, str] | tuple[str, ...] = (),
    define: Mapping[str, str] | tuple[str, ...] = (),
    equations: tuple[str, ...] | list[str] = (),
    unknowns: tuple[str, ...] | list[str] = (),
) -> Questions:
    """A problem of givens, definitions and equations alone (``derive solve --given …``)."""
    from derive.errors import ProblemError

    spec = question_spec_of(given, define, equations, unknowns)
    if spec is None or not spec.answers:
        raise ProblemError(
            "derive solve", "give an operator, or --define or --equation with --unknown"
        )
    return answer_one(spec)


def entry_quantities(
    pset: ProblemSet, pid: str, registry: Registry | None = None
) -> dict[str, Known]:
    """The dims and quantities of problem ``pid`` of a set, by their JSON names."""
    from derive.questions.set_answers import entry_quantities as quantities_of

    return quantities_of(pset, pid, registry)


def answer_set_questions(
    pset: ProblemSet, registry: Registry | None = None
) -> dict[str, Questions]:
    """Every problem's givens, definitions and equations answered, by problem id.

    Raises:
        ProblemError: one line naming the file, the problem and the key.
    """
    from derive.questions.set_answers import answer_problem_set

    return answer_problem_set(pset, registry)


def _with_questions_md(md: str, questions: Questions | None, level: int) -> str:
    if questions is None:
        return md
    from derive.present.questions_view import questions_markdown

    return md.rstrip("\n") + "\n\n" + questions_markdown(questions, level + 1)


def _with_questions_tex(tex: str, questions: Questions | None) -> str:
    if questions is None:
        return tex
    from derive.present.questions_view import questions_latex

    return tex.rstrip("\n") + "\n\n" + questions_latex(questions)


def _with_questions_json(out: dict, questions: Questions | None) -> dict:
    if questions is None:
        return out
    from derive.present.questions_view import questions_json

    return {**out, **questions_json(questions)}


@dataclass(frozen=True)
class TrainingDerivation:
    """A derived training run: the exact analysis, and the strategies compared when asked."""

    analysis: TrainingAnalysis
    strategies: tuple[StrategyRow, ...] = ()
    winner: StrategyRow | None = None

    def markdown(self, level: int = 2) -> str:
        """The worked solution as Markdown."""
        from derive.present.training_view import training_markdown

        return training_markdown(self.analysis, self.strategies, self.winner, level=level)

    def latex(self) -> str:
        """The worked solution as a LaTeX fragment."""
        from derive.present.training_view import training_latex

        return training_latex(self.analysis, self.strategies, self.winner)

    def as_json(self) -> dict:
        """The JSON object of ``derive train --format json``."""
        from derive.present.training_view import training_json

        return training_json(self.analysis, self.strategies, self.winner)

    def _repr_markdown_(self) -> str:
        return self.markdown()


def derive_training(
    model_spec: ModelSpec,
    train_spec: TrainSpec,
    operators: Sequence[str | Path] = (),
    compare: bool = False,
) -> TrainingDerivation:
    """A training run of a model problem, derived (cached): ``derive train`` and problem sets.

    ``compare`` adds DP, FSDP, TP, FSDP+TP and PP on the same devices and batch.
    """
    from derive.pipeline.cache import training_analysis, training_strategies

    files = tuple(str(p) for p in operators)
    analysis = training_analysis(model_spec, train_spec, files)
    if not compare:
        return TrainingDerivation(analysis)
    rows, winner = training_strategies(model_spec, train_spec, files)
    return TrainingDerivation(analysis, rows, winner)


def solve_training(
    model: str,
    *,
    chip: str | None = None,
    peak: str | None = None,
    capacity: str | None = None,
    state_bytes: str | None = None,
    compare: bool = False,
    operators: tuple[str | Path, ...] = (),
    train_tokens: str | None = None,
    price_per_hour: str | None = None,
    power: str | None = None,
    **train: object,
) -> TrainingDerivation:
    """Derive a training run from Python, with the flags of ``derive train`` as keywords.

    >>> run = solve_training("llama-3-8b", chip="h100", dp=8, zero=1, batch_tokens=4194304, seq=4096)
    >>> run.analysis.bubble_fraction, run.analysis.problem.devices
    (0, 8)
    """
    from derive.problem.model_spec import ModelSpec
    from derive.problem.train_spec import TrainSpec

    spec = ModelSpec(
        model=model,
        chip=chip,
        peak=peak,
        capacity=capacity,
        state_bytes=state_bytes,
        train_tokens=train_tokens,
        price_per_hour=price_per_hour,
        power=power,
    )
    fields = {key: None if value is None else str(value) for key, value in train.items()}
    return derive_training(spec, TrainSpec(**fields), operators, compare)  # type: ignore[arg-type]
