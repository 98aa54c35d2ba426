"""``derive check --problem-set SET --answers answers.csv``: grade many answers at once.

The answers are a CSV file with a header row and the columns ``who, problem, quantity,
claim`` (other columns are ignored); a row may name an operator problem, a kernel
given by its numbers or a whole-model problem of the set (``quantity`` then ``params``, ``max_batch``, …). Every row is judged with :func:`derive.check` and
one row per answer is written, with the csv module, to stdout or ``-o FILE``: ``who,
problem, quantity, claim, verdict, read_as, expected, diagnosis, reason, position``
(``diagnosis`` joins its sentences with `` | ``; ``expected`` is empty with
``--hide-expected``; a cell a spreadsheet would run as a formula starts with ``'``). Rows come out in the order they came in.
A set with ``variants`` grades each row against its own variant: the row's ``variant``
column when the CSV has one, else its ``who``'s variant; the output gains a ``variant`` column.

A file that is not such a CSV is refused before anything is written (exit 2). A row
naming a problem the set does not have, or a quantity its problem does not have (with a
"did you mean"), a row of more fields than the header (an unquoted comma in a claim), and
an answer past ``--time-limit`` (the budget of each answer) are rows with the verdict
``refused`` and the reason (``line 3: problem 'q9': no such problem …``); an answer that
cannot be read is a row with the verdict ``unreadable``; every other row is graded. Each
distinct answer is judged once, in worker processes (a progress line on stderr for long
files). The exit code is 0 when every row was read and graded, 1 otherwise.

``--format json`` writes ``{"answers": [one record per row, refused rows included],
"students": {who: {right, answered, asked}}}`` instead of the CSV (``right``: correct or
correct at leading order; ``answered``: rows not refused; ``asked``: the answer boxes of
the set's workbook). The text output ends with the same per-student table (on stdout after ``-o
FILE``, on stderr while stdout holds the CSV).
"""

from __future__ import annotations

import argparse
import csv
import io
import operator
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind, did_you_mean
from derive.checking.api import (
    COMMS_QUANTITIES,
    DEFAULT_RTOL,
    QUANTITIES,
    SERVING_QUANTITIES,
    TRAINING_QUANTITIES,
)
from derive.errors import DeriveError, LimitError, ProblemError
from derive.pipeline.kinds import Problem
from derive.problem.input_files import read_text_file
from derive.problem.kernel_spec import KernelSpec
from derive.problem.sets.problem_set import MODEL_ASK_KEYS, ProblemSet, QuestionEntry
from derive.problem.sets.variants import variant_of_student, variants_of

if TYPE_CHECKING:
    from derive.checking.api import CheckResult


COLUMNS = ("who", "problem", "quantity", "claim")
OUTPUT_COLUMNS = COLUMNS + (
    "verdict", "read_as", "expected", "diagnosis", "reason", "position", "exact"
)  # fmt: skip
MAX_ANSWERS = 20_000
MAX_ANSWERS_BYTES = 10_000_000
_MAX_CELL = 10_000
REFUSED = "refused"
"""The verdict of a row naming a problem or a quantity the set does not have (its reason says which)."""
_RIGHT = ("correct", "correct-leading-order")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_KEY = operator.itemgetter("problem", "quantity", "claim")
"""A row's answer: identical answers are judged once."""
_TOO_MANY = "too_many_fields"
"""The key a row refused before judging carries its reason under (more fields than the
header, a variant the set does not have)."""
_PROGRESS_FROM = 200
"""Answers from which a progress line is written on stderr."""
_VARIANT = "variant"
"""The optional column of a row's variant; without it, a set with variants maps ``who`` to one."""


def _read_rows(path: str) -> list[dict[str, str]]:
    what = f"--answers {path!r}"
    text = read_text_file(
        path,
        what,
        MAX_ANSWERS_BYTES,
        hint="give a CSV with columns who, problem, quantity, claim",
    )
    csv.field_size_limit(_MAX_CELL)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise ProblemError(
                what,
                f"missing column(s) {', '.join(missing)}; the header must name {', '.join(COLUMNS)}",
            )
        reader.fieldnames = header
        rows: list[dict[str, str]] = []
        for row in reader:
            if len(rows) >= MAX_ANSWERS:
                raise LimitError(what, f"more than {MAX_ANSWERS} answers")
            fields = {c: (row.get(c) or "").strip() for c in (*COLUMNS, _VARIANT)}
            extra = row.get(None)  # DictReader keeps the fields past the header under None
            if extra:
                fields[_TOO_MANY] = (
                    f"{len(header) + len(extra)} fields where the header has {len(header)}: "
                    'quote a claim that holds a comma ("2BD, F")'
                )
            rows.append(fields)
    except csv.Error as e:
        raise ProblemError(what, f"not a valid CSV (line {reader.line_num}: {e})") from None
    return rows


def _variant_of(row: dict[str, str], pset: ProblemSet) -> str:
    """A row's variant: its ``variant`` cell, else its student's (the ``who`` column); a
    cell that is not a variant of the set refuses its row."""
    spec, cell = pset.variants, row[_VARIANT]
    if spec is None or not cell:
        return str(variant_of_student(spec.seed, row["who"], spec.count) if spec else 0)
    if not (cell.isascii() and cell.isdigit() and int(cell) < spec.count):
        row[_TOO_MANY] = f"variant {cell[:20]!r}: not a variant of the set (0 to {spec.count - 1})"
        return cell
    return str(int(cell))


def _kernel_known(entry: Problem) -> tuple[str, tuple[str, ...]]:
    from derive.problem.sets.kernels import kernel_quantities_of

    return "kernel", kernel_quantities_of(cast(KernelSpec, entry.spec))


def _native_known(entry: Problem) -> tuple[str, tuple[str, ...]]:
    from derive.checking.api import native_names

    return entry.kind.value.replace("_", "-"), native_names(entry)


def _questions_known(entry: Problem) -> tuple[str, ...]:
    return tuple(cast(QuestionEntry, entry).questions.answers)


_KNOWN: dict[ProblemKind, Callable[[Problem], tuple[str, tuple[str, ...]]]] = {
    ProblemKind.OPERATOR: lambda entry: ("operator", QUANTITIES),
    ProblemKind.KERNEL: _kernel_known,
    ProblemKind.MODEL: lambda entry: ("model", MODEL_ASK_KEYS),
    ProblemKind.SERVING: lambda entry: ("model", MODEL_ASK_KEYS + SERVING_QUANTITIES),
    ProblemKind.TRAINING: lambda entry: ("model", MODEL_ASK_KEYS + TRAINING_QUANTITIES),
    ProblemKind.BUDGET: _native_known,
    ProblemKind.WHAT_IF: _native_known,
    ProblemKind.COMMS: lambda entry: ("operator", COMMS_QUANTITIES),
    ProblemKind.DECODE_CROSSOVER: lambda entry: ("model", MODEL_ASK_KEYS + SERVING_QUANTITIES),
    ProblemKind.QUESTIONS: lambda entry: ("questions", _questions_known(entry)),
}
"""How a row's problem is named in an error, and the quantities its answers may claim, per kind."""


def _asked(pset: ProblemSet, args: argparse.Namespace) -> int:
    """How many answers the set asks for: the answer boxes of its workbook (and its sheet).

    The workbook is built first in a worker within ``--time-limit`` per problem, then here,
    known to end, so that the workers judging the answers fork with every problem derived.
    """
    from derive.deadline import run_with_deadline, time_limit
    from derive.web.book import build_workbook

    def count() -> int:
        return sum(len(page.asked) for page in build_workbook(pset, hints=False).pages.values())

    seconds = time_limit(args.time_limit) * max(1, len(pset.entries()) + len(pset.natives))
    run_with_deadline(count, seconds=seconds, what=f"--problem-set {args.problem_set!r}")
    return count()


def _judge_row(
    args: argparse.Namespace, pset: ProblemSet, operators: tuple[str, ...], row: dict[str, str]
) -> CheckResult:
    """One row's verdict; a row naming what the set does not have is refused (a DeriveError)."""
    from derive.checking.api import check, check_defined, defined_names, quantity_named
    from derive.commands.check import _entry

    own = pset.rtol(row["problem"], row["quantity"])
    rtol = args.rtol or own or DEFAULT_RTOL  # --rtol, else the problem's, else 1 %
    if row["quantity"] in defined_names(pset, row["problem"]):
        return check_defined(
            pset,
            row["problem"],
            row["quantity"],
            row["claim"],
            rtol=rtol,
            hide_expected=args.hide_expected,
        )
    entry = _entry(pset, row["problem"])
    kind, known = _KNOWN[entry.kind](entry)
    named = quantity_named(entry.kind, row["quantity"])  # an alias, a one-box ask: its row
    if named not in known:
        names = tuple(dict.fromkeys(known))
        raise ProblemError(
            f"quantity {row['quantity']!r}",
            f"unknown quantity for the {kind} problem {entry.id!r}"
            f"{did_you_mean(row['quantity'], names)}; known: {', '.join(names)}",
        )
    return check(
        entry,
        named,
        row["claim"],
        rtol=rtol,
        hide_expected=args.hide_expected,
        syntax=args.syntax,
        operators=operators,
    )


def _judge_all(
    args: argparse.Namespace,
    pset: ProblemSet,
    operators: tuple[str, ...],
    answers: list[tuple[str, str, str]],
) -> list[tuple]:
    """Each distinct answer judged once, in forked workers, each within ``--time-limit``: an
    answer past it is refused in its own rows and the others are graded."""
    from derive.deadline import default_jobs, time_limit, workers
    from derive.errors import TimeLimitError

    def judge(i: int) -> tuple:
        problem, quantity, claim = answers[i]
        row = {"who": "", "problem": problem, "quantity": quantity, "claim": claim}
        try:
            result = _judge_row(args, pset, operators, row)
        except DeriveError as e:
            return ("refused", e.what, e.why)
        record = _record(row, result, None)
        return ("graded", {k: v for k, v in record.items() if k not in COLUMNS})

    progress = _progress if len(answers) >= _PROGRESS_FROM else None
    seconds = time_limit(args.time_limit)
    with workers(judge, seconds=seconds, jobs=default_jobs(), each_own=True) as pool:
        found = pool.each(len(answers), name=lambda i: f"claim {answers[i][2]!r}", on_done=progress)
    return [("refused", f.what, f.why) if isinstance(f, TimeLimitError) else f for f in found]


def _progress(done: int, total: int) -> None:
    """A progress line on stderr, rewritten every 100 answers and at the end."""
    if done == total or done % 100 == 0:
        sys.stderr.write(
            f"\rgraded {done} of {total} distinct answers{'' if done < total else chr(10)}"
        )
        sys.stderr.flush()


def _record(row: dict[str, str], result: object, refused: str | None) -> dict[str, object]:
    """One output record (the CSV's columns; ``position`` a number or None)."""
    if refused is not None:
        return {**row, "verdict": REFUSED, "read_as": "", "expected": "", "diagnosis": "",
                "reason": refused, "position": None, "exact": None}  # fmt: skip
    r = cast("CheckResult", result)
    return {
        **row,
        "verdict": r.verdict.value,
        "read_as": r.read_as or "",
        "expected": r.expected or "",
        "diagnosis": " | ".join(r.diagnosis),
        "reason": r.reason or "",
        "position": r.position,
        "exact": r.exact,
    }


def tally(records: list[dict[str, object]], asked: int) -> dict[str, dict[str, int]]:
    """Per student (in the order they first appear): right, answered (not refused), asked."""
    students: dict[str, dict[str, int]] = {}
    for rec in records:
        who = str(rec["who"])
        seen = students.setdefault(who, {"right": 0, "answered": 0, "asked": asked})
        seen["answered"] += rec["verdict"] != REFUSED
        seen["right"] += rec["verdict"] in _RIGHT
    return students


def _cell(value: object) -> str:
    """A cell written as data: text a spreadsheet would take for a formula (a first ``=``,
    ``+``, ``-``, ``@``, tab or carriage return) gets a leading ``'``, OWASP's rule; a plain
    number (``-3``, ``-1.5e-3``) is left a number (it runs nothing); None is empty and a
    bool is written as JSON writes it (``true``)."""
    text = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    if text.startswith(("=", "+", "-", "@", "\t", "\r")) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def _table(students: dict[str, dict[str, int]]) -> str:
    """The per-student tally as an aligned text table."""
    head = ("who", "right", "answered", "asked")
    rows = [head] + [(w, *(str(t[k]) for k in head[1:])) for w, t in students.items()]
    width = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [
        "  ".join(c.ljust(width[0]) if i == 0 else c.rjust(width[i]) for i, c in enumerate(r))
        for r in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def grade(args: argparse.Namespace) -> int:
    """Grade every answer of ``args.answers`` against ``args.problem_set``; see the module docstring."""
    from derive.checking.api import Verdict
    from derive.commands.check import _load_set, _operators
    from derive.present.formats import Document, render

    rows = _read_rows(args.answers)
    pset = _load_set(args.problem_set, args.trust)
    operators = _operators(args, pset)
    sets = dict(variants_of(pset))
    for row in (r for r in rows if _TOO_MANY not in r):  # each against its own variant's set
        row[_VARIANT] = _variant_of(row, pset)
    asked = _asked(pset, args)  # every problem derived here: the workers fork warm
    judged: dict[tuple[int, tuple], tuple] = {}
    for vset in {id(s): s for s in sets.values()}.values():
        mine = (r for r in rows if _TOO_MANY not in r and sets[int(r[_VARIANT])] is vset)
        answers = list(dict.fromkeys(_KEY(row) for row in mine))
        ops = operators if vset is pset else _operators(args, vset)
        found_all = _judge_all(args, vset, ops, answers) if answers else []
        judged.update(zip(((id(vset), a) for a in answers), found_all, strict=True))
    records = []
    for n, row in enumerate(rows, 2):
        too_many = row.pop(_TOO_MANY, None)  # refused whatever another row with its text got
        if pset.variants is None:
            row.pop(_VARIANT)
        if too_many:
            found: tuple = ("refused", None, too_many)
        else:
            found = judged[(id(sets[int(row.get(_VARIANT, 0))]), _KEY(row))]
        if found[0] == "refused":
            what = f"{found[1]}: " if found[1] is not None else ""
            records.append(_record(row, None, f"line {n}: {what}{found[2]}"))
        else:
            records.append({**row, **cast(dict, found[1])})
    students = tally(records, asked)

    def table() -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        columns = OUTPUT_COLUMNS + ((_VARIANT,) if pset.variants is not None else ())
        writer.writerow(columns)
        writer.writerows([_cell(rec[c]) for c in columns] for rec in records)
        return out.getvalue()

    shown = Document(data=lambda: {"answers": records, "students": students}, verbatim=table)
    text = render(shown, args.format)
    if args.output is not None:
        from derive.commands.atomic_file import write_atomic

        write_atomic(Path(args.output), [text.encode("utf-8")])
    else:
        sys.stdout.write(text)
    # the tally ends the text output (stderr while stdout holds the CSV); JSON holds it
    tally_text = render(Document(verbatim=lambda: _table(students)), args.format)
    (sys.stdout if args.output is not None else sys.stderr).write(tally_text)
    unread = sum(rec["verdict"] == Verdict.UNREADABLE.value for rec in records)
    refused = sum(rec["verdict"] == REFUSED for rec in records)
    if unread:
        sys.stderr.write(
            f"{unread} of {len(rows)} answers could not be read (verdict unreadable)\n"
        )
    if refused:
        sys.stderr.write(f"{refused} of {len(rows)} rows were refused (verdict refused)\n")
    return 1 if unread or refused else 0
