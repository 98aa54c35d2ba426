"""Rendering: one jinja environment per format, configured explicitly.

Markdown keeps jinja's usual delimiters; LaTeX uses ``<< >>``, ``<% %>``, ``<# #>``
(as sphinx does) so TeX braces never collide. Both use ``StrictUndefined`` and
escape every user string (:mod:`derive.present.escape`); math is LaTeX in both
(``$…$`` in Markdown), fitted to a column by :mod:`derive.present.tex_layout`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from derive.present.compiled_templates import FORMATS, compiled_loader
from derive.present.escape import md_escape, md_rich, tex_escape, tex_rich
from derive.present.tex_layout import (
    tex_break_sum,
    tex_breakable,
    tex_column_widths,
    tex_is_wide,
    tex_rich_narrow,
    tex_table_is_wide,
)
from derive.resources import resource_dir

__all__ = ["environment", "render", "source_environments"]


def _md_cell(text: str) -> str:
    return md_escape(text)


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


def _configuration(
    fmt: str,
) -> tuple[dict[str, Any], dict[str, Callable[..., object]], dict[str, Callable[..., bool]]]:
    """The settings, filters and tests of the ``md`` or ``tex`` environment."""
    common: dict[str, Any] = dict(
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    if fmt == "md":
        return dict(common), dict(rich=md_rich, e=md_escape, cell=_md_cell), {}
    if fmt == "tex":
        settings = dict(
            block_start_string="<%",
            block_end_string="%>",
            variable_start_string="<<",
            variable_end_string=">>",
            comment_start_string="<#",
            comment_end_string="#>",
            **common,
        )
        filters: dict[str, Callable[..., object]] = dict(
            rich=tex_rich,
            e=tex_escape,
            breaksum=tex_break_sum,
            narrow=tex_rich_narrow,
            breakable=tex_breakable,
            colwidths=tex_column_widths,
        )
        return settings, filters, dict(wide=tex_is_wide, widetable=tex_table_is_wide)
    raise ValueError(fmt)


def _environment(fmt: str, *, compiled: bool) -> jinja2.Environment:
    settings, filters, tests = _configuration(fmt)
    loader = compiled_loader(fmt, settings) if compiled else None
    env = jinja2.Environment(
        loader=loader or jinja2.FileSystemLoader(str(resource_dir("templates"))),
        bytecode_cache=None if loader else _bytecode_cache(settings, tuple(sorted(filters))),
        **settings,
    )
    env.filters.update(filters)
    env.tests.update(tests)
    return env


@lru_cache(maxsize=2)
def environment(fmt: str) -> jinja2.Environment:
    """The jinja environment for ``md`` or ``tex``: the templates compiled ahead of time when
    they are current (:mod:`derive.present.compiled_templates`), else read from source."""
    return _environment(fmt, compiled=True)


def source_environments() -> dict[str, tuple[jinja2.Environment, dict[str, Any]]]:
    """Each format's environment reading the template sources, with its settings (what
    :func:`~derive.present.compiled_templates.write_compiled` compiles)."""
    return {fmt: (_environment(fmt, compiled=False), _configuration(fmt)[0]) for fmt in FORMATS}


def render(template: str, fmt: str, **context: Any) -> str:
    """Render a template of the given format."""
    return environment(fmt).get_template(template).render(**context)
