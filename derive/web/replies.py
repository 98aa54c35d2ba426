"""The JSON bodies of the workbook's API answers, built once for both ways a page is answered.

``derive serve`` answers the page over HTTP (:mod:`derive.web.app`); a published workbook
(``derive publish``) answers the very same requests in the browser, its checker running in
Pyodide (:mod:`derive.web.in_browser`) and its pages read from files. Both build their JSON
here, so a verdict, a step or a hidden expected answer reads the same either way.
"""

from __future__ import annotations

import dataclasses
import html

from derive.catalogue.reading import attributes
from derive.web.book import Page
from derive.web.grading import CheckResult, DerivationResult, Reading


def step_reply(page: Page, i: int, closed: tuple[str, ...] = (), served: bool = True) -> dict:
    """The JSON of ``GET /api/problems/{id}/steps/{k}`` for step ``i + 1`` of a page; a step
    that states answers not yet right (``closed``: their labels) is withheld: its title and
    why (``served``: by ``derive serve``, which opens it; else a published site's file)."""
    reply = {
        "problem": page.entry.id,
        "k": i + 1,
        "steps": len(page.steps_html),
        "title": page.step_titles[i],
        "markdown": page.steps_markdown[i] if i < len(page.steps_markdown) else "",
        "html": page.steps_html[i],
    }
    if not closed:
        return reply
    why = f"This step states the answer to {'; '.join(closed)}: " + (
        "it opens once that answer is right." if served else "a published workbook leaves it out."
    )
    said = (
        f'<h3>{html.escape(page.step_titles[i])}</h3>\n<p class="withheld">{html.escape(why)}</p>\n'
    )
    return {**reply, "markdown": f"{why}\n", "html": said, "withheld": list(closed)}


def check_reply(result: CheckResult, show_expected: bool) -> dict:
    """The JSON of ``POST /api/check``: no ``expected`` keys at all when they are hidden."""
    out = attributes(result, "verdict read_as read_as_latex", None)
    out |= {"diagnosis": list(result.diagnosis), "exact": result.exact}
    if show_expected:
        out |= attributes(result, "expected expected_latex", None)
    return out


def derivation_reply(result: DerivationResult, show_expected: bool) -> dict:
    """The JSON of ``POST /api/check-derivation``: no ``expected`` key when it is hidden."""
    out = dataclasses.asdict(result)
    if not show_expected:
        del out["expected"]
    return out


def read_reply(reading: Reading) -> dict:
    """The JSON of ``POST /api/read`` (the live preview)."""
    return dataclasses.asdict(reading)
