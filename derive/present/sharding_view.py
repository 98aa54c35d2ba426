"""One operator's sharding as a document: the collective it needs, its bytes and time, the
largest group before the link binds and (``--compare-shardings``) each dim side by side;
JSON under ``sharding``."""

from __future__ import annotations

import sympy as sp

from derive.analysis.sharding import Sharding, ShardRow
from derive.catalogue import table as q
from derive.formula.durations import time_text
from derive.present.formats import Document
from derive.present.worked import worked_document
from derive.solution.notation import tex
from derive.solution.steps import Math, Step, StepKind, rich
from derive.solution.value_display import seconds_tex

__all__ = ["sharding_document", "sharding_json"]


def _s(value: object) -> str | None:
    return None if value is None else str(value)


def _row_json(row: ShardRow) -> dict[str, object]:
    return {
        "dim": row.dim,
        "group": row.group,
        "collective": row.collective.value,
        "bytes_sent": str(row.sent),
        q.T_COMMS.name: _s(row.t_comms),
        q.T_MATH.name: str(row.t_math),
        q.T_MEM.name: str(row.t_mem),
        q.T_LOWER.name: _s(row.t_lower),
    }


def sharding_json(s: Sharding) -> dict[str, object]:
    """The sharding asked for, the largest group and the compared rows, exact."""
    return {
        **_row_json(s.row),
        "largest_group": s.largest_group,
        "compared": [_row_json(r) for r in s.compared],
    }


def _time(value: sp.Expr | None) -> str | Math:
    """A time as read, or its formula while a dim is free."""
    if value is None:
        return "—"
    return time_text(value) if value.is_number else Math(seconds_tex(value))


def _bytes(value: sp.Expr) -> str | Math:
    return f"{value} B" if value.is_number else Math(tex(value) + r"\ \text{bytes}")


def _cells(row: ShardRow) -> tuple:
    return tuple(
        rich(text)
        for text in (
            f"{row.dim} over {row.group}",
            row.collective.value.replace("_", "-"),
            _bytes(row.sent),
            _time(row.t_comms),
            _time(row.t_lower),
        )
    )


def _step(s: Sharding) -> Step:
    row = s.row
    largest = (
        f"the largest group dividing {row.dim} before the link binds is {s.largest_group}"
        if s.largest_group is not None
        else "the link binds at every group tried"
        if row.t_comms is None or row.t_comms.is_number
        else "with dims free, no largest group is sought"
    )
    kind = row.collective.value.replace("_", "-")
    prose = (f"{row.dim} split over {row.group} devices needs an {kind} of the output: each device "
             "sends ", " (", " on the link) against T_math ", " and T_mem ")  # fmt: skip
    values = (_bytes(row.sent), _time(row.t_comms), _time(row.t_math), _time(row.t_mem))
    table: tuple = ()
    if s.compared:
        header = ("sharding", "collective", "bytes sent per device", "T_comms", "T_lower")
        table = (header, *(_cells(r) for r in s.compared))
    return Step(
        StepKind.SHARDING,
        "a dim of the output split → all-gather of the output; a contracted dim → all-reduce",
        rich(*(part for pair in zip(prose, values, strict=True) for part in pair), f"; {largest}."),
        table=table,
        topic="sharding",
    )


def sharding_document(s: Sharding, level: int = 2) -> Document:
    """The sharding's step (the kernel's templates) and its JSON."""
    return worked_document(
        "Sharding",
        rich(f"--shard {s.row.dim}:{s.row.group}."),
        (_step(s),),
        (),
        lambda: sharding_json(s),
        level,
    )
