"""Whole models from Python, in one place: spec → bind → analyse → render.

>>> d = solve_model("gpt2-small")
>>> d.analysis.value("params")
124439808
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from derive.model.analysis import ModelAnalysis, analyse_model
from derive.model.binding import bind_model
from derive.model.registry import load_models
from derive.present.model_view import model_json, model_latex, model_markdown
from derive.problem.model_spec import ModelSpec

__all__ = ["ModelDerivation", "solve_model"]


@dataclass(frozen=True)
class ModelDerivation:
    """A derived whole model: the exact analysis, shown in Jupyter as its worked solution."""

    analysis: ModelAnalysis

    def markdown(self, title: str | None = None, text: str = "", level: int = 2) -> str:
        """The worked solution as Markdown."""
        return model_markdown(self.analysis, title, text, level=level)

    def latex(self, title: str | None = None, text: str = "") -> str:
        """The worked solution as a LaTeX fragment."""
        return model_latex(self.analysis, title, text)

    def as_json(self) -> dict:
        """The JSON object of ``derive model --format json``."""
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
