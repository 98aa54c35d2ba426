"""Reading a user's file safely: regular files only, size-capped before parsing, UTF-8.

``derive key /dev/zero``, a FIFO named as the problem set or a 1 GB file are refused in one
line without reading more than the cap: the file is ``stat``-ed before it is opened, opened
without blocking (a FIFO whose writer never comes cannot hang us), checked again on the open
descriptor, and read at most ``limit + 1`` bytes.

>>> file_kind(0o010644)
'a FIFO (named pipe)'
>>> file_kind(0o100644)
'a file'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from derive.errors import LimitError, ParseError, ProblemError

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words (from its ``st_mode``)."""
    if stat.S_ISREG(mode):
        return "a file"
    return next((word for test, word in _KINDS if test(mode)), "not a regular file")


def _open_regular(path: Path, what: str, limit: int, hint: str) -> int:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ProblemError(what, f"no such file{f' ({hint})' if hint else ''}") from None
    except NotADirectoryError:
        raise ProblemError(what, "no such file (a parent of it is a file, not a folder)") from None
    except OSError as exc:
        raise ProblemError(what, f"cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ProblemError(what, f"is {file_kind(info.st_mode)}; give a regular file")
    if info.st_size > limit:
        raise LimitError(what, f"larger than {limit} bytes ({info.st_size} bytes)")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ProblemError(what, f"cannot be read: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # replaced between stat and open
        os.close(fd)
        raise ProblemError(what, f"is {file_kind(mode)}; give a regular file")
    return fd


def read_text_file(path: Path | str, what: str, limit: int, hint: str = "") -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (a leading BOM dropped).

    Args:
        path: the file.
        what: how errors name it, e.g. ``"problem set 'x.toml'"``.
        limit: the largest size accepted, in bytes.
        hint: what to give instead, said when the file is missing.

    Raises:
        ProblemError: missing, unreadable, or not a regular file (a folder, FIFO, device).
        LimitError: larger than ``limit``.
        ParseError: not UTF-8 text, or it contains NUL bytes.
    """
    fd = _open_regular(Path(path), what, limit, hint)
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ProblemError(what, f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise LimitError(what, f"larger than {limit} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(what, f"not UTF-8 text (byte {exc.start + 1})") from None
    if "\x00" in text:
        raise ParseError(what, "not a text file (contains NUL bytes)")
    return text.removeprefix("\ufeff")
