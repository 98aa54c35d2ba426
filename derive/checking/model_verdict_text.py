"""Printing the check of a whole-model claim: a few readable lines, or the JSON object.

The shape follows :mod:`derive.checking.verdict_text` (``verdict``, ``quantity``,
``read_as``, ``expected``, ``relative_error``, ``diagnosis``), with what the claim was
about (the model, the kernel, the operator) in place of the operator's context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import sympy as sp

from derive.catalogue.reading import attributes
from derive.formula.decimals import fmt_decimal
from derive.present.report import Entry, Report

if TYPE_CHECKING:
    from derive.checking.api import CheckResult


def model_claim_report(result: CheckResult, rtol: sp.Rational) -> Report:
    """The verdict as a report (``expected`` left out when it was hidden): every kind's but
    an operator's (a kernel's, a comms-only operator's, a budget's, a defined quantity's)."""
    entries = [
        Entry("verdict", result.verdict.value),
        Entry("quantity", str(result.quantity)),
        Entry("claim read as", str(result.read_as)),
    ]
    if result.expected is not None:
        entries.append(Entry("expected", result.expected))
    if result.relative_error is not None:
        tolerance = f"{result.relative_error} (tolerance {fmt_decimal(100 * rtol, 3)}%)"
        entries.append(Entry("relative error", tolerance))
    return Report(tuple(entries), (("diagnosis", tuple(result.diagnosis)),))


def claim_json(
    result: CheckResult,
    rtol: sp.Rational,
    judged: Mapping[str, object],
    about: Mapping[str, object],
    matched: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """A judged claim as JSON, in the frame every kind's shares: what was claimed and how it
    was read, then the kind's ``judged`` keys (its claimed and expected values, None when
    hidden), the expected text, the errors, ``matched`` (a kernel's), the diagnosis, and
    last what the claim was ``about`` (the model, the kernel, the operator)."""
    return {
        "verdict": result.verdict.value,
        **attributes(result, "quantity claim read_as", None),
        **judged,
        "expected_text": result.expected,
        "expected_hidden": result.expected is None,
        "relative_error": result.relative_error,
        "rtol": str(rtol),
        "exact": result.exact,
        **(matched or {}),
        "diagnosis": list(result.diagnosis),
        **about,
    }


def judged_json(result: CheckResult, rtol: sp.Rational) -> dict[str, object]:
    """A judged claim of every kind but an operator's as JSON (exact values as strings;
    expected values None when hidden): the frame of :func:`claim_json`, filled by the
    claim's detail (``json_parts``: the model's, the kernel's, the comms-only operator's)."""
    judged, about, matched = result.detail.json_parts(result.expected is None)  # type: ignore[union-attr]
    return claim_json(result, rtol, judged, about, matched)
