"""The figure model: what a roofline or a sweep shows, in exact numbers.

The dataclasses hold exact sympy numbers. Everything a backend (SVG, TikZ)
needs that does not depend on the drawing medium is derived here, exactly:
the decade-aligned axis ranges, the slope and ceiling segments, the knees.
Floats appear only in :func:`to_float` and the formatting helpers, at the
moment a coordinate or a label is printed, always with a fixed format, so the
output is byte-identical across runs and hash seeds.

Label placement lives in :mod:`.place`, the backend-neutral scene in :mod:`.layout`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

# Margin (as an exact factor) kept between data and the decade edges of an axis.
_MARGIN = sp.Rational(6, 5)


def _exact(value: object, what: str, *, positive: bool = True) -> sp.Rational:
    """An exact rational from an int or a sympy Rational; floats are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, sp.Rational)):
        raise TypeError(
            f"{what}: expected an exact int or sympy Rational, got {type(value).__name__} {value!r}"
        )
    rational = sp.Rational(value)
    if positive and rational <= 0:
        raise ValueError(f"{what}: must be positive (log axes), got {rational}")
    return rational


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
    """A problem placed on the roofline: its name, where it sits, and what to say beside the
    name (``note``, e.g. ``B* = 240.2``) when it has the point to itself."""

    label: str
    intensity: sp.Rational  # FLOPs/byte (x)
    attainable: sp.Rational  # FLOP/s (y)
    note: str = ""

    @property
    def text(self) -> str:
        """The name with its note: ``q1 (B* = 240.2)``."""
        return f"{self.label} ({self.note})" if self.note else self.label

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "intensity", _exact(self.intensity, f"point {self.label!r} intensity")
        )
        object.__setattr__(
            self, "attainable", _exact(self.attainable, f"point {self.label!r} attainable")
        )


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

    @property
    def spots(self) -> tuple[tuple[Point, ...], ...]:
        """The points grouped by where they sit, in the order first given: problems at one
        spot (several at their crossover sit at one ridge) share one marker and one label."""
        groups: dict[tuple[sp.Rational, sp.Rational], list[Point]] = {}
        for p in self.points:
            groups.setdefault((p.intensity, p.attainable), []).append(p)
        return tuple(tuple(g) for g in groups.values())


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
            raise ValueError(
                f"series {self.label!r}: needs as many ys as xs, and at least one ({len(xs)} vs {len(ys)})"
            )
        object.__setattr__(self, "xs", xs)
        object.__setattr__(self, "ys", ys)
        if self.crossover is not None:
            object.__setattr__(
                self, "crossover", _exact_expr(self.crossover, f"series {self.label!r} crossover")
            )


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
    k = len(str(v.p)) - len(str(v.q))  # within one of the answer
    while _cmp_pow10(k, v) > 0:
        k -= 1
    while _cmp_pow10(k + 1, v) <= 0:
        k += 1
    return k


def _cmp_pow10(k: int, v: sp.Rational) -> int:
    """The sign of ``10**k - v`` for a positive rational v, in integers."""
    p, q = int(v.p), int(v.q)
    a, b = (10**k * q, p) if k >= 0 else (q, p * 10**-k)
    return (a > b) - (a < b)


def ceil_log10(v: sp.Rational) -> int:
    """The exact ``ceil(log10(v))`` of a positive rational."""
    k = floor_log10(v)
    return k if _cmp_pow10(k, _exact(v, "ceil_log10 argument")) == 0 else k + 1


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


def fmt_pt(v: float) -> str:
    """A drawing coordinate to two decimals, never ``-0.00``."""
    s = f"{v:.2f}"
    return "0.00" if s == "-0.00" else s


def fmt_coord(v: sp.Expr | float) -> str:
    """A data coordinate, 6 significant digits, exponent without ``+`` or padding: ``1.97e14``."""
    return fmt_sig(v, 6)


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


@lru_cache(maxsize=64)  # pure; the SVG and the TikZ picture of one figure share it
def roofline_geometry(fig: RooflineFigure) -> RooflineGeometry:
    """Axis decades covering every knee and point (with a margin) and at least a decade
    right of the highest knee; the slope from the left edge up to the highest knee."""
    bw = fig.bandwidth
    # stable order: highest peak first, then by label (no set or dict order involved)
    ceilings = sorted(fig.ceilings, key=lambda c: (-c.peak, c.label))
    knees = tuple((c.peak / bw, c.peak) for c in ceilings)
    xs = [k[0] for k in knees] + [p.intensity for p in fig.points]
    # x_lo <= 0: from 10**0 or lower
    x_lo, x_hi = _decades(min(xs + [sp.Integer(1) * _MARGIN]), max(xs))
    # at least a decade of the highest ceiling right of its knee, so the flat part reads
    x_hi = max(x_hi, floor_log10(knees[0][0]) + 2)
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
