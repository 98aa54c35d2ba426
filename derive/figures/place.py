"""Label placement: a greedy, order-stable collision avoider in backend units.

Everything here is plain float geometry in the plot area (origin at the
lower-left corner, y up), in whatever unit the backend uses (SVG pixels,
TikZ points). The same inputs always give the same placement: requests are
handled in the order given and candidates are tried in the order given.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import NamedTuple

__all__ = ["Box", "LabelRequest", "choose_corner", "place_labels", "polyline_obstacles"]


class Box(NamedTuple):
    """An axis-aligned box, y pointing up.

    A named tuple, not a record: a key makes thousands (samples along every drawn line,
    every candidate position of every label), and the placer sorts them as tuples.
    """

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box, pad: float = 1.0) -> bool:
        """True when the boxes come closer than ``pad``."""
        return not (
            self.x1 + pad <= other.x0
            or other.x1 + pad <= self.x0
            or self.y1 + pad <= other.y0
            or other.y1 + pad <= self.y0
        )

    def shifted(self, dy: float) -> Box:
        return Box(self.x0, self.y0 + dy, self.x1, self.y1 + dy)


@dataclass(frozen=True)
class LabelRequest:
    """A label box of size (w, h) near an anchor; candidates are (dx, dy) of its lower-left corner."""

    ax: float
    ay: float
    w: float
    h: float
    candidates: tuple[tuple[float, float], ...]


def place_labels(
    requests: list[LabelRequest], area: Box, hard: list[Box], soft: list[Box]
) -> list[Box]:
    """Place each label, in request order, inside ``area``, clear of earlier labels and
    of the ``hard`` obstacles (markers, legends), and by preference of the ``soft`` ones
    (samples along drawn lines). Tiers, first success wins: the first candidate that
    clears everything; the candidate crossing the fewest soft samples; the same two
    with the candidates nudged a line at a time (down first, then up); finally the
    first candidate, moved inside the area. Ties go to the earlier candidate, so placement is stable."""
    placed: list[Box] = []

    ax0, ay0, ax1, ay1 = area

    def fits(b: Box) -> bool:
        bx0, by0, bx1, by1 = b
        if not (bx0 >= ax0 and bx1 <= ax1 and by0 >= ay0 and by1 <= ay1):
            return False
        for obstacles in (hard, placed):
            for ox0, oy0, ox1, oy1 in obstacles:  # Box.overlaps with pad 1.0, inlined
                if not (
                    bx1 + 1.0 <= ox0 or ox1 + 1.0 <= bx0 or by1 + 1.0 <= oy0 or oy1 + 1.0 <= by0
                ):
                    return False
        return True

    # soft samples sorted by left edge: a box can only meet those whose left edge lies
    # within (b.x0 - 1 - widest, b.x1 + 1), found by bisection with slack against rounding;
    # the exact test below decides (this is the hot loop). Non-finite samples: test all.
    soft_edges = sorted(soft)  # boxes are (x0, y0, x1, y1) tuples
    lefts = [e[0] for e in soft_edges]
    finite = all(map(math.isfinite, chain.from_iterable(soft_edges)))
    widest = max((e[2] - e[0] for e in soft_edges), default=0.0)

    def crossings(b: Box, enough: int | None) -> int:  # Box.overlaps with pad 1.0, inlined
        """Soft samples ``b`` comes near, counted up to ``enough`` (more cannot matter)."""
        bx0, by0, x1, y1 = b.x0, b.y0, b.x1 + 1.0, b.y1 + 1.0
        if finite and math.isfinite(bx0) and math.isfinite(x1):
            lo = bisect_right(lefts, bx0 - 2.0 - widest - 1e-9 * (abs(bx0) + widest))
            hi = bisect_left(lefts, x1)
        else:
            lo, hi = 0, len(soft_edges)
        n = 0
        for ox0, oy0, ox1, oy1 in soft_edges[lo:hi]:
            if not (x1 <= ox0 or ox1 + 1.0 <= bx0 or y1 <= oy0 or oy1 + 1.0 <= by0):
                n += 1
                if n == enough:
                    break
        return n

    def best(group: list[Box]) -> Box | None:
        """The first fitting candidate that crosses nothing, else the first of those crossing fewest."""
        choice, fewest = None, None
        for b in group:
            if fits(b):
                n = crossings(b, fewest)  # a later candidate must cross strictly fewer to win
                if n == 0:
                    return b
                if fewest is None or n < fewest:
                    choice, fewest = b, n
        return choice

    new = tuple.__new__
    for r in requests:
        boxes = [
            new(Box, (r.ax + dx, r.ay + dy, r.ax + dx + r.w, r.ay + dy + r.h))
            for dx, dy in r.candidates
        ]
        choice = best(boxes)
        for step in range(1, 7):
            if choice is not None:
                break
            choice = best([b.shifted(sign * step * r.h) for b in boxes for sign in (-1, 1)])
        placed.append(choice if choice is not None else _inside(boxes[0], area))
    return placed


def _inside(box: Box, area: Box) -> Box:
    """The box moved (not resized) to lie inside ``area`` where it can: a label that found
    no free place overlaps others rather than running off the figure (and the page)."""
    dx = min(0.0, area.x1 - box.x1) or max(0.0, area.x0 - box.x0)
    dy = min(0.0, area.y1 - box.y1) or max(0.0, area.y0 - box.y0)
    return Box(box.x0 + dx, box.y0 + dy, box.x1 + dx, box.y1 + dy)


def polyline_obstacles(
    pts: list[tuple[float, float]], step: float = 6.0, r: float = 1.0
) -> list[Box]:
    """Small boxes sampled along a polyline, so labels keep off drawn lines."""
    out: list[Box] = []
    new = tuple.__new__  # Box(...) without its Python-level __new__: thousands per key
    for (x0, y0), (x1, y1) in pairwise(pts):
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) // step))
        out += [
            new(Box, (x - r, y - r, x + r, y + r))
            for x, y in ((x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n) for i in range(n + 1))
        ]
    return out


CORNERS = ("south east", "north west", "south west", "north east")


def choose_corner(
    area: Box, w: float, h: float, obstacles: list[Box], inset: float = 4.0
) -> tuple[str, Box]:
    """The first corner (in the fixed order of :data:`CORNERS`) where a w x h legend
    clears every obstacle; otherwise the corner with the fewest collisions (ties: first)."""
    best: tuple[int, int, str, Box] | None = None
    for i, name in enumerate(CORNERS):
        x0 = area.x1 - inset - w if "east" in name else area.x0 + inset
        y0 = area.y0 + inset if "south" in name else area.y1 - inset - h
        box = Box(x0, y0, x0 + w, y0 + h)
        hits = sum(1 for o in obstacles if box.overlaps(o, 0.0))
        if best is None or (hits, i) < (best[0], best[1]):
            best = (hits, i, name, box)
    assert best is not None
    return best[2], best[3]
