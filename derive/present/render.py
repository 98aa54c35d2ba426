"""Rendering: one jinja environment per format, configured explicitly.

Markdown keeps jinja's usual delimiters; LaTeX uses ``<< >>``, ``<% %>``, ``<# #>``
(as sphinx does) so TeX braces never collide. Both use ``StrictUndefined`` and
escape every user string; math is LaTeX in both (``$…$`` in Markdown).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from derive.resources import resource_dir
from derive.solution.steps import Math

__all__ = ["environment", "md_escape", "md_rich", "render", "tex_escape", "tex_rich"]

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~&#])")
_TEX_MAP = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "≈": r"$\approx$",
    "×": r"$\times$",
    "→": r"$\to$",
    "≪": r"$\ll$",
    "≫": r"$\gg$",
    "⇔": r"$\Leftrightarrow$",
    "Σ": r"$\Sigma$",
    "π": r"$\pi$",
    "β": r"$\beta$",
    "η": r"$\eta$",
    "µ": r"$\mu$",
    "÷": r"$\div$",
    "μ": r"$\mu$",
    "·": r"$\cdot$",
    "∞": r"$\infty$",
    "—": "---",
    "–": "--",
    "−": "$-$",
    "…": r"\ldots{}",
    "✓": r"$\checkmark$",
    "✗": r"$\times$",
    "[": "{[}",
    "]": "{]}",
    '"': "''",
    "'": "'",
}


def md_escape(text: str) -> str:
    """Escape prose for Markdown: every character Markdown could read as syntax."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def _tex_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _TEX_MAP:
        return _TEX_MAP[ch]
    if ch == "\n":
        return " "
    return ch if ch in "éèàüöäçñ" else "?"  # other control characters and non-ASCII


_TEX_SPECIAL = re.compile("[" + re.escape("".join(_TEX_MAP)) + r"]|[^\x20-\x7e]")


def tex_escape(text: str) -> str:
    """Escape prose for LaTeX (pdflatex): TeX specials, and unicode math as math.

    Characters pdflatex's default input cannot take are replaced by ``?``.
    """
    return _TEX_SPECIAL.sub(_tex_char, str(text))


def md_rich(parts: str | Iterable[str | Math]) -> str:
    """Rich text (prose and math) as Markdown."""
    if isinstance(parts, str):
        return md_escape(parts)
    return "".join(
        f"${part.latex}$" if isinstance(part, Math) else md_escape(part) for part in parts
    )


def tex_rich(parts: str | Iterable[str | Math]) -> str:
    """Rich text (prose and math) as LaTeX."""
    if isinstance(parts, str):
        return tex_escape(parts)
    return "".join(
        f"${part.latex}$" if isinstance(part, Math) else tex_escape(part) for part in parts
    )


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

    Compiling the templates is ~25 ms of a ~0.33 s cold key (8 %), too little to write
    into a user's home folder unasked, so the cache is opt-in. Inside the folder, the
    cache sits in a subfolder named by a hash of derive's version, the environment's
    settings and filter names, and the jinja and Python versions; jinja itself checks
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


@lru_cache(maxsize=2)
def environment(fmt: str) -> jinja2.Environment:
    """The jinja environment for ``md`` or ``tex``."""
    loader = jinja2.FileSystemLoader(str(resource_dir("templates")))
    common: dict[str, Any] = dict(
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    filters: dict[str, Callable[..., str]]
    if fmt == "md":
        settings = dict(common)
        filters = dict(rich=md_rich, e=md_escape, cell=_md_cell)
    elif fmt == "tex":
        settings = dict(
            block_start_string="<%",
            block_end_string="%>",
            variable_start_string="<<",
            variable_end_string=">>",
            comment_start_string="<#",
            comment_end_string="#>",
            **common,
        )
        filters = dict(rich=tex_rich, e=tex_escape)
    else:
        raise ValueError(fmt)
    env = jinja2.Environment(
        loader=loader, bytecode_cache=_bytecode_cache(settings, tuple(sorted(filters))), **settings
    )
    env.filters.update(filters)
    return env


def render(template: str, fmt: str, **context: Any) -> str:
    """Render a template of the given format."""
    return environment(fmt).get_template(template).render(**context)
