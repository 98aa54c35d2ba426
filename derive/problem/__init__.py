"""Stage 2, problem: bind an operator to dtypes, a chip, dims and a regime.

- ``binding``: :class:`ProblemSpec` (what the user asked) and :func:`bind` → :class:`Problem`.
- ``dtypes``, ``chips``: the catalogues (chips are data: ``derive/data/chips.toml``).
- ``regime``: asymptotic regimes (``"B << D, F"``) parsed into records.
- ``problem_set``, ``toml_file``, ``input_files``: problem-set files, read with bounds;
  ``set_checks`` validates their tables, ``set_errors`` reports their errors.
- ``operator_tables``, ``set_registry``: operators declared as data in a set; trust for Python files.
"""
