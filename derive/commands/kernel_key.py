"""The kernels of an answer key: a problem set's ``kernel = { flops, bytes }`` problems.

Each is derived as ``derive solve --flops …`` derives it
(:func:`~derive.analysis.kernel_numbers.kernel_of`), its worked solution rendered as that
command renders it (the steps its ``ask`` needs), with a row in the answers-at-a-glance
table and a point on its chip's roofline figure (at its intensity).
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.analysis.kernel_numbers import kernel_of
from derive.catalogue import ProblemKind, phrases
from derive.commands.key_figures import Placement, kernel_placement
from derive.commands.key_rows import Row, kernel_row
from derive.errors import DeriveError
from derive.present.escape import md_escape, md_rich, tex_escape, tex_rich
from derive.present.render import render
from derive.problem.kernel_problems import kernel_asks
from derive.problem.problem_set import ProblemSet
from derive.problem.set_errors import in_file_terms, raise_collected
from derive.solution.number_steps import kernel_given, kernel_steps, numbers_verdict

__all__ = ["KERNEL_PHRASES", "KernelChapter", "kernel_chapter"]

KERNEL_PHRASES = phrases(ProblemKind.KERNEL)
"""What a questions sheet asks for each kernel quantity."""


@dataclass(frozen=True)
class KernelChapter:
    """What the key templates print for the kernel problems."""

    items: tuple[dict, ...]
    questions: tuple[dict, ...]
    rows: tuple[Row, ...]
    placements: tuple[Placement, ...]


def kernel_chapter(pset: ProblemSet, first_number: int, stem: str) -> KernelChapter:
    """Derive and render every kernel problem of the set, numbered from ``first_number``.

    Raises:
        ProblemError: a problem cannot be derived (said in the file's own terms; the set's
            parser has already checked every key, so this is rare).
    """
    items, questions, rows, placements = [], [], [], []
    errors: list[DeriveError] = []
    for number, entry in enumerate(pset.kernels, start=first_number):
        try:
            kernel = kernel_of(entry.spec)
        except DeriveError as error:
            errors.append(in_file_terms(error, pset.source, entry.id))
            continue
        title = f"Problem {number} ({entry.id}): {entry.title}"
        given = kernel_given(kernel, entry.spec.timing)
        context = {
            "title": title,
            "text": entry.text,
            "given": given,
            "steps": kernel_steps(kernel, entry.ask),
            "verdict": numbers_verdict(kernel),
        }
        items.append(
            {
                "anchor": entry.id.lower(),
                "body": render("kernel.md.j2", "md", level=2, **context).rstrip("\n"),
                "tex": render("kernel.tex.j2", "tex", label=f"{stem}:{entry.id}", **context).rstrip(
                    "\n"
                ),
                "plot": None,
            }
        )
        text_md = f"{md_escape(entry.text)}\n\n" if entry.text else ""
        questions.append(
            {
                "title": entry.title,
                "text": entry.text,
                "model_body": f"{text_md}**Given.** {md_rich(given)}",
                "model_tex": (f"{tex_escape(entry.text)}\n\n" if entry.text else "")
                + rf"\paragraph{{Given.}} {tex_rich(given)}",
                "asks": tuple(KERNEL_PHRASES[q] for q in kernel_asks(entry)),
            }
        )
        rows.append(kernel_row(entry.id, kernel))
        placements.append(kernel_placement(entry.id, kernel))
    raise_collected(pset.source, errors)
    return KernelChapter(tuple(items), tuple(questions), tuple(rows), tuple(placements))
