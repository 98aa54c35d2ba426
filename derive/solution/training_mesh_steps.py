"""Worked-solution steps of a training run on a mesh: each dim's traffic timed level by level.

Reads :class:`~derive.training.analysis.TrainingAnalysis` (its comms' transfers and the
placement); computes nothing but the printing: per transfer, the exchange's formula over its
levels with the numbers of each level (g_i devices over an axis of β_i), and the time.
"""

from __future__ import annotations

from derive.analysis.network import Exchange
from derive.catalogue import table as q
from derive.formula.decimals import counted, fmt_decimal
from derive.problem.mesh import Topology
from derive.solution.notation import tex
from derive.solution.steps import Line, Step, StepKind, rich
from derive.solution.training_memory_steps import GB
from derive.solution.value_display import time_line
from derive.training.analysis import TrainingAnalysis
from derive.training.comms import DIMS, Transfer

_RULES = {
    Exchange.ALL_REDUCE: r"\sum_i \frac{2(g_i - 1)}{g_i} \cdot \frac{V}{g_1 \cdots g_{i-1} \, \beta_i}",
    Exchange.ALL_GATHER: r"\sum_i \frac{g_i - 1}{g_i} \cdot \frac{V}{g_1 \cdots g_{i-1} \, \beta_i}",
    Exchange.REDUCE_SCATTER: r"\sum_i \frac{g_i - 1}{g_i} \cdot \frac{V}{g_1 \cdots g_{i-1} \, \beta_i}",
    Exchange.ALL_TO_ALL: r"\sum_i \frac{(g_i - 1) \, G_i}{2 \, G_k} \cdot \frac{V}{\beta_i}",
    Exchange.SEND: r"\frac{V}{\beta_{\text{outer}}}",
}


def _numbers(t: Transfer) -> str:
    """The formula with each level's numbers: V · (share_1/β_1 + share_2/β_2 + …) + latency."""
    parts = [rf"\frac{{{tex(share)}}}{{{tex(level.axis.bandwidth)}}}" for level, share in t.terms]
    latency = rf" + {tex(t.latency)}" if t.latency else ""
    return rf"{tex(t.size)} \cdot \left({' + '.join(parts)}\right){latency}"


def _book_numbers(t: Transfer) -> str:
    """k·V/W, the book's time with its numbers (W of :func:`~derive.training.mesh.book_time_per_byte`)."""
    k = 2 if t.exchange is Exchange.ALL_REDUCE else 1
    time = rf"\frac{{{k} \cdot {tex(t.size)}}}{{{tex(k / t.seconds_per_byte)}}}"
    return rf"\max\left({tex(t.latency)}, {time}\right)" if t.latency else time


def _line(t: Transfer, index: int) -> Line:
    book = t.book is not None and t.exchange is not Exchange.SEND
    return time_line(
        rf"t_{{\text{{{t.dim}}},{index}}}",
        (r"\frac{2 V}{W}" if t.exchange is Exchange.ALL_REDUCE else r"\frac{V}{W}")
        if book
        else _RULES[t.exchange]
        if _rings(t)
        else _ANY_TOPOLOGY,
        _book_numbers(t) if book else _numbers(t),
        seconds=t.time,
    )


_ANY_TOPOLOGY = r"\sum_i \frac{\ell_i \, V}{\beta_i}"
"""A level's busiest link carries ℓ_i · V by its topology's rule (:mod:`derive.analysis.network`)."""


def _rings(t: Transfer) -> bool:
    return all(lv.axis.topology is Topology.RING for lv in t.levels)


def _group_text(t: Transfer) -> str:
    rules = {c.level: c.rule for c in t.costs}
    return ", then ".join(
        f"{lv.size} devices of {lv.axis.name} (β = {fmt_decimal(lv.axis.bandwidth / 10**9)} GB/s"
        + ("" if _rings(t) or lv not in rules else f"; {rules[lv]}")
        + ")"
        for lv in t.levels
    )


def mesh_step(a: TrainingAnalysis) -> Step | None:
    """Each dim's traffic over its own axes (a run on a mesh or with context parallelism)."""
    p, c = a.problem, a.comms
    if p.placement is None and p.cp == 1 and p.convention != "scaling-book":
        return None
    lines: list[Line] = []
    notes = []
    for dim in DIMS:
        mine = [t for t in c.transfers if t.dim == dim]
        for i, t in enumerate(mine, 1):
            lines.append(_line(t, i))
            notes.append(
                rich(
                    f"t_{dim},{i}: {t.exchange.value} of {t.what} in the {t.pass_name} pass, "
                    f"{counted(t.calls, 'call')}, V = {fmt_decimal(t.size / GB)} GB in all, over {_group_text(t)}."
                )
            )
        if mine:
            lines.append(
                time_line(
                    rf"t_{{\text{{{dim}}}}}",
                    rf"\sum t_{{\text{{{dim}}},j}}",
                    seconds=c.time_of(dim),
                )
            )
    lines.append(
        time_line(
            r"T_{\text{comms}}",
            r"\sum_{\text{passes}} \max_{\text{dims}} t_{\text{dim}}"
            if c.overlap
            else r"t_{\text{dp}} + t_{\text{tp}} + t_{\text{pp}} + t_{\text{ep}} + t_{\text{cp}}",
            seconds=a.t_comms,
        )
    )
    placement = p.placement.text() if p.placement is not None else "every dim on one link"
    if p.convention == "scaling-book":
        notes.append(
            rich(
                "Convention scaling-book: its collectives are timed as the book times them, not by "
                "the ring formula above (Sharding, “A Deeper Dive into TPU Communication "
                "Primitives”; GPUs, “How Do Collectives Work on GPUs?”): an all-reduce 2·V/W, an "
                "all-gather or a reduce-scatter V/W, an all-to-all on ICI a quarter of the "
                "all-gather of the whole array (max(g)·V/(4·W)); W is Σ 2·β over the group's ICI "
                "axes (bidirectional, several axes add), one way over each other axis (NVLink, a "
                "NIC, DCN), which carries the 1/(devices inside it) of V left after the inner "
                "reduction; the networks run at once, the slowest sets the time (Training, "
                "“Scaling Across Pods”: the DCN rule per slice C/W_dcn). Sends as above; the "
                "bytes sent are the ring's."
            )
        )
    return Step(
        StepKind.COMMUNICATION,
        "a collective over axes (g_1, β_1) … (g_k, β_k), innermost first, runs level by level: "
        "an all-reduce Σ_i 2(g_i−1)/g_i · V/(g_1⋯g_{i−1}·β_i), a reduce-scatter or an all-gather "
        "half of it, an all-to-all Σ_i (g_i−1)·G_i/(2·G_k) · V/β_i (each byte over as many "
        "links as it travels), a send V/β of the outermost axis",
        rich(
            f"Each dim's traffic is timed over its own axes (placement {placement}). "
            "Inside, the group reduce-scatters over the innermost axis; each further level carries "
            "1/(g_1⋯g_{i−1}) of the data over its own links; the all-gather returns the same way. "
            "A pipeline's or a ring's send waits for its slowest hop, the outermost axis it spans."
        ),
        tuple(lines),
        notes=tuple(notes),
        title="Communication time over the mesh",
        topic=q.T_COMMS.name,
    )
