"""Stage 3, analysis: every exact quantity of a bound problem.

- ``analyse``: :func:`analyse` (a :class:`Problem` → a frozen :class:`Analysis`).
- ``crossover``: where T_math = T_mem, its verdict and record; solved exactly in
  ``crossover_solve`` (with ``crossover_roots`` and ``crossover_bounds``).
- ``leading_order``: the intensity under an asymptotic regime.
- ``parts``: the per-part breakdown of a composite layer.
- ``algebra``: the fast polynomial-ring algebra behind all of it (sympy is its reference):
  reading into rings and back; ``algebra_ratios`` cancels and factors, ``algebra_substitution``
  substitutes numbers.
"""
