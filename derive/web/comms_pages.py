"""Workbook pages for an operator that only communicates (a bare all-reduce: no FLOPs).

A comms page has the shape of every page (``GET /api/problems/{id}``): the question, the
givens (each collective with its tensor, dtype and group P; the link bandwidth and the
link latency with their sources; the bound dims), one answer box per quantity the problem
asks among ``t_comms``, ``t_lower`` and ``t_upper`` (their boxes are the catalogue's, in
an operator problem), and the steps ``derive solve`` prints, as hints. It keeps
``"kind": "operator"``, adds ``"only_communicates": true`` and has ``"derivation": false``
(a time is checked one quantity at a time). Answers are checked by :func:`derive.check`,
as ``derive check`` checks them.
"""

from __future__ import annotations

from derive.analysis.comms_only import CommsAnalysis
from derive.catalogue import ProblemKind, box_of
from derive.catalogue import table as q
from derive.formula.durations import time_tex
from derive.pipeline import CommsDerivation
from derive.present.comms_view import comms_document
from derive.present.key.comms import COMMS_ASKS, check_comms_asks
from derive.present.render import render_template
from derive.problem.sets.problem_set import ProblemEntry
from derive.solution.notation import tex, tex_text_number
from derive.web.book import Asked, Page, html_env, page_of, step_chunks, steps_as_html

COMMS_SHOWS: dict[str, tuple[str, ...]] = {
    q.COLLECTIVES.name: (q.T_COMMS.name,),
    q.STEP.name: (q.T_COMMS.name,),
    q.BOUNDS.name: (q.T_LOWER.name, q.T_UPPER.name),
}
"""The answer boxes each ``ask`` of a comms-only problem shows (its keys: the key's asks)."""

assert set(COMMS_SHOWS) == set(COMMS_ASKS)  # what a sheet may ask, the page boxes

_A_TIME = "a time with its unit (70 us, 2.3 ms)"
"""Every box of a comms page takes a time (the checker judges one only when dims are bound)."""


def _asked(entry: ProblemEntry, analysis: CommsAnalysis) -> tuple[Asked, ...]:
    """The boxes of what the problem asks (by default, as its sheet: the collectives and the
    step); none while a dim is free (the time is then a formula, which is not checked)."""
    if not analysis.all_bound:
        return ()
    asks = entry.ask or tuple(COMMS_ASKS)[:2]
    out = []
    for name in dict.fromkeys(n for ask in asks for n in COMMS_SHOWS[ask]):
        box = box_of(ProblemKind.OPERATOR, name)
        assert box is not None  # the catalogue boxes every time a comms page shows
        out.append(Asked(name, box.label, box.latex, _A_TIME))
    return tuple(out)


def _givens(analysis: CommsAnalysis) -> dict:
    """The givens as data: math fields are LaTeX, the rest plain text."""
    problem = analysis.problem
    dtypes = dict(problem.dtypes)
    link_name = problem.chip.link_name if problem.chip is not None else "link"
    hardware = [
        {
            "name": f"{link_name} bandwidth (one way)",
            "symbol": r"\beta_{\text{link}}",
            "value": tex_text_number(problem.link.text),
            "unit": "B/s",
            "source": problem.link.cite(),
        }
    ]
    if problem.timing.link_latency:
        hardware.append(
            {
                "name": "link latency (a step of the ring)",
                "symbol": r"t_{\text{hop}}",
                "value": time_tex(problem.timing.link_latency),
                "unit": "",
                "source": "given",
            }
        )
    return {
        "operator": problem.operator.name,
        "chip": problem.chip.name if problem.chip else None,
        "chip_title": problem.chip.title if problem.chip else None,
        q.COLLECTIVES.name: [
            {
                "kind": item.collective.kind.value.replace("_", "-"),
                "tensor": item.collective.name,
                "shape": r" \times ".join(tex(s) for s in item.collective.shape)
                or r"\text{scalar}",
                "dtype": dtypes[item.collective.name].name,
                "width": tex(dtypes[item.collective.name].width),
                "group": tex(item.group),  # P at the bound dims (the dim while free)
            }
            for item in analysis.collectives
        ],
        "hardware": hardware,
        "bound": [f"{tex(dim)} = {value}" for dim, value in problem.bound],
    }


def comms_page(entry: ProblemEntry, derivation: CommsDerivation, hints: bool) -> Page:
    """Prepare the page of a problem whose operator only communicates.

    Raises:
        ProblemError: the problem asks for what a transfer alone does not have (a crossover).
    """
    check_comms_asks(entry)
    analysis = derivation.analysis
    document = comms_document(analysis, level=1)
    context = document.context
    steps, verdict = context["steps"], context["verdict"]
    env = html_env()
    steps_html = steps_as_html(steps, verdict)
    markdown = render_template("kernel.md.j2", "md", **context)
    givens = _givens(analysis)
    givens_html = env.get_template("comms_givens.html.j2").render(
        given=context["given"], givens=givens
    )
    return page_of(
        entry,
        ProblemKind.OPERATOR.value,
        _asked(entry, analysis),
        (givens, givens_html),
        (step_chunks(markdown), steps_html, tuple(step.heading for step in steps)),
        hints,
        operator=analysis.problem.operator.name,
        only_communicates=True,
    )
