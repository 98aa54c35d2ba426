"""The code dataclasses generates, kept compiled between runs of the ``derive`` command.

``dataclasses`` writes each class's ``__init__``, ``__repr__``, ``__eq__`` (and, frozen,
``__setattr__``, ``__delattr__``, ``__hash__``) as Python source and compiles it every time
the class is made: on Python 3.11 about 1 ms a class, six compilations each, and a cold
``derive key`` makes some 90 classes before its first problem, as much as the rest of the
engine's import (benchmarks/README.md). Python keeps a module's bytecode in ``__pycache__``;
this keeps the bytecode of those generated functions the same way, for the command line only:

* :func:`install` (called by :func:`derive.commands.cli.load_engine`, before the engine is
  imported) gives the ``dataclasses`` module an ``exec`` of its own that looks the source up
  in a table of code objects and compiles only what is not there, as ``exec`` would
  (``"<string>"``, no inherited ``__future__`` flags). The classes, their methods and
  everything derive prints are the same; tests/test_dataclass_code.py builds every derive
  dataclass with and without the table and compares the methods' code.
* The table is kept where Python keeps derive's own bytecode, beside the ``.pyc`` of this
  module (``importlib.util.cache_from_source``: ``derive/__pycache__/`` or under
  ``PYTHONPYCACHEPREFIX``), one file per interpreter (``dataclass_code.cpython-311.marshal``,
  its header naming the bytecode version), and under Python's own switch: it is written
  only when Python would write bytecode (not with ``PYTHONDONTWRITEBYTECODE`` or ``-B``),
  by the process that installed it when it ends having compiled something new, atomically,
  and not at all where the folder cannot be written (a read-only install compiles as
  before). So derive still writes nothing of its own outside the files a user asks for. A
  file that cannot be read, is not such a table, or that another user than this one (or the
  administrator) may have written, is ignored and replaced. It holds what the last runs
  used, at most :data:`MAX_ENTRIES` sources, so edited classes do not make it grow.

``import derive`` in a user's program never installs it: their dataclasses are theirs.
"""

from __future__ import annotations

import atexit
import dataclasses
import importlib.util
import marshal
import os
import sys
import tempfile
import types
from pathlib import Path

__all__ = ["MAX_ENTRIES", "cache_file", "install", "installed", "uninstall"]

MAX_ENTRIES = 4096
"""At most this many compiled sources are kept (a class makes three to six)."""

_FORMAT = b"derive-dataclass-code-1 " + importlib.util.MAGIC_NUMBER + b"\n"


class _Table:
    """Compiled sources: those read from the file, and those this process compiled or used."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.owner = os.getpid()
        self.known: dict[str, types.CodeType] = _read(path) if path is not None else {}
        self.used: dict[str, types.CodeType] = {}
        self.compiled = 0

    def exec(self, source, globals=None, locals=None, /):
        """``exec`` for the ``dataclasses`` module: a source it compiled before runs from here."""
        if type(source) is str:
            code = self.used.get(source) or self.known.get(source)
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.compiled += 1
            self.used[source] = code
            source = code
        return exec(source, globals, locals)

    def save(self) -> None:
        """Write the table when this process compiled something new (not from a forked child)."""
        if not self.compiled or self.path is None or os.getpid() != self.owner:
            return
        if sys.dont_write_bytecode:
            return
        entries = dict(self.used)
        for source, code in self.known.items():
            if len(entries) >= MAX_ENTRIES:
                break
            entries.setdefault(source, code)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".dataclass-code-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(_FORMAT + marshal.dumps(sorted(entries.items())))
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass  # a read-only home, a full disk: the next run compiles again, that is all


def _read(path: Path) -> dict[str, types.CodeType]:
    """The table in ``path``, or nothing when it is missing, unreadable or not a table."""
    try:
        with open(path, "rb") as file:
            if not _private(os.fstat(file.fileno())):
                return {}
            data = file.read()
    except OSError:
        return {}
    if not data.startswith(_FORMAT):
        return {}
    try:
        items = marshal.loads(data[len(_FORMAT) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(items, list):
        return {}
    table: dict[str, types.CodeType] = {}
    for item in items:
        if not (
            isinstance(item, tuple)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], types.CodeType)
        ):
            return {}
        table[item[0]] = item[1]
    return table


def _private(stat: os.stat_result) -> bool:
    """This user's or the administrator's, and nobody else may write it (a ``.pyc``'s trust)."""
    getuid = getattr(os, "getuid", None)
    return getuid is None or (stat.st_uid in (0, getuid()) and not stat.st_mode & 0o022)


def cache_file() -> Path | None:
    """Where this interpreter keeps the table: beside this module's ``.pyc`` (None: nowhere)."""
    try:
        pyc = importlib.util.cache_from_source(__file__)
    except (NotImplementedError, ValueError):
        return None  # an interpreter without a bytecode cache
    return Path(pyc).with_suffix(".marshal")


_table: _Table | None = None


def installed() -> _Table | None:
    """The table in use, if :func:`install` was called in this process."""
    return _table


def install(path: Path | None = None) -> None:
    """Compile dataclasses' generated code once per source, across runs (see the module doc).

    ``path`` is the table's file (:func:`cache_file` when not given). Calling it again does
    nothing; :func:`uninstall` undoes it.
    """
    global _table
    if _table is not None:
        return
    _table = _Table(path if path is not None else cache_file())
    dataclasses.exec = _table.exec  # type: ignore[attr-defined]  # shadows the builtin there
    atexit.register(_table.save)


def uninstall() -> None:
    """``dataclasses`` compiles with the builtin ``exec`` again; nothing is written."""
    global _table
    if _table is None:
        return
    atexit.unregister(_table.save)
    vars(dataclasses).pop("exec", None)
    _table = None
