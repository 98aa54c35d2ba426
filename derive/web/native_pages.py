"""Workbook pages for a set's budgets and what-ifs (``budget = {…}``, ``what_if = {…}``).

A page has the shape of every page (``GET /api/problems/{id}``) with ``"kind": "budget"``
or ``"what_if"``: the question, its keys as given, one answer box per asked quantity
(labelled by the catalogue's phrase, asking for a number with its unit) and the steps of
``derive budget`` or of the what-if section, as hints. Answers are checked by
:func:`derive.check` like any other (a defined quantity's reading: units and slips).
"""

from __future__ import annotations

from derive.analysis.what_if import WhatIf
from derive.catalogue import find, phrase_of
from derive.errors import DeriveError
from derive.model.budget import Budget
from derive.problem.sets.errors import in_file_terms
from derive.problem.sets.natives import NativeEntry
from derive.questions.natives import native_answer, native_quantities, solve_native
from derive.solution.budget_steps import budget_given, budget_steps, budget_verdict
from derive.solution.what_if_steps import what_if_given, what_if_steps, what_if_verdict
from derive.web.book import Asked, Page, html_env, page_of, worked_steps


def _asked(entry: NativeEntry) -> tuple[Asked, ...]:
    out = []
    for name in entry.ask or native_quantities(entry):
        unit = native_answer(entry, name).unit
        wanted = f"{unit}: a number with its unit" if unit else "a number"
        row = find(name)
        symbol = row.latex_in(entry.kind) if row else ""
        out.append(Asked(name, phrase_of(entry.kind, name) or name, symbol, wanted))
    return tuple(out)


def native_page(entry: NativeEntry, hints: bool, source: str = "") -> Page:
    """Solve one budget or what-if and prepare its page.

    Raises:
        ProblemError: it cannot be solved (naming the set's key).
    """
    try:
        solved = solve_native(entry)
        asked = _asked(entry)
    except DeriveError as exc:
        raise in_file_terms(exc, source, entry.id) from None
    if isinstance(solved, Budget):
        given, steps, verdict = budget_given(solved), budget_steps(solved), budget_verdict(solved)
    else:
        assert isinstance(solved, WhatIf)
        given, steps, verdict = (
            what_if_given(solved),
            what_if_steps(solved),
            what_if_verdict(solved),
        )
    env = html_env()
    worked = worked_steps(entry.title, given, steps, verdict)
    keys = {k: v for k, v in vars(entry.spec).items() if v is not None}
    return page_of(
        entry,  # type: ignore[arg-type]
        entry.kind.value,
        asked,
        (keys, f'<p class="given-line">{env.filters["rich"](given)}</p>'),
        worked,
        hints,
    )
