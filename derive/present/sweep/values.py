"""The values of ``derive sweep``: derived quantities over a grid of dims, and its CSV.

The exact expressions (FLOPs and bytes with the ``--set`` dims substituted) are
compiled once to vectorised numpy code with :func:`sympy.lambdify`; everything
else is arithmetic on those arrays. Floats appear in a sweep, and only there, because a
sweep is a table of numbers for plots and spreadsheets:

* dims are exact integers (at most 10^15, so float64 holds them exactly);
* every other column is float64, printed like C's ``%.9g`` (9 significant digits,
  :mod:`derive.present.sweep.csv`);
* ``compute_bound`` is exact: it is the sign of FLOPs·β − bytes·π, compared in
  float64 and, where the two sides agree to 9 digits (a near-tie), re-evaluated
  in exact integer arithmetic, so a tie (which counts as compute-bound) is a tie.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from derive.analysis.crossover.bounds import sign_on_positive
from derive.analysis.step_kernels import kernels_of
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.present.sweep.csv import csv_rows, plain_rows
from derive.present.sweep.grid import Axis, grid_block, grid_size

if TYPE_CHECKING:
    from derive.analysis.analyse import Analysis


COLUMNS = (
    q.FLOPS.name,
    q.BYTES.name,
    q.INTENSITY.name,
    "t_math_s",
    "t_mem_s",
    "t_lower_s",
    "attainable_flop_per_s",
    q.FRACTION_OF_PEAK.name,
    "compute_bound",
)
_TIE = 1e-9  # relative gap below which compute_bound is decided exactly
_BLOCK = (
    1 << 14
)  # rows evaluated and written at a time: memory stays flat (10^7 rows: under 200 MB)


_Exact = tuple[Callable[..., int], int]
"""An integer polynomial of the swept dims, compiled, and the sign it is multiplied by."""


def _exact_sign(gap: sp.Expr, syms: list[sp.Symbol]) -> _Exact | None:
    """(integer polynomial p, sign s) with sign(gap) = s·sign(p) for positive dims; None if unknown."""
    numerator, denominator = sp.fraction(sp.cancel(sp.together(gap)))
    sign = sign_on_positive(denominator)
    if sign not in (1, -1):
        return None
    _, primitive = sp.expand(numerator).as_content_primitive()
    coeffs = sp.Poly(primitive, *syms).coeffs() if syms else [primitive]
    if not all(c.is_Integer for c in coeffs):
        return None
    return sp.lambdify(syms, primitive, modules="math", dummify=True), int(sign)


class _Sweep:
    """A problem's sweep compiled once: FLOPs, bytes (and link bytes) as numpy functions of the swept dims."""

    def __init__(self, analysis: Analysis, dims: tuple[sp.Symbol, ...]) -> None:
        problem = analysis.problem
        bound = problem.bound_subs()
        clash = sorted(s.name for s in dims if s in bound)
        if clash:
            raise ProblemError(
                f"sweep over {', '.join(clash)}", "a dim bound with --set cannot also be swept"
            )
        flops = analysis.flops.subs(bound)
        byts = analysis.memory.bytes.subs(bound)
        comm = None
        if analysis.network is not None and problem.link is not None:
            comm = analysis.network.bytes.subs(bound)
            self.link = float(problem.link.value)
        free = (
            flops.free_symbols
            | byts.free_symbols
            | (comm.free_symbols if comm is not None else set())
        )
        operator = problem.operator
        missing = [d.name for d in operator.dims if d in free and d not in dims]
        if missing:
            raise ProblemError(f"sweep of {operator.name}", unbound_dims(missing))
        self.syms = [d for d in operator.dims if d in dims] + sorted(
            (s for s in dims if s not in operator.dims), key=lambda s: s.name
        )
        compiled = lambda e: sp.lambdify(self.syms, e, modules="numpy", dummify=True)  # noqa: E731
        self._flops, self._bytes = compiled(flops), compiled(byts)
        # a composite's kernels each take their own max(T_math, T_mem): t_lower_s sums them
        kernels = kernels_of(problem, analysis.memory.terms, ())
        self._kernels = (
            [(compiled(kernel.flops), compiled(kernel.bytes)) for kernel in kernels]
            if len(kernels) > 1
            else []
        )
        self._comm = compiled(comm) if comm is not None else None
        peak, bandwidth = problem.peak.value, problem.bandwidth.value
        self.peak, self.bandwidth = float(peak), float(bandwidth)
        self._gap = sp.expand(flops * bandwidth - byts * peak)  # ≥ 0 exactly when compute-bound
        self._exact: _Exact | None = None
        self._exact_known = False

    def raw(
        self, grid: Mapping[sp.Symbol, np.ndarray]
    ) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray, np.ndarray | None]:
        """The broadcast arguments, FLOPs, bytes and link bytes (or None) at the grid's points."""
        args = np.broadcast_arrays(*(np.asarray(grid[s], dtype=np.float64) for s in self.syms))
        shape = args[0].shape if args else ()
        return (
            tuple(args),
            self._values(self._flops, args, shape),
            self._values(self._bytes, args, shape),
            (self._values(self._comm, args, shape) if self._comm else None),
        )

    def arrays(self, grid: Mapping[sp.Symbol, np.ndarray]) -> dict[str, np.ndarray]:
        """Every column at the grid's points."""
        args, flops, byts, comm = self.raw(grid)
        out: dict[str, np.ndarray] = {q.FLOPS.name: flops, q.BYTES.name: byts}
        intensity = out[q.INTENSITY.name] = flops / byts
        t_math = out["t_math_s"] = flops / self.peak
        t_mem = out["t_mem_s"] = byts / self.bandwidth
        out["t_lower_s"] = (
            sum(
                (
                    np.maximum(
                        self._values(kernel_flops, args, flops.shape) / self.peak,
                        self._values(kernel_bytes, args, flops.shape) / self.bandwidth,
                    )
                    for kernel_flops, kernel_bytes in self._kernels
                ),
                np.zeros(flops.shape),
            )
            if self._kernels
            else np.maximum(t_math, t_mem)
        )
        attainable = out["attainable_flop_per_s"] = np.minimum(
            self.peak, intensity * self.bandwidth
        )
        out[q.FRACTION_OF_PEAK.name] = attainable / self.peak
        out["compute_bound"] = self._compute_bound(t_math, t_mem, args).astype(np.float64)
        if comm is not None:
            out["t_comms_s"] = comm / self.link
        return out

    @staticmethod
    def _values(
        fn: Callable[..., Any], args: tuple[np.ndarray, ...], shape: tuple[int, ...]
    ) -> np.ndarray:
        """``fn`` at the points as a writable float64 array of ``shape``."""
        return np.broadcast_to(np.asarray(fn(*args), dtype=np.float64), shape).astype(
            np.float64, copy=True
        )

    def _compute_bound(
        self, t_math: np.ndarray, t_mem: np.ndarray, args: tuple[np.ndarray, ...]
    ) -> np.ndarray:
        """T_math ≥ T_mem, i.e. FLOPs·β − bytes·π ≥ 0, with near-ties decided exactly."""
        if self._gap == 0:  # compute and memory time equal everywhere: ties count as compute-bound
            return np.ones(t_math.shape, dtype=bool)
        result = t_math >= t_mem
        near = np.abs(t_math - t_mem) <= _TIE * (t_math + t_mem)
        if near.any():
            if not self._exact_known:
                self._exact, self._exact_known = _exact_sign(self._gap, self.syms), True
            if self._exact is not None:
                poly, sign = self._exact
                for idx in zip(*np.nonzero(near)):
                    result[idx] = sign * poly(*(int(a[idx]) for a in args)) >= 0
        return result


def sweep_arrays(analysis: Analysis, grid: Mapping[sp.Symbol, np.ndarray]) -> dict[str, np.ndarray]:
    """Every sweep column for a grid of dims.

    Args:
        analysis: an :class:`~derive.analysis.analyse.Analysis`; its ``--set`` dims stay bound.
        grid: dim symbol → values (positive integers, any arrays that broadcast
            together: flat arrays of one length, or open meshes for plots).

    Returns:
        column name → float64 array of the broadcast shape (``compute_bound`` is 0 or 1;
        ``t_comms_s`` only when the operator has comms and a link bandwidth).
    """
    return _Sweep(analysis, tuple(grid)).arrays(grid)


def sweep_csv_chunks(
    analysis: Analysis, axes: list[Axis], *, plain: bool = False
) -> Iterator[bytes]:
    """The CSV of ``derive sweep`` as ASCII byte chunks: the header, then blocks of rows.

    Columns: the swept dims, then those of :func:`sweep_arrays`. The grid is checked
    whole (size, finite values) before the first chunk, so a failure yields nothing;
    then it is evaluated and formatted a block at a time, so memory stays bounded.
    ``plain=True`` formats with Python's %-formatting (the reference; same text, slower).
    """
    n = grid_size(axes)
    sweep = _Sweep(analysis, tuple(ax.dim for ax in axes))
    starts = range(0, n, _BLOCK)
    blocks = (grid_block(axes, i, min(i + _BLOCK, n)) for i in starts)  # flat memory: one at a time
    for block in blocks:
        _, flops, byts, comm = sweep.raw(block)
        if not (
            np.isfinite(flops).all()
            and np.isfinite(byts).all()
            and (comm is None or np.isfinite(comm).all())
        ):
            raise ProblemError(
                "sweep",
                "a value overflows float64 (above 1.8e308); no CSV written: sweep smaller dims",
            )
    names = list(COLUMNS) + (["t_comms_s"] if sweep._comm else [])
    yield (",".join([ax.dim.name for ax in axes] + names) + "\n").encode("ascii")
    for block in (grid_block(axes, i, min(i + _BLOCK, n)) for i in starts):
        data = sweep.arrays(block)
        cols = [("int", block[ax.dim]) for ax in axes]
        cols += [
            ("int", data[column].astype(np.int64))
            if column == "compute_bound"
            else ("g", data[column])
            for column in names
        ]
        yield plain_rows(cols) if plain else csv_rows(cols)


def sweep_csv(analysis: Analysis, axes: list[Axis], *, plain: bool = False) -> str:
    """The whole CSV of :func:`sweep_csv_chunks` as text."""
    return b"".join(sweep_csv_chunks(analysis, axes, plain=plain)).decode("ascii")


def unbound_dims(names: list[str]) -> str:
    which = f"dim {names[0]} has" if len(names) == 1 else f"dims {', '.join(names)} have"
    return f"{which} no values; sweep with --over DIM=A..B or bind with --set DIM=INT"
