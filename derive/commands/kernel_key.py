"""The kernels of an answer key: a problem set's ``kernel = { flops, bytes }`` problems.

Each is derived as ``derive solve --flops …`` derives it
(:func:`~derive.analysis.kernel_numbers.kernel_of`), its worked solution rendered as that
command renders it (the steps its ``ask`` needs), with a row in the answers-at-a-glance
table and a point on its chip's roofline figure (at its intensity).
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.analysis.kernel_numbers import KernelNumbers, kernel_of
from derive.commands.key_figures import Placement, kernel_placement
from derive.commands.key_rows import Row, kernel_row
from derive.errors import DeriveError
from derive.present.render import md_escape, md_rich, render, tex_escape, tex_rich
from derive.problem.problem_set import KernelEntry, ProblemSet
from derive.problem.set_errors import in_file_terms, raise_collected
from derive.problem.timing import TimingSpec
from derive.solution.number_steps import number_steps, numbers_given, numbers_verdict
from derive.solution.steps import Rich, Step, StepKind, rich

__all__ = ["KERNEL_PHRASES", "KernelChapter", "kernel_chapter", "kernel_given", "kernel_steps"]

KERNEL_PHRASES = {
    "intensity": "the arithmetic intensity",
    "ridge": "the ridge point of the hardware",
    "effective_ridge": "the ridge point of the derated ceilings",
    "attainable": "the attainable FLOP/s",
    "fraction_of_peak": "the fraction of peak",
    "t_math": "T_math",
    "t_mem": "T_mem",
    "t_lower": "the lower bound on the runtime, T_lower",
    "t_upper": "the upper bound on the runtime, T_upper",
    "mfu": "the MFU the measurement implies",
    "mbu": "the MBU the measurement implies",
}
"""What a questions sheet asks for each kernel quantity."""

_STEP_OF = {
    **dict.fromkeys(("t_math", "t_mem", "t_lower", "t_upper"), StepKind.BOUNDS),
    **dict.fromkeys(("mfu", "mbu"), StepKind.MEASURED),
}
_TIMING_WORDS = (
    ("efficiency", "efficiency η = {} of both ceilings"),
    ("compute_efficiency", "compute efficiency η_c = {}"),
    ("memory_efficiency", "memory efficiency η_m = {}"),
    ("launch_overhead", "launch overhead {} per kernel"),
    ("measured_time", "measured time {}"),
    ("measured_flops_per_s", "measured {} FLOP/s"),
    ("measured_bytes_per_s", "measured {} bytes/s"),
)


def kernel_given(kernel: KernelNumbers, timing: TimingSpec) -> Rich:
    """The givens: the counts and the ceilings, then the timing keys as typed (one sentence)."""
    typed = [words.format(getattr(timing, key)) for key, words in _TIMING_WORDS]
    given = [text for text, (key, _) in zip(typed, _TIMING_WORDS) if getattr(timing, key)]
    sentence = "; ".join(given)
    more = f" {sentence[:1].upper()}{sentence[1:]}." if given else ""
    return numbers_given(kernel) + rich(more)


def kernel_steps(kernel: KernelNumbers, ask: tuple[str, ...]) -> tuple[Step, ...]:
    """The steps answering ``ask`` (all without one); the roofline step always stays (it says
    which ceiling binds)."""
    steps = number_steps(kernel)
    if not ask:
        return steps
    kinds = {_STEP_OF.get(quantity, StepKind.ATTAINABLE) for quantity in ask}
    return tuple(s for s in steps if s.kind in kinds or s.kind is StepKind.ATTAINABLE)


@dataclass(frozen=True)
class KernelChapter:
    """What the key templates print for the kernel problems."""

    items: tuple[dict, ...]
    questions: tuple[dict, ...]
    rows: tuple[Row, ...]
    placements: tuple[Placement, ...]


def _asked(entry: KernelEntry, kernel: KernelNumbers) -> tuple[str, ...]:
    if entry.ask:
        return entry.ask
    has = ["intensity", "ridge", "attainable"]
    if kernel.step is not None:
        has += ["t_lower", "t_upper"]
    if kernel.measured is not None:
        has += [q for q in ("mfu", "mbu") if getattr(kernel.measured, q) is not None]
    return tuple(has)


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
                "asks": tuple(KERNEL_PHRASES[q] for q in _asked(entry, kernel)),
            }
        )
        rows.append(kernel_row(entry.id, kernel))
        placements.append(kernel_placement(entry.id, kernel))
    raise_collected(pset.source, errors)
    return KernelChapter(tuple(items), tuple(questions), tuple(rows), tuple(placements))
