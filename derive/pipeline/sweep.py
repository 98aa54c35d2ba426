"""``derive sweep``'s derivation: the problem bound, the grid checked against it, the
problem analysed once (within its time budget) and evaluated over the grid as CSV chunks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from derive.analysis.analyse import Analysis, analyse
from derive.declare.operator import Operator
from derive.errors import ProblemError
from derive.present.sweep.grid import Axis, grid_size, parse_over
from derive.problem.binding import ProblemSpec, bind


def _axes(overs: Sequence[str], operator: Operator) -> list[Axis]:
    axes: list[Axis] = []
    for text in overs:
        ax = parse_over(text, operator.dims)
        if any(a.dim == ax.dim for a in axes):
            raise ProblemError(
                f"--over {ax.dim.name}", "the dim is swept twice; give one --over per dim"
            )
        axes.append(ax)
    return axes


def sweep_outputs(
    spec: ProblemSpec,
    operators: Sequence[str | Path],
    overs: Sequence[str],
    seconds: float | None,
    plot: str | None = None,
) -> tuple[Iterator[bytes], str | None]:
    """The CSV chunks and, for ``--plot PATH``, the figure (SVG or TikZ by the suffix):
    attainable FLOP/s against the one swept dim. One analysis serves both.

    Raises:
        DeriveError: as :func:`sweep_analysis`; a suffix other than .svg/.tex; two --over.
    """
    from derive.present.sweep.plot import plot_format, sweep_plot
    from derive.present.sweep.values import sweep_csv_chunks

    fmt = None if plot is None else plot_format(plot)
    analysis, axes = sweep_analysis(spec, operators, overs, seconds)
    figure = None if fmt is None else sweep_plot(analysis, axes, fmt)
    return sweep_csv_chunks(analysis, axes), figure


def sweep_analysis(
    spec: ProblemSpec,
    operators: Sequence[str | Path],
    overs: Sequence[str],
    seconds: float | None,
) -> tuple[Analysis, list[Axis]]:
    """``spec`` bound and analysed once (within ``seconds``), and the grid checked against it.

    Raises:
        DeriveError: no ``--over``, a dim swept twice or both swept and set, a dim left
            free, a grid too large, or the analysis past ``seconds``.
    """
    from derive.declare.registry import load_registry
    from derive.present.sweep.values import unbound_dims

    registry = load_registry(tuple(Path(path) for path in operators))
    operator = registry.get(spec.operator)
    if not overs:
        raise ProblemError("derive sweep", "give at least one --over DIM=A..B")
    axes = _axes(overs, operator)
    problem = bind(spec, operator)
    bound = problem.bound_subs()
    clash = [ax.dim.name for ax in axes if ax.dim in bound]
    if clash:
        raise ProblemError(
            f"--over {clash[0]}",
            f"{clash[0]} is bound with --set; a dim is either swept or set, not both",
        )
    swept = {ax.dim for ax in axes}
    free = [d.name for d in operator.dims if d not in bound and d not in swept]
    if free:
        raise ProblemError(f"sweep of {operator.name}", unbound_dims(free))
    grid_size(axes)  # the size check, before any algebra
    from derive.deadline import run_with_deadline

    analysis = run_with_deadline(
        analyse, problem, seconds=seconds, what=f"derive sweep {operator.name}"
    )
    return analysis, axes
