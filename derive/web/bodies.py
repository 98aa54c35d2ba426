"""Request bodies: read with a size limit, parsed as JSON, checked against a small schema.

Every refusal is a :class:`BadRequestError` with the HTTP status and one line that says what
was wrong and what is allowed: 413 over the size limit (refused before parsing, from
``Content-Length`` or while streaming), 400 not JSON (or nested too deep), 422 the wrong
shape (a missing or unknown key, a wrong type, a string or list too long).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import cast

from derive.errors import DeriveError

MAX_BODY = 64 * 1024
"""Bytes in one request body."""
MAX_ANSWER = 2000
"""Characters in one answer or derivation line (the formula parser's own limit)."""
MAX_LINES = 200
"""Lines in one derivation."""
_MAX_ID = 64


class BadRequestError(DeriveError, ValueError):
    """A request the server refuses, with its HTTP status."""

    def __init__(self, status: int, what: str, why: str) -> None:
        self.status = status
        super().__init__(what, why)

    def __reduce__(self):
        return (type(self), (self.status, self.what, self.why))


@dataclass(frozen=True)
class Field:
    """One key of a body: its JSON type (``str`` or ``list`` of strings) and maximum length."""

    name: str
    kind: type
    max_length: int
    optional: bool = False


CHECK_SCHEMA = (
    Field("problem", str, _MAX_ID),
    Field("quantity", str, _MAX_ID),
    Field("answer", str, MAX_ANSWER),
)
READ_SCHEMA = (
    Field("problem", str, _MAX_ID),
    Field("answer", str, MAX_ANSWER),
    Field("quantity", str, _MAX_ID, optional=True),  # read with its units and left side
)
DERIVATION_SCHEMA = (Field("problem", str, _MAX_ID), Field("lines", list, MAX_LINES))


async def read_limited(
    chunks: AsyncIterator[bytes], content_length: str | None, limit: int = MAX_BODY
) -> bytes:
    """The whole body, refusing (413) as soon as it is known to exceed ``limit`` bytes."""
    too_big = BadRequestError(413, "request body", f"larger than {limit // 1024} KiB")
    if content_length is not None:
        try:
            declared = int(content_length)
        except ValueError:
            raise BadRequestError(400, "Content-Length", "not a number") from None
        if declared > limit:
            raise too_big
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise too_big
    return bytes(body)


_JSON_DIGITS = 40


def _json_int(text: str) -> int:
    """A JSON integer of at most :data:`_JSON_DIGITS` digits (issue 37: a 60,000-digit one
    answered with Python's own message about ``sys.set_int_max_str_digits``)."""
    digits = len(text.lstrip("-"))
    if digits > _JSON_DIGITS:
        why = f'a number of {digits} digits; send an answer as a string, e.g. "answer": "1e60"'
        raise BadRequestError(400, "request body", why)
    return int(text)


def parse_body(body: bytes) -> object:
    """The JSON value of a body (400 when it is not UTF-8 JSON, or nested too deep)."""
    try:
        return json.loads(body.decode("utf-8"), parse_int=_json_int)
    except BadRequestError:
        raise
    except UnicodeDecodeError:
        raise BadRequestError(400, "request body", "not UTF-8 text") from None
    except RecursionError:
        raise BadRequestError(400, "request body", "JSON nested too deep") from None
    except ValueError as exc:
        raise BadRequestError(400, "request body", f"not valid JSON ({exc})") from None


def _type_name(kind: type) -> str:
    return "a string" if kind is str else "a list of strings"


def _check_length(f: Field, item: str | list[str]) -> None:
    where, unit = f"key {f.name!r}", "characters" if f.kind is str else "lines"
    if len(item) > f.max_length:
        raise BadRequestError(422, where, f"longer than {f.max_length} {unit}")
    if isinstance(item, list) and any(len(s) > MAX_ANSWER for s in item):
        raise BadRequestError(422, where, f"a line is longer than {MAX_ANSWER} characters")


def validate(value: object, schema: tuple[Field, ...]) -> dict:
    """Check a parsed body against a schema: an object with exactly these keys (422 otherwise)."""
    allowed = ", ".join(f.name for f in schema)
    if not isinstance(value, dict):
        raise BadRequestError(422, "request body", f"must be a JSON object with keys {allowed}")
    for key in value:
        if key not in {f.name for f in schema}:
            raise BadRequestError(422, f"key {key[:40]!r}", f"unknown key; allowed: {allowed}")
    for f in schema:
        if f.name not in value and f.optional:
            continue
        if f.name not in value:
            raise BadRequestError(422, f"key {f.name!r}", f"missing; give {_type_name(f.kind)}")
        item = value[f.name]
        if not isinstance(item, f.kind) or (
            isinstance(item, list) and not all(isinstance(s, str) for s in item)
        ):
            raise BadRequestError(422, f"key {f.name!r}", f"must be {_type_name(f.kind)}")
        _check_length(f, cast("str | list[str]", item))
    return value
