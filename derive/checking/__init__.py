"""Checking: judge a claimed quantity, or a whole derivation, exactly.

- ``api``: the Python API, :func:`derive.check` and :func:`derive.check_derivation`
  (frozen records, a :class:`~derive.checking.verdict.Verdict` enum, thread-safe), and the
  one claim → judgement → report path every kind's judge takes (``api._judged``).
- ``claims``: a claim read for one problem and quantity (units converted, left side named,
  ``\\pi``/``\\beta`` replaced); the text itself is taken apart by :mod:`derive.formula.answer`.
- ``quantities``: what can be claimed (``QUANTITIES``, each a :class:`Kind` on a :class:`Roof`)
  and the expected value of each.
- ``judge``: one claim → a :class:`Judgement`; ``chain``: a derivation, step by step
  (it reads the text too: a file or a string, LaTeX environments taken apart).
- ``matching``: exact proof, tolerance and threshold comparisons.
- ``diagnose`` (with the candidate regimes), ``variants``, ``terms``, ``hints`` and the ``*_slips`` modules:
  why a wrong claim is wrong.
- ``expected_text``: expected values as the worked solution prints them; ``hidden``: the
  answer kept back.
- ``verdict_text``: an operator's verdict as text or JSON; ``model_verdict_text``: every other kind's.
- ``model_claims``: a claim about a whole-model quantity (``params``, ``kv_bytes_per_token``,
  ``max_batch``, ``mfu``, …), read and judged; ``model_verdict_text`` prints it.
- ``kernel_claims``, ``kernel_slips``, ``kernel_check``: a claim about a kernel given by its
  numbers (``derive check --flops … --bytes …``; a :class:`~derive.problem.kernel_spec.KernelSpec`
  from Python): its quantities, the slips named, and what its verdict carries.
- ``comms_check``, ``comms_slips``: a claimed time of an operator that only communicates;
  ``defined_check``: a set's defined quantity, budget or what-if.

Claims are read only by :mod:`derive.formula`; nothing here evaluates text.
The command ``derive check`` is :mod:`derive.commands.check` (and ``grade`` for CSVs).
"""
