"""TOML reading with errors in derive's hierarchy (tomllib, or tomli before 3.11).

Bounded: text longer than :data:`MAX_TOML_BYTES` is refused before parsing, and so is
nesting deeper than :data:`MAX_TOML_DEPTH` (arrays and tables, counted after parsing; a
nesting so deep that the parser itself runs out of stack is caught as such).
"""

from __future__ import annotations

import sys
from pathlib import Path

from derive.errors import LimitError, ProblemError
from derive.problem.input_files import read_text_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


MAX_TOML_BYTES = 2_000_000
MAX_TOML_DEPTH = 16


def _depth(data: object) -> int:
    """How deeply tables and arrays nest (a scalar is 0), without recursion."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            children: list = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_TOML_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children)
    return deepest


def loads_toml(text: str, origin: str) -> dict:
    """Parse TOML text; a syntax error becomes a one-line :class:`ProblemError`.

    Raises:
        ProblemError: a syntax error. LimitError: too long or nested too deeply.
    """
    if len(text) > MAX_TOML_BYTES:
        raise LimitError(origin, f"file larger than {MAX_TOML_BYTES} bytes")
    too_deep = LimitError(origin, f"tables and arrays nested deeper than {MAX_TOML_DEPTH} levels")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProblemError(origin, f"TOML syntax error: {exc}") from None
    except RecursionError:
        raise too_deep from None
    if _depth(data) > MAX_TOML_DEPTH:
        raise too_deep
    return data


def read_toml_text(path: Path, what: str) -> str:
    """The text of a TOML file: a regular file of at most :data:`MAX_TOML_BYTES` bytes."""
    return read_text_file(path, what, MAX_TOML_BYTES)
