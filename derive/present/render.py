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

from derive.present.compiled_templates import compiled_loader
from derive.present.formats import FORMATS, JinjaSyntax, templated_formats
from derive.resources import resource_dir

__all__ = ["environment", "render", "source_environments"]


def _syntax(fmt: str) -> JinjaSyntax:
    """The jinja syntax of a templated format (:data:`~derive.present.formats.FORMATS`)."""
    syntax = FORMATS[fmt].jinja
    if syntax is None:
        raise ValueError(f"format {fmt!r} is not written from templates")
    return syntax


def _filters(fmt: str) -> dict[str, Callable[..., object]]:
    """The format's filters: its syntax's, and ``e``, its escaping of user text."""
    return {**_syntax(fmt).filters, "e": FORMATS[fmt].escape}


def _environment(fmt: str, *, compiled: bool) -> jinja2.Environment:
    syntax = _syntax(fmt)
    settings = syntax.settings
    loader = compiled_loader(fmt, settings) if compiled else None
    env = jinja2.Environment(
        loader=loader or jinja2.FileSystemLoader(str(resource_dir("templates"))),
        **settings,
    )
    env.filters.update(_filters(fmt))
    env.tests.update(syntax.tests)
    return env


@cache
def environment(fmt: str) -> jinja2.Environment:
    """The jinja environment for ``md`` or ``tex``: the templates compiled ahead of time when
    they are current (:mod:`derive.present.compiled_templates`), else read from source."""
    return _environment(fmt, compiled=True)


def source_environments() -> dict[str, tuple[jinja2.Environment, dict[str, Any]]]:
    """Each format's environment reading the template sources, with its settings (what
    :func:`~derive.present.compiled_templates.write_compiled` compiles)."""
    return {
        f.name: (_environment(f.name, compiled=False), _syntax(f.name).settings)
        for f in templated_formats()
    }


def render(template: str, fmt: str, **context: Any) -> str:
    """Render one template of a templated format (a document: :func:`~derive.present.formats.render`)."""
    return environment(fmt).get_template(template).render(**context)
