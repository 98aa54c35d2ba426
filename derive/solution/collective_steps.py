"""The worked-solution step for collectives: ring bytes per device and link time.

Reads :class:`~derive.analysis.collectives.CollectiveTime` records; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.analysis.analyse import Analysis
from derive.analysis.collectives import CollectiveTime
from derive.catalogue import table as q
from derive.declare.collective import CollectiveKind
from derive.formula.decimals import fmt_decimal
from derive.formula.durations import time_text
from derive.problem.chips import Figure
from derive.solution.notation import tex, tex_text_number
from derive.solution.steps import Line, Rich, Step, StepKind, rich
from derive.solution.value_display import reading_tex, seconds_tex


def _factor(value: sp.Expr) -> str:
    """A number as is; an expression in parentheses, as a factor of a product."""
    return tex(value) if value.is_Atom else rf"\left({tex(value)}\right)"


def _mesh_lines(item: CollectiveTime) -> list[Line]:
    """On a mesh: the bytes and the time level by level, each by its topology's rule."""
    name = item.collective.name.replace("_", r"\_")
    v = item.volume
    parts = [
        (rf"{tex(c.steps * c.level.axis.latency)} + " if c.level.axis.latency else "")
        + rf"\frac{{{tex(c.load)} \times {tex(v)}}}{{{tex(c.level.axis.bandwidth)}}}"
        for c in item.levels
    ]
    time = item.time if item.time is not None else item.latency_time
    timed = (
        r"\sum_i \left(s_i \, \alpha_i + \frac{\ell_i \, V}{\beta_i}\right)",
        " + ".join(parts),
    )
    if item.own_time is not None:  # the book's: k·V/W on the networks, its hops
        per_byte = tex((item.link_time or sp.S.Zero) / v) if v else "0"
        timed = (
            r"V \cdot \frac{k}{W} + \text{hops} \cdot \alpha",
            rf"{tex(v)} \times {per_byte} + {tex(item.latency_time)}",
        )
        if item.collective.kind is not CollectiveKind.SEND:  # the longer of the two
            a, b = (rf"\max\left({t.replace(' + ', ', ', 1)}\right)" for t in timed)
            timed = (a, b)
    return [
        Line.of(rf"\text{{size}}_{{\text{{{name}}}}}", tex(item.size)),
        Line.of(
            rf"\text{{sent}}_{{\text{{{name}}}}}",
            r"\sum_i n_i \, \ell_i \, V",
            " + ".join(rf"{c.links} \times {tex(c.load)} \times {tex(v)}" for c in item.levels),
            tex(item.sent),
        ),
        Line.of(
            rf"T_{{\text{{{name}}}}}",
            *timed,
            seconds_tex(time) if time.is_number else tex(time),
            approx=reading_tex(time),
        ),
    ]


def _mesh_note(item: CollectiveTime) -> str:
    return "; ".join(
        f"over {c.level.axis.name} ({c.level.size} devices, {c.level.axis.topology.value}): "
        f"{c.rule}, ℓ = {c.load}, n = {c.links} link(s), s = {c.steps}"
        for c in item.levels
    )


def _book_note(item: CollectiveTime) -> str:
    """Under ``--convention scaling-book``: the book's rule, and derive's own exact time beside."""
    own, time = item.own_time, item.time
    if own is None or time is None:
        return ""
    ratio = f" (the book's is {fmt_decimal(time / own)}× it)" if own and time.is_number else ""
    rule = (
        "(How to Think About TPUs, Question 5): a send as derive times it, V/W and a latency a hop"
        if item.collective.kind is CollectiveKind.SEND
        else "(Sharding, “A Deeper Dive into TPU Communication Primitives”; GPUs, “How Do "
        "Collectives Work on GPUs?”): k·V/W, k = 2 for an all-reduce without SHARP, else 1, W the "
        "bandwidth of every link the collective uses (both ways on a torus axis; one way and "
        "(G−1)/G of V on a line, no wraparound), or the hops as the book counts them if longer"
    )
    mine = time_text(own) if own.is_number else f"{own} s"
    p, precise = item.precise_time, ""
    if p is not None:  # over switch levels: GPUs, "Cross-node collectives"
        precise = "; the book's “more precise” form (GPUs, “Cross-node collectives”), the slowest level's "
        precise += f"(D−1)/D · V/W, W a child's egress: {time_text(p) if p.is_number else f'{p} s'}"
    return f" Convention scaling-book {rule}; derive's own exact time: {mine}{ratio}{precise}."


def _lines(item: CollectiveTime, link_text: str | None, latency: str) -> list[Line]:
    if item.levels:
        return _mesh_lines(item)
    collective = item.collective
    name = collective.name.replace("_", r"\_")
    group = item.group
    all_reduce = collective.kind is CollectiveKind.ALL_REDUCE
    top, bottom = "2" if all_reduce else "", "2" if collective.kind.value == "all_to_all" else ""
    factor = rf"\frac{{{top + '(P-1)' if top else 'P-1'}}}{{{bottom}P}}"
    dot = [f"{two} \\cdot " if two else "" for two in (top, bottom)]
    factor_numbers = (
        rf"\frac{{{dot[0]}{tex(group - 1)}}}{{{dot[1]}{tex(group)}}}"
        if group.is_Integer
        else tex(item.fraction)
    )
    lines = [
        Line.of(rf"\text{{size}}_{{\text{{{name}}}}}", tex(item.size)),
        Line.of(
            rf"\text{{sent}}_{{\text{{{name}}}}}",
            rf"{factor} \times \text{{size}}",
            rf"{factor_numbers} \times {tex(item.size)}",
            tex(item.sent),
        ),
    ]
    if item.time is not None and link_text is not None:
        steps = r"2(P-1)" if all_reduce else r"(P-1)"
        hops = (
            (rf" + {steps}\, t_{{\text{{hop}}}}", rf" + {_factor(item.steps)} \times {latency}")
            if item.latency_time != 0
            else ("", "")
        )
        lines.append(
            Line.of(
                rf"T_{{\text{{{name}}}}}",
                rf"\frac{{\text{{sent}}}}{{\beta_{{\text{{link}}}}}}{hops[0]}",
                rf"\frac{{{tex(item.sent)}}}{{{link_text}}}{hops[1]}",
                seconds_tex(item.time) if item.time.is_number else tex(item.time),
                approx=reading_tex(item.time),
            )
        )
    return lines


def collective_step(
    collectives: tuple[CollectiveTime, ...], link: Figure | None, latency: sp.Expr
) -> Step:
    """One step listing every collective: its bytes per device and its time on the link."""
    link_text = tex_text_number(link.text) if link is not None else None
    lines: list[Line] = []
    notes: list[Rich] = []
    for item in collectives:
        lines += _lines(item, link_text, tex(latency))
        collective = item.collective
        notes.append(
            rich(
                f"{collective.name}: "
                + (_mesh_note(item) if item.levels else collective.kind.rule)
                + "; "
                + (f"P = {item.group}" if item.group.is_Integer else f"P is the dim {item.group}")
                + f", {item.dtype}"
                + (
                    "; it overlaps the kernel's compute"
                    if collective.overlap
                    else "; the kernel waits for it (not overlapped)"
                )
                + "."
                + _book_note(item)
            )
        )
    if link_text is None:
        notes.append(rich("No link bandwidth given, so no transfer time."))
    if any(item.levels for item in collectives):
        rule, text = (
            "one communication model: the group's mesh axes level by level from the innermost, "
            "each by its topology's rule (ring, line, torus, switch, switch+sharp)",
            "On each level, the bytes over a device's most loaded link ℓ_i·V over the axis's "
            "bandwidth (one way, per link), plus s_i steps of its latency α_i.",
        )
    else:
        rule, text = (
            "ring algorithm: each device sends its share of the tensor to its neighbour, step by step",
            "Bytes one device sends, over the link bandwidth (one way, per link), "
            "plus one link latency per step of the ring.",
        )
    return Step(
        StepKind.COLLECTIVE,
        rule,
        rich(text),
        tuple(lines),
        tuple(notes),
    )


def collective_steps(analysis: Analysis) -> list[tuple[Step, str]]:
    """One step listing every collective (topic ``collectives``); empty when there are none."""
    if not analysis.collectives:
        return []
    problem = analysis.problem
    step = collective_step(analysis.collectives, problem.link, problem.timing.link_latency)
    return [(step, q.COLLECTIVES.name)]
