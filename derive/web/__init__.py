"""The workbook in the browser (``derive serve``): the last stage, it may import any other.

:mod:`~derive.web.book` prepares a problem set's pages, :mod:`~derive.web.grading` is the
one adapter into the checker, :mod:`~derive.web.pool` runs checks in worker processes with
a hard time limit, :mod:`~derive.web.bodies` reads and validates request bodies, and
:mod:`~derive.web.app` is the Starlette app (the JSON API and the static page).
"""
