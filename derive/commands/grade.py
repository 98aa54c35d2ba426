"""``derive check --problem-set SET --answers answers.csv``: grade many answers at once.

The answers are a CSV file with a header row and the columns ``who, problem, quantity,
claim`` (other columns are ignored); a row may name an operator problem, a kernel
given by its numbers or a whole-model problem of the set (``quantity`` then ``params``, ``max_batch``, …). Every row is judged with :func:`derive.check` and
one row per answer is written, with the csv module, to stdout or ``-o FILE``: ``who,
problem, quantity, claim, verdict, read_as, expected, diagnosis, reason, position``
(``diagnosis`` joins its sentences with `` | ``; ``expected`` is empty with
``--hide-expected``). Rows come out in the order they came in.

A file that is not such a CSV, a row naming a problem the set does not have or a
quantity derive does not know, is refused before anything is written (exit 2). An
answer that cannot be read is a row with the verdict ``unreadable``; the exit code is 0
when every answer was read and 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from derive.catalogue import ProblemKind
from derive.checking.api import QUANTITIES, SERVING_QUANTITIES, TRAINING_QUANTITIES
from derive.errors import LimitError, ProblemError
from derive.pipeline.kinds import Problem
from derive.problem.input_files import read_text_file
from derive.problem.kernel_spec import KernelSpec
from derive.problem.sets.problem_set import MODEL_ASK_KEYS

__all__ = ["COLUMNS", "MAX_ANSWERS", "MAX_ANSWERS_BYTES", "OUTPUT_COLUMNS", "grade"]

COLUMNS = ("who", "problem", "quantity", "claim")
OUTPUT_COLUMNS = COLUMNS + ("verdict", "read_as", "expected", "diagnosis", "reason", "position")
MAX_ANSWERS = 20_000
MAX_ANSWERS_BYTES = 10_000_000
_MAX_CELL = 10_000


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


_KNOWN: dict[ProblemKind, Callable[[Problem], tuple[str, tuple[str, ...]]]] = {
    ProblemKind.OPERATOR: lambda entry: ("operator", QUANTITIES),
    ProblemKind.KERNEL: _kernel_known,
    ProblemKind.MODEL: lambda entry: ("model", MODEL_ASK_KEYS),
    ProblemKind.SERVING: lambda entry: ("model", MODEL_ASK_KEYS + SERVING_QUANTITIES),
    ProblemKind.TRAINING: lambda entry: ("model", MODEL_ASK_KEYS + TRAINING_QUANTITIES),
}
"""How a row's problem is named in an error, and the quantities its answers may claim, per kind."""


def grade(args: argparse.Namespace) -> int:
    """Grade every answer of ``args.answers`` against ``args.problem_set``; see the module docstring."""
    from derive.checking.api import Verdict, check
    from derive.commands.check import _entry, _load_set, _operators

    rows = _read_rows(args.answers)
    pset = _load_set(args.problem_set, args.trust)
    operators = _operators(args, pset.operators)
    from derive.checking.api import check_defined, defined_names, quantity_named

    for n, row in enumerate(rows, 2):
        if row["quantity"] in defined_names(pset, row["problem"]):
            continue
        entry = _entry(pset, row["problem"])
        kind, known = _KNOWN[entry.kind](entry)
        if quantity_named(entry.kind, row["quantity"]) not in known:  # an alias reads as its row
            raise ProblemError(
                f"--answers line {n}: quantity {row['quantity']!r}",
                f"unknown quantity for the {kind} problem {entry.id!r}; known: {', '.join(known)}",
            )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OUTPUT_COLUMNS)
    unread = 0
    for row in rows:
        if row["quantity"] in defined_names(pset, row["problem"]):
            r = check_defined(
                pset,
                row["problem"],
                row["quantity"],
                row["claim"],
                rtol=args.rtol,
                hide_expected=args.hide_expected,
            )
        else:
            r = check(
                _entry(pset, row["problem"]),
                row["quantity"],
                row["claim"],
                rtol=args.rtol,
                hide_expected=args.hide_expected,
                syntax=args.syntax,
                operators=operators,
            )
        unread += r.verdict is Verdict.UNREADABLE
        writer.writerow(
            [
                row["who"],
                row["problem"],
                row["quantity"],
                row["claim"],
                r.verdict.value,
                r.read_as or "",
                r.expected or "",
                " | ".join(r.diagnosis),
                r.reason or "",
                "" if r.position is None else r.position,
            ]
        )
    text = out.getvalue()
    if args.output is not None:
        from derive.commands.atomic_file import write_atomic

        write_atomic(Path(args.output), [text.encode("utf-8")])
    else:
        sys.stdout.write(text)
    if unread:
        sys.stderr.write(
            f"{unread} of {len(rows)} answers could not be read (verdict unreadable)\n"
        )
    return 1 if unread else 0
