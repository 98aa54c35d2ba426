"""One operator's sharding as a document: the collective it needs, its bytes and time, the
largest group before the link binds and (``--compare-shardings``) each dim side by side;
JSON under ``sharding``."""

from __future__ import annotations

import sympy as sp

from derive.analysis.sharding import BookSharding, Sharding, ShardRow, StrategyRow
from derive.catalogue import table as q
from derive.catalogue.reading import attributes
from derive.catalogue.reading import text_or_none as _s
from derive.formula.durations import time_text
from derive.present.formats import Document
from derive.present.json_export import book_sharding_json
from derive.present.worked import worked_document
from derive.solution.notation import tex
from derive.solution.steps import Math, Step, StepKind, rich
from derive.solution.value_display import seconds_tex

__all__ = ["book_sharding_document", "book_sharding_json", "sharding_document", "sharding_json"]


def _row_json(row: ShardRow) -> dict[str, object]:
    return {
        **attributes(row, "dim group", None),
        "collective": row.collective.value,
        "bytes_sent": str(row.sent),
        q.T_COMMS.name: _s(row.t_comms),
        **attributes(row, "t_math t_mem"),
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


def _strategy_cells(r: StrategyRow) -> tuple:
    flops = str(r.flops) if r.flops.is_number else Math(tex(r.flops))
    times = (r.t_math, r.t_mem, r.t_comms, r.t_lower, r.t_upper)
    return (r.name, ", ".join(r.notation) or "none", flops, *map(_time, times))


_HEADER = (q.STRATEGY.name, "its collectives", "FLOPs per device", "T_math", "T_mem", "T_comms",
           "T_lower (overlapped)", "T_upper (summed)")  # fmt: skip
_RULE = ("a contracted dim sharded on one side is all-gathered, or the other side sliced to a "
         "partial sum; a partial sum is all-reduced, or reduce-scattered onto the output's "
         "sharding; an output dim sharded where the output is not is all-gathered")  # fmt: skip


def _at(v: sp.Expr) -> str:
    return f"{v}" if v.is_Rational else f"{v} ≈ {float(v):.6g}"


def book_sharding_document(s: BookSharding, level: int = 2) -> Document:
    """The tensors per device, the strategies side by side, the winner and where it changes."""
    held = [part for t, b in s.tensors for part in (t.text() + ": ", _bytes(b), "; ")]
    rule = "a tensor's bytes per device: each dim over its axes' sizes"
    tensors = Step(StepKind.SHARDING, rule, rich("Each device holds ", *held[:-1], "."),
                   title="Tensors per device")  # fmt: skip
    table = (_HEADER, *(tuple(map(rich, _strategy_cells(r))) for r in s.rows))
    count = f"{len(s.rows)} valid strateg{'y' if len(s.rows) == 1 else 'ies'}, each per device."
    strategies = Step(StepKind.SHARDING, _RULE, rich(count), table=table, title="Strategies",
                      topic="sharding")  # fmt: skip
    win, every = s.strategy, s.dim is not None and not s.crossovers
    verdict = [rich(f"The winner: {win.name}, T_lower ", _time(win.t_lower),
                    f" (for every {s.dim})." if every else ".")] if win else [
               rich(f"The winner depends on {'the free dims' if s.dim is None else s.dim}.")
               ]  # fmt: skip
    for i, (v, below, above) in enumerate(s.crossovers):
        at, own = _at(v), f"; derive's own: {s.dim} = {_at(s.own[i])}" if i < len(s.own) else ""
        verdict.append(
            rich(f"{below} wins for {s.dim} < {at}, {above} above (exact crossover{own}).")
        )
    given = rich("Sharded on the mesh as " + ", ".join(t.text() for t, _ in s.tensors) + ".")
    steps = (tensors, strategies)
    return worked_document("Sharding", given, steps, verdict, lambda: book_sharding_json(s), level)
