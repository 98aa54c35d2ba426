"""Rendering a template: one jinja environment per templated format, configured explicitly.

Each format's syntax (delimiters, filters, tests) is its record in
:data:`derive.present.formats.FORMATS`: Markdown keeps jinja's usual delimiters; LaTeX uses
``<< >>``, ``<% %>``, ``<# #>`` (as sphinx does) so TeX braces never collide. Both use
``StrictUndefined`` and escape every user string (:mod:`derive.present.escape`); math is
LaTeX in both (``$…$`` in Markdown), fitted to a column by :mod:`derive.present.tex_layout`.
A whole document in any format is :func:`derive.present.formats.render`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from derive.present.compiled_templates import compiled_loader
from derive.present.formats import FORMATS, JinjaSyntax, templated_formats
from derive.resources import resource_dir

__all__ = ["environment", "render", "source_environments"]


class _QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
    """jinja's file cache of compiled templates, where a cache that fails is only slower."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # unreadable or corrupt: compile the template instead
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache(
    settings: dict[str, Any], filters: tuple[str, ...]
) -> jinja2.BytecodeCache | None:
    """Compiled templates cached in the folder ``DERIVE_TEMPLATE_CACHE`` names; off by default.

    Used only when the templates compiled ahead of time are not current (an edited
    template, another jinja release): compiling them then costs a small part of a cold key
    (benchmarks/README.md), too little to write into a user's home folder unasked, so the
    cache is opt-in. Inside the folder, the cache sits in a subfolder named by a hash of
    derive's version, the environment's settings and filter names, and the jinja and
    Python versions; jinja itself checks
    each template's source checksum, so an edited template is recompiled. The subfolder
    must be the user's own and not writable by others (compiled code is executed), else
    there is no cache. ``DERIVE_NO_CACHE=1`` turns it off. Output never depends on it.
    """
    base = os.environ.get("DERIVE_TEMPLATE_CACHE", "")
    if not base or os.environ.get("DERIVE_NO_CACHE", "") not in ("", "0"):
        return None
    try:
        from derive import __version__

        key = repr(
            (__version__, sorted(settings.items()), filters, jinja2.__version__, sys.version)
        )
        folder = Path(base) / f"templates-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        status = folder.stat()
        if hasattr(os, "getuid") and (status.st_uid != os.getuid() or status.st_mode & 0o022):
            return None
    except Exception:  # unwritable, not a folder, anything: render without a cache
        return None
    return _QuietBytecodeCache(str(folder))


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
        bytecode_cache=None if loader else _bytecode_cache(settings, tuple(sorted(_filters(fmt)))),
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
