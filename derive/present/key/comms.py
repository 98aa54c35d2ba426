"""A key's problem on an operator that only communicates: its worked solution, its question
and its row (no roofline figure: it has no compute to place on one)."""

from __future__ import annotations

from derive.analysis.comms_only import CommsAnalysis
from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.formula.durations import time_tex, time_text
from derive.present.comms_view import comms_document
from derive.present.key.files import (
    ProblemPart,
    _OperatorName,
    _ProblemName,
    _QuestionView,
    templated_item,
)
from derive.present.key.rows import Row
from derive.present.view import HardwareRow, TensorRow
from derive.present.withheld import comms_sheet_doc
from derive.problem.sets.problem_set import ProblemEntry, ProblemSet
from derive.solution.notation import tex, tex_text_number

COMMS_ASKS = {
    q.COLLECTIVES.name: "the bytes each device sends in each collective, and its time on the link",
    q.STEP.name: "the time of the step on the link, T_comms",
    q.BOUNDS.name: "lower and upper bounds on the runtime",
}
"""What a comms-only problem may ask, as its question sheet words it."""


def _question(analysis: CommsAnalysis) -> _QuestionView:
    problem = analysis.problem
    dtypes = dict(problem.dtypes)
    tensors = tuple(
        TensorRow(
            t.name,
            "sent",
            r" \times ".join(tex(s) for s in t.shape) or r"\text{scalar}",
            dtypes[t.name].name,
            tex(dtypes[t.name].width),
        )
        for t in problem.operator.comms
    )
    name = problem.chip.link_name if problem.chip is not None else "link"
    link = HardwareRow(
        f"{name} bandwidth (one way)",
        r"\beta_{\text{link}}",
        tex_text_number(problem.link.text),
        "B/s",
        problem.link.cite(),
    )
    latency = (
        HardwareRow(
            "link latency (a step of the ring)",
            r"t_{\text{hop}}",
            time_tex(problem.timing.link_latency),
            "",
            "given",
        )
        if problem.timing.link_latency
        else None
    )
    operator = problem.operator
    return _QuestionView(
        _ProblemName(_OperatorName(operator.name, comms_sheet_doc(analysis)), False),
        tensors,
        (link,) if latency is None else (link, latency),
        tuple(f"{tex(d)} = {v}" for d, v in problem.bound),
        (),
    )


def _row(pid: str, analysis: CommsAnalysis) -> Row:
    time = analysis.time
    shown = f"T_comms = {time_text(time)}" if time.is_number else f"T_comms = {time}"
    none = "none (no compute)"
    return Row(
        pid,
        pid.lower(),
        analysis.problem.hardware_name,
        none,
        none,
        "—",
        f"link-bound, {shown}",
        none,
        none,
        "—",
    )


def check_comms_asks(entry: ProblemEntry) -> None:
    """Refuse an ``ask`` a transfer alone does not have (a crossover, an intensity).

    Raises:
        ProblemError: names the problem, the key and the topic.
    """
    for topic in entry.ask:
        if topic not in COMMS_ASKS:
            raise ProblemError(
                f"problem {entry.id!r}: key 'ask' ({topic})",
                "the operator only communicates: no compute, so ask for " + ", ".join(COMMS_ASKS),
            )


def comms_part(pset: ProblemSet, stem: str, index: int, analysis: CommsAnalysis) -> ProblemPart:
    """Problem ``index`` of the set, an operator that only communicates, rendered.

    Raises:
        ProblemError: the problem asks for what a transfer alone does not have (a crossover).
    """
    entry = pset.problems[index]
    check_comms_asks(entry)
    title = f"Problem {pset.number(entry.id)} ({entry.id}): {entry.title}"
    document = comms_document(analysis, level=2)
    context = {**document.context, "title": title, "text": entry.text}
    item = templated_item("kernel", stem, entry.id, None, **context)
    asks = tuple(COMMS_ASKS[t] for t in entry.ask) or tuple(COMMS_ASKS.values())[:2]
    question = {
        "title": entry.title,
        "text": entry.text,
        "view": _question(analysis),
        "asks": asks,
    }
    return ProblemPart(item, question, _row(entry.id, analysis), None)
