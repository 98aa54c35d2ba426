"""A sharded operator's claims and a collective's slips on a mesh, each recomputed exactly.

The winning strategy (``strategy``: its name or its collectives as the Scaling Book writes
them), its collectives (``collectives``) and a tensor's bytes per device (``bytes_per_device``,
claimed as ``Y = 64 MiB``) are read from the sharding (the analysis's ``sharding``: :func:`derive.pipeline.shard.book_sharding`).
A wrong ``t_comms``, ``t_lower`` or ``network_bytes`` is named when it is, within the
tolerance, one of these computed the slip's way from the same collectives:

- a one-way ring on the same links (derive's default with no mesh);
- another strategy's value (the winner is the strategy of least T_lower);
- the Scaling Book's approximation: V/W for a gather or a scatter, 2V/W for an all-reduce, W
  and V's share as :func:`derive.analysis.network.book_time_per_byte` takes them on each axis.

Under ``--convention scaling-book`` the exact value is the book's, and derive's own exact
default (the same mesh in derive's convention) is the slip named instead, and said beside a
right claim (:func:`beside`). A strategy's T_lower overlaps its collectives with its compute
(max(T_math, T_mem, T_comms)), in the strategies table and in the checker alike; the serial
max(T_math, T_mem) + T_comms is named as a slip.

Each sentence ends with `` — exact is …`` so the answer can be kept back.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.comms_only import CommsAnalysis, analyse_comms
from derive.analysis.network import (
    Exchange,
    Level,
    book_ici,
    book_ici_network,
    book_time_per_byte,
    calls_latency,
    time_per_byte,
)
from derive.analysis.sharding import BookSharding
from derive.catalogue import table as q
from derive.checking.comms_check import read_comms_claim
from derive.checking.context import Context
from derive.checking.expected_text import show_number
from derive.checking.hints import Slip
from derive.checking.matching import as_percent, match, relative_error
from derive.checking.quantities import Target
from derive.checking.step_slips import seconds
from derive.checking.verdict import Verdict
from derive.errors import ParseError, ProblemError
from derive.formula.decimals import fmt_decimal
from derive.formula.units import Dimension
from derive.problem.mesh import Topology

if TYPE_CHECKING:
    from derive.checking.api import Judged


SHARDED_QUANTITIES = (q.STRATEGY.name, q.COLLECTIVES.name, q.TENSOR_BYTES.name)
"""What only a sharded operator has: its winner, the winner's collectives, a tensor's bytes."""


def sharded_value(s: BookSharding, quantity: str) -> sp.Expr | None:
    """The winner, its collectives or every tensor's bytes, as a word the answer key shows."""
    win, tensors = s.strategy, "; ".join(f"{t.text()} = {b}" for t, b in s.tensors)
    word = win and (win.name if quantity == q.STRATEGY.name else ", ".join(win.notation))
    said = tensors if quantity == q.TENSOR_BYTES.name else word
    return sp.Symbol(said) if said else None


def _ring(levels: tuple[Level, ...]) -> tuple[Level, ...]:
    return tuple(Level(replace(lv.axis, topology=Topology.RING), lv.size) for lv in levels)


def _value(a: Analysis | CommsAnalysis, quantity: str) -> sp.Expr | None:
    if isinstance(a, CommsAnalysis):  # its time alone
        return None if quantity == q.NETWORK_BYTES.name else a.time
    if quantity == q.NETWORK_BYTES.name:
        return a.network.bytes_bound if a.network else None
    return a.t_lower if quantity == q.T_LOWER.name else a.network.time if a.network else None


def _own(a: Analysis | CommsAnalysis, quantity: str) -> sp.Expr | None:
    """Under ``--convention scaling-book``: derive's own exact value of a timed quantity (the
    same problem on the same mesh in derive's convention); None under derive's own."""
    from derive.analysis.analyse import analyse

    if (mesh := a.problem.mesh) is None or not mesh.book:
        return None
    own = replace(a.problem, mesh=replace(mesh, book=False))
    return _value(analyse_comms(own) if isinstance(a, CommsAnalysis) else analyse(own), quantity)  # type: ignore[arg-type]


def beside(a: Analysis | CommsAnalysis, quantity: str) -> tuple[str, ...]:
    """The sentence a right claim under the book's convention ends with: derive's own exact value."""
    own, book = _own(a, quantity), _value(a, quantity)
    if own is None or book is None or not (own.is_number and book.is_number and own):
        return ()
    said = seconds(own) if quantity != q.NETWORK_BYTES.name else show_number(own, Dimension.BYTES)
    ratio = "the same" if book == own else f"the book's is {float(book / own):.4g}× it"
    return (f"the Scaling Book's value (--convention scaling-book); derive's exact default is {said} ({ratio})",)  # fmt: skip


def comms_slips(a: Analysis | CommsAnalysis, quantity: str, value: sp.Expr | None) -> list[Slip]:
    """The slips of a claimed T_comms, T_lower or bytes over the link (``value`` the exact one)
    of an operator or of collectives alone (``derive solve --collective``, a set's ``collective``)."""
    timed = quantity in (q.T_COMMS.name, q.T_LOWER.name)
    each = [(Exchange.of(c.collective.kind), tuple(lc.level for lc in c.levels), c.volume)
            for c in a.collectives if c.levels]  # fmt: skip
    if value is None or not each or not (timed or quantity == q.NETWORK_BYTES.name):
        return []
    rows, s, own = [], getattr(a, "sharding", None), _own(a, quantity)
    if own is not None:
        rows.append(Slip(own, "that is derive's exact default (each device's (P−1)/P of V over the links it "
                              "uses); the Scaling Book's convention asked here times it as its V/W"))  # fmt: skip
    if (
        quantity == q.T_LOWER.name and s is not None and (st := getattr(a, "step", None))
    ):  # overlapped
        rows.append(Slip(st.t_lower_serial, "that waits for the collectives (max(T_math, T_mem) + T_comms); a "
                                                "strategy's T_lower overlaps them: max(T_math, T_mem, T_comms)"))  # fmt: skip
    if quantity != q.T_LOWER.name and own is None:
        per = 1 if timed or a.problem.link is None else a.problem.link.value  # bytes at β_link
        ring = sp.Add(*(v * time_per_byte(k, _ring(lv)) * per + (calls_latency(k, _ring(lv)) if timed else 0)
                        for k, lv, v in each))  # fmt: skip
        links = ", ".join(dict.fromkeys(f"{lc.level.axis.topology.value} {lc.level.axis.name} over "
                                        f"{lc.links} link(s)" for c in a.collectives for lc in c.levels))  # fmt: skip
        rows.append(Slip(ring, f"that is a one-way ring's {'time' if timed else 'byte count'} on the same "
                               f"links (derive's default with no mesh); on this mesh each device "
                               f"sends on every link: {links}"))  # fmt: skip
    if quantity == q.T_COMMS.name and own is None:
        book = sp.Add(*(v * book_time_per_byte(k, lv, book_ici(lv)) for k, lv, v in each))
        ways = "; ".join(dict.fromkeys(_book_ways(lv) for _, lv, _ in each))
        rows.append(Slip(book, "that is the Scaling Book's approximation: V/W for a gather or a "
                               f"scatter, 2V/W for an all-reduce; {ways}"))  # fmt: skip
    if s is not None and s.strategy is not None:
        rows += [Slip(_value(r.analysis, quantity), f"that is the {r.name} strategy's, not the winner's — "
                                           f"the winner is {s.strategy.name} (least T_lower)")
                 for r in s.rows if r.name != s.strategy.name]  # fmt: skip
    exact = seconds(value) if timed else show_number(value, Dimension.BYTES)
    return [replace(r, why=f"{r.why} — exact is {exact}") for r in rows]


def _book_ways(levels: tuple[Level, ...]) -> str:
    """W and the share of V the book takes on these levels (:func:`book_ici_network`)."""
    fast = [lv for lv in levels if lv.axis.bandwidth >= book_ici(levels)]
    out = [f"W = {fmt_decimal(lv.axis.bandwidth / 10**9)} GB/s one way over {lv.axis.name} "
           f"({lv.axis.topology.value}), its share of V" for lv in levels if lv not in fast]  # fmt: skip
    if fast:
        w, share, both = book_ici_network(fast)
        way = "both ways" if both else "one way, a line having no wraparound"
        names = "·".join(lv.axis.name for lv in fast)
        v = "the whole V, no (P−1)/P" if share == 1 else f"{share} of V"
        out.insert(0, f"W = {fmt_decimal(w / 10**9)} GB/s over {names} ({way}), {v}")
    return ", ".join(out)


def _said(text: str) -> str:
    """A name or the book's notation as compared: case, spaces, braces and backslashes aside."""
    return re.sub(r"\\text|[\s{}\\]", "", text).lower()


def _word(s: BookSharding, quantity: str, claim: str) -> tuple[bool, str, str]:
    """A claimed winner (its name or its collectives) or the winner's collectives."""
    win = s.strategy
    assert win is not None  # refused before while it depends on a free dim
    expected = f"{win.name}: {', '.join(win.notation) or 'no collectives'}"
    for r in s.rows:
        names = {_said(", ".join(r.notation)), *([_said(r.name)] if quantity == q.STRATEGY.name else [])}  # fmt: skip
        if _said(claim) in names and r is win:
            return True, expected, f"the winner, of least T_lower {seconds(r.t_lower)}"
        if _said(claim) in names:
            return False, expected, (f"that is the {r.name} strategy's (T_lower {seconds(r.t_lower)}); "
                                     f"the winner is the least T_lower")  # fmt: skip
    known = "; ".join(f"{r.name}: {', '.join(r.notation) or 'none'}" for r in s.rows)
    return False, expected, f"not a strategy of this sharding (its strategies: {known})"


def _bytes(ctx: Context, s: BookSharding, claim: str) -> tuple[bool, str, str]:
    """A tensor's claimed bytes per device, ``Y = 64 MiB`` (``Y[D_x, F]: 64 MiB``)."""
    held = {t.name: (t, b) for t, b in s.tensors}
    found = re.fullmatch(r"\s*([A-Za-z]\w*)(?:\[[^\]]*\])?\s*[=:]\s*(.+)", claim)
    if found is None or found.group(1) not in held:
        raise ParseError(f"claim {claim!r}", f"name the tensor, one of {', '.join(held)}: Y = 64 MiB")  # fmt: skip
    (spec, exact), read = held[found.group(1)], read_comms_claim(found.group(2))
    unit, expected = read.answer.unit, f"{spec.text()}: {show_number(exact, Dimension.BYTES)}"
    if unit is not None and unit.dimension is not Dimension.BYTES:
        return False, expected, f"the unit {unit.text} is no size in bytes"
    if match(read.value, Target(exact), ctx.rtol) is not None:
        return True, expected, f"{spec.text()}: each dim over its axes' sizes"
    mesh = ctx.analysis.problem.mesh
    whole = exact * sp.Mul(*(a.size for a in mesh.axes if any(a.name in on for _, on in spec.dims))) if mesh else exact  # fmt: skip
    if whole != exact and match(read.value, Target(whole), ctx.rtol) is not None:
        return False, expected, f"that is the whole {spec.name}; each device holds {spec.text()}, 1/{whole / exact} of it"  # fmt: skip
    error = relative_error(read.value, exact)
    return False, expected, f"off by {as_percent(error) if error is not None else '?'}"


def judge_sharded(ctx: Context, quantity: str, claim: str) -> Judged:
    """Read and judge a claimed winner, its collectives or a tensor's bytes of a sharded
    operator (the claim is its own reading: a word, or bytes with their unit).

    Raises:
        ParseError: unreadable; ProblemError: the problem is not sharded in the book's
            notation, or its winner depends on a free dim.
    """
    from derive.checking.api import Judged

    s = ctx.analysis.sharding
    if s is None or (s.strategy is None and quantity != q.TENSOR_BYTES.name):
        why = f"needs {q.STRATEGY.at[0].needs}" if s is None else f"the winner depends on {s.dim}: bind it (--set)"  # fmt: skip
        raise ProblemError(f"--quantity {quantity}", why)
    right, expected, why = _bytes(ctx, s, claim) if quantity == q.TENSOR_BYTES.name else _word(s, quantity, claim)  # fmt: skip
    said = (why if right else f"{why} — exact is {expected}",)
    verdict = Verdict.CORRECT if right else Verdict.INCORRECT
    return Judged(verdict, claim.strip(), said, said, expected, None, None)
