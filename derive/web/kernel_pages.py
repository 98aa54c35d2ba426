"""Workbook pages for a set's kernels given by their numbers (``kernel = { flops, bytes }``).

A kernel page has the shape of every page (``GET /api/problems/{id}``): the question, the
givens (the counts, the ceilings with their sources, the timing keys as typed), one answer
box per asked quantity (``intensity``, ``t_lower``, ``mfu``, …: the names ``derive check``
judges for a kernel) and the steps of the worked solution ``derive solve --flops`` prints,
as hints. It adds ``"kind": "kernel"`` and ``"derivation": false`` (a kernel is checked one
quantity at a time). Answers are checked by :func:`derive.check` like any other.
"""

from __future__ import annotations

from derive.catalogue import ProblemKind, Use, box_of, rows_for
from derive.catalogue import table as q
from derive.checking.kernel_check import kernel_for
from derive.errors import DeriveError, ProblemError
from derive.problem.sets.kernels import KernelEntry, kernel_asks
from derive.solution.kernel_steps import kernel_given, kernel_steps, numbers_verdict
from derive.web.book import Asked, Page, html_env, page_of, worked_steps

KERNEL_BOXES: dict[str, tuple[str, str, str]] = {
    row.name: (box.label, box.latex, box.placeholder)
    for row in rows_for(ProblemKind.KERNEL, Use.BOX)
    if (box := box_of(ProblemKind.KERNEL, row.name)) is not None
}
"""A kernel quantity's answer box: its label, its LaTeX symbol ("" when the label says it), a placeholder."""


def _givens(entry: KernelEntry) -> dict:
    """The givens as data: the counts and timing keys as typed, the ceilings with their sources."""
    kernel = kernel_for(entry.spec)
    spec, timing = entry.spec, entry.spec.timing
    return {
        "kernel": {
            q.FLOPS.name: spec.flops,
            q.BYTES.name: spec.bytes,
            q.INTENSITY.name: spec.intensity,
        },
        "chip": kernel.chip.name if kernel.chip else None,
        "chip_title": kernel.chip.title if kernel.chip else None,
        "compute_dtype": kernel.compute_dtype,
        "hardware": [
            {"name": name, "symbol": symbol, "value": figure.text, "source": figure.cite()}
            for name, symbol, figure in (
                ("peak", r"\pi", kernel.peak),
                ("memory bandwidth", r"\beta", kernel.bandwidth),
            )
        ],
        "timing": {key: value for key, value in vars(timing).items() if value is not None},
    }


def kernel_page(entry: KernelEntry, hints: bool) -> Page:
    """Derive one kernel problem and prepare its page.

    Raises:
        ProblemError: the kernel cannot be derived (named by its id).
    """
    try:
        kernel = kernel_for(entry.spec)
    except DeriveError as exc:
        raise ProblemError(f"problem {entry.id!r}", exc.why) from None
    given = kernel_given(kernel, entry.spec.timing)
    steps = kernel_steps(kernel, entry.ask)
    verdict = numbers_verdict(kernel)
    env = html_env()
    worked = worked_steps(entry.title, given, steps, verdict)
    asked = tuple(Asked(q, *KERNEL_BOXES[q]) for q in kernel_asks(entry))
    return page_of(
        entry,
        "kernel",
        asked,
        (_givens(entry), f'<p class="given-line">{env.filters["rich"](given)}</p>'),
        worked,
        hints,
    )
