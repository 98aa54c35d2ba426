"""Stage 2, problem: bind an operator to dtypes, a chip, dims and a regime.

- ``binding``: :class:`ProblemSpec` (what the user asked) and :func:`bind` → :class:`Problem`.
- ``dtypes``, ``chips``: the catalogues (chips are data: ``derive/data/chips.toml``).
- ``decimals``: exact decimals from text (``"1.97e14"`` → 197000000000000).
- ``regime``: asymptotic regimes (``"B << D, F"``) parsed into records.
- ``problem_set``, ``toml_file``: problem-set files.
"""
