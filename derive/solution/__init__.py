"""Stage 4, solution: the worked solution as typed steps read off the analysis.

- ``steps``: :class:`StepKind` (the closed set of step kinds) and the step records.
- ``notation``: the one LaTeX printer (sympy's ``LatexPrinter``, overridden where we differ);
  steps carry their LaTeX, so the printer lives with them.
- ``crossover_steps``, ``layer_steps``, ``step_time_steps``, ``collective_steps``,
  ``measured_steps``, ``kernel_steps`` (a kernel by its numbers), ``serving_steps``,
  ``model_steps``, ``training_steps``: the steps of each topic; ``verdicts``: the closing
  sentences; ``value_display``: how a step shows a value.
- ``builder``: :func:`build_solution` (an :class:`Analysis` → a :class:`Solution`).

To add a step, add its kind to ``StepKind`` and a builder function in ``builder``;
the templates in ``templates/`` lay it out.
"""
