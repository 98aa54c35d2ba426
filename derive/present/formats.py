"""Output formats as records, and the one way a document becomes text: :func:`render`.

A :class:`Format` says what a format is: its ``--format`` name, its file suffix, how it
escapes user text, its jinja syntax when it is written from templates, and how it renders
a :class:`Document`. :data:`FORMATS` is the table every command, the key
the jinja environments read; a new format is a row here and a template per document.

A :class:`Document` is a report in no format yet: the stem of its templates
(``"solution"`` → ``templates/solution.md.j2``, ``solution.tex.j2``), what they print, its
JSON, and the sections that follow it (a model's serving step).

    >>> format_named("tex").suffix
    '.tex'
    >>> sorted(FORMATS)
    ['json', 'md', 'tex', 'text']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import jinja2

from derive.errors import ProblemError
from derive.present.escape import md_escape, md_pair, md_rich, tex_code, tex_prose_numbers, tex_rich
from derive.present.plain import display, heading, pair, plain_latex, rich, table, wrap
from derive.present.tex_layout import (
    tex_break_sum,
    tex_breakable,
    tex_column_widths,
    tex_is_wide,
    tex_rich_narrow,
    tex_table_is_wide,
)


@dataclass(frozen=True)
class JinjaSyntax:
    """A templated format's jinja environment: delimiters and options, filters, tests.

    Every environment is strict (``StrictUndefined``), trims blocks and keeps the trailing
    newline. ``rich`` (prose with math) is a filter every template uses, so each format
    names its own; ``e`` is the format's :attr:`Format.escape`.
    """

    delimiters: Mapping[str, str]
    filters: Mapping[str, Callable[..., object]]
    tests: Mapping[str, Callable[..., bool]] = field(default_factory=dict)

    @property
    def settings(self) -> dict[str, Any]:
        """The keyword arguments of :class:`jinja2.Environment`."""
        return dict(
            self.delimiters,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
        )


@dataclass(frozen=True)
class Document:
    """A report before it has a format.

    ``template`` is the stem of its templates (each templated format adds its suffix and
    ``.j2``); ``context`` is what they print; ``data`` builds its JSON object. A document
    built in code for a format (a comparison's tables) names that format's writer in
    ``written``; one printed as it is in every format but JSON (a CSV, a value per line)
    has ``verbatim``; one whose templates' context is derived only when it prints (a
    comparison's rows) is ``built`` then, in each format ``written`` does not cover. ``sections`` follow the document: each is printed after it (after a
    blank line) and its JSON goes under its key (or, keyed ``""``, joins the document's). A document without ``data`` has no JSON.
    """

    template: str = ""
    context: Mapping[str, Any] = field(default_factory=dict)
    data: Callable[[], object] | None = None
    written: Mapping[str, Callable[[], str]] = field(default_factory=dict)
    verbatim: Callable[[], str] | None = None
    built: Callable[[], Document] | None = None
    sections: tuple[tuple[str, Document], ...] = ()


@dataclass(frozen=True)
class Format:
    """One output format: its name, file suffix, escaping, templates and writer."""

    name: str  # the value of --format
    suffix: str  # of files written in it; its templates are <stem><suffix>.j2
    meaning: str  # what it is, in one line (the unknown-format error lists them)
    escape: Callable[[str], str]  # user text as this format prints it (the ``e`` filter)
    writer: Callable[[Document, Format], str]  # how a document becomes text
    jinja: JinjaSyntax | None = None  # templated formats only

    @property
    def template_suffix(self) -> str:
        """The ending of this format's templates: ``.md.j2``."""
        return self.suffix + ".j2"


def _own_text(document: Document, fmt: Format) -> str:
    """The document alone (no sections), from its writer for ``fmt`` or its template."""
    if fmt.name in document.written:
        return document.written[fmt.name]()
    if document.verbatim is not None:
        return document.verbatim()
    if document.built is not None:
        return _own_text(document.built(), fmt)
    if not document.template:  # a command offered a format this document is not built in
        raise ValueError(f"no {fmt.name} form of this document (it is built in code)")
    from derive.present.render import render_template

    return render_template(document.template + fmt.template_suffix, fmt.name, **document.context)


def _then_sections(text: str, document: Document, fmt: Format) -> str:
    """``text``, then each section in ``fmt`` after a blank line (one keyed ``""`` joins it:
    after exactly one blank line, the text's own trailing ones dropped)."""
    for key, section in document.sections:
        text = (text + "\n" if key else text.rstrip("\n") + "\n\n") + fmt.writer(section, fmt)
    return text


def _templated(document: Document, fmt: Format) -> str:
    """The document's template for ``fmt``, then each section's, a blank line between."""
    return _then_sections(_own_text(document, fmt), document, fmt)


def _json_object(document: Document) -> Any:
    data: Any = document.data() if document.data is not None else {}
    for key, section in document.sections if isinstance(data, dict) else ():
        data = data | ({key: _json_object(section)} if key else _json_object(section))
    return data


def _json(document: Document, fmt: Format) -> str:
    """The document's JSON object (sections under their keys), indented, UTF-8 as it is;
    nothing for a document without data (a tally beside a CSV)."""
    if document.data is None:
        return ""
    return json.dumps(_json_object(document), indent=2, ensure_ascii=False) + "\n"


_TEXT = JinjaSyntax(  # text's filters are plain.py's, each under its own name
    delimiters={},
    filters={"math": plain_latex}
    | {f.__name__: f for f in (rich, heading, wrap, table, display, pair)},
)


_MARKDOWN = JinjaSyntax(
    delimiters={},
    filters=dict(rich=md_rich, cell=md_escape, pair=md_pair),
)

# LaTeX uses << >>, <% %>, <# #> (as sphinx does) so TeX braces never collide with jinja's.
_LATEX = JinjaSyntax(
    delimiters=dict(
        block_start_string="<%",
        block_end_string="%>",
        variable_start_string="<<",
        variable_end_string=">>",
        comment_start_string="<#",
        comment_end_string="#>",
    ),
    filters=dict(
        rich=tex_rich,
        breaksum=tex_break_sum,
        narrow=tex_rich_narrow,
        breakable=tex_breakable,
        code=tex_code,
        colwidths=tex_column_widths,
    ),
    tests=dict(wide=tex_is_wide, widetable=tex_table_is_wide),
)

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            name="md",
            suffix=".md",
            meaning="Markdown, math as LaTeX in $…$",
            escape=md_escape,
            writer=_templated,
            jinja=_MARKDOWN,
        ),
        Format(
            name="tex",
            suffix=".tex",
            meaning="a LaTeX fragment for pdflatex",
            escape=tex_prose_numbers,
            writer=_templated,
            jinja=_LATEX,
        ),
        Format(
            name="text",
            suffix=".txt",
            meaning="plain text for a terminal",
            escape=str,
            writer=_templated,
            jinja=_TEXT,
        ),
        Format(
            name="json",
            suffix=".json",
            meaning="one JSON object, exact values as strings",
            escape=str,
            writer=_json,
        ),
    )
}


def format_named(name: str) -> Format:
    """The format ``--format NAME`` names."""
    try:
        return FORMATS[name]
    except KeyError:
        known = "; ".join(f"{f.name} ({f.meaning})" for f in FORMATS.values())
        raise ProblemError("--format", f"unknown format {name!r}; known: {known}") from None


def templated_formats() -> tuple[Format, ...]:
    """The formats written from jinja templates (those the key preloads)."""
    return tuple(f for f in FORMATS.values() if f.jinja is not None)


def as_text(document: Document) -> Document:
    """The document with its own text plain in every format but JSON (a verdict as a terminal shows it)."""
    alone = replace(document, sections=())
    return replace(document, written={}, verbatim=lambda: render(alone, FORMATS["text"]))


def render(document: Document, fmt: Format | str) -> str:
    """The document as text in the format (a :class:`Format` or its name)."""
    chosen = fmt if isinstance(fmt, Format) else format_named(fmt)
    return chosen.writer(document, chosen)
