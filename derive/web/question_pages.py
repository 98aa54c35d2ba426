"""Workbook pages for problems of givens and equations alone (a cost, a budget, an Amdahl update).

Such a problem has no operator, kernel or model: its page has the shape of every page
(``GET /api/problems/{id}``) with ``"kind": "questions"``, the question, the givens and
equations as the question sheet states them, and one answer box per defined quantity or
unknown it asks, labelled as the sheet asks it (its ``label``, never its formula) and
asking for a number with its unit. It has no steps (``"steps": 0``); answers are judged by
:func:`derive.checking.api.check_defined`, as ``derive check --problem-set`` judges them.
"""

from __future__ import annotations

import html

from derive.present.questions_view import ask_label, questions_given
from derive.problem.sets.problem_set import ProblemSet, QuestionEntry
from derive.questions.records import Questions, Role
from derive.web.book import Asked, Page, page_of

QUESTIONS_KIND = "questions"
"""The ``kind`` of such a page in the workbook's JSON."""


def _asked(entry: QuestionEntry, q: Questions) -> tuple[Asked, ...]:
    """A box per defined quantity or unknown asked (all of them when the problem asks none)."""
    out = []
    for a in q.derived:
        if entry.ask and a.name not in entry.ask:
            continue
        wanted = f"{a.measure.describe()}: a number with its unit" if a.unit else "a number"
        out.append(Asked(a.name, ask_label(q, a), "", wanted))
    return tuple(out)


def _givens(q: Questions) -> list[dict[str, str]]:
    """The givens as data (name, value as typed, base unit)."""
    return [
        {"name": a.name, "value": a.text, "unit": a.unit} for a in q.answers if a.role is Role.GIVEN
    ]


def questions_page(pset: ProblemSet, entry: QuestionEntry, q: Questions, hints: bool) -> Page:
    """The page of a problem of givens and equations alone (``q``: its answered questions)."""
    given = questions_given(q)
    givens_html = f"<p>{html.escape(given)}</p>" if given else ""
    return page_of(
        entry, QUESTIONS_KIND, _asked(entry, q), (_givens(q), givens_html), ((), (), ()), hints
    )
