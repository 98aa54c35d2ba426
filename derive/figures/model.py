"""The figure model: what a roofline or a sweep shows, in exact numbers.

The dataclasses hold exact sympy numbers. Everything a backend (SVG, TikZ)
needs that does not depend on the drawing medium is derived here, exactly:
the decade-aligned axis ranges, the slope and ceiling segments, the knees.
Floats appear only in :func:`to_float` and the formatting helpers, at the
moment a coordinate or a label is printed, always with a fixed format, so the
output is byte-identical across runs and hash seeds.

The label placer (:func:`place_labels`) is shared too: a greedy, order-stable
collision avoider in the backend's own units (pixels or points).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

__all__ = [
    "Ceiling", "Point", "RooflineFigure", "Series", "SweepFigure",
    "RooflineGeometry", "SweepGeometry", "Box", "LabelRequest",
    "roofline_geometry", "sweep_geometry", "place_labels", "polyline_obstacles", "choose_corner",
    "floor_log10", "ceil_log10", "to_float", "fmt_coord", "fmt_sig", "log_frac",
]

# Margin (as an exact factor) kept between data and the decade edges of an axis.
_MARGIN = sp.Rational(6, 5)


def _exact(value: object, what: str, *, positive: bool = True) -> sp.Rational:
    """An exact rational from an int or a sympy Rational; floats are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, sp.Rational)):
        raise TypeError(f"{what}: expected an exact int or sympy Rational, got {type(value).__name__} {value!r}")
    r = sp.Rational(value)
    if positive and r <= 0:
        raise ValueError(f"{what}: must be positive (log axes), got {r}")
    return r


def _exact_expr(value: object, what: str) -> sp.Expr:
    """An exact positive real number expression (e.g. ``sqrt(2)*64``); floats are refused."""
    if isinstance(value, (int, sp.Rational)) and not isinstance(value, bool):
        return _exact(value, what)
    if not isinstance(value, sp.Expr) or not value.is_number or value.has(sp.Float):
        raise TypeError(f"{what}: expected an exact sympy number, got {value!r}")
    if value.is_positive is not True:
        raise ValueError(f"{what}: must be a positive real number, got {value}")
    return value


@dataclass(frozen=True)
class Ceiling:
    """One horizontal compute ceiling (one dtype of the chip)."""

    label: str
    peak: sp.Rational  # FLOP/s

    def __post_init__(self) -> None:
        object.__setattr__(self, "peak", _exact(self.peak, f"ceiling {self.label!r} peak"))


@dataclass(frozen=True)
class Point:
    """An operator placed on the roofline."""

    label: str
    intensity: sp.Rational  # FLOPs/byte (x)
    attainable: sp.Rational  # FLOP/s (y)

    def __post_init__(self) -> None:
        object.__setattr__(self, "intensity", _exact(self.intensity, f"point {self.label!r} intensity"))
        object.__setattr__(self, "attainable", _exact(self.attainable, f"point {self.label!r} attainable"))


@dataclass(frozen=True)
class RooflineFigure:
    """A multi-dtype roofline: one memory slope, one ceiling per dtype, some points."""

    title: str
    bandwidth: sp.Rational  # B/s: the slope line y = bandwidth * x
    ceilings: tuple[Ceiling, ...]
    points: tuple[Point, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "bandwidth", _exact(self.bandwidth, "bandwidth"))
        object.__setattr__(self, "ceilings", tuple(self.ceilings))
        object.__setattr__(self, "points", tuple(self.points))
        if not self.ceilings:
            raise ValueError("a roofline needs at least one ceiling")


@dataclass(frozen=True)
class Series:
    """One curve of a sweep: exact (x, y) pairs and, optionally, its crossover."""

    label: str
    xs: tuple[sp.Rational, ...]
    ys: tuple[sp.Rational, ...]
    crossover: sp.Expr | None = None

    def __post_init__(self) -> None:
        xs = tuple(_exact(x, f"series {self.label!r} x") for x in self.xs)
        ys = tuple(_exact(y, f"series {self.label!r} y") for y in self.ys)
        if len(xs) != len(ys) or not xs:
            raise ValueError(f"series {self.label!r}: needs as many ys as xs, and at least one ({len(xs)} vs {len(ys)})")
        object.__setattr__(self, "xs", xs)
        object.__setattr__(self, "ys", ys)
        if self.crossover is not None:
            object.__setattr__(self, "crossover", _exact_expr(self.crossover, f"series {self.label!r} crossover"))


@dataclass(frozen=True)
class SweepFigure:
    """Attainable FLOP/s against one dim, several series, optionally the peak."""

    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    ceiling: sp.Rational | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "series", tuple(self.series))
        if not self.series:
            raise ValueError("a sweep needs at least one series")
        if self.ceiling is not None:
            object.__setattr__(self, "ceiling", _exact(self.ceiling, "sweep ceiling"))


# --- exact decade arithmetic -------------------------------------------------


def floor_log10(v: sp.Rational) -> int:
    """The exact ``floor(log10(v))`` of a positive rational (no float involved)."""
    v = _exact(v, "floor_log10 argument")
    p, q = int(v.p), int(v.q)
    k = len(str(p)) - len(str(q))  # within one of the answer
    while sp.Rational(10) ** k > v:
        k -= 1
    while sp.Rational(10) ** (k + 1) <= v:
        k += 1
    return k


def ceil_log10(v: sp.Rational) -> int:
    """The exact ``ceil(log10(v))`` of a positive rational."""
    k = floor_log10(v)
    return k if sp.Rational(10) ** k == v else k + 1


def _decades(lo: sp.Rational, hi: sp.Rational) -> tuple[int, int]:
    """Decade exponents covering [lo, hi] with a margin, at least one decade wide."""
    a, b = floor_log10(lo / _MARGIN), ceil_log10(hi * _MARGIN)
    return a, max(b, a + 1)


def _real(e: sp.Expr) -> sp.Rational:
    """An exact rational within 1e-25 relative of a positive real expression (for ranges)."""
    if isinstance(e, sp.Rational):
        return e
    return sp.Rational(str(sp.N(e, 30)))


# --- printing: the only place floats appear -----------------------------------


def to_float(v: sp.Expr) -> float:
    """A float for printing; deterministic (exact rational division, or 30-digit evalf)."""
    if isinstance(v, sp.Rational):
        return int(v.p) / int(v.q)
    return float(sp.N(v, 30))


def fmt_coord(v: sp.Expr | float) -> str:
    """A data coordinate, 6 significant digits, exponent without ``+`` or padding: ``1.97e14``."""
    s = f"{(v if isinstance(v, float) else to_float(v)):.6g}"
    if "e" in s:
        mant, exp = s.split("e")
        s = f"{mant}e{int(exp)}"
    return s


def fmt_sig(v: sp.Expr | float, digits: int = 4) -> str:
    """A label value to ``digits`` significant digits: ``240.2``, ``1.97e14``."""
    s = f"{(v if isinstance(v, float) else to_float(v)):.{digits}g}"
    if "e" in s:
        mant, exp = s.split("e")
        s = f"{mant}e{int(exp)}"
    return s


def log_frac(v: sp.Expr | float, lo: int, hi: int) -> float:
    """Where ``v`` falls on a log axis from 10**lo to 10**hi, as a fraction 0..1."""
    x = v if isinstance(v, float) else to_float(v)
    return (math.log10(x) - lo) / (hi - lo)


# --- geometry ------------------------------------------------------------------


@dataclass(frozen=True)
class RooflineGeometry:
    """What a roofline draws, exactly: ranges, slope, ceiling segments, knees."""

    x_dec: tuple[int, int]  # x axis from 10**x_dec[0] to 10**x_dec[1]
    y_dec: tuple[int, int]
    slope: tuple[tuple[sp.Rational, sp.Rational], tuple[sp.Rational, sp.Rational]]
    # (label, peak, x start = knee, x end = right edge), highest peak first
    ceilings: tuple[tuple[str, sp.Rational, sp.Rational, sp.Rational], ...]
    knees: tuple[tuple[sp.Rational, sp.Rational], ...]  # (ridge x, peak y), same order


def roofline_geometry(fig: RooflineFigure) -> RooflineGeometry:
    """Axis decades covering every knee and point; the slope up to the highest knee."""
    bw = fig.bandwidth
    # stable order: highest peak first, then by label (no set or dict order involved)
    ceilings = sorted(fig.ceilings, key=lambda c: (-c.peak, c.label))
    knees = tuple((c.peak / bw, c.peak) for c in ceilings)
    xs = [k[0] for k in knees] + [p.intensity for p in fig.points]
    x_lo, x_hi = _decades(min(xs + [sp.Integer(1) * _MARGIN]), max(xs))
    x_lo = min(x_lo, 0)
    left = sp.Rational(10) ** x_lo
    ys = [k[1] for k in knees] + [p.attainable for p in fig.points] + [bw * left]
    y_lo, y_hi = _decades(min(ys), max(ys))
    right = sp.Rational(10) ** x_hi
    top_knee = knees[0]
    slope = ((left, bw * left), top_knee)
    segs = tuple((c.label, c.peak, c.peak / bw, right) for c in ceilings)
    return RooflineGeometry((x_lo, x_hi), (y_lo, y_hi), slope, segs, knees)


@dataclass(frozen=True)
class SweepGeometry:
    """What a sweep draws: ranges and each series' crossover as a float (or None)."""

    x_dec: tuple[int, int]
    y_dec: tuple[int, int]
    crossovers: tuple[float | None, ...]  # per series, None when absent


def sweep_geometry(fig: SweepFigure) -> SweepGeometry:
    """Decades covering all series points, their crossovers and the ceiling."""
    xs = [x for s in fig.series for x in s.xs]
    xs += [_real(s.crossover) for s in fig.series if s.crossover is not None]
    ys = [y for s in fig.series for y in s.ys]
    if fig.ceiling is not None:
        ys.append(fig.ceiling)
    # x is the swept dim's own domain: decade edges without extra margin
    x_lo, x_hi = floor_log10(min(xs)), ceil_log10(max(xs))
    x_hi = max(x_hi, x_lo + 1)
    y_lo, y_hi = _decades(min(ys), max(ys))
    cross = tuple(None if s.crossover is None else to_float(s.crossover) for s in fig.series)
    return SweepGeometry((x_lo, x_hi), (y_lo, y_hi), cross)


# --- label placement -----------------------------------------------------------


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in backend units, y pointing up."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box, pad: float = 1.0) -> bool:
        return not (self.x1 + pad <= other.x0 or other.x1 + pad <= self.x0
                    or self.y1 + pad <= other.y0 or other.y1 + pad <= self.y0)


@dataclass(frozen=True)
class LabelRequest:
    """A label of size (w, h) to put near an anchor; candidates are (dx, dy) of its lower-left corner."""

    ax: float
    ay: float
    w: float
    h: float
    candidates: tuple[tuple[float, float], ...]


def place_labels(requests: list[LabelRequest], area: Box, obstacles: list[Box]) -> list[Box]:
    """Greedy placement, in request order: the first candidate that fits inside ``area``
    and clears every obstacle and earlier label; failing that, the first candidate
    nudged down (then up) a line at a time; failing that, the first candidate."""
    placed: list[Box] = []

    def free(b: Box) -> bool:
        inside = b.x0 >= area.x0 and b.x1 <= area.x1 and b.y0 >= area.y0 and b.y1 <= area.y1
        return inside and not any(b.overlaps(o) for o in obstacles + placed)

    for r in requests:
        boxes = [Box(r.ax + dx, r.ay + dy, r.ax + dx + r.w, r.ay + dy + r.h) for dx, dy in r.candidates]
        choice = next((b for b in boxes if free(b)), None)
        for step in range(1, 12):
            if choice is not None:
                break
            for b in boxes:
                for sign in (-1, 1):
                    nb = Box(b.x0, b.y0 + sign * step * r.h, b.x1, b.y1 + sign * step * r.h)
                    if free(nb):
                        choice = nb
                        break
                if choice is not None:
                    break
        placed.append(choice if choice is not None else boxes[0])
    return placed


def polyline_obstacles(pts: list[tuple[float, float]], step: float = 6.0, r: float = 1.5) -> list[Box]:
    """Small boxes sampled along a polyline, so labels keep off drawn lines."""
    out: list[Box] = []
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) // step))
        for i in range(n + 1):
            x, y = x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n
            out.append(Box(x - r, y - r, x + r, y + r))
    return out


_CORNERS = ("south east", "north west", "south west", "north east")


def choose_corner(area: Box, w: float, h: float, obstacles: list[Box], inset: float = 4.0) -> tuple[str, Box]:
    """The first corner (in the fixed order of ``_CORNERS``) where a w x h legend clears
    every obstacle; otherwise the corner with the fewest collisions (ties: first)."""
    best: tuple[int, int, str, Box] | None = None
    for i, name in enumerate(_CORNERS):
        x0 = area.x1 - inset - w if "east" in name else area.x0 + inset
        y0 = area.y0 + inset if "south" in name else area.y1 - inset - h
        box = Box(x0, y0, x0 + w, y0 + h)
        hits = sum(1 for o in obstacles if box.overlaps(o, 0.0))
        if best is None or (hits, i) < (best[0], best[1]):
            best = (hits, i, name, box)
    assert best is not None
    return best[2], best[3]
