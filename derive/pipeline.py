"""The pipeline, in one place: spec → bind → analyse → steps → render.

>>> d = solve("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")
>>> d.analysis.crossover_regime.min_compute_bound
121

Whole models the same way:

>>> solve_model("gpt2-small").analysis.value("params")
124439808
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from derive.analysis.analyse import Analysis, analyse
from derive.declare.registry import Registry, load_registry
from derive.present.render import render
from derive.present.view import view_of
from derive.problem.binding import ProblemSpec, bind
from derive.solution.builder import Solution, build_solution

if TYPE_CHECKING:  # whole models load on first use: solve and the commands do not pay for them
    from derive.model.analysis import ModelAnalysis

__all__ = ["Derivation", "ModelDerivation", "derive_spec", "solve", "solve_model"]


@dataclass(frozen=True)
class Derivation:
    """A derived problem: the exact analysis and its worked solution.

    Shows itself in Jupyter as the worked solution.
    """

    analysis: Analysis
    solution: Solution

    def markdown(self, title: str | None = None, text: str = "", level: int = 2) -> str:
        """The worked solution as Markdown."""
        return render("solution.md.j2", "md", view=view_of(self.solution, title, text), level=level)

    def latex(self, title: str | None = None, text: str = "") -> str:
        """The worked solution as a LaTeX fragment."""
        return render("solution.tex.j2", "tex", view=view_of(self.solution, title, text))

    def as_json(self) -> dict:
        """The JSON object of ``derive solve --format json``."""
        from derive.present.json_export import to_json

        return to_json(self.analysis)

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return self.latex()


def derive_spec(spec: ProblemSpec, registry: Registry) -> Derivation:
    """Bind, analyse and build the steps for one problem."""
    analysis = analyse(bind(spec, registry.get(spec.operator)))
    return Derivation(analysis, build_solution(analysis))


def solve(
    operator: str,
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
) -> Derivation:
    """Derive a problem from Python, with the same arguments as ``derive solve``.

    ``dtypes`` may be ``{"Y": "int8"}`` or ``("bf16", "Y=int8")``; ``set`` may be
    ``{"D": 4096}`` or ``("D=4096",)``; hardware numbers are strings so they stay exact.
    """
    items = (
        tuple(f"{k}={v}" for k, v in dtypes.items()) if isinstance(dtypes, dict) else tuple(dtypes)
    )
    sets = tuple(f"{k}={v}" for k, v in set.items()) if isinstance(set, dict) else tuple(set)
    spec = ProblemSpec(
        operator,
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
    return derive_spec(spec, load_registry(tuple(Path(path) for path in operators)))


@dataclass(frozen=True)
class ModelDerivation:
    """A derived whole model: the exact analysis, shown in Jupyter as its worked solution."""

    analysis: ModelAnalysis

    def markdown(self, title: str | None = None, text: str = "", level: int = 2) -> str:
        """The worked solution as Markdown."""
        from derive.present.model_view import model_markdown

        return model_markdown(self.analysis, title, text, level=level)

    def latex(self, title: str | None = None, text: str = "") -> str:
        """The worked solution as a LaTeX fragment."""
        from derive.present.model_view import model_latex

        return model_latex(self.analysis, title, text)

    def as_json(self) -> dict:
        """The JSON object of ``derive model --format json``."""
        from derive.present.model_view import model_json

        return model_json(self.analysis)

    def _repr_markdown_(self) -> str:
        return self.markdown()

    def _repr_latex_(self) -> str:
        return self.latex()


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
    operators: tuple[str | Path, ...] = (),
) -> ModelDerivation:
    """Derive a whole model from Python, with the same arguments as ``derive model``.

    ``dtypes`` may be ``{"weights": "int8"}`` or ``("weights=int8",)``; ``set`` may be
    ``{"B": 32, "S": 8192}``; hardware numbers are strings so they stay exact.
    """
    from derive.model.analysis import analyse_model
    from derive.model.binding import bind_model
    from derive.model.registry import load_models
    from derive.problem.model_spec import ModelSpec

    spec = ModelSpec(
        model=model,
        chip=chip,
        peak=peak,
        bandwidth=bandwidth,
        capacity=capacity,
        devices=None if devices is None else str(devices),
        dtypes=_items(dtypes),
        sets=_items(set),
        train_tokens=train_tokens,
        mfu=mfu,
        measured_tokens_per_s=measured_tokens_per_s,
        state_bytes=state_bytes,
    )
    registry = load_models(tuple(Path(p) for p in operators))
    return ModelDerivation(analyse_model(bind_model(spec, registry.get(model))))
