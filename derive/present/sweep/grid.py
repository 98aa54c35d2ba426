"""The grid of ``derive sweep``: one ``--over`` flag parsed into an :class:`Axis`, and
the cartesian product of the axes, whole or a block of rows at a time.

Grid syntax (``--over``, parsed with regular expressions, never evaluated)::

    B=1..4096        every integer from 1 to 4096
    B=1..4096:13     13 distinct integers, log-spaced, always including 1 and 4096
    B=1,8,64,512     a list

Repeated ``--over`` flags make a cartesian product, the first flag varying
slowest. Rows come out in that order, so the output is deterministic. Dims are
exact integers (at most 10^15, so float64 holds them exactly).

>>> log_points(1, 4096, 13).tolist()
[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import sympy as sp

from derive.errors import ProblemError, UnknownNameError

MAX_POINTS = 10**7
MAX_VALUE = 10**15
MAX_OVER_CHARS = 100_000
_ALLOWED = "write DIM=A..B (every integer), DIM=A..B:N (N log-spaced integers) or DIM=v1,v2,v3"
_OVER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
_RANGE = re.compile(r"^(\d{1,20})\.\.(\d{1,20})(?::(\d{1,20}))?$")
_LIST = re.compile(r"^\d{1,20}(?:,\d{1,20})*$")


@dataclass(frozen=True)
class Axis:
    """One swept dim: its symbol, the values (int64, in order) and the text it came from."""

    dim: sp.Symbol
    values: np.ndarray
    text: str


def _int(text: str, what: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_VALUE:
        raise ProblemError(what, f"values are positive integers up to 10^15 (got {text})")
    return value


def log_points(start: int, stop: int, count: int) -> np.ndarray:
    """``count`` distinct integers from ``start`` to ``stop``, log-spaced, both ends included.

    Each point is the rounded geometric point, pushed up to stay distinct from the
    one before and down to leave room for the ones after (one vectorised pass).
    """
    if count == 1:
        return np.array([start], dtype=np.int64)
    i = np.arange(count, dtype=np.int64)
    ideal = np.rint(np.geomspace(start, stop, count)).astype(np.int64)
    ideal[0], ideal[-1] = start, stop
    shifted = np.minimum(np.maximum.accumulate(ideal - i), stop - count + 1)
    return shifted + i


def parse_over(text: str, dims: tuple[sp.Symbol, ...]) -> Axis:
    """Parse one ``--over`` value against the operator's dims."""
    what = f"--over {text[:40]!r}" if isinstance(text, str) else "--over"
    if not isinstance(text, str) or len(text) > MAX_OVER_CHARS:
        raise ProblemError(what, f"must be text of at most {MAX_OVER_CHARS} characters; {_ALLOWED}")
    over = _OVER.match(re.sub(r"\s+", "", text))
    if not over:
        raise ProblemError(what, f"not a grid; {_ALLOWED}")
    name, spec = over.group(1), over.group(2)
    dim = next((d for d in dims if d.name == name), None)
    if dim is None:
        raise UnknownNameError(
            what, f"no dim {name!r}; the operator's dims are {', '.join(d.name for d in dims)}"
        )
    span = _RANGE.match(spec)
    if span:
        lo, hi = _int(span.group(1), what), _int(span.group(2), what)
        if lo > hi:
            raise ProblemError(what, f"the range runs upwards: {lo} > {hi}")
        if span.group(3) is None:
            if hi - lo + 1 > MAX_POINTS:
                raise ProblemError(
                    what,
                    f"{hi - lo + 1} points; at most 10^7 in all (use {name}={lo}..{hi}:N for N log-spaced points)",
                )
            return Axis(dim, np.arange(lo, hi + 1, dtype=np.int64), text)
        count = int(span.group(3))
        if lo == hi and count != 1:
            raise ProblemError(what, f"the range {lo}..{hi} has one point; write {name}={lo}")
        if lo < hi and not 2 <= count <= min(hi - lo + 1, MAX_POINTS):
            raise ProblemError(
                what,
                f"N log-spaced points need 2 <= N <= {min(hi - lo + 1, MAX_POINTS)} (the integers in the range)",
            )
        return Axis(dim, log_points(lo, hi, count), text)
    if _LIST.match(spec):
        items = spec.split(",")
        if len(items) > MAX_POINTS:
            raise ProblemError(what, "at most 10^7 points")
        return Axis(dim, np.array([_int(v, what) for v in items], dtype=np.int64), text)
    raise ProblemError(what, f"not a grid; {_ALLOWED}; values are positive integers")


def grid_size(axes: list[Axis]) -> int:
    """The number of points of the axes' cartesian product (at most 10^7, else ProblemError)."""
    total = 1
    for ax in axes:
        total *= len(ax.values)
    if total > MAX_POINTS:
        raise ProblemError("--over", f"the grid has {total} points; at most 10^7")
    return total


def grid_of(axes: list[Axis]) -> dict[sp.Symbol, np.ndarray]:
    """The cartesian product of the axes as flat int64 arrays, the first axis varying slowest."""
    return grid_block(axes, 0, grid_size(axes))


def grid_block(axes: list[Axis], start: int, stop: int) -> dict:
    """Rows ``start`` to ``stop`` of :func:`grid_of`, built without the rest of the grid."""
    index = np.unravel_index(
        np.arange(start, stop, dtype=np.int64), tuple(len(ax.values) for ax in axes)
    )
    return {ax.dim: ax.values[i] for ax, i in zip(axes, index)}
