"""Label placement: a greedy, order-stable collision avoider in backend units.

Everything here is plain float geometry in the plot area (origin at the
lower-left corner, y up), in whatever unit the backend uses (SVG pixels,
TikZ points). The same inputs always give the same placement: requests are
handled in the order given and candidates are tried in the order given.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import NamedTuple


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
    requests: list[LabelRequest],
    area: Box,
    hard: list[Box],
    soft: list[Box],
    *,
    growth: float = 1.0,
) -> list[Box]:
    """Place each label, in request order, inside ``area``, clear of earlier labels and
    of the ``hard`` obstacles (markers, legends), and by preference of the ``soft`` ones
    (samples along drawn lines). Tiers, first success wins: the first candidate that
    clears everything; the candidate crossing the fewest soft samples; the same two
    with the candidates nudged a line at a time (down first, then up); finally the
    candidate or nudge, moved inside the area, that overlaps the fewest labels and markers. Ties go to the earlier candidate, so placement is stable.

    ``growth`` above 1 places for a plot drawn at any size from the area's to ``growth``
    times it (a TikZ axis takes its column's width), where every anchor moves with the
    plot and every box keeps its size and its offset from its anchor (a label's anchor is
    its request's, a hard obstacle's its centre): a label is kept inside the area and clear
    of the others at every size in that range (see :func:`_collide`), not only at the area's;
    a label that finds no such place is placed for the area's size alone, by the same tiers;
    one that finds none there either goes where it covers the fewest others (inside the area).
    """
    placed: list[Box] = []
    anchors: list[tuple[float, float]] = []  # of the placed labels
    centres = [((o.x0 + o.x1) / 2, (o.y0 + o.y1) / 2) for o in hard]

    ax0, ay0, ax1, ay1 = area

    def fits(b: Box, at: tuple[float, float], grow: float) -> bool:
        bx0, by0, bx1, by1 = b
        if not (bx0 >= ax0 and bx1 <= ax1 and by0 >= ay0 and by1 <= ay1):
            return False
        for obstacles in (hard, placed):
            for ox0, oy0, ox1, oy1 in obstacles:  # Box.overlaps with pad 1.0, inlined
                if not (
                    bx1 + 1.0 <= ox0 or ox1 + 1.0 <= bx0 or by1 + 1.0 <= oy0 or oy1 + 1.0 <= by0
                ):
                    return False
        if grow <= 0.0:
            return True
        # at the largest size (the area's edges move linearly, so the two ends decide)
        u, v = at[0] * grow, at[1] * grow
        if not (
            bx0 + u >= ax0 * growth
            and bx1 + u <= ax1 * growth
            and by0 + v >= ay0 * growth
            and by1 + v <= ay1 * growth
        ):
            return False
        for box_list, at_list in ((hard, centres), (placed, anchors)):
            for o, c in zip(box_list, at_list):
                if _collide(b, at, o, c, grow):
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

    def best(group: list[Box], at: tuple[float, float], grow: float) -> Box | None:
        """The first fitting candidate that crosses nothing, else the first of those crossing fewest."""
        choice, fewest = None, None
        for b in group:
            if fits(b, at, grow):
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
        at = (r.ax, r.ay)
        choice = None
        for g in (growth - 1.0, 0.0) if growth > 1.0 else (0.0,):  # every size, else the area's
            choice = best(boxes, at, g)
            for step in range(1, 7):
                if choice is not None:
                    break
                nudged = [
                    new(Box, (x0, y0 + dy, x1, y1 + dy))
                    for x0, y0, x1, y1 in boxes
                    for dy in (-step * r.h, step * r.h)  # b.shifted(sign * step * r.h)
                ]
                choice = best(nudged, at, g)
            if choice is not None:
                break
        if choice is None:  # the least covered of the candidates and their nudges, inside
            tried = chain(
                (_inside(b, area) for b in boxes),
                (
                    _inside(b.shifted(sign * step * r.h), area)
                    for step in range(1, 7)
                    for b in boxes
                    for sign in (-1, 1)
                ),
            )
            choice = _least_covered(tried, (*hard, *placed))
        placed.append(choice)
        anchors.append(at)
    return placed


def _least_covered(tried: Iterable[Box], obstacles: tuple[Box, ...]) -> Box:
    """``min(tried, key=partial(_covered, obstacles))``: the first box covering the fewest,
    stopping at the first that covers none (no later box can be chosen over it)."""
    choice, fewest = None, None
    for b in tried:
        n = _covered(obstacles, b)
        if n == 0:
            return b
        if fewest is None or n < fewest:
            choice, fewest = b, n
    assert choice is not None, "a label has at least one candidate"
    return choice


def _covered(obstacles: tuple[Box, ...], b: Box) -> int:
    """``sum(b.overlaps(o) for o in obstacles)``, inlined: the last tier's count."""
    bx0, by0, bx1, by1 = b
    return sum(
        1
        for ox0, oy0, ox1, oy1 in obstacles
        if not (bx1 + 1.0 <= ox0 or ox1 + 1.0 <= bx0 or by1 + 1.0 <= oy0 or oy1 + 1.0 <= by0)
    )


def _collide(
    a: Box, at_a: tuple[float, float], b: Box, at_b: tuple[float, float], grow: float
) -> bool:
    """Whether boxes ``a`` and ``b`` (as placed at the area's size, anchored at ``at_a`` and
    ``at_b``) come closer than the 1.0 pad at some size from the area's to ``1 + grow`` times it.

    At size ``1 + t`` each box has moved by ``t`` times its anchor, so ``a`` moves against
    ``b`` by ``t·d`` with ``d = at_a - at_b``. Along x they overlap while
    ``b.x0 - a.x1 - pad < t·dx < b.x1 - a.x0 + pad``: an open interval of t (all t or none
    when dx = 0), likewise along y; they collide when the two intervals and [0, grow] meet.
    The size the boxes were placed at (t = 0) is tested exactly by the caller.
    """
    lo, hi = 0.0, grow
    for d, low, high in (
        (at_a[0] - at_b[0], b.x0 - a.x1 - 1.0, b.x1 - a.x0 + 1.0),
        (at_a[1] - at_b[1], b.y0 - a.y1 - 1.0, b.y1 - a.y0 + 1.0),
    ):
        if d == 0.0:
            if not low < 0.0 < high:
                return False
            continue
        t0, t1 = sorted((low / d, high / d))
        lo, hi = max(lo, t0), min(hi, t1)
        if lo >= hi:
            return False
    return True


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
