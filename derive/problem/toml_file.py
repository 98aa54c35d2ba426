"""TOML reading with errors in derive's hierarchy (tomllib, or tomli before 3.11)."""

from __future__ import annotations

import sys

from derive.errors import ProblemError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["loads_toml"]

MAX_TOML_BYTES = 2_000_000


def loads_toml(text: str, origin: str) -> dict:
    """Parse TOML text; a syntax error becomes a one-line :class:`ProblemError`."""
    if len(text) > MAX_TOML_BYTES:
        raise ProblemError(origin, f"file larger than {MAX_TOML_BYTES} bytes")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProblemError(origin, f"TOML syntax error: {exc}") from None
