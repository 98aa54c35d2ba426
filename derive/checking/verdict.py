"""The verdicts a check can give (their values are the CLI's and the JSON's strings, a contract)."""

from __future__ import annotations

from enum import Enum


class Verdict(Enum):
    """The verdict on a claim or a derivation.

    ``CORRECT``: equal to the exact quantity (or within the tolerance, or the integer
    threshold of a crossover). ``LEADING``: equal to its leading order under the regime.
    ``INCORRECT``: neither, with a diagnosis. ``UNREADABLE``: the claim could not be read.
    """

    CORRECT = "correct"
    LEADING = "correct-leading-order"
    INCORRECT = "incorrect"
    UNREADABLE = "unreadable"

    def __str__(self) -> str:
        return self.value
