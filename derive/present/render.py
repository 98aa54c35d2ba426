"""Rendering a template: one jinja environment per templated format, configured explicitly.

Each format's syntax (delimiters, filters, tests) is its record in
:data:`derive.present.formats.FORMATS`: Markdown keeps jinja's usual delimiters; LaTeX uses
``<< >>``, ``<% %>``, ``<# #>`` (as sphinx does) so TeX braces never collide. Both use
``StrictUndefined`` and escape every user string (:mod:`derive.present.escape`); math is
LaTeX in both (``$…$`` in Markdown), fitted to a column by :mod:`derive.present.tex_layout`.
A whole document in any format is :func:`derive.present.formats.render`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import jinja2

from derive.present.formats import FORMATS, JinjaSyntax
from derive.resources import resource_dir


def _syntax(fmt: str) -> JinjaSyntax:
    """The jinja syntax of a templated format (:data:`~derive.present.formats.FORMATS`)."""
    syntax = FORMATS[fmt].jinja
    if syntax is None:
        raise ValueError(f"format {fmt!r} is not written from templates")
    return syntax


def _filters(fmt: str) -> dict[str, Callable[..., object]]:
    """The format's filters: its syntax's, and ``e``, its escaping of user text."""
    return {**_syntax(fmt).filters, "e": FORMATS[fmt].escape}


@cache
def environment(fmt: str) -> jinja2.Environment:
    """The jinja environment for ``md`` or ``tex``, reading the templates from their sources."""
    syntax = _syntax(fmt)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates"))), **syntax.settings
    )
    env.filters.update(_filters(fmt))
    env.tests.update(syntax.tests)
    return env


def render_template(template: str, fmt: str, **context: Any) -> str:
    """Render one template of a templated format (a document: :func:`~derive.present.formats.render`)."""
    return environment(fmt).get_template(template).render(**context)
