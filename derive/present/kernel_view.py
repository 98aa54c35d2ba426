"""A kernel given by its numbers (``derive solve --flops … --bytes …``), as a document:
its worked solution (Markdown, LaTeX) or every quantity as exact strings (JSON)."""

from __future__ import annotations

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import ProblemKind
from derive.catalogue import table as q
from derive.present.formats import Document
from derive.present.json_export import laid_out, measured_json, step_json
from derive.present.worked import worked_document
from derive.problem.timing import TimingSpec
from derive.solution.kernel_steps import kernel_given, number_steps, numbers_verdict


def kernel_document(kernel: KernelNumbers, timing: TimingSpec | None = None) -> Document:
    """The worked solution of a kernel by its numbers (its timing flags, as typed, among the
    givens), in the templates of a list of steps (``kernel.*.j2``); JSON: :func:`kernel_json`."""
    return worked_document(
        "A kernel by its numbers",
        kernel_given(kernel, timing or TimingSpec()),
        number_steps(kernel),
        numbers_verdict(kernel),
        lambda: kernel_json(kernel),
        level=1,
    )


def kernel_json(kernel: KernelNumbers) -> dict[str, object]:
    """Every quantity of a kernel by its numbers (exact strings): its rows' values, laid out
    with its hardware after the intensity, its step after the fraction of peak and its
    measurement last."""
    return laid_out(
        ProblemKind.KERNEL,
        (kernel,),
        {
            q.INTENSITY: {
                "compute_dtype": kernel.compute_dtype,
                "peak": str(kernel.peak.value),
                "bandwidth": str(kernel.bandwidth.value),
            },
            q.FRACTION_OF_PEAK: {"binding": kernel.binding, q.STEP.name: step_json(kernel.step)},
            q.MBU: {q.MEASURED.name: measured_json(kernel.measured)},
        },
    )
