"""The kernels of an answer key: a problem set's ``kernel = { flops, bytes }`` problems.

Each is derived by the pipeline as ``derive solve --flops …`` derives it
(:func:`derive.pipeline.derive_kernel`), its worked solution rendered as that command
renders it (the steps its ``ask`` needs), with a row in the answers-at-a-glance
table and a point on its chip's roofline figure (at its intensity).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import ProblemKind, phrases
from derive.present.escape import md_escape, md_rich, tex_prose_numbers, tex_rich
from derive.present.key.figures import Placement, kernel_placement
from derive.present.key.files import templated_item
from derive.present.key.rows import Row, kernel_row
from derive.problem.sets.kernels import kernel_asks
from derive.problem.sets.problem_set import ProblemSet
from derive.solution.kernel_steps import kernel_given, kernel_steps, numbers_verdict

KERNEL_PHRASES = phrases(ProblemKind.KERNEL)
"""What a questions sheet asks for each kernel quantity."""


@dataclass(frozen=True)
class KernelChapter:
    """What the key templates print for the kernel problems."""

    items: tuple[dict, ...]
    questions: tuple[dict, ...]
    rows: tuple[Row, ...]
    placements: tuple[Placement, ...]


def kernel_chapter(pset: ProblemSet, kernels: Sequence[KernelNumbers], stem: str) -> KernelChapter:
    """Render every kernel problem of the set (``kernels``: each derived, in the set's
    order), numbered as the set's file numbers them."""
    items, questions, rows, placements = [], [], [], []
    for entry, kernel in zip(pset.kernels, kernels, strict=True):
        title = f"Problem {pset.number(entry.id)} ({entry.id}): {entry.title}"
        given = kernel_given(kernel, entry.spec.timing)
        context = {
            "title": title,
            "text": entry.text,
            "given": given,
            "steps": kernel_steps(kernel, entry.ask),
            "verdict": numbers_verdict(kernel),
        }
        items.append(templated_item("kernel", stem, entry.id, None, level=2, **context))
        text_md = f"{md_escape(entry.text)}\n\n" if entry.text else ""
        questions.append(
            {
                "title": entry.title,
                "text": entry.text,
                "model_body": f"{text_md}**Given.** {md_rich(given)}",
                "model_tex": (f"{tex_prose_numbers(entry.text)}\n\n" if entry.text else "")
                + rf"\paragraph{{Given.}} {tex_rich(given)}",
                "asks": tuple(KERNEL_PHRASES[q] for q in kernel_asks(entry)),
            }
        )
        rows.append(kernel_row(entry.id, kernel))
        placement = kernel_placement(entry.id, kernel)
        if placement is not None:
            placements.append(placement)
    return KernelChapter(tuple(items), tuple(questions), tuple(rows), tuple(placements))
