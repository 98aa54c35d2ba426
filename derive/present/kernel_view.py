"""A kernel given by its numbers (``derive solve --flops … --bytes …``), as a document:
its worked solution (Markdown, LaTeX) or every quantity as exact strings (JSON)."""

from __future__ import annotations

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import table as q
from derive.present.formats import Document
from derive.present.json_export import measured_json, step_json
from derive.present.worked import worked_document
from derive.problem.timing import TimingSpec
from derive.solution.kernel_steps import kernel_given, number_steps, numbers_verdict

__all__ = ["kernel_document", "kernel_json"]


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
    """Every quantity of a kernel by its numbers (exact strings)."""
    measured = kernel.measured
    return {
        q.FLOPS.name: None if kernel.flops is None else str(kernel.flops),
        q.BYTES.name: None if kernel.bytes is None else str(kernel.bytes),
        q.INTENSITY.name: str(kernel.intensity),
        "compute_dtype": kernel.compute_dtype,
        "peak": str(kernel.peak.value),
        "bandwidth": str(kernel.bandwidth.value),
        q.RIDGE.name: str(kernel.ridge),
        q.EFFECTIVE_RIDGE.name: str(kernel.effective_ridge),
        q.ATTAINABLE.name: str(kernel.attainable),
        q.FRACTION_OF_PEAK.name: str(kernel.fraction_of_peak),
        "binding": kernel.binding,
        q.STEP.name: step_json(kernel.step),
        q.MFU.name: None if measured is None or measured.mfu is None else str(measured.mfu),
        q.MBU.name: None if measured is None or measured.mbu is None else str(measured.mbu),
        q.MEASURED.name: measured_json(measured),
    }
