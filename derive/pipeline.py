"""The pipeline, in one place: spec → bind → analyse → steps → render.

>>> d = solve("matmul", dtypes=("bf16", "Y=int8"), chip="tpu-v5e", regime="B << D, F")
>>> d.analysis.crossover_regime.min_compute_bound
121
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from derive.analysis.analyse import Analysis, analyse
from derive.declare.registry import Registry, load_registry
from derive.present.render import render
from derive.present.view import view_of
from derive.problem.binding import ProblemSpec, bind
from derive.solution.builder import Solution, build_solution

__all__ = ["Derivation", "derive_spec", "solve"]


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
