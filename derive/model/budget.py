"""A scaling-law budget: the parameters N and tokens D a training compute C buys.

Two conventions, each named with its source in the worked steps:

- ``C = k·N·D`` with k = 6 FLOPs per parameter per token (2 forward, 4 backward; Kaplan et
  al. 2020, "Scaling Laws for Neural Language Models", arXiv:2001.08361);
- ``D = r·N`` with r = 20 tokens per parameter at the compute-optimal point (Hoffmann et al.
  2022, "Training Compute-Optimal Large Language Models" (Chinchilla), arXiv:2203.15556).

Given C alone, N = √(C/(k·r)) and D = r·N, exact (a surd when C/(k·r) is not a square);
given C and one of N, D, the other is C/(k·N) or C/(k·D) and r is what they imply; given
N and D, C = k·N·D and r = D/N; given N or D alone, the other follows from r and C = k·N·D.
A given value is never replaced.

>>> b = compute_budget(compute="5.76e23")
>>> b.params, b.tokens
(40000000000*sqrt(3), 800000000000*sqrt(3))
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import sympy as sp

from derive.catalogue import table as q
from derive.errors import ProblemError
from derive.formula.decimals import parse_positive

KAPLAN = "Kaplan et al. 2020, arXiv:2001.08361"
CHINCHILLA = "Hoffmann et al. 2022 (Chinchilla), arXiv:2203.15556"


class Given(Enum):
    """Which of C, N, D the budget was given (the others are solved for)."""

    COMPUTE = "compute"  # C: N and D at r tokens per parameter
    COMPUTE_PARAMS = "compute and params"  # C and N: D (r implied)
    COMPUTE_TOKENS = "compute and tokens"  # C and D: N (r implied)
    PARAMS_TOKENS = "params and tokens"  # N and D: C = k·N·D (r implied)
    PARAMS = q.PARAMS.name  # N: D = r·N, C = k·N·D
    TOKENS = q.TOKENS.name  # D: N = D/r, C = k·N·D


@dataclass(frozen=True)
class Budget:
    """C, N and D, exact, with the convention (k, r) and what was given.

    Attributes:
        compute: C, FLOPs; ``params``: N; ``tokens``: D.
        flops_per_param_token: k; ``tokens_per_param``: r (given, or D/N when implied).
        given: which were given; ``texts``: the flags as typed, by name.
    """

    compute: sp.Expr
    params: sp.Expr
    tokens: sp.Expr
    flops_per_param_token: sp.Rational
    tokens_per_param: sp.Expr
    given: Given
    texts: tuple[tuple[str, str], ...]


def _read(text: str | None, flag: str) -> sp.Rational | None:
    return None if text is None else parse_positive(str(text), flag)


def compute_budget(
    compute: str | None = None,
    params: str | None = None,
    tokens: str | None = None,
    tokens_per_param: str | None = None,
    flops_per_param_token: str | None = None,
) -> Budget:
    """Solve C = k·N·D (and D = r·N when only one of C, N, D is given) exactly.

    Raises:
        ProblemError: nothing given, all three given, a tokens-per-parameter ratio given
            with two of them (it is then implied), or a number that is not positive.
    """
    c, n, d = _read(compute, "--compute"), _read(params, "--params"), _read(tokens, "--tokens")
    r_given = _read(tokens_per_param, "--tokens-per-param")
    k = _read(flops_per_param_token, "--flops-per-param-token") or sp.Integer(6)
    r = r_given or sp.Integer(20)
    texts = tuple(
        (name, str(text).strip())
        for name, text in (
            ("compute", compute),
            (q.PARAMS.name, params),
            (q.TOKENS.name, tokens),
            (q.TOKENS_PER_PARAM.name, tokens_per_param),
            ("flops_per_param_token", flops_per_param_token),
        )
        if text is not None
    )
    count = sum(x is not None for x in (c, n, d))
    if count == 0:
        raise ProblemError("derive budget", "give --compute C (or --params N or --tokens D)")
    if count == 3:
        raise ProblemError("--tokens", "C, N and D are one equation: give two of them at most")
    if count == 2 and r_given is not None:
        raise ProblemError(
            "--tokens-per-param", "two of C, N, D fix the ratio D/N: drop --tokens-per-param"
        )
    if c is not None and n is not None:
        return Budget(c, n, c / (k * n), k, c / (k * n * n), Given.COMPUTE_PARAMS, texts)
    if c is not None and d is not None:
        return Budget(c, c / (k * d), d, k, k * d * d / c, Given.COMPUTE_TOKENS, texts)
    if n is not None and d is not None:
        return Budget(k * n * d, n, d, k, d / n, Given.PARAMS_TOKENS, texts)
    if c is not None:
        n_opt = sp.sqrt(c / (k * r))
        return Budget(c, n_opt, r * n_opt, k, r, Given.COMPUTE, texts)
    if n is not None:
        return Budget(k * n * r * n, n, r * n, k, r, Given.PARAMS, texts)
    assert d is not None
    return Budget(k * (d / r) * d, d / r, d, k, r, Given.TOKENS, texts)
