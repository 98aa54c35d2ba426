"""A workbook with no server (``derive publish``): the static site of a problem set.

The site is the workbook ``derive serve`` shows, with its answers judged in the browser:

* ``index.html`` — the server's page (``static/workbook.html``) with relative links, the
  site's settings, and ``static/publish.js``, which answers the page's API in the browser;
* ``api/…json`` — what ``GET /api/problems``, ``/api/problems/{id}`` and
  ``/api/problems/{id}/steps/{k}`` answer, written from the same prepared
  :class:`~derive.web.book.Workbook` (no step files when hints are off);
* ``static/`` — the page's script and styles, KaTeX, and ``publish-worker.js``, the Web
  Worker that boots Pyodide and judges with derive's own checker
  (:mod:`derive.web.in_browser`);
* ``python/derive-site.zip`` (derive, sympy and the rest, :mod:`derive.web.pack`) and
  ``python/set.json`` (the set as data, :func:`~derive.web.in_browser.set_json`);
* ``pyodide/`` — the Pyodide runtime when published with ``--pyodide PATH``; without it the
  worker loads the pinned release from :data:`PYODIDE_CDN`;
* ``python/derive-bytecode.zip`` — with ``--pyodide`` and Node on the PATH, the site's Python
  compiled by that Pyodide (:func:`compiled_bytecode`), so a first visit boots without
  compiling sympy and derive in the browser; without Node the page compiles them on its first
  visit and keeps the bytecode for the next;
  ``python/stdlib.zip`` beside it, that Pyodide's standard library with the bytecode of the
  modules the judge imports, which the page boots Pyodide with instead of its own;
  ``python/snapshot.gz``, Pyodide's memory with those modules imported (by a Python that never
  read the set), and ``python/files.gz``, the two zips' files in one gzip stream: a first visit
  restores the one and writes the other instead of starting Python and importing.

Everything is built in memory before a byte is written, and the folder is replaced whole.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from derive.errors import OutputError, ProblemError
from derive.problem.sets.problem_set import ProblemSet
from derive.web.book import HIDDEN_NOTE, SetSource, Workbook
from derive.web.in_browser import set_json
from derive.web.pack import python_zip
from derive.web.replies import step_reply

PYODIDE_VERSION = "314.0.7"
"""The Pyodide release a published site runs (its Python is 3.14)."""

PYODIDE_CDN = f"https://cdn.jsdelivr.net/npm/pyodide@{PYODIDE_VERSION}/"
"""Where a site published without ``--pyodide`` loads Pyodide from (the npm package, as served by jsDelivr)."""

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""The files of an npm ``pyodide`` package folder the page loads (the rest are for Node or types)."""

MARKER = ".derive-site"
"""The file that marks a folder as a published workbook (``derive publish`` replaces only those);
after its first line, the names of the files the site wrote, one a line (the rest are the user's)."""

_STATIC_PAGE_FILES = ("workbook.js", "workbook.css", "publish.js", "publish-worker.mjs")


@dataclass(frozen=True)
class Site:
    """A published workbook in memory: files by their path in the site, and files to copy."""

    files: dict[str, bytes]
    copies: dict[str, Path]

    def size(self) -> int:
        """The site's size in bytes."""
        copied = sum(path.stat().st_size for path in self.copies.values())
        return sum(len(b) for b in self.files.values()) + copied


def pyodide_files(folder: str) -> dict[str, Path]:
    """The runtime files of a Pyodide package folder (``npm pack pyodide`` unpacks to ``package/``).

    Raises:
        ProblemError: not such a folder, or a file the page needs is missing.
    """
    root = Path(folder)
    if not root.is_dir():
        raise ProblemError(f"--pyodide {folder}", "is not a folder (give the unpacked npm package)")
    missing = [name for name in PYODIDE_FILES if not (root / name).is_file()]
    if missing:
        raise ProblemError(
            f"--pyodide {folder}",
            f"is not a Pyodide runtime folder: {', '.join(missing)} missing "
            f"(npm pack pyodide@{PYODIDE_VERSION}; tar xzf; give package/)",
        )
    return {f"pyodide/{name}": root / name for name in PYODIDE_FILES}


def _page_html(settings: dict) -> bytes:
    """The server's page, with links relative to the site and the site's settings."""
    page = _static("workbook.html").decode("utf-8")
    page = page.replace('="/static/', '="static/')
    page = re.sub(
        r"<noscript>.*?</noscript>",
        "<noscript>The workbook needs JavaScript (it checks answers in this browser).</noscript>",
        page,
        flags=re.S,
    )
    config = json.dumps(settings, sort_keys=True).replace("<", "\\u003c")
    head = (
        f'<script type="application/json" id="derive-site">{config}</script>\n'
        '<script defer src="static/publish.js"></script>\n'
        '<script defer src="static/workbook.js"></script>'
    )
    page = page.replace('<script defer src="static/workbook.js"></script>', head)
    return page.encode("utf-8")


def _static(name: str) -> bytes:
    return resources.files("derive.web").joinpath("static").joinpath(name).read_bytes()


def _katex() -> dict[str, bytes]:
    """KaTeX as vendored in the package (scripts, styles, fonts), by its path in the site."""
    root = Path(__file__).with_name("static") / "katex"
    files = (path for path in sorted(root.rglob("*")) if path.is_file())
    return {
        f"static/katex/{path.relative_to(root).as_posix()}": path.read_bytes() for path in files
    }


def _json(data: object) -> bytes:
    return (json.dumps(data, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")


def _api_files(book: Workbook, api: str = "api/") -> dict[str, bytes]:
    """What the server's GET routes answer, one file each under ``api`` (steps only when hints
    are on; a step that states an answer, under ``--hide-expected``, withheld: no file holds it)."""
    left_out = "The steps of the worked solution that state an answer are left out of this site."
    shown = {"shown": HIDDEN_NOTE + " " + left_out} if not book.show_expected else {}
    files = {f"{api}problems.json": _json({**book.index(), **shown})}
    for pid, page in book.pages.items():
        files[f"{api}problems/{pid}.json"] = _json(page.detail)
        if book.hints:
            for i in range(len(page.steps_html)):
                reply = step_reply(page, i, book.closed(page, i, ()), served=False)
                files[f"{api}problems/{pid}/steps/{i + 1}.json"] = _json(reply)
    return files


BYTECODE = "python/derive-bytecode.zip"
"""The site's Python compiled by its Pyodide (published with ``--pyodide`` and Node)."""

STDLIB = "python/stdlib.zip"
"""Its Pyodide's standard library with the judge's modules compiled (shipped beside it)."""

SNAPSHOT, FILES = "python/snapshot.gz", "python/files.gz"
"""Pyodide's memory with the judge's modules imported, and the site's Python as one stream."""


def compiled_bytecode(
    packed: bytes, set_text: bytes, pyodide: dict[str, Path]
) -> tuple[bytes, bytes, bytes, list[str]] | None:
    """The bytecode of ``packed`` as the site's Pyodide compiles it, its standard library
    with bytecode (:func:`~derive.web.in_browser.stdlib_zip`), and a memory snapshot with the
    modules the judge imported (gzip; ``b""`` if it cannot be made) and their names; None
    without Node.

    Boots the judge under Node as the page's worker does (``node/compile-bytecode.mjs``),
    warms and checks every problem so each module the judge imports compiles, and returns
    :func:`derive.web.in_browser.bytecode_zip` (deterministic). Then a fresh Pyodide that
    never reads the set imports those modules (``node/make-snapshot.mjs``). A failure to
    compile is not a failure to publish: the page then compiles on its first visit.
    """
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        return None
    runtime = Path(pyodide["pyodide/pyodide.mjs"]).parent
    with tempfile.TemporaryDirectory(prefix="derive-bytecode-") as tmp:
        folder = Path(tmp)
        for name in ("compile-bytecode.mjs", "make-snapshot.mjs"):
            script = resources.files("derive.web").joinpath(f"node/{name}").read_bytes()
            (folder / name).write_bytes(script)
        (folder / "publish-worker.mjs").write_bytes(_static("publish-worker.mjs"))
        (folder / "site.zip").write_bytes(packed)
        (folder / "set.json").write_bytes(set_text)
        out, std, snap = folder / "bytecode.zip", folder / "stdlib.zip", folder / "snapshot"
        argv = [node, str(folder / "compile-bytecode.mjs"), str(folder / "publish-worker.mjs")]
        argv += [str(runtime), *(str(folder / n) for n in ("site.zip", "set.json"))]
        modules = folder / "modules.json"
        try:  # our own scripts on our own files: no user text reaches them
            subprocess.run([*argv, str(out), str(std), str(modules)], check=True, **_QUIET)
            zips = [str(p) for p in (folder / "site.zip", out, std, modules, snap)]
            subprocess.run(
                [node, str(folder / "make-snapshot.mjs"), str(runtime), *zips], check=True, **_QUIET
            )
        except (OSError, subprocess.SubprocessError):
            if not std.is_file():
                return None
        made = gzip.compress(snap.read_bytes(), 6, mtime=0) if snap.is_file() else b""
        names = json.loads(modules.read_text()) if made else []
        return (out.read_bytes(), std.read_bytes(), made, names) if std.is_file() else None


_QUIET: dict = {"capture_output": True, "timeout": 600}


def files_gz(packed: bytes, bytecode: bytes, imported: list[str]) -> bytes:
    """The files of both zips as one gzip stream, which the page unpacks with the browser's own
    gunzip: a little-endian u32, that many bytes of JSON ``[[path, size], …]``, the bodies.
    The bytecode of a module the snapshot has ``imported`` is left out (never read again)."""
    index, bodies, skip = [], [], set(imported)
    for data in (packed, bytecode):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                folder, _, name = info.filename.rpartition("/__pycache__/")
                module = ".".join([*folder.split("/"), name.split(".")[0]]).removesuffix(
                    ".__init__"
                )
                if name and module in skip:
                    continue
                bodies.append(archive.read(info))
                index.append([info.filename, len(bodies[-1])])
    head = json.dumps(index, separators=(",", ":")).encode()
    return gzip.compress(len(head).to_bytes(4, "little") + head + b"".join(bodies), 6, mtime=0)


def build_site(
    source: SetSource,
    pset: ProblemSet,
    book: Workbook | list[Workbook],
    pyodide: dict[str, Path] | None = None,
    timeout: float = 5.0,
) -> Site:
    """The published site of a prepared workbook (nothing written yet).

    Args:
        source: the set as read (its text travels as data).
        pset: the set, parsed (its operator files travel only when it was trusted).
        book: the pages, prepared as ``derive serve`` prepares them; or each variant's
            (:func:`~derive.web.book.build_workbooks`): their files go under ``api/w<k>/``,
            one folder per distinct workbook, and the page picks the student's.
        pyodide: the runtime files to ship (:func:`pyodide_files`); None: load from the CDN.
        timeout: the time limit of one check in seconds, enforced by the page.
    """
    books = book if isinstance(book, list) else [book]
    distinct = list({id(b): b for b in books}.values())
    book = books[0]
    packed = python_zip()
    set_text = set_json(source, pset, not book.show_expected).encode("utf-8")
    compiled = compiled_bytecode(packed, set_text, pyodide) if pyodide else None
    bytecode, stdlib, snapshot, imported = compiled or (None, None, b"", [])
    snapshots = {}
    if snapshot and bytecode:
        snapshots = {SNAPSHOT: snapshot, FILES: files_gz(packed, bytecode, imported)}
    settings: dict[str, object] = {
        "pyodide": "pyodide/" if pyodide else PYODIDE_CDN,
        "python_sha256": hashlib.sha256(packed).hexdigest(),
        "pyodide_version": PYODIDE_VERSION,
        "timeout_s": timeout,
        "title": book.title,
        "bytecode": BYTECODE if bytecode is not None else None,
        "bytecode_sha256": hashlib.sha256(bytecode).hexdigest() if bytecode is not None else None,
        "stdlib": STDLIB if stdlib is not None else None,
        **{k: v for name, data in snapshots.items() for k, v in _shipped(name, data).items()},
    }
    if pset.variants is not None:
        at = [distinct.index(b) for b in books]
        settings["variants"] = {"count": len(books), "seed": pset.variants.seed, "books": at}
    api = {k: v for i, b in enumerate(distinct) for k, v in _api_files(b, f"api/w{i}/").items()}
    files = {
        "index.html": _page_html(settings),
        "python/derive-site.zip": packed,
        "python/set.json": set_text,
        **dict(zip((BYTECODE, STDLIB), compiled or ())),  # the fallback: boots without snapshot
        **snapshots,
        **{f"static/{name}": _static(name) for name in _STATIC_PAGE_FILES},
        **_katex(),
        **(api if pset.variants is not None else _api_files(book)),
    }
    names = "".join(f"{name}\n" for name in sorted([*files, *(pyodide or {})]))
    files[MARKER] = f"derive publish: {book.title}\n{names}".encode()
    return Site(dict(sorted(files.items())), dict(pyodide or {}))


def _shipped(name: str, data: bytes) -> dict[str, str]:
    """A file's settings: ``snapshot``/``files`` (its path) and its sha256."""
    key = Path(name).stem
    return {key: name, f"{key}_sha256": hashlib.sha256(data).hexdigest()}


def write_site(site: Site, out: Path) -> None:
    """Write the site into ``out``, replacing a site published there before, whole.

    The files go into a new folder beside ``out`` (``.derive-publish-*``), with a copy of each
    file of ``out`` the earlier site did not write (the user's: ``CNAME``, ``.nojekyll``, notes),
    then the two folders swap in one step (``renameat2``'s exchange; where the system has none,
    two renames, the earlier site parked in ``.derive-old-*``). A kill leaves the earlier site
    or the new one; the next run restores a parked site whose ``-o`` is missing and removes
    what a kill left beside it.

    Raises:
        OutputError: ``out`` exists and is not an empty folder or a published workbook; a file
            of the user's has the name of one the site writes.
    """
    what = f"-o {out}"
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise OutputError(what, "is not a folder")
    parent = out.resolve().parent
    _heal(parent, out)
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise OutputError(
            what, f"is a folder that is not a published workbook (no {MARKER}); give a new folder"
        )
    kept = _users_files(out, site) if (out / MARKER).is_file() else []  # an empty -o: none
    clash = sorted(set(kept) & {*site.files, *site.copies})
    if clash:
        raise OutputError(
            f"{what}: {', '.join(clash[:3])}", "your file has the name of one the site writes"
        )
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".derive-publish-", dir=parent))
    except OSError as exc:
        raise OutputError(what, f"cannot write: {exc.strerror or exc}") from None
    try:
        for name, data in site.files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        for name, source in [*site.copies.items(), *((n, out / n) for n in kept)]:
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, path, follow_symlinks=name not in kept)  # a link stays one
        staging.chmod(0o755)
        if not out.exists():
            staging.rename(out)
        elif _exchange(staging, out):  # staging now holds the earlier site
            shutil.rmtree(staging, ignore_errors=True)
        else:
            old = Path(tempfile.mkdtemp(prefix=".derive-old-", dir=parent))
            out.rename(old / out.name)
            staging.rename(out)
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(what, f"cannot write: {exc.strerror or exc}") from None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or the file system cannot."""
    import ctypes
    import errno
    import os

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_cwd, exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _heal(parent: Path, out: Path) -> None:
    """Restore a site a kill left parked (``.derive-old-*/NAME``, ``NAME`` missing), and remove
    the folders a kill left beside the sites of ``parent`` (``.derive-publish-*``, ``.derive-old-*``)."""
    if not parent.is_dir():
        return
    for folder in sorted(parent.glob(".derive-old-*")):
        for site in folder.iterdir() if folder.is_dir() else ():
            home = out if site.name == "site" else parent / site.name  # "site": derive before 0.2
            if (site / MARKER).is_file() and not home.exists():
                site.rename(home)
    for folder in (*parent.glob(".derive-publish-*"), *parent.glob(".derive-old-*")):
        shutil.rmtree(folder, ignore_errors=True)


def _users_files(out: Path, site: Site) -> list[str]:
    """The files of ``out`` the site there did not write, by their path in the site."""
    lines = (out / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    ours = set(lines) or {*site.files, *site.copies}  # a marker without names: derive before 0.2
    owned = () if lines else {name.split("/")[0] for name in ours if "/" in name}
    found = (p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() or p.is_symlink())
    mine = (n for n in found if n != MARKER and n not in ours and n.split("/")[0] not in owned)
    return sorted(mine)
