"""``derive export``: a problem set as homework an LMS imports (PrairieLearn, Moodle, QTI 1.2).

::

    derive export [SET.toml] --to prairielearn|moodle|qti -o DIR [--trust]

No set: the built-in rooflines set. Each problem's question text and givens table are the
workbook's (:mod:`derive.web.book`); each asked quantity's answer is the exact value the
checker judges a claim against (:class:`derive.web.grading.Grader`, as ``derive check``), with
the set's tolerance (its ``rtol``, else derive's 1 %). Everything is rendered in memory first
(a bad set writes nothing), then ``DIR`` is replaced whole (:func:`derive.web.site.write_site`).
The templates are ``derive/web/templates/export_*.j2``; docs/export.md says what each LMS
imports and how.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import pprint
import re
import uuid
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from derive.problem.sets.problem_set import ProblemSet
    from derive.web.book import Asked


TARGETS = ("prairielearn", "moodle", "qti")
_EXACT = re.compile(r"^(?:\S+ [≥≤<>] )?(?P<number>[-+\d./eE]+)(?: (?P<unit>.+))?$")
_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
_ZIP_TIME = (2000, 1, 1, 0, 0, 0)  # a fixed date: the same set zips to the same bytes


@dataclass(frozen=True)
class Answer:
    """One asked quantity of one variant: its exact number, or a formula, and its tolerance."""

    name: str
    label: str
    unit: str
    rtol: Fraction
    value: Fraction | None = None
    formula: str = ""  # sympy's text of a formula answer (PrairieLearn's symbolic input reads it)
    variables: str = ""  # the formula's names, comma-separated
    truth: bool | None = None  # a yes/no's answer

    @property
    def kind(self) -> str:
        """How a box takes it: ``number``, ``truth`` (yes or no) or ``formula``."""
        return "number" if self.value is not None else "formula" if self.truth is None else "truth"

    @property
    def prompt(self) -> str:
        """What the box asks, as HTML: ``<p>Decode rate (in tokens/s)?</p>``."""
        return f"<p>{html.escape(self.label + (f' (in {self.unit})' if self.unit else ''))}?</p>"

    @property
    def key(self) -> str:
        """The answer for the one who grades it, as HTML."""
        return f"<p>The answer: {html.escape(self.exact)}</p>"

    @property
    def exact(self) -> str:
        """The answer as data: ``p/q`` for a number, the formula's text otherwise."""
        truth = "yes" if self.truth else "no"
        return {"number": str(self.value), "truth": truth, "formula": self.formula}[self.kind]

    @property
    def decimal(self) -> str:
        """The number as the shortest decimal that reads back to its nearest float."""
        return repr(float(self.value or 0))

    @property
    def tolerance(self) -> str:
        """The tolerance as an absolute error (Moodle's), a decimal."""
        return repr(float(abs(self.value or Fraction(0)) * self.rtol))

    def bound(self, side: int) -> str:
        """The number plus ``side`` (-1 or 1) times its tolerance: an end of QTI's range."""
        value = self.value or Fraction(0)
        return repr(float(value + side * abs(value) * self.rtol))


@dataclass(frozen=True)
class Question:
    """One problem of one variant: its text and givens as HTML, and the answers it asks."""

    id: str
    title: str
    html: str
    answers: tuple[Answer, ...]


def _answer(box: Asked, rtol: Fraction, said: str, latex: str | None) -> Answer | None:
    """The answer the checker states (``21355787/3271484375 s ≈ 6.5279 ms``, ``B ≥ 121``, a
    formula as LaTeX); None for a yes/no or a word."""
    from derive.formula.reader import parse_formula

    m = _EXACT.match(said.split(" ≈ ")[0].strip())
    if m:
        value = Fraction(m["number"])
        return Answer(box.quantity, box.label, m["unit"] or "", rtol, value)
    if not latex:
        return None
    import sympy as sp

    names = {n: sp.Symbol(n) for n in _LETTER.findall(latex)}
    expr = parse_formula(latex, names, syntax="latex").expr
    names_used = ", ".join(sorted(str(s) for s in expr.free_symbols))
    return Answer(box.quantity, box.label, "", rtol, formula=str(expr), variables=names_used)


def _questions(pset: ProblemSet, skipped: list[str]) -> list[Question]:
    """Every problem of a set in the teacher's order, with its answers (``skipped``: the asked
    quantities no box can take)."""
    from derive.checking.api import DEFAULT_RTOL
    from derive.web.book import build_workbook
    from derive.web.grading import Grader

    book = build_workbook(pset, hints=False)
    entries = {entry.id: entry for entry in (*pset.entries(), *pset.natives)}
    grader = Grader(entries, pset.operators, problem_set=pset)
    out = []
    for pid, page in book.pages.items():
        answers = []
        for box in page.asked:
            result = grader.check(pid, box.quantity, "1")
            rtol = Fraction(pset.rtol(pid, box.quantity) or DEFAULT_RTOL)
            found = _answer(box, rtol, result.expected or "", result.expected_latex)
            said = "" if found else grader.check(pid, box.quantity, "yes").expected or ""
            if said.split(" ")[0] in ("yes", "no"):  # a yes/no: "1" reads as neither
                found = Answer(box.quantity, box.label, "", rtol, truth=said.startswith("yes"))
            answers.append(found) if found else skipped.append(f"{pid}/{box.quantity}")
        html = f"{page.detail['question_html']}\n{page.detail['givens_html']}"
        out.append(Question(pid, page.entry.title, html, tuple(answers)))
    return out


def _prairielearn(title: str, stem: str, variants: list[list[Question]]) -> dict[str, str]:
    """A question folder per problem: ``info.json``, ``question.html``, ``server.py``."""
    from jinja2.utils import markupsafe

    from derive.web.book import html_env

    files = {}
    for q in variants[0]:
        folder = f"questions/{stem}-{q.id}"
        info = {
            "comment": f"generated by derive export: {title}, problem {q.id}",
            "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"derive:{stem}/{q.id}")),
            "title": q.title,
            "topic": title,
            "tags": ["derive", stem],
            "type": "v3",
            "singleVariant": len(variants) == 1,
        }
        each = [next(v for v in qs if v.id == q.id) for qs in variants]
        data = [{"shown": {"html": v.html}, "answers": {a.name: a.exact for a in v.answers}}
                for v in each]  # fmt: skip
        literal = markupsafe.Markup(pprint.pformat(data, width=96, sort_dicts=False))
        numbers = tuple(a.name for a in q.answers if a.value is not None)
        files[f"{folder}/info.json"] = json.dumps(info, indent=2, ensure_ascii=False) + "\n"
        for name, more in (
            ("question.html", {}),
            ("server.py", dict(data=literal, numbers=numbers)),
        ):
            template = html_env().get_template(f"export_{name}.j2")
            files[f"{folder}/{name}"] = template.render(title=title, q=q, **more)
    return files


def _moodle(title: str, stem: str, variants: list[list[Question]]) -> dict[str, str]:
    """One Moodle XML quiz file: a numerical question per asked quantity and variant."""
    from derive.web.book import html_env

    template = html_env().get_template("export_moodle.xml.j2")
    return {f"{stem}.moodle.xml": template.render(title=title, variants=variants)}


def _qti(title: str, stem: str, variants: list[list[Question]]) -> dict[str, str | bytes]:
    """An IMS content package as Canvas imports it: the manifest, the assessment, and both zipped."""
    from derive.web.book import html_env

    env = html_env()
    files: dict[str, str | bytes] = {
        "imsmanifest.xml": env.get_template("export_manifest.xml.j2").render(
            title=title, stem=stem
        ),
        f"{stem}/{stem}.xml": env.get_template("export_qti.xml.j2").render(
            title=title, stem=stem, variants=variants
        ),
    }
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(zipfile.ZipInfo(name, _ZIP_TIME), text)
    return {**files, f"{stem}.zip": packed.getvalue()}


_Writer = Callable[[str, str, list[list[Question]]], Mapping[str, str | bytes]]
_WRITERS: dict[str, _Writer] = {"prairielearn": _prairielearn, "moodle": _moodle, "qti": _qti}


def add_export_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``derive export`` on the CLI's subparsers."""
    p = sub.add_parser("export", help="export a problem set to PrairieLearn, Moodle or QTI 1.2")
    p.add_argument("set", nargs="?", metavar="SET.toml", help="problem set (default: built-in)")
    p.add_argument("--to", required=True, choices=TARGETS, help="the format an LMS imports")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the export's folder")
    p.add_argument("--trust", action="store_true", help="allow the set's Python operator files")
    p.set_defaults(handler=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Derive every variant's answers, render the format's files, write ``DIR`` whole."""
    from derive.commands.output_files import safe_name
    from derive.problem.sets.variants import variants_of
    from derive.web.book import load_source
    from derive.web.site import MARKER, Site, write_site

    _, pset = load_source(args.set, args.trust)
    stem = safe_name(Path(args.set).stem if args.set else "rooflines")
    skipped: list[str] = []
    variants = [_questions(variant, skipped) for _, variant in variants_of(pset)]
    rendered = _WRITERS[args.to](pset.title, stem, variants)
    files = {k: v.encode() if isinstance(v, str) else v for k, v in rendered.items()}
    head = f"derive export --to {args.to}: {' '.join(pset.title.split())}"  # one line: names follow
    files[MARKER] = "\n".join([head, *files]).encode()
    write_site(Site(files, {}), Path(args.output))
    for name in dict.fromkeys(skipped):
        print(f"not exported: {name} (a word: no box of these formats takes it)")
    for name in rendered:
        print(f"wrote {Path(args.output) / name}")
    return 0
