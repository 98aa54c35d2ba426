"""Stage 5, present: turning derivations into text (the printer is ``solution.notation``).

- ``view`` and ``render``: the view model and the jinja environments for ``templates/``.
- ``json_export``: the JSON contract of ``derive solve --format json``.
- ``listing``: ``derive chips`` and ``derive operators``.
"""
