"""The questions of an answer key: givens, defined quantities and equations of every problem.

:func:`questions_part` takes every problem's answered questions (the pipeline answers them,
under the time budget), adds each one's worked lines to the problem's item, its asks to the
question sheet and its answers to the glance; the problems of givens and equations alone
(and the budgets and what-ifs) become items of their own, numbered as the set lists them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from derive.present.escape import md_escape, tex_escape, tex_prose_numbers
from derive.present.formats import Document, render
from derive.present.key.files import key_item
from derive.present.questions_view import (
    glance,
    glance_answers,
    questions_asks,
    questions_document,
    questions_given,
)
from derive.problem.sets.natives import NativeEntry
from derive.problem.sets.problem_set import ProblemSet, QuestionEntry
from derive.questions.records import Answer, Questions


@dataclass(frozen=True)
class NativeProblem:
    """A set's budget or what-if, solved: its worked document and its asked answers."""

    entry: NativeEntry
    document: Document
    answers: tuple[Answer, ...]
    phrases: tuple[str, ...]  # what the question sheet asks, one per answer
    given: str = ""  # its keys as typed, for the question sheet


@dataclass(frozen=True)
class QuestionRow:
    """A row of the models-and-questions table at a glance."""

    id: str
    anchor: str
    model: str
    hardware: str
    answers: str
    answers_tex: str


@dataclass(frozen=True)
class QuestionsPart:
    """The items, questions and rows a key gains from its problems' questions."""

    items: tuple[dict, ...]
    questions: tuple[dict, ...]
    rows: tuple[QuestionRow, ...]
    glances: tuple[tuple[str, str, str], ...] = ()  # (id, Markdown, LaTeX) of other rows

    def glance_rows(self, rows: tuple) -> tuple:
        """The models' rows with their problems' defined answers added, then the new rows."""
        extra = {pid: (md, tex) for pid, md, tex in self.glances}
        out = []
        for row in rows:
            if row.id in extra:
                md, tex = extra[row.id]
                row = replace(
                    row, answers=f"{row.answers}; {md}", answers_tex=f"{row.answers_tex}; {tex}"
                )
            out.append(row)
        return (*out, *self.rows)


def questions_part(
    pset: ProblemSet,
    items: list[dict],
    questions: list[dict],
    answered: Mapping[str, Questions],
    stem: str = "",
    natives: tuple[NativeProblem, ...] = (),
) -> QuestionsPart:
    """Show the set's answered questions: extend ``items`` and ``questions`` in place, and
    return the chapter of budgets, what-ifs (``natives``) and problems of givens and
    equations alone, and the glance rows."""
    if not answered and not natives:
        return QuestionsPart((), (), ())
    by_anchor = {item["anchor"]: i for i, item in enumerate(items)}
    glances = []
    entries = list(pset.entries())
    for entry, question in zip(entries, questions):
        q = answered.get(entry.id)
        index = by_anchor.get(entry.id.lower())
        if q is None or index is None:
            continue
        item, shown = items[index], questions_document(q)
        items[index] = {
            **item,
            "body": item["body"] + "\n\n" + render(shown, "md").rstrip("\n"),
            "tex": item["tex"] + "\n\n" + render(shown, "tex").rstrip("\n"),
        }
        question["asks"] = tuple(question["asks"]) + questions_asks(q, entry.ask)
        glances.append((entry.id, *glance(q, entry.ask)))
    own = [
        _own_item(
            n.entry,
            (pset.number(n.entry.id), stem),
            n.document,
            (n.given, n.phrases),
            glance_answers(n.answers, n.entry.kind),
        )
        for n in natives
    ] + [
        _own_item(
            alone,
            (pset.number(alone.id), stem),
            questions_document(q),
            (questions_given(q), questions_asks(q, alone.ask)),
            glance(q, alone.ask),
        )
        for alone, q in ((a, answered[a.id]) for a in pset.questions)
    ]
    new_items, new_questions, rows = (tuple(part) for part in zip(*own)) if own else ((), (), ())
    return QuestionsPart(new_items, new_questions, rows, tuple(glances))


def _own_item(
    entry: NativeEntry | QuestionEntry,
    where: tuple[int, str],
    body: Document,
    sheet: tuple[str, tuple[str, ...]],
    glanced: tuple[str, str],
) -> tuple[dict, dict, QuestionRow]:
    """A problem of its own (a budget, a what-if, givens and equations alone) as an item of
    the chapter (its number and the key's stem ``where``, its worked ``body`` in Markdown and
    LaTeX), its question (the sheet's givens and asks) and its glance row."""
    number, stem = where
    title = f"Problem {number} ({entry.id}): {entry.title}"
    text = f"{md_escape(entry.text)}\n\n" if entry.text else ""
    tex_text = f"{tex_prose_numbers(entry.text)}\n\n" if entry.text else ""
    item = key_item(
        entry.id,
        f"## {md_escape(title)}\n\n{text}" + render(body, "md"),
        f"\\subsection{{{tex_escape(title)}}}\\label{{{stem}:{entry.id}}}\n\n{tex_text}"
        + render(body, "tex"),
    )
    given, asks = sheet
    question = {
        "title": entry.title,
        "text": entry.text,
        "model_body": text + (f"**Given.** {md_escape(given)}\n" if given else ""),
        "model_tex": tex_text
        + (f"\\textbf{{Given.}} {tex_prose_numbers(given)}\n" if given else ""),
        "asks": asks,
    }
    return item, question, QuestionRow(entry.id, entry.id.lower(), "—", "—", *glanced)
