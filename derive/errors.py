"""The error hierarchy of derive.

Every error a user can cause is a :class:`DeriveError`. Each class also inherits
the matching built-in (as pint does), so callers can catch ``ValueError`` too.
The CLI prints ``error: <what>: <why>`` on one line and exits 2; anything that
is not a ``DeriveError`` reaching the CLI is a bug.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = [
    "ChipDataError",
    "DeclarationError",
    "DeriveError",
    "LimitError",
    "OperatorFileError",
    "OutputError",
    "ParseError",
    "ProblemError",
    "ProblemSetError",
    "RegimeError",
    "TimeLimitError",
    "UnknownNameError",
    "closest",
    "did_you_mean",
    "name_too_long",
]


MAX_WORD = 200
"""Characters of one word (no spaces) an error message echoes in full."""
_LONG_WORD = re.compile(rf"\S{{{MAX_WORD + 1},}}")


def _shorten(m: re.Match[str]) -> str:
    """The start of a long word and its length; the quote and colon after it are kept."""
    word = m.group(0)
    end = len(word)  # at most 3 closing marks; a linear scan (issue 37: re's \W*$ was quadratic)
    while end > len(word) - 3 and not (word[end - 1].isalnum() or word[end - 1] == "_"):
        end -= 1
    body, tail = word[:end], word[end:]
    return f"{body[:60]}… ({len(body)} characters){tail}"


class DeriveError(Exception):
    """Base class: a problem with what the user gave us, reported in one line.

    Attributes:
        what: the offending input, named (``"--set D=0"``, ``"operator 'matmul'"``).
        why: what is wrong and what is allowed.
    """

    def __init__(self, what: str, why: str) -> None:
        self.what = what
        self.why = why
        super().__init__(f"{what}: {why}")

    def __reduce__(self) -> tuple[type[DeriveError], tuple[str, str], dict[str, object]]:
        """Pickle as the class, its two fields and any extra attributes.

        Exceptions pickle as ``type(args)`` by default, and ``args`` here is the one
        formatted message, so ``(what, why)`` would not come back (worker pools pickle
        the errors they raise).
        """
        extra = {k: v for k, v in self.__dict__.items() if k not in ("what", "why")}
        return type(self), (self.what, self.why), extra

    def one_line(self) -> str:
        """The message as the CLI prints it: a single line, control characters escaped.

        A word longer than :data:`MAX_WORD` characters (a 10,000-character name, a
        5,000-digit number) is shown by its start and its length, not echoed in full.
        """
        text = _LONG_WORD.sub(_shorten, f"error: {self.what}: {self.why}")
        return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class DeclarationError(DeriveError, ValueError):
    """An ``Operator`` or ``Tensor`` declaration is invalid."""


class OperatorFileError(DeriveError, ImportError):
    """An operators file is missing, broken, or declares nothing usable."""


class UnknownNameError(DeriveError, KeyError):
    """A name (operator, chip, dtype, dim, tensor) that does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return f"{self.what}: {self.why}"


class ProblemError(DeriveError, ValueError):
    """A problem (CLI flags or a problem-set entry) is inconsistent or out of range."""


class ProblemSetError(ProblemError):
    """Every error found in one problem-set file (up to a cap), reported together.

    ``what`` names the file and ``why`` counts the errors; :meth:`one_line` prints one
    ``error: …`` line per error, each naming the file, the problem and the key.
    """

    def __init__(self, what: str, why: str, errors: tuple[DeriveError, ...] = ()) -> None:
        super().__init__(what, why)
        self.errors = tuple(errors)

    def one_line(self) -> str:
        """One line per error (the file's errors, in file order)."""
        return "\n".join(error.one_line() for error in self.errors) or super().one_line()


class ParseError(DeriveError, ValueError):
    """Typed text (a formula, a number, a regime) cannot be read."""


class LimitError(ParseError):
    """Typed text exceeds a size limit (length, depth, digits, magnitude)."""


class TimeLimitError(LimitError):
    """A derivation or a judgement ran past its time budget (see :mod:`derive.deadline`)."""


class RegimeError(DeriveError, ValueError):
    """An asymptotic regime is malformed or does not apply to the operator."""


class ChipDataError(DeriveError, ValueError):
    """A chip data file is malformed (a bug in the shipped data)."""


class OutputError(DeriveError, OSError):
    """Writing output would be unsafe (outside the folder, over a foreign file)."""


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """``"; did you mean 'h100'?"`` for a close name (case, hyphens and typos), else ``""``.

    >>> did_you_mean("h-100", ["h100", "h200", "a100"])
    "; did you mean 'h100'?"
    >>> did_you_mean("zzz", ["h100"])
    ''
    """
    if not isinstance(name, str):
        return ""
    options = list(dict.fromkeys(choices))
    folded = {option.lower().replace("-", "").replace("_", ""): option for option in options}
    key = name.lower().replace("-", "").replace("_", "")
    if key in folded and folded[key] != name:
        return f"; did you mean {folded[key]!r}?"
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    if not close:
        close = [folded[k] for k in difflib.get_close_matches(key, list(folded), n=1, cutoff=0.6)]
    return f"; did you mean {close[0]!r}?" if close and close[0] != name else ""


def closest(typed: str, choices: Iterable[str], n: int = 5) -> str:
    """The ``n`` choices closest to ``typed``, as a short list (a long list of every choice is
    cut to these; issue 37).

    >>> closest("intensty", ["flops", "bytes", "intensity", "ridge", "intensity_regime"], 2)
    'the closest of its 5 choices: intensity, intensity_regime'
    """
    options = list(dict.fromkeys(choices))
    near = difflib.get_close_matches(typed, options, n=n, cutoff=0.0)
    return f"the closest of its {len(options)} choices: {', '.join(near)}"


def name_too_long(exc: OSError) -> ProblemError:
    """A file or folder name past the system's limits (``ENAMETOOLONG``), as one line (issue 37)."""
    name = exc.filename if isinstance(exc.filename, str) else str(exc.filename)
    return ProblemError(
        f"path {name!r}",
        "name too long (at most 255 bytes a file or folder name, 4096 a path); use a shorter one",
    )
