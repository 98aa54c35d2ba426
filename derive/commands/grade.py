"""``derive check --problem-set SET --answers answers.csv``: grade many answers at once.

The answers are a CSV file with a header row and the columns ``who, problem, quantity,
claim`` (other columns are ignored); a row may name an operator problem, a kernel
given by its numbers or a whole-model problem of the set (``quantity`` then ``params``, ``max_batch``, …). Every row is judged with :func:`derive.check` and
one row per answer is written, with the csv module, to stdout or ``-o FILE``: ``who,
problem, quantity, claim, verdict, read_as, expected, diagnosis, reason, position``
(``diagnosis`` joins its sentences with `` | ``; ``expected`` is empty with
``--hide-expected``). Rows come out in the order they came in.

A file that is not such a CSV is refused before anything is written (exit 2). A row
naming a problem the set does not have, or a quantity its problem does not have, is a row
with the verdict ``refused`` and the reason (``line 3: problem 'q9': no such problem …``);
an answer that cannot be read is a row with the verdict ``unreadable``; every other row is
graded. The exit code is 0 when every row was read and graded, 1 otherwise.

``--format json`` writes ``{"answers": [one record per row, refused rows included],
"students": {who: {right, answered, asked}}}`` instead of the CSV (``right``: correct or
correct at leading order; ``answered``: rows not refused; ``asked``: the answers the set
asks for). The text output ends with the same per-student table (on stdout after ``-o
FILE``, on stderr while stdout holds the CSV).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from derive.catalogue import ProblemKind
from derive.checking.api import (
    COMMS_QUANTITIES,
    QUANTITIES,
    SERVING_QUANTITIES,
    TRAINING_QUANTITIES,
)
from derive.errors import DeriveError, LimitError, ProblemError
from derive.pipeline.kinds import Problem, kind_of
from derive.problem.binding import ProblemSpec
from derive.problem.input_files import read_text_file
from derive.problem.kernel_spec import KernelSpec
from derive.problem.sets.problem_set import MODEL_ASK_KEYS, ProblemSet, QuestionEntry

if TYPE_CHECKING:
    from derive.checking.api import CheckResult

__all__ = [
    "COLUMNS",
    "MAX_ANSWERS",
    "MAX_ANSWERS_BYTES",
    "OUTPUT_COLUMNS",
    "REFUSED",
    "grade",
    "tally",
]

COLUMNS = ("who", "problem", "quantity", "claim")
OUTPUT_COLUMNS = COLUMNS + ("verdict", "read_as", "expected", "diagnosis", "reason", "position")
MAX_ANSWERS = 20_000
MAX_ANSWERS_BYTES = 10_000_000
_MAX_CELL = 10_000
REFUSED = "refused"
"""The verdict of a row naming a problem or a quantity the set does not have (its reason says which)."""
_RIGHT = ("correct", "correct-leading-order")


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
            rows.append({c: (row.get(c) or "").strip() for c in COLUMNS})
    except csv.Error as e:
        raise ProblemError(what, f"not a valid CSV (line {reader.line_num}: {e})") from None
    return rows


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


def _asked(pset: ProblemSet) -> int:
    """How many answers the set asks for: each problem's boxed quantities and defined names."""
    from derive.catalogue import shown_by
    from derive.checking.api import defined_names, native_names

    count = 0
    for entry in pset.entries():
        asks = getattr(entry, "ask", ()) or _default_asks(pset, entry)
        shown = dict.fromkeys(q for a in asks for q in shown_by(entry.kind, a))
        count += len(shown) + len(defined_names(pset, entry.id))
    for native in pset.natives:  # a budget's or a what-if's asks, each a quantity (issue 36)
        count += len(native.ask or native_names(native))
    return count


def _default_asks(pset: ProblemSet, entry: Problem) -> tuple[str, ...]:
    """What a problem without ``ask`` asks: the topics of its worked solution's steps."""
    from derive.pipeline import Derivation, derive_spec
    from derive.pipeline.cache import registry

    if not kind_of(entry).chains:  # not an operator problem: no steps of its own
        return ()
    try:
        spec = cast(ProblemSpec, entry.spec)  # an operator problem's spec
        d = derive_spec(spec, registry(tuple(str(p) for p in pset.operators)))
    except DeriveError:
        return ()
    if not d.kind.roofline:  # comms-only: no steps of a roofline
        return ()
    return tuple(dict.fromkeys(s.topic for s in cast(Derivation, d).solution.steps))


def _judge_row(
    args: argparse.Namespace, pset: ProblemSet, operators: tuple[str, ...], row: dict[str, str]
) -> CheckResult:
    """One row's verdict; a row naming what the set does not have is refused (a DeriveError)."""
    from derive.checking.api import check, check_defined, defined_names, quantity_named
    from derive.commands.check import _entry

    if row["quantity"] in defined_names(pset, row["problem"]):
        return check_defined(
            pset,
            row["problem"],
            row["quantity"],
            row["claim"],
            rtol=args.rtol,
            hide_expected=args.hide_expected,
        )
    entry = _entry(pset, row["problem"])
    kind, known = _KNOWN[entry.kind](entry)
    if quantity_named(entry.kind, row["quantity"]) not in known:  # an alias reads as its row
        raise ProblemError(
            f"quantity {row['quantity']!r}",
            f"unknown quantity for the {kind} problem {entry.id!r}; "
            f"known: {', '.join(dict.fromkeys(known))}",
        )
    return check(
        entry,
        row["quantity"],
        row["claim"],
        rtol=args.rtol,
        hide_expected=args.hide_expected,
        syntax=args.syntax,
        operators=operators,
    )


def _record(row: dict[str, str], result: object, refused: str | None) -> dict[str, object]:
    """One output record (the CSV's columns; ``position`` a number or None)."""
    if refused is not None:
        return {**row, "verdict": REFUSED, "read_as": "", "expected": "", "diagnosis": "",
                "reason": refused, "position": None}  # fmt: skip
    r = cast("CheckResult", result)
    return {
        **row,
        "verdict": r.verdict.value,
        "read_as": r.read_as or "",
        "expected": r.expected or "",
        "diagnosis": " | ".join(r.diagnosis),
        "reason": r.reason or "",
        "position": r.position,
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

    rows = _read_rows(args.answers)
    pset = _load_set(args.problem_set, args.trust)
    operators = _operators(args, pset.operators)
    records = []
    for n, row in enumerate(rows, 2):
        try:
            records.append(_record(row, _judge_row(args, pset, operators, row), None))
        except DeriveError as e:
            records.append(_record(row, None, f"line {n}: {e.what}: {e.why}"))
    students = tally(records, _asked(pset))
    if args.format == "json":
        text = json.dumps({"answers": records, "students": students}, indent=2, ensure_ascii=False)
        text += "\n"
    else:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(OUTPUT_COLUMNS)
        for rec in records:
            writer.writerow(["" if rec[c] is None else rec[c] for c in OUTPUT_COLUMNS])
        text = out.getvalue()
    if args.output is not None:
        from derive.commands.atomic_file import write_atomic

        write_atomic(Path(args.output), [text.encode("utf-8")])
    else:
        sys.stdout.write(text)
    if args.format != "json":  # the tally ends the text output (stderr while stdout holds the CSV)
        (sys.stdout if args.output is not None else sys.stderr).write(_table(students))
    unread = sum(rec["verdict"] == Verdict.UNREADABLE.value for rec in records)
    refused = sum(rec["verdict"] == REFUSED for rec in records)
    if unread:
        sys.stderr.write(
            f"{unread} of {len(rows)} answers could not be read (verdict unreadable)\n"
        )
    if refused:
        sys.stderr.write(f"{refused} of {len(rows)} rows were refused (verdict refused)\n")
    return 1 if unread or refused else 0
