"""The checker of a published workbook, as it runs in the browser (Pyodide, in a Web Worker).

``derive publish`` packs derive, sympy and what they import into the site, and the set as
data (``python/set.json``: the set's TOML text, its name, and the operator files it was
published with). The page's worker boots Pyodide, unpacks the packages and calls
:meth:`Judge.from_json`; each of the page's requests (``POST /api/check``, ``/api/read``,
``/api/check-derivation``, the bodies ``derive serve`` takes) is then answered by
:meth:`Judge.answer` with the same validation (:mod:`derive.web.bodies`), the same
:class:`~derive.web.grading.Grader` and the same JSON (:mod:`derive.web.replies`) as the
server's, so a verdict in the browser is the server's verdict.

Nothing here forks, starts a thread or sets a signal: the page enforces the time budget by
terminating the worker (``static/publish.js``), as the server kills a worker process.
"""

from __future__ import annotations

import contextlib
import json
import os.path
from pathlib import Path

from derive.errors import DeriveError, UnknownNameError
from derive.problem.sets.problem_set import ProblemSet
from derive.problem.sets.variants import variants_of
from derive.web.bodies import (
    CHECK_SCHEMA,
    DERIVATION_SCHEMA,
    READ_SCHEMA,
    BadRequestError,
    parse_body,
    validate,
)
from derive.web.book import SetSource, parse_source
from derive.web.grading import Grader, reason_of
from derive.web.replies import check_reply, derivation_reply, read_reply

SET_FORMAT = "derive-published-set/1"
"""The ``format`` of ``python/set.json``; a worker refuses any other."""

_SET_FOLDER = "/home/pyodide/derive-set"
"""Where the worker writes the set's files (its operator files) before reading the set."""


def set_json(source: SetSource, pset: ProblemSet, hide_expected: bool) -> str:
    """The set as the published site carries it: its text, name, trust and the files it names.

    The operator files (only in a set published with ``--trust``) and the model config files
    (data) travel by their path relative to the set's folder, so the worker reads the set
    as ``derive serve`` did.
    """
    base = Path(source.base) if source.base else Path(".")
    models = {m.spec.model for _, v in variants_of(pset) for m in v.models}  # every variant's
    configs = [Path(m) for m in sorted(models) if m.endswith(".json")]
    shipped = [*pset.operators, *(path for path in configs if path.is_file())]
    # by the path relative to the set's folder, in / form (.. kept: it stays in the worker's files)
    files = {Path(os.path.relpath(p, base)).as_posix(): p.read_text("utf-8") for p in shipped}
    data = {
        "format": SET_FORMAT,
        "origin": Path(source.origin).name,
        "text": _without_expect(source.text) if hide_expected else source.text,
        "trust": source.trust,
        "hide_expected": hide_expected,
        "files": files,
    }
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def _without_expect(text: str) -> str:
    """A set's TOML without its ``expect = {…}`` tables (values the key is checked against:
    the answers, which a published site under ``--hide-expected`` does not carry)."""
    out, depth = [], 0
    for line in text.splitlines(keepends=True):
        if depth or line.lstrip().startswith("expect"):
            depth = max(depth + line.count("{") - line.count("}"), 0)
            continue
        out.append(line)
    return "".join(out)


class Judge:
    """Answers the page's POST requests as the server's routes do, in this process."""

    def __init__(self, grader: Grader, show_expected: bool, sets: tuple = ()) -> None:
        self.grader = grader  # variant 0's (or the set's, without variants)
        self.show_expected = show_expected
        self._sets: tuple[ProblemSet, ...] = sets  # a set with variants: each variant's
        self._graders: dict[int, Grader] = {}

    @classmethod
    def from_json(cls, text: str, folder: str = _SET_FOLDER) -> Judge:
        """The judge of a published set (the text of ``python/set.json``).

        Raises:
            ProblemError: not a published set of this format, or the set cannot be read.
        """
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != SET_FORMAT:
            raise DeriveError("python/set.json", f"is not a {SET_FORMAT} file")
        base = Path(folder)
        for name, body in data["files"].items():
            path = base / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        source = SetSource(data["text"], data["origin"], str(base), data["trust"])
        sets = tuple(s for _, s in variants_of(parse_source(source)))
        hide = bool(data["hide_expected"])
        return cls(Grader.of(sets[0], source.trust, hide), not hide, sets if len(sets) > 1 else ())

    def of(self, variant: int) -> Grader:
        """The grader of a variant of the set (made when first asked; variant 0 is the set's)."""
        if not self._sets or variant == 0:
            return self.grader
        pset = self._sets[int(variant) % len(self._sets)]
        if id(pset) not in self._graders:
            self._graders[id(pset)] = Grader.of(pset, hide_expected=not self.show_expected)
        return self._graders[id(pset)]

    def problems(self) -> list[str]:
        """The set's problem ids, in order (the worker warms them one by one when idle)."""
        return list(self.grader.problems)

    def warm(self, problem: str, variant: int = 0, quantity: str | None = None) -> None:
        """Analyse one problem now, so its first check is quick (errors say so when checked);
        with a ``quantity``, judge a wrong answer to it too, so its diagnosis is ready."""
        with contextlib.suppress(DeriveError):
            grader = self.of(variant)
            grader.check(problem, quantity, "1") if quantity else grader.read(problem, "1")

    def answer(self, path: str, body: str, variant: int = 0) -> str:
        """The reply to ``POST path`` with a JSON ``body`` (judged against the set's
        ``variant``): ``{"status", "data"}`` as JSON."""
        try:
            data = self._answer(path, body.encode("utf-8"), self.of(variant))
            return json.dumps({"status": 200, "data": data})
        except BadRequestError as exc:
            return _failed(exc.status, reason_of(exc))
        except UnknownNameError as exc:
            return _failed(404, reason_of(exc))
        except DeriveError as exc:
            return _failed(422, reason_of(exc))

    def _answer(self, path: str, raw: bytes, grader: Grader) -> dict:
        if path == "/api/check":
            body = validate(parse_body(raw), CHECK_SCHEMA)
            problem = self._problem(body["problem"], grader)
            checked = grader.check(problem, body["quantity"], body["answer"])
            return check_reply(checked, self.show_expected)
        if path == "/api/read":
            body = validate(parse_body(raw), READ_SCHEMA)
            problem = self._problem(body["problem"], grader)
            return read_reply(grader.read(problem, body["answer"], body.get("quantity")))
        if path == "/api/check-derivation":
            body = validate(parse_body(raw), DERIVATION_SCHEMA)
            problem = self._problem(body["problem"], grader)
            result = grader.check_derivation(problem, tuple(body["lines"]))
            return derivation_reply(result, self.show_expected)
        raise BadRequestError(404, f"POST {path[:80]}", "Not Found")

    def _problem(self, problem: str, grader: Grader) -> str:
        if problem not in grader.problems:
            raise UnknownNameError(f"problem {problem[:80]!r}", "no such problem in this set")
        return problem


def bytecode_zip(folder: str) -> bytes:
    """The bytecode this session compiled under ``folder``, zipped, for the browser to keep.

    Pyodide compiles every module it imports from source, the longest part of a boot; the
    page keeps these files (the browser's Cache Storage, keyed by the hash of the site's
    Python zip) and unpacks them before importing on the next visit. Unpacking gives the
    sources a new mtime, so each file is marked as checked by nothing (the flags of an
    unchecked hash-based pyc, PEP 552): under its key, the sources cannot change.

    The zip is deterministic (``derive publish --pyodide`` ships it): entries sorted, a fixed
    date, and the pyc's source-hash field zeroed (never checked under these flags).

    A module imported while bytecode was not written (an operators file runs under
    ``sys.dont_write_bytecode``, and so does what it imports: ``sympy.tensor.tensor``,
    ``sympy.combinatorics``) is compiled here, so no first visit compiles it either.
    """
    import compileall
    import io
    import os
    import sys
    import zipfile

    for module in list(sys.modules.values()):
        source = str(getattr(module, "__file__", None) or "")
        if source.startswith(folder + "/") and source.endswith(".py"):
            compileall.compile_file(source, quiet=2)  # as the import would have (if not there)
    paths = []
    for root, _dirs, files in os.walk(folder):
        paths += [os.path.join(root, name) for name in files if name.endswith(".pyc")]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(paths):
            with open(path, "rb") as fh:
                data = bytearray(fh.read())
            data[4:8] = (1).to_bytes(4, "little")  # hash-based, source never checked
            data[8:16] = bytes(8)  # the hash field: unchecked, so zero (deterministic)
            info = zipfile.ZipInfo(os.path.relpath(path, folder), date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, bytes(data))
    return buffer.getvalue()


def stdlib_zip(zipped: str = "") -> bytes:
    """Pyodide's standard library zip with the bytecode of each module this session imported
    from it, for the site to ship in its place (``python/stdlib.zip``).

    Pyodide ships the standard library as sources in a read-only zip, so every boot compiles
    each module it imports from them (much of a boot's time, and nothing can keep it); here
    each such module's ``.pyc`` sits beside its source, where zipimport looks first, marked
    unchecked as in :func:`bytecode_zip`. Entries keep the zip's order; added ones sorted.
    """
    import compileall
    import io
    import sys
    import tempfile
    import zipfile
    from py_compile import PycInvalidationMode

    zipped = zipped or f"/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip"
    files = [str(getattr(m, "__file__", None) or "") for m in list(sys.modules.values())]
    names = sorted({f[len(zipped) + 1 :] for f in files if f.startswith(zipped + "/")})
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(zipped) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
        tempfile.TemporaryDirectory() as tmp,
    ):
        for info in source.infolist():
            archive.writestr(info, source.read(info))
        source.extractall(tmp, names)
        mode = PycInvalidationMode.UNCHECKED_HASH
        compileall.compile_dir(tmp, ddir=zipped, quiet=2, legacy=True, invalidation_mode=mode)
        for name in names:
            info = zipfile.ZipInfo(name + "c", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, Path(tmp, name + "c").read_bytes())
    return buffer.getvalue()


def _failed(status: int, line: str) -> str:
    return json.dumps({"status": status, "data": {"error": " ".join(line.split())[:500]}})
