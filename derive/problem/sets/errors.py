"""Errors of a problem-set file: reported together, and said in the file's own terms."""

from __future__ import annotations

import re
from collections.abc import Sequence

from derive.catalogue import table as q
from derive.errors import DeriveError, ProblemError, ProblemSetError

MAX_ERRORS = 20  # errors reported at once from one file
# what a problem's keys are called on the command line, for errors found after parsing
_FLAG_KEYS = (
    ("--link-bandwidth", "link_bandwidth"),
    ("--mesh", "mesh"),
    ("--convention", "convention"),
    ("--bandwidth", "bandwidth"),
    ("--peak", "peak"),
    ("--chip", "chip"),
    ("--compute", "compute"),
    ("--solve-for", "solve_for"),
    ("--regime", "regime"),
    ("--dtype", "dtypes"),
    ("--set", "set"),
    ("--devices", "devices"),
    ("--mfu", q.MFU.name),
    ("--train-tokens", "train_tokens"),
    ("--capacity", "capacity"),
    ("--state-bytes", "state_bytes"),
    ("--measured-tokens-per-s", "measured_tokens_per_s"),
    ("--tp", "tp"),
    ("--price-per-hour", "price_per_hour"),
    ("--power", "power"),
    ("--phase", "phase"),
)


def raise_collected(origin: str, errors: Sequence[DeriveError]) -> None:
    """Raise the errors found in one file together (the first :data:`MAX_ERRORS`), if any."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        shown = list(errors[:MAX_ERRORS])
        if len(errors) > MAX_ERRORS:
            more = len(errors) - MAX_ERRORS
            shown.append(ProblemError(origin, f"{more} more error(s) not shown"))
        raise ProblemSetError(origin, f"{len(errors)} errors", tuple(shown))


def in_file_terms(exc: DeriveError, origin: str, problem_id: str, key: str = "") -> ProblemError:
    """An error found after parsing (binding, deriving), said in the file's own terms.

    ``--set B=0`` becomes ``<file>: problem 'q1': key 'set' (B=0)``; flags in the reason
    become keys. ``key`` names the key when the caller knows it (``plot``).
    """
    what, why = exc.what, exc.why
    if what == f"problem {problem_id!r}":  # already named by its id: named once (issue 37)
        what = ""
    for flag, name in _FLAG_KEYS:
        why = why.replace(flag, name)
    detail = what
    for flag, name in _FLAG_KEYS:
        if what.startswith(flag):
            key, detail = key or name, what[len(flag) :].strip()
            break
    else:
        for word in ("chip", "dtype", "operator", "regime", "ask", "model"):
            if what.startswith(f"{word} "):
                key, detail = key or word, what[len(word) + 1 :]
                break
    if key == "plot" and what.startswith(("--solve-for", "--set")):
        key = "plot.over" if what.startswith("--solve-for") else "plot.series"
    missing = re.match(r"tensor '([^']+)' has no dtype", why)
    if missing:
        key, detail = "dtypes", ""
        name = missing.group(1)
        why = f'tensor {name!r} has no dtype; give dtype = "…" for every tensor or dtypes = {{ {name} = "…" }}'

    for flag, name in _FLAG_KEYS:  # "--chip with --peak/--bandwidth": keys, not flags
        detail = detail.replace(flag, name)
    where = f"{origin}: problem {problem_id!r}" + (f": key {key!r}" if key else "")
    return ProblemError(where + (f" ({detail})" if detail else ""), why)


def said_as_flags(exc: DeriveError) -> bool:
    """True when an error names a command-line flag (``--mfu 1.5``): a problem's own input."""
    return any(exc.what.startswith(flag) for flag, _ in _FLAG_KEYS)
