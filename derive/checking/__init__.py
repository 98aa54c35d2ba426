"""Checking: judge a claimed quantity, or a whole derivation, exactly.

- ``quantities``: what can be claimed (``QUANTITIES``) and the expected value of each.
- ``judge``: one claim → a :class:`Judgement`; ``chain``: a derivation, line by line.
- ``matching``: exact proof, tolerance and threshold comparisons.
- ``diagnose``, ``variants``, ``terms``, ``regimes``, ``words``: why a wrong claim is wrong.
- ``verdict_text``: the verdict as text or JSON.

Claims are read only by :mod:`derive.formula`; nothing here evaluates text.
The command ``derive check`` is :mod:`derive.commands.check`.
"""
