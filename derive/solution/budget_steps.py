"""The worked steps of a scaling-law budget (``derive budget``): N and D from C, or the rest
from one or two of them. Reads :class:`~derive.model.budget.Budget`; computes nothing.
"""

from __future__ import annotations

import sympy as sp

from derive.catalogue import table as q
from derive.model.budget import CHINCHILLA, KAPLAN, Budget, Given
from derive.solution.notation import tex
from derive.solution.steps import Line, Rich, Step, StepKind, rich
from derive.solution.value_display import decimal_line


def _lines(b: Budget) -> tuple[Line, ...]:
    c, n, d, k, r = (tex(x) for x in (b.compute, b.params, b.tokens, b.flops_per_param_token,
                                       b.tokens_per_param))  # fmt: skip
    ratio = decimal_line("r", r"\frac{D}{N}", rf"\frac{{{d}}}{{{n}}}", value=b.tokens_per_param)
    if b.given is Given.COMPUTE:
        return (
            decimal_line("N", r"\sqrt{\frac{C}{k \cdot r}}", rf"\sqrt{{\frac{{{c}}}{{{k} \cdot {r}}}}}", value=b.params),
            decimal_line("D", r"r \cdot N", rf"{r} \cdot {n}", value=b.tokens),
        )  # fmt: skip
    if b.given is Given.COMPUTE_PARAMS:
        return decimal_line(
            "D", r"\frac{C}{k \cdot N}", rf"\frac{{{c}}}{{{k} \cdot {n}}}", value=b.tokens
        ), ratio
    if b.given is Given.COMPUTE_TOKENS:
        return decimal_line(
            "N", r"\frac{C}{k \cdot D}", rf"\frac{{{c}}}{{{k} \cdot {d}}}", value=b.params
        ), ratio
    compute = decimal_line("C", r"k \cdot N \cdot D", rf"{k} \cdot {n} \cdot {d}", value=b.compute)
    if b.given is Given.PARAMS_TOKENS:
        return compute, ratio
    if b.given is Given.PARAMS:
        return decimal_line("D", r"r \cdot N", rf"{r} \cdot {n}", value=b.tokens), compute
    return decimal_line("N", r"\frac{D}{r}", rf"\frac{{{d}}}{{{r}}}", value=b.params), compute


def budget_steps(b: Budget) -> tuple[Step, ...]:
    """One step: the budget solved in the convention, with its sources."""
    uses_ratio = b.given in (Given.COMPUTE, Given.PARAMS, Given.TOKENS)
    rule = "C = k·N·D" + (", D = r·N" if uses_ratio else "; r = D/N is implied")
    reason = (
        f"Training compute is k = {b.flops_per_param_token} FLOPs per parameter per token "
        f"(2 forward, 4 backward; {KAPLAN})"
    )
    if uses_ratio:
        reason += (
            f"; the compute-optimal model trains on r = {b.tokens_per_param} tokens per parameter"
            f" ({CHINCHILLA}), so C = k·r·N²"
        )
    notes: tuple[Rich, ...] = ()
    if b.given is Given.COMPUTE and not b.params.is_Rational:
        notes = (
            rich("C/(k·r) is not a perfect square: N and D are exact surds, rounded to read."),
        )
    return (Step(StepKind.BUDGET, rule, rich(reason + "."), _lines(b), notes, topic="budget"),)


def budget_given(b: Budget) -> Rich:
    """The givens in one sentence: what was typed, in the convention's symbols."""
    symbols = {
        "compute": "C",
        q.PARAMS.name: "N",
        q.TOKENS.name: "D",
        q.TOKENS_PER_PARAM.name: "r",
        "flops_per_param_token": "k",
    }
    typed = ", ".join(f"{symbols[name]} = {text}" for name, text in b.texts)
    return rich(f"{typed} (C in FLOPs, N parameters, D tokens).")


def _read(value: sp.Expr) -> str:
    """A rounded reading: 5 significant figures, the power of ten as ``e23``."""
    return f"{float(value):.5g}".replace("e+", "e")


def budget_verdict(b: Budget) -> tuple[Rich, ...]:
    """The answer in one bold line: N and D (and C) rounded."""
    return (
        rich(
            f"N ≈ {_read(b.params)} parameters, D ≈ {_read(b.tokens)} tokens, "
            f"C ≈ {_read(b.compute)} FLOPs."
        ),
    )
