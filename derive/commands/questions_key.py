"""The questions of an answer key: givens, defined quantities and equations of every problem.

:func:`questions_part` answers every problem's questions (the pipeline, under the time
budget), adds each one's worked lines to the problem's item, its asks to the question
sheet and its answers to the glance; the problems of givens and equations alone become
the key's last chapter ("Costs, budgets and what-ifs" in the built-in key).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from derive.deadline import run_with_deadline
from derive.declare.registry import Registry
from derive.errors import ProblemError
from derive.pipeline import answer_set_questions
from derive.present.escape import md_escape, tex_escape
from derive.present.questions_view import (
    glance_text,
    questions_asks,
    questions_given,
    questions_latex,
    questions_markdown,
)
from derive.problem.problem_set import ProblemSet

__all__ = ["QuestionRow", "QuestionsPart", "questions_part"]

_EXPECT_RTOL = sp.Rational(1, 200)
CHAPTER = "Costs, budgets and what-ifs"
CHAPTER_TEXT = (
    "Problems of givens, defined quantities and equations alone: each line is derived "
    "exactly, with its units, from the givens and from other problems' quantities."
)


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


def _check_expect(pset: ProblemSet, answered: dict) -> None:
    """A problem's ``expect`` of a defined quantity must match its exact value (to 0.5 %)."""
    from derive.formula.limits import RejectError
    from derive.questions.read import read_formula

    for entry in pset.every_entry():
        spec = getattr(entry, "questions", None)
        if spec is None or entry.id not in answered:
            continue
        for name, text in spec.expect:
            got = answered[entry.id].answer(name)
            try:
                want = read_formula(text, {})
            except RejectError as reject:
                raise ProblemError(spec.label("expect", name), reject.why) from None
            if got is None or not got.value.is_number:
                raise ProblemError(spec.label("expect", name), "the key derives no number for it")
            if want.measure.exponents != got.measure.exponents or abs(
                got.value - want.value
            ) > _EXPECT_RTOL * abs(got.value):
                raise ProblemError(
                    spec.label("expect", name),
                    f"expected {text}, derived {float(got.value):.6g} {got.unit}".rstrip(),
                )


def questions_part(
    pset: ProblemSet,
    items: list[dict],
    questions: list[dict],
    registry: Registry,
    time_limit: float | None,
    stem: str = "",
) -> QuestionsPart:
    """Answer the set's questions; extend ``items`` and ``questions`` in place; the new chapter."""
    answered = run_with_deadline(
        answer_set_questions, pset, registry, seconds=time_limit, what=f"{pset.source}: questions"
    )
    if not answered:
        return QuestionsPart((), (), ())
    _check_expect(pset, answered)
    by_anchor = {item["anchor"]: i for i, item in enumerate(items)}
    glances = []
    entries = list(pset.entries())
    for entry, question in zip(entries, questions):
        q = answered.get(entry.id)
        index = by_anchor.get(entry.id.lower())
        if q is None or index is None:
            continue
        item = items[index]
        items[index] = {
            **item,
            "body": item["body"] + "\n\n" + questions_markdown(q, 3).rstrip("\n"),
            "tex": item["tex"] + "\n\n" + questions_latex(q).rstrip("\n"),
        }
        question["asks"] = tuple(question["asks"]) + questions_asks(q, entry.ask)
        glance = glance_text(q, entry.ask)
        glances.append((entry.id, md_escape(glance), tex_escape(glance)))
    new_items: list[dict] = []
    new_questions: list[dict] = []
    rows: list[QuestionRow] = []
    first = len(items) + 1
    for number, alone in enumerate(pset.questions, start=first):
        q = answered[alone.id]
        title = f"Problem {number} ({alone.id}): {alone.title}"
        text = f"{md_escape(alone.text)}\n\n" if alone.text else ""
        tex_text = f"{tex_escape(alone.text)}\n\n" if alone.text else ""
        new_items.append(
            {
                "anchor": alone.id.lower(),
                "body": f"## {md_escape(title)}\n\n{text}" + questions_markdown(q, 3).rstrip("\n"),
                "tex": f"\\subsection{{{tex_escape(title)}}}\\label{{{stem}:{alone.id}}}\n\n{tex_text}"
                + questions_latex(q).rstrip("\n"),
                "plot": None,
            }
        )
        given = questions_given(q)
        new_questions.append(
            {
                "title": alone.title,
                "text": alone.text,
                "model_body": text + (f"**Given.** {md_escape(given)}\n" if given else ""),
                "model_tex": tex_text
                + (f"\\textbf{{Given.}} {tex_escape(given)}\n" if given else ""),
                "asks": questions_asks(q, alone.ask),
            }
        )
        glance = glance_text(q, alone.ask)
        rows.append(
            QuestionRow(alone.id, alone.id.lower(), "—", "—", md_escape(glance), tex_escape(glance))
        )
    if new_items:  # the chapter of problems of givens and equations alone
        new_items[0] = {
            **new_items[0],
            "body": f"## {CHAPTER}\n\n{CHAPTER_TEXT}\n\n" + new_items[0]["body"],
            "tex": f"\\subsection*{{{CHAPTER}}}\n{CHAPTER_TEXT}\n\n" + new_items[0]["tex"],
        }
    return QuestionsPart(tuple(new_items), tuple(new_questions), tuple(rows), tuple(glances))
