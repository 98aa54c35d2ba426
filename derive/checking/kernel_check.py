"""``derive.check`` for a kernel given by its numbers, and how its verdict prints.

::

    >>> import derive
    >>> from derive.problem.kernel_spec import KernelSpec
    >>> kernel = KernelSpec(flops="1e12", bytes="2.5e9", chip="h100")
    >>> derive.check(kernel, "intensity", "400 FLOPs/byte").verdict
    <Verdict.CORRECT: 'correct'>

The kernel is derived once per spec (cached, immutable); the claim is read and judged by
:mod:`derive.checking.kernel_claims` on the one claim path (:func:`derive.checking.api.check`).
Here: what a kernel's verdict carries, and its JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.analysis.kernel_numbers import KernelNumbers
from derive.catalogue import table as q
from derive.catalogue.reading import attributes, text_or_none
from derive.checking.kernel_claims import KernelClaim
from derive.checking.matching import How
from derive.formula.decimals import fmt_decimal
from derive.pipeline.cache import kernel_analysis


@dataclass(frozen=True)
class KernelDetail:
    """What the command line prints beyond the record of a kernel claim."""

    kernel: KernelNumbers
    claim: KernelClaim
    exact: sp.Rational
    how: How | None

    def json_parts(self, hidden: bool) -> tuple[dict, dict, dict]:
        """Its keys of the verdict's JSON (:func:`~derive.checking.model_verdict_text.judged_json`)."""
        exact, claim = self.exact, self.claim
        judged = {
            "claimed": str(claim.value),
            "unit": claim.answer.unit.text if claim.answer.unit else None,
            "expected": None if hidden else str(exact),
            "expected_value": None if hidden or exact.is_Integer else fmt_decimal(exact),
        }
        matched = {"matched": None if self.how is None else self.how.value}
        return judged, {"kernel": _kernel_json(self.kernel)}, matched


kernel_for = kernel_analysis
"""The kernel a spec describes, derived (cached by :mod:`derive.pipeline.cache`)."""


def _kernel_json(kernel: KernelNumbers) -> dict[str, object]:
    """The kernel judged against: its counts and ceilings (exact strings)."""
    return {
        **attributes(kernel, "flops bytes", text_or_none),
        q.INTENSITY.name: str(kernel.intensity),
        "chip": None if kernel.chip is None else kernel.chip.name,
        "compute_dtype": kernel.compute_dtype,
        "peak": str(kernel.peak.value),
        "bandwidth": str(kernel.bandwidth.value),
    }
